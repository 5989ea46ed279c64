#pragma once
// A file being written all or nothing, shared by every writer of image_io
// and the tile sinks; the transaction that commits several of them together
// is glccl/output_transaction.hpp.

#include <cstdio>
#include <string>
#include <string_view>

#include "glccl/types.hpp"

namespace glccl::detail {

// The bytes go to a temporary file '.NAME.glccl-PID-N' beside the target
// (same folder, so same file system), and only a complete, flushed file
// takes the target's name: by rename() when overwriting is allowed, else by
// link(), which refuses an existing target atomically. While an
// OutputTransaction is open, close() leaves the file waiting for its
// commit. Only a regular file (or a symbolic link to one, whose file is
// replaced) is a target: anything else is refused at construction. A failed
// or interrupted write leaves the target as it was. Errors are glccl::Error
// prefixed by `where`.
class OutputFile {
public:
    OutputFile(std::string where, const std::string& path, bool overwrite);
    OutputFile(const OutputFile&) = delete;
    OutputFile& operator=(const OutputFile&) = delete;
    // Without close(): the temporary file is removed, the target untouched.
    ~OutputFile();

    void write(const void* data, std::size_t size);
    void write(std::string_view text) { write(text.data(), text.size()); }
    // The open temporary file (read and write), for writers that seek, such
    // as libtiff's; valid until close().
    std::FILE* stream() const { return file_; }
    const std::string& path() const { return path_; }
    // The hidden temporary's path, for writers that reach it by name too
    // (the ranks of glccl-mpi write it through MPI-IO); valid until close().
    const std::string& temporaryPath() const { return temporary_; }
    // Flushes, closes and renames (or hands the file to the open
    // transaction); throws when any of that fails.
    void close();

private:
    void discard();

    std::string where_;
    std::string path_;      // as given, for messages
    std::string target_;    // the file replaced: path_, or the file a link names
    std::string temporary_;
    int slot_ = -1;         // in the table the signal handlers clean up
    bool overwrite_ = false;
    std::FILE* file_ = nullptr;
};

// Throws glccl::Error (prefixed by `where`) unless the labeling has a size
// of at least 1x1 and one label per pixel.
void checkLabeling(const std::string& where, const Labeling& labeling);

}  // namespace glccl::detail
