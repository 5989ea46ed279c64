#include "output_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "glccl/error.hpp"

namespace glccl::detail {

namespace {

std::string inQuotes(const std::string& path) { return "'" + path + "'"; }

}  // namespace

OutputFile::OutputFile(std::string where, const std::string& path, bool overwrite)
    : where_(std::move(where)), path_(path), overwrite_(overwrite) {
    if (!overwrite && ::access(path.c_str(), F_OK) == 0)
        throw Error(where_ + inQuotes(path) + " already exists; use --force (overwrite = true) to replace it");
    const std::filesystem::path target(path);
    const std::filesystem::path folder = target.has_parent_path() ? target.parent_path() : ".";
    // A fresh name per attempt; O_EXCL never reuses a file, and the mode
    // 0666 lets the umask decide the permissions, as for any new file.
    static std::atomic<unsigned> serial{0};
    int descriptor = -1;
    for (int attempt = 0; attempt < 100 && descriptor < 0; ++attempt) {
        temporary_ = (folder / ("." + target.filename().string() + ".glccl-" + std::to_string(::getpid()) + "-" +
                                std::to_string(serial++)))
                         .string();
        errno = 0;
        descriptor = ::open(temporary_.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (descriptor < 0 && errno != EEXIST) break;
    }
    if (descriptor < 0) throw Error(where_ + "cannot create " + inQuotes(path) + ": " + std::strerror(errno));
    file_ = ::fdopen(descriptor, "w+b");
    if (file_ == nullptr) {
        const int error = errno;
        ::close(descriptor);
        std::remove(temporary_.c_str());
        throw Error(where_ + "cannot create " + inQuotes(path) + ": " + std::strerror(error));
    }
}

OutputFile::~OutputFile() {
    if (file_ == nullptr) return;
    std::fclose(file_);
    std::remove(temporary_.c_str());
}

void OutputFile::write(const void* data, std::size_t size) {
    if (size == 0) return;
    errno = 0;
    if (std::fwrite(data, 1, size, file_) != size) {
        throw Error(where_ + "cannot write " + inQuotes(path_) + ": " + std::strerror(errno));
    }
}

void OutputFile::close() {
    std::FILE* file = file_;
    file_ = nullptr;
    // The last buffered bytes reach the disk only now: a full disk is often
    // reported by fflush or fclose, not by fwrite.
    errno = 0;
    const bool flushed = std::fflush(file) == 0;
    int error = errno;
    const bool closed = std::fclose(file) == 0;
    if (flushed && !closed) error = errno;
    if (!flushed || !closed) {
        std::remove(temporary_.c_str());
        throw Error(where_ + "cannot finish writing " + inQuotes(path_) + ": " + std::strerror(error));
    }
    errno = 0;
    const bool named = overwrite_ ? ::rename(temporary_.c_str(), path_.c_str()) == 0
                                  : ::link(temporary_.c_str(), path_.c_str()) == 0;
    error = errno;
    if (!overwrite_ || !named) std::remove(temporary_.c_str());
    if (!named && !overwrite_ && error == EEXIST)
        throw Error(where_ + inQuotes(path_) + " already exists; use --force (overwrite = true) to replace it");
    if (!named) throw Error(where_ + "cannot finish writing " + inQuotes(path_) + ": " + std::strerror(error));
}

void checkLabeling(const std::string& where, const Labeling& labeling) {
    const bool depthFits = labeling.dimensions == 3 ? labeling.depth >= 1 : labeling.dimensions == 2 && labeling.depth == 1;
    if (labeling.width <= 0 || labeling.height <= 0 || !depthFits ||
        labeling.labels.size() != labeling.shape().count()) {
        throw Error(where + "invalid labeling: " + std::to_string(labeling.width) + "x" +
                    std::to_string(labeling.height) +
                    (labeling.dimensions == 3 ? "x" + std::to_string(labeling.depth) : std::string()) + " with " +
                    std::to_string(labeling.labels.size()) + " labels");
    }
}

}  // namespace glccl::detail
