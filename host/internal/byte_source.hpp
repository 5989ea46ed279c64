#pragma once
// The bytes of one encoded image, from a file or from memory, for the
// decoders behind glccl::readImage and glccl::readImageFromMemory: they read
// through this one interface, so a fuzzer feeding memory runs exactly the
// code that reads files.

#include <cstdint>
#include <cstdio>
#include <string>

namespace glccl::detail {

class ByteSource {
public:
    // Opens `path` for reading; throws glccl::Error (prefixed by `where`) when
    // it is a folder, cannot be opened or sized.
    ByteSource(const std::string& where, const std::string& path);
    // Reads `size` bytes at `data`, which must outlive the source.
    ByteSource(const void* data, std::size_t size, std::string name);
    ~ByteSource();
    ByteSource(const ByteSource&) = delete;
    ByteSource& operator=(const ByteSource&) = delete;

    // Copies up to `size` bytes from the current position; returns how many
    // (fewer only at the end of the data or on a read error).
    std::size_t read(void* out, std::size_t size);
    // Moves to `offset` from the start; false past the end.
    bool seek(std::uint64_t offset);
    std::uint64_t tell() const { return position_; }
    std::uint64_t size() const { return size_; }
    // The path, or the name given for memory, for messages.
    const std::string& name() const { return name_; }

private:
    std::FILE* file_ = nullptr;
    const std::uint8_t* data_ = nullptr;
    std::uint64_t size_ = 0;
    std::uint64_t position_ = 0;
    std::string name_;
};

}  // namespace glccl::detail
