#pragma once
// Where tiled labeling writes its result: labels in rows from the top, and
// the component table in label order. The label type is decided before the
// first row is written, from the exact component count.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "glccl/image_io.hpp"  // the table's CSV rows (kStatsCsvHeader, appendStatsCsvRow)
#include "glccl/types.hpp"

namespace glccl {

// The integer type of written labels. Auto: uint32 while the count fits,
// uint64 otherwise.
enum class LabelType { Auto, Uint32, Uint64 };
const char* labelTypeName(LabelType type);          // "auto", "uint32", "uint64"
LabelType parseLabelType(std::string_view text);    // throws glccl::Error naming the choices
inline std::size_t labelBytes(LabelType type) { return type == LabelType::Uint64 ? 8 : 4; }

// The label type for `count` components: `requested`, or for auto the
// smallest that holds it. uint32 holds counts up to `uint32Limit`
// (UINT32_MAX; tests lower it to reach the uint64 path with small images).
// Throws glccl::Error starting with `where` when uint32 is requested and the
// count does not fit: never a wrap-around.
LabelType decideLabelType(LabelType requested, std::uint64_t count, std::uint64_t uint32Limit,
                          const std::string& where);

class LabelSink {
public:
    virtual ~LabelSink() = default;
    // Once, before any write: the size, the decided label type (Uint32 or
    // Uint64) and the component count. May refuse by throwing glccl::Error.
    virtual void begin(std::uint32_t width, std::uint32_t height, LabelType type, std::uint64_t count) = 0;
    // The same for an image (Shape::image: begin above) or a volume, whose
    // rows are then its lines (z * height + y). Sinks that take volumes
    // override it; the default refuses them (glccl::Error).
    virtual void begin(const Shape& shape, LabelType type, std::uint64_t count);
    // Rows y0 .. y0 + rows - 1, in order from the top, width labels each of
    // the begun type (uint32_t or uint64_t); null when it wants no labels.
    virtual void writeRows(std::uint32_t y0, std::uint32_t rows, const void* labels) = 0;
    // Does it take the labels? If not, writeRows() gets none (the rows are
    // still counted off), and only the table is computed.
    virtual bool wantsLabels() const { return true; }
    // Does it take the component table? If not, the table is not computed.
    virtual bool wantsTable() const = 0;
    // Rows of the table, in label order without gaps: components[i] is
    // label firstLabel + i.
    virtual void writeComponents(std::uint64_t firstLabel, const std::vector<Component>& components) = 0;
    // After the last row and table rows: completes the output.
    virtual void finish() = 0;
    // The file the labels go to, "" for a sink in memory: labelTiled checks
    // that its folder has room for them before labeling anything.
    virtual std::string labelsFile() const { return {}; }
    // Host memory it holds while it writes (its buffers), which the run's
    // memory limit counts; storage the caller gave it is not counted.
    virtual std::uint64_t bufferBytes() const { return 0; }
};

// Into storage the caller owns: width x height (x depth) uint32 labels
// (every one written) and the table into `components` (its storage reused).
// A count past uint32 is refused in begin().
class LabelStorageSink : public LabelSink {
public:
    LabelStorageSink(std::uint32_t* labels, std::vector<Component>& components)
        : labels_(labels), components_(&components) {}
    void begin(std::uint32_t width, std::uint32_t height, LabelType type, std::uint64_t count) override;
    void begin(const Shape& shape, LabelType type, std::uint64_t count) override;
    void writeRows(std::uint32_t y0, std::uint32_t rows, const void* labels) override;
    bool wantsTable() const override { return true; }
    void writeComponents(std::uint64_t firstLabel, const std::vector<Component>& components) override;
    void finish() override {}

protected:
    LabelStorageSink() = default;
    // The storage the next begin() writes into.
    void writeInto(std::uint32_t* labels, std::vector<Component>& components) {
        labels_ = labels;
        components_ = &components;
    }

private:
    std::uint32_t* labels_ = nullptr;
    std::vector<Component>* components_ = nullptr;
    std::size_t width_ = 0;
};

// Into a host glccl::Labeling of its own (uint32 labels, the table in
// memory), sized by begin(). A count past uint32 is refused in begin().
class LabelingSink : public LabelStorageSink {
public:
    using LabelStorageSink::begin;
    void begin(const Shape& shape, LabelType type, std::uint64_t count) override;
    Labeling& labeling() { return labeling_; }

private:
    Labeling labeling_;
};

// Streams the labels into a NumPy .npy file (dtype '<u4' or '<u8', shape
// (height, width), or (depth, height, width) for a volume, C order): the header first, with the type decided, then
// the rows in order, so the whole label image is never in memory. Optionally
// the table as CSV (the columns and number format of glccl::writeStatsCsv).
// Files are written all or nothing: into a hidden temporary file beside the
// target, named only when complete (rename when overwriting, else link, which
// refuses an existing target). The labels go to the disk as they are written
// (each 32 MiB at once, the page cache holding at most 256 MiB of them), and
// finish() waits until both files are on the disk (fdatasync), before they
// take their names. Keeps the first `keptComponents` table rows
// for summaries. Throws glccl::Error ("glccl::NpyLabelSink: ...") when a file
// exists (without overwrite) or cannot be written.
class NpyLabelSink : public LabelSink {
public:
    NpyLabelSink(std::string labelsPath, std::string statsPath, bool overwrite, std::size_t keptComponents = 10);
    ~NpyLabelSink() override;
    void begin(std::uint32_t width, std::uint32_t height, LabelType type, std::uint64_t count) override;
    void begin(const Shape& shape, LabelType type, std::uint64_t count) override;
    void writeRows(std::uint32_t y0, std::uint32_t rows, const void* labels) override;
    bool wantsLabels() const override;
    bool wantsTable() const override;
    void writeComponents(std::uint64_t firstLabel, const std::vector<Component>& components) override;
    void finish() override;
    std::string labelsFile() const override;
    std::uint64_t bufferBytes() const override;
    const std::vector<Component>& firstComponents() const { return kept_; }

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
    std::vector<Component> kept_;
};

// The .npy header for labels (format 1.0, padded so the data starts on a
// 64-byte boundary), byte for byte as glccl::writeLabelsNpy writes it for
// uint32. Shared with writers that place rows themselves (MPI-IO).
std::string labelsNpyHeader(std::uint32_t width, std::uint32_t height, LabelType type);
// The same for a volume's labels, shape (depth, height, width).
std::string labelsNpyHeader(const Shape& shape, LabelType type);

}  // namespace glccl
