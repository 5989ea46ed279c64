// The compute backend: block-based union-find in GLSL compute shaders
// (OpenGL 4.3), the fastest GL path. label() and components() list its
// passes; each is a file of the same name here and in glsl/.
//
//   local_merge      criterion per node, union-find inside each tile (shared memory)
//   merge_borders    the links between tiles, as global lock-free unions
//   count_roots      each node row ranks its roots; trees are shortened
//   scan_rows        the roots of the rows above each row: numbering in raster order
//   final_labels     every pixel takes its component's number
//   clear_table      (components) the table's starting values
//   component_table  (components) boxes, areas, exact 64-bit sums, reduced per tile first

#include <algorithm>

#include "backends/engine.hpp"
#include "compute_constants.hpp"
#include "compute_passes.hpp"
#include "gl_error.hpp"
#include "glccl/error.hpp"

namespace glccl::backends {

namespace {

using namespace compute;

class ComputeEngine final : public Engine {
public:
    ComputeEngine() {
        nearestSampler_ = gl::Sampler::create();
        glSamplerParameteri(nearestSampler_.id(), GL_TEXTURE_MIN_FILTER, GL_NEAREST);
        glSamplerParameteri(nearestSampler_.id(), GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    }

    void reserve(int width, int height, const LabelOptions& options) override {
        resources_.reserve(width, height, NodeSize::of(options.connectivity, options.criterion));
    }

    std::uint32_t label(const gl::Texture& input, const gl::Texture& labels, const LabelOptions& options,
                        StageTimer& timer) override {
        reserve(input.width(), input.height(), options);
        programs_.select(options.connectivity, options.criterion, input.internalFormat(), resources_.node);
        // A host texture with one level and a mipmapped filter is incomplete
        // for texelFetch unless a nearest sampler is bound with it.
        glBindSampler(kInputUnit, nearestSampler_.id());
        Frame frame{resources_, programs_, timer};
        localMerge(frame, input);
        mergeBorders(frame);
        countRoots(frame);
        count_ = scanRows(frame);
        finalLabels(frame, labels);
        glBindSampler(kInputUnit, 0);
        // The host reads the labels as a texture, by download or by framebuffer.
        glMemoryBarrier(GL_ALL_BARRIER_BITS);
        labeled_ = true;
        return count_;
    }

    std::vector<Component> components(StageTimer& timer) override {
        if (!labeled_) return {};
        resources_.reserveTable(count_);
        Frame frame{resources_, programs_, timer};
        clearTable(frame, count_);
        componentTable(frame);
        glMemoryBarrier(GL_TEXTURE_UPDATE_BARRIER_BIT);
        return downloadTable();
    }

private:
    // The table's first count_ entries, field by field (compute_constants.hpp).
    std::vector<Component> downloadTable() {
        const int rows = resources_.tableRows;
        std::vector<std::uint32_t> fields(std::size_t(kTableWidth) * rows * kTableFields);
        GLint previous = 0;
        glGetIntegerv(GL_TEXTURE_BINDING_2D_ARRAY, &previous);
        glBindTexture(GL_TEXTURE_2D_ARRAY, resources_.table.id());
        GLint packBuffer = 0;
        glGetIntegerv(GL_PIXEL_PACK_BUFFER_BINDING, &packBuffer);
        glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
        glPixelStorei(GL_PACK_ALIGNMENT, 4);
        glGetTexImage(GL_TEXTURE_2D_ARRAY, 0, GL_RED_INTEGER, GL_UNSIGNED_INT, fields.data());
        glBindBuffer(GL_PIXEL_PACK_BUFFER, GLuint(packBuffer));
        glBindTexture(GL_TEXTURE_2D_ARRAY, GLuint(previous));
        checkGlError("downloading the component table");

        const std::size_t layer = std::size_t(kTableWidth) * rows;
        auto field = [&](int f, std::uint32_t i) { return fields[std::size_t(f) * layer + i]; };
        auto wide = [&](int low, std::uint32_t i) {
            return std::uint64_t(field(low, i)) | (std::uint64_t(field(low + 1, i)) << 32);
        };
        std::vector<Component> table(count_);
        for (std::uint32_t i = 0; i < count_; ++i) {
            Component& c = table[i];
            c.left = field(kMinX, i);
            c.top = field(kMinY, i);
            c.width = field(kMaxX, i) - c.left + 1;
            c.height = field(kMaxY, i) - c.top + 1;
            c.area = field(kArea, i);
            c.centroidX = double(wide(kSumXLow, i)) / double(c.area);
            c.centroidY = double(wide(kSumYLow, i)) / double(c.area);
        }
        return table;
    }

    gl::Sampler nearestSampler_;
    ComputeResources resources_;
    ComputePrograms programs_;
    std::uint32_t count_ = 0;
    bool labeled_ = false;
};

}  // namespace

std::unique_ptr<Engine> makeComputeEngine(const ContextInfo&) { return std::make_unique<ComputeEngine>(); }

}  // namespace glccl::backends
