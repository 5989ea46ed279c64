// Where tile labels wait between pass 1 and pass 2: memory, or a temporary
// file when the image's labels do not fit the memory limit. Both keep a
// tile's labels contiguous (TilePlan::storageOffset), so a tile is one read.

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <system_error>
#include <vector>

#include "glccl/error.hpp"
#include "glccl/tile_pipeline.hpp"

namespace glccl {

namespace {

// The region's first pixel in the storage layout (a band is whole lines):
// stores hold only their bands.
std::uint64_t regionStart(const TilePlan& plan, std::uint32_t firstBand) {
    return std::uint64_t(plan.bandTop(firstBand)) * plan.imageWidth();
}
std::uint64_t regionPixels(const TilePlan& plan, std::uint32_t firstBand, std::uint32_t endBand) {
    const std::uint64_t end = endBand >= plan.bands() ? plan.lineCount() : plan.bandTop(endBand);
    return (end - plan.bandTop(firstBand)) * plan.imageWidth();
}

class MemoryLabelStore : public TileLabelStore {
public:
    // Left uninitialized: every tile's put() writes its labels before any
    // getRows() reads them, so zeroing the store first would only be one
    // more pass over memory (tens of gigabytes for a large volume).
    MemoryLabelStore(const TilePlan& plan, std::uint32_t firstBand, std::uint32_t endBand)
        : plan_(plan), start_(regionStart(plan, firstBand)),
          labels_(new std::uint32_t[regionPixels(plan, firstBand, endBand)]) {}
    void put(const TileRect& tile, const std::uint32_t* labels) override {
        std::memcpy(labels_.get() + (plan_.storageOffset(tile) - start_), labels, tile.pixels() * 4);
    }
    void getRows(const TileRect& tile, std::uint32_t firstRow, std::uint32_t rows,
                 std::uint32_t* labels) const override {
        std::memcpy(labels, labels_.get() + (plan_.storageOffset(tile) - start_) + std::uint64_t(firstRow) * tile.width,
                    std::uint64_t(rows) * tile.width * 4);
    }
    bool spilled() const override { return false; }

private:
    TilePlan plan_;
    std::uint64_t start_;
    std::unique_ptr<std::uint32_t[]> labels_;
};

// The system's temporary folder: the standard library's answer follows the
// POSIX convention ($TMPDIR, else /tmp), so the spill file goes where every
// other program's temporary files go without the library reading the
// environment itself.
std::string temporaryFolder() {
    std::error_code error;
    const std::filesystem::path folder = std::filesystem::temp_directory_path(error);
    if (error)
        throw Error("glccl::labelTiled(): no temporary folder for tile labels: " + error.message() +
                    " (check TMPDIR, or choose a folder: TiledOptions::tempDir, --temp-dir)");
    return folder.string();
}

// An unnamed file: O_TMPFILE where the file system has it, else a named one
// unlinked at once. Either way nothing is left behind, even after a crash.
class SpillLabelStore : public TileLabelStore {
public:
    SpillLabelStore(const TilePlan& plan, std::uint32_t firstBand, const std::string& folder)
        : plan_(plan), start_(regionStart(plan, firstBand)) {
        const std::string dir = folder.empty() ? temporaryFolder() : folder;
        errno = 0;
        descriptor_ = ::open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
        if (descriptor_ < 0) {
            std::string name = dir + "/.glccl-tiles-XXXXXX";
            descriptor_ = ::mkstemp(name.data());
            if (descriptor_ >= 0) ::unlink(name.c_str());
        }
        if (descriptor_ < 0)
            throw Error("glccl::labelTiled(): cannot create the temporary file for tile labels in '" + dir +
                        "': " + std::strerror(errno) + " (choose another folder: TiledOptions::tempDir, --temp-dir)");
        folder_ = dir;
    }
    ~SpillLabelStore() override { ::close(descriptor_); }

    void put(const TileRect& tile, const std::uint32_t* labels) override {
        transfer(plan_.storageOffset(tile), tile.pixels(), const_cast<std::uint32_t*>(labels), true);
    }
    void getRows(const TileRect& tile, std::uint32_t firstRow, std::uint32_t rows,
                 std::uint32_t* labels) const override {
        transfer(plan_.storageOffset(tile) + std::uint64_t(firstRow) * tile.width, std::uint64_t(rows) * tile.width,
                 labels, false);
    }
    bool spilled() const override { return true; }

private:
    // Labels [first, first + count) of the storage layout, in or out.
    void transfer(std::uint64_t first, std::uint64_t count, std::uint32_t* labels, bool write) const {
        auto* bytes = reinterpret_cast<char*>(labels);
        std::uint64_t left = count * 4;
        off_t offset = off_t((first - start_) * 4);
        while (left > 0) {
            const std::size_t chunk = std::size_t(left < (std::uint64_t(1) << 30) ? left : (std::uint64_t(1) << 30));
            errno = 0;
            const ssize_t done = write ? ::pwrite(descriptor_, bytes, chunk, offset) : ::pread(descriptor_, bytes, chunk, offset);
            if (done <= 0) {
                if (done < 0 && errno == EINTR) continue;
                throw Error(std::string("glccl::labelTiled(): cannot ") + (write ? "write" : "read") +
                            " tile labels in the temporary file in '" + folder_ + "': " +
                            (done == 0 ? "unexpected end of file" : std::strerror(errno)));
            }
            bytes += done;
            offset += done;
            left -= std::uint64_t(done);
        }
    }

    TilePlan plan_;
    std::uint64_t start_;
    int descriptor_ = -1;
    std::string folder_;
};

}  // namespace

std::unique_ptr<TileLabelStore> makeMemoryLabelStore(const TilePlan& plan, std::uint32_t firstBand,
                                                     std::uint32_t endBand) {
    return std::make_unique<MemoryLabelStore>(plan, firstBand, endBand);
}

std::unique_ptr<TileLabelStore> makeSpillLabelStore(const TilePlan& plan, std::uint32_t firstBand,
                                                    std::uint32_t endBand, const std::string& folder) {
    (void)endBand;
    return std::make_unique<SpillLabelStore>(plan, firstBand, folder);
}

}  // namespace glccl
