#include "glccl/npy_image_writer.hpp"

#include "glccl/error.hpp"
#include "npy_format.hpp"
#include "output_file.hpp"

namespace glccl {

namespace {

constexpr std::int64_t kMaxNpySide = 0x7FFFFFFF;

}  // namespace

struct NpyImageWriter::File {
    File(const std::string& where, const std::string& path, bool overwrite) : output(where, path, overwrite) {}
    detail::OutputFile output;
};

NpyImageWriter::NpyImageWriter(const std::string& path, std::int64_t width, std::int64_t height, bool overwrite)
    : width_(width), height_(height) {
    const std::string where = "glccl::NpyImageWriter(): ";
    if (width < 1 || height < 1 || width > kMaxNpySide || height > kMaxNpySide)
        throw Error(where + "size " + std::to_string(width) + "x" + std::to_string(height) + " is outside 1.." +
                    std::to_string(kMaxNpySide) + " on a side");
    file_ = std::make_unique<File>(where, path, overwrite);
    file_->output.write(detail::npyHeaderBytes("|u1", "(" + std::to_string(height) + ", " + std::to_string(width) + ")"));
}

NpyImageWriter::~NpyImageWriter() = default;

void NpyImageWriter::writeRows(const std::uint8_t* rows, std::int64_t count) {
    if (count < 0 || count > height_ - written_)
        throw Error("glccl::NpyImageWriter::writeRows(): " + std::to_string(count) + " rows after " +
                    std::to_string(written_) + " of " + std::to_string(height_));
    file_->output.write(rows, std::size_t(count) * std::size_t(width_));
    written_ += count;
}

void NpyImageWriter::close() {
    if (written_ != height_)
        throw Error("glccl::NpyImageWriter::close(): " + std::to_string(written_) + " of " + std::to_string(height_) +
                    " rows written");
    file_->output.close();
}

}  // namespace glccl
