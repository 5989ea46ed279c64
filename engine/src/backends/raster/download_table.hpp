#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

#include "raster_pass.hpp"
#include "raster_resources.hpp"

namespace glccl::raster {

// How component_table splits each entry's area and coordinate sums into
// digits (Tuning::rasterTableSums digits): R32F adds integers exactly while
// every partial sum stays at most 2^24, and an entry takes at most
// `pointsPerEntry` points (a point per row segment, or per run), so a
// channel that adds one `bits`-bit digit of every point's value
// (pointsPerEntry * (2^bits - 1) <= 2^24) is exact at any component size.
// A quantity whose entry total is bounded by 2^24 anyway (the area of an
// image of at most 2^24 pixels) takes one channel holding the whole value.
// Digit k of a quantity holds bits [bits * k, bits * (k + 1)) of each
// point's value, its last digit every bit from there up. The channels are
// the sums target's four, then the digit targets' (count's digits first,
// then x's, then y's); sums are absolute (not relative to the root).
struct SumDigits {
    int bits = 0;                  // 0: the image is too large for the channels
    int count = 0, x = 0, y = 0;   // digits of the area and of the sums of x and y
    bool fits() const { return bits > 0; }
    int channels() const { return count + x + y; }
    // Digit targets beside the sums target, four channels each.
    int targets() const { return (std::max(channels() - 4, 0) + 3) / 4; }
    // The layout as the shaders' constants (common.glsl's digitBits and
    // sumDigits): fixed for an image's size, so a fragment splits its sums
    // and the words pass joins them without selects on uniforms.
    std::vector<ProgramConstant> programConstants() const {
        return {{"DIGIT_BITS", bits}, {"AREA_DIGITS", count}, {"X_DIGITS", x}, {"Y_DIGITS", y}};
    }
};

// The rows of the component table that hold entries, as downloaded
// (component_table.frag): per entry, the box (w-1-min x, h-1-min y, max x,
// max y), and either the sums (count, sum of x - root x, sum of y - root y,
// 0) and the root's ID bits, or the channels of SumDigits: the sums
// target's four, then each digit target's four (digits, target by target).
// Or, read as words (Tuning::rasterTablePack words), each entry's six
// words of download_table_words.frag at words[6 * i], nothing else.
struct DownloadedTable {
    std::uint32_t count = 0;
    int width = 0;  // entries per row
    std::vector<float> boxes, sums;
    std::vector<std::uint32_t> roots;
    std::vector<float> digits;
    std::vector<std::uint32_t> words;
    bool inWords = false;
    // Texels of each target read: width * rows.
    std::size_t texels() const { return boxes.size() / 4; }
};

// download_table: the compact block of `count` entries, no more, into
// `block`, whose storage is kept from call to call. A read per target, or
// with `oneRead` (Tuning::rasterTableReads 1; not in WebGL) all into one
// pixel pack buffer, mapped once: one wait for the GPU, not one a target.
// With `digits`, the boxes, the sums and digits->targets() digit targets
// instead of the boxes, sums and roots; with `digits` and `inWords`
// (Tuning::rasterTablePack words), a fragment pass first turns every entry
// into six exact 32-bit words (download_table_words.frag) in table.words,
// and one read of 24 bytes an entry takes them all. With `copies` (the
// component table still in copies.count copies of copies.rows rows each in
// copies.targets: ComponentTablePass::Copies' foldInDownload), that pass
// folds them as component_table_fold.frag would.
// (Outside the class: a nested struct's member initializers cannot serve
// run()'s default argument.)
struct UnfoldedCopies {
    const TableTargets* targets = nullptr;
    int rows = 0, count = 1;
};
class DownloadTablePass {
public:
    static constexpr const char* kStage = "download_table";
    using Copies = UnfoldedCopies;
    void run(const PassContext& context, const TableTargets& table, std::uint32_t count, DownloadedTable& block,
             bool oneRead = false, const SumDigits* digits = nullptr, bool inWords = false,
             const Copies& copies = Copies());

private:
    void readWords(const PassContext& context, const TableTargets& table, std::uint32_t count,
                   DownloadedTable& block, const SumDigits& digits, const Copies& copies);
    void readOnce(const PassContext& context, const TableTargets& table, int rows, DownloadedTable& block,
                  const SumDigits* digits);
    gl::Buffer pack_;
    std::size_t packBytes_ = 0;
};

}  // namespace glccl::raster
