#pragma once
// An 8-bit one-channel image written to a NumPy .npy file band by band, for
// images too large to hold (glccl generate past 32768 on a side): the header
// first, then the rows in order. The file is uint8 ('|u1') of shape
// (height, width), as writeImageNpy writes an 8-bit image, and it is written
// all or nothing like every writer of image_io.hpp: the rows go to a
// temporary file beside the target, which takes the target's name only when
// close() finds every row written.

#include <cstdint>
#include <memory>
#include <string>

namespace glccl {

class NpyImageWriter {
public:
    // Throws glccl::Error ("glccl::NpyImageWriter(): ...") for a side below
    // 1 or above 2^31 - 1, an existing target without `overwrite`, or a
    // folder that cannot take the temporary file.
    NpyImageWriter(const std::string& path, std::int64_t width, std::int64_t height, bool overwrite);
    NpyImageWriter(const NpyImageWriter&) = delete;
    NpyImageWriter& operator=(const NpyImageWriter&) = delete;
    // Without close(): the temporary file is removed, the target untouched.
    ~NpyImageWriter();

    // Appends `count` rows (count x width bytes). Throws glccl::Error for
    // more rows than the image has left, or a failed write.
    void writeRows(const std::uint8_t* rows, std::int64_t count);
    // Commits the file; throws glccl::Error unless every row was written.
    void close();

private:
    struct File;
    std::int64_t width_ = 0, height_ = 0, written_ = 0;
    std::unique_ptr<File> file_;
};

}  // namespace glccl
