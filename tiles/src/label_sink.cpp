#include "glccl/label_sink.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include "glccl/error.hpp"
#include "glccl/output_transaction.hpp"
#include "npy_format.hpp"
#include "output_file.hpp"
#include "small_helpers.hpp"

namespace glccl {

const char* labelTypeName(LabelType type) {
    switch (type) {
        case LabelType::Auto: return "auto";
        case LabelType::Uint32: return "uint32";
        case LabelType::Uint64: return "uint64";
    }
    return "unknown";
}

LabelType parseLabelType(std::string_view text) {
    if (text == "auto") return LabelType::Auto;
    if (text == "uint32") return LabelType::Uint32;
    if (text == "uint64") return LabelType::Uint64;
    throw Error("glccl::parseLabelType(): unknown label type '" + std::string(text) +
                "'; expected \"auto\", \"uint32\" or \"uint64\"");
}

LabelType decideLabelType(LabelType requested, std::uint64_t count, std::uint64_t uint32Limit,
                          const std::string& where) {
    if (requested == LabelType::Uint64) return LabelType::Uint64;
    if (count <= uint32Limit) return LabelType::Uint32;
    if (requested == LabelType::Uint32)
        throw Error(where + "the image has " + std::to_string(count) + " components but uint32 labels hold at most " +
                    std::to_string(uint32Limit) + "; use the label type uint64 (or auto)");
    return LabelType::Uint64;
}

std::string labelsNpyHeader(std::uint32_t width, std::uint32_t height, LabelType type) {
    return detail::npyHeaderBytes(type == LabelType::Uint64 ? "<u8" : "<u4",
                                  "(" + std::to_string(height) + ", " + std::to_string(width) + ")");
}

std::string labelsNpyHeader(const Shape& shape, LabelType type) {
    if (shape.dimensions != 3) return labelsNpyHeader(std::uint32_t(shape.width), std::uint32_t(shape.height), type);
    return detail::npyHeaderBytes(type == LabelType::Uint64 ? "<u8" : "<u4",
                                  "(" + std::to_string(shape.depth) + ", " + std::to_string(shape.height) + ", " +
                                      std::to_string(shape.width) + ")");
}

void LabelSink::begin(const Shape& shape, LabelType type, std::uint64_t count) {
    if (shape.dimensions == 3)
        throw Error("glccl::LabelSink::begin(): this sink takes 2-D images, not a " + std::to_string(shape.width) +
                    "x" + std::to_string(shape.height) + "x" + std::to_string(shape.depth) + " volume");
    begin(std::uint32_t(shape.width), std::uint32_t(shape.height), type, count);
}

// ---------------------------------------------------------------- Labeling

namespace {

void requireUint32(LabelType type, std::uint64_t count) {
    if (type != LabelType::Uint32 || count > UINT32_MAX)
        throw Error("glccl::labelTiled(): " + std::to_string(count) +
                    " components need uint64 labels, which a glccl::Labeling does not hold; label into an "
                    ".npy file (glccl::NpyLabelSink) instead");
}

}  // namespace

void LabelStorageSink::begin(std::uint32_t width, std::uint32_t height, LabelType type, std::uint64_t count) {
    begin(Shape::image(width, height), type, count);
}

void LabelStorageSink::begin(const Shape& shape, LabelType type, std::uint64_t count) {
    requireUint32(type, count);
    width_ = std::size_t(shape.width);
    components_->assign(std::size_t(count), Component());
}

void LabelStorageSink::writeRows(std::uint32_t y0, std::uint32_t rows, const void* labels) {
    std::memcpy(labels_ + std::size_t(y0) * width_, labels, std::size_t(rows) * width_ * sizeof(std::uint32_t));
}

void LabelStorageSink::writeComponents(std::uint64_t firstLabel, const std::vector<Component>& components) {
    std::copy(components.begin(), components.end(), components_->begin() + std::ptrdiff_t(firstLabel - 1));
}

void LabelingSink::begin(const Shape& shape, LabelType type, std::uint64_t count) {
    requireUint32(type, count);  // before the labels are allocated
    labeling_ = Labeling();
    labeling_.width = int(shape.width);
    labeling_.height = int(shape.height);
    labeling_.depth = int(shape.depth);
    labeling_.dimensions = shape.dimensions;
    labeling_.labels.assign(std::size_t(shape.count()), 0);
    writeInto(labeling_.labels.data(), labeling_.components);
    LabelStorageSink::begin(shape, type, count);
}

// ---------------------------------------------------------------- .npy

namespace {


// The buffer of each file, for rows that arrive in bands of megabytes, and
// the table's text gathered before it is written.
constexpr std::size_t kFileBufferBytes = std::size_t(1) << 22;
constexpr std::size_t kTableTextBytes = std::size_t(1) << 20;

// A file written all or nothing, as glccl's other writers do
// (host/src/output_file.hpp), with a buffer of kFileBufferBytes.
std::unique_ptr<detail::OutputFile> stagedFile(const std::string& path, bool overwrite) {
    auto file = std::make_unique<detail::OutputFile>("glccl::NpyLabelSink: ", path, overwrite);
    std::setvbuf(file->stream(), nullptr, _IOFBF, kFileBufferBytes);
    return file;
}

}  // namespace

// Hands a file's bytes to the disk as they are written instead of leaving
// the page cache to hold them until the end: every kChunk written goes to
// the disk at once (sync_file_range), and what lies more than kWindow behind
// the end is waited for and dropped from the page cache. So the disk writes
// while the labels are computed, dirty pages never pile up (the kernel
// would start writing only past its dirty ratio, then stall the writer),
// the input keeps its place in the page cache for the second pass, and the
// fdatasync of finish() waits for the last window only. Outside the unnamed
// namespace, as the type of a member of NpyLabelSink::Impl (external linkage).
class NpyWriteback {
public:
    NpyWriteback(std::FILE* stream, const std::string& path) : stream_(stream), path_(path) {}

    // The bytes written through the stream so far are to reach the disk.
    void advance() {
        flush();
        const off_t end = ::lseek(::fileno(stream_), 0, SEEK_CUR);
        if (end < 0) fail("cannot find the end of", errno);
        while (std::uint64_t(end) - started_ >= kChunk) {
            rangeToDisk(started_, SYNC_FILE_RANGE_WRITE);
            started_ += kChunk;
        }
        while (started_ - settled_ > kWindow) {
            rangeToDisk(settled_, SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE | SYNC_FILE_RANGE_WAIT_AFTER);
            (void)::posix_fadvise(::fileno(stream_), off_t(settled_), off_t(kChunk), POSIX_FADV_DONTNEED);
            settled_ += kChunk;
        }
    }

    // All of the file on the disk.
    void finish() {
        flush();
        if (::fdatasync(::fileno(stream_)) != 0) fail("cannot write", errno);
    }

private:
    static constexpr std::uint64_t kChunk = std::uint64_t(32) << 20;
    static constexpr std::uint64_t kWindow = std::uint64_t(256) << 20;

    void flush() {
        errno = 0;
        if (std::fflush(stream_) != 0) fail("cannot write", errno);
    }
    void rangeToDisk(std::uint64_t offset, unsigned flags) {
        if (::sync_file_range(::fileno(stream_), off_t(offset), off_t(kChunk), flags) != 0) fail("cannot write", errno);
    }
    [[noreturn]] void fail(const char* what, int error) {
        throw Error(std::string("glccl::NpyLabelSink: ") + what + " " + inQuotes(path_) + ": " + std::strerror(error));
    }

    std::FILE* stream_;
    std::string path_;
    std::uint64_t started_ = 0;  // bytes handed to the disk
    std::uint64_t settled_ = 0;  // bytes on the disk and out of the page cache
};

struct NpyLabelSink::Impl {
    std::string labelsPath, statsPath;
    bool overwrite = false;
    std::size_t keptComponents = 0;
    std::unique_ptr<detail::OutputFile> labels, stats;
    std::unique_ptr<NpyWriteback> labelsWriteback;
    std::uint32_t width = 0, height = 0, nextRow = 0;  // height: lines of a volume
    bool volume = false;
    std::uint64_t nextLabel = 1, count = 0;
    LabelType type = LabelType::Uint32;
    std::string text;
};

std::string NpyLabelSink::labelsFile() const { return impl_->labelsPath; }

std::uint64_t NpyLabelSink::bufferBytes() const {
    // A row of text past the gathered bytes before they are written, and
    // the string's doubling: twice the text.
    const Impl& impl = *impl_;
    return (impl.labelsPath.empty() ? 0 : kFileBufferBytes) +
           (impl.statsPath.empty() ? 0 : kFileBufferBytes + 2 * kTableTextBytes) +
           impl.keptComponents * sizeof(Component);
}

NpyLabelSink::NpyLabelSink(std::string labelsPath, std::string statsPath, bool overwrite, std::size_t keptComponents)
    : impl_(std::make_unique<Impl>()) {
    impl_->labelsPath = std::move(labelsPath);
    impl_->statsPath = std::move(statsPath);
    impl_->overwrite = overwrite;
    impl_->keptComponents = keptComponents;
    for (const std::string* path : {&impl_->labelsPath, &impl_->statsPath})
        if (!path->empty() && !overwrite && ::access(path->c_str(), F_OK) == 0)
            throw Error("glccl::NpyLabelSink: " + inQuotes(*path) +
                        " already exists; use --force (overwrite = true) to replace it");
}

NpyLabelSink::~NpyLabelSink() = default;

bool NpyLabelSink::wantsLabels() const { return !impl_->labelsPath.empty(); }

bool NpyLabelSink::wantsTable() const { return !impl_->statsPath.empty() || impl_->keptComponents > 0; }

void NpyLabelSink::begin(std::uint32_t width, std::uint32_t height, LabelType type, std::uint64_t count) {
    begin(Shape::image(width, height), type, count);
}

void NpyLabelSink::begin(const Shape& shape, LabelType type, std::uint64_t count) {
    Impl& impl = *impl_;
    impl.width = std::uint32_t(shape.width);
    impl.height = std::uint32_t(shape.height * shape.depth);
    impl.volume = shape.dimensions == 3;
    impl.type = type;
    impl.count = count;
    kept_.clear();
    if (!impl.labelsPath.empty()) {
        impl.labels = stagedFile(impl.labelsPath, impl.overwrite);
        const std::string header = labelsNpyHeader(shape, type);
        impl.labels->write(header.data(), header.size());
        impl.labelsWriteback = std::make_unique<NpyWriteback>(impl.labels->stream(), impl.labelsPath);
    }
    if (!impl.statsPath.empty()) {
        impl.stats = stagedFile(impl.statsPath, impl.overwrite);
        impl.text = impl.volume ? kVolumeStatsCsvHeader : kStatsCsvHeader;
    }
}

void NpyLabelSink::writeRows(std::uint32_t y0, std::uint32_t rows, const void* labels) {
    Impl& impl = *impl_;
    if (y0 != impl.nextRow)
        throw Error("glccl::NpyLabelSink::writeRows(): rows must come in order: expected row " +
                    std::to_string(impl.nextRow) + ", got " + std::to_string(y0));
    impl.nextRow += rows;
    if (!impl.labels) return;
    impl.labels->write(labels, std::size_t(rows) * impl.width * labelBytes(impl.type));
    impl.labelsWriteback->advance();
}

void NpyLabelSink::writeComponents(std::uint64_t firstLabel, const std::vector<Component>& components) {
    Impl& impl = *impl_;
    if (firstLabel != impl.nextLabel)
        throw Error("glccl::NpyLabelSink::writeComponents(): table rows must come in label order: expected label " +
                    std::to_string(impl.nextLabel) + ", got " + std::to_string(firstLabel));
    for (std::size_t i = 0; i < components.size(); ++i) {
        if (kept_.size() < impl.keptComponents) kept_.push_back(components[i]);
        if (!impl.stats) continue;
        if (impl.volume) appendVolumeStatsCsvRow(impl.text, firstLabel + i, components[i]);
        else appendStatsCsvRow(impl.text, firstLabel + i, components[i]);
        if (impl.text.size() >= kTableTextBytes) {
            impl.stats->write(impl.text.data(), impl.text.size());
            impl.text.clear();
        }
    }
    impl.nextLabel += components.size();
}

void NpyLabelSink::finish() {
    Impl& impl = *impl_;
    if (impl.nextRow != impl.height)
        throw Error("glccl::NpyLabelSink::finish(): " + std::to_string(impl.nextRow) + " of " +
                    std::to_string(impl.height) + " rows were written");
    if (impl.stats && impl.nextLabel != impl.count + 1)
        throw Error("glccl::NpyLabelSink::finish(): " + std::to_string(impl.nextLabel - 1) + " of " +
                    std::to_string(impl.count) + " table rows were written");
    if (impl.stats) impl.stats->write(impl.text.data(), impl.text.size());
    // The files are on the disk before they take their names: a run that
    // ends has written its labels, and its time says so.
    if (impl.labels) impl.labelsWriteback->finish();
    if (impl.stats) NpyWriteback(impl.stats->stream(), impl.statsPath).finish();
    // All or nothing across the outputs too: no labels without their table,
    // and a caller's own transaction (the glccl command's) takes both in.
    OutputTransaction transaction;
    if (impl.labels) impl.labels->close();
    if (impl.stats) impl.stats->close();
    transaction.commit();
}

}  // namespace glccl
