#include "byte_source.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>

#include "glccl/error.hpp"
#include "glccl/output_transaction.hpp"

namespace glccl::detail {

ByteSource::ByteSource(const std::string& where, const std::string& path) : name_(path) {
    const std::string quoted = "'" + path + "'";
    // Looked at before opening: opening a FIFO waits for a writer, and a
    // device or pipe has no size to check a header against.
    const std::string kind = notReplaceableKind(path);
    if (!kind.empty() && kind != "a directory" && kind.find("missing") == std::string::npos)
        throw Error(where + quoted + " is " + kind + "; images and volumes are read from regular files");
    errno = 0;
    file_ = std::fopen(path.c_str(), "rb");
    if (file_ == nullptr) throw Error(where + "cannot open " + quoted + ": " + std::strerror(errno));
    // The size from the open file itself, so that it is the size of what is
    // read even if the name is replaced meanwhile.
    struct stat status {};
    if (::fstat(::fileno(file_), &status) != 0) {
        const int error = errno;
        std::fclose(file_);
        throw Error(where + "cannot read the size of " + quoted + ": " + std::strerror(error));
    }
    if (S_ISDIR(status.st_mode)) {
        std::fclose(file_);
        throw Error(where + quoted + " is a directory, not an image");
    }
    size_ = std::uint64_t(status.st_size);
    // Files of /proc and /sys say 0 bytes and still have content: not empty,
    // but nothing whose size can be trusted.
    if (size_ == 0 && std::fgetc(file_) != EOF) {
        std::fclose(file_);
        throw Error(where + quoted + " reports a size of 0 bytes but has content (as files of /proc and /sys "
                    "do); copy it to a regular file first");
    }
}

ByteSource::ByteSource(const void* data, std::size_t size, std::string name)
    : data_(static_cast<const std::uint8_t*>(data)), size_(size), name_(std::move(name)) {}

ByteSource::~ByteSource() {
    if (file_ != nullptr) std::fclose(file_);
}

std::size_t ByteSource::read(void* out, std::size_t size) {
    if (size == 0 || position_ >= size_) return 0;
    std::size_t count = 0;
    if (file_ != nullptr) {
        count = std::fread(out, 1, size, file_);
    } else {
        count = std::size_t(std::min<std::uint64_t>(size, size_ - position_));
        std::memcpy(out, data_ + position_, count);
    }
    position_ += count;
    return count;
}

bool ByteSource::seek(std::uint64_t offset) {
    if (offset > size_) return false;
    if (file_ != nullptr && ::fseeko(file_, off_t(offset), SEEK_SET) != 0) return false;
    position_ = offset;
    return true;
}

}  // namespace glccl::detail
