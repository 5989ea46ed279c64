// The compute backend: block-based union-find in GLSL compute shaders
// (OpenGL 4.3), the fastest GL path. label() and components() list its
// passes; each is a file of the same name here and in glsl/.
//
//   local_merge      foreground masks, union-find inside each tile (shared memory)
//   merge_borders    the links between tiles, as global lock-free unions
//   count_roots      each node row ranks its roots, trees are shortened; the last
//                    work group numbers the rows: numbering in raster order
//   final_labels     every pixel takes its component's number; boxes, areas and
//                    exact 64-bit sums go into the table, reduced per tile first
//
// The table's sums start from zero: local_merge zeroes what the last
// labeling used.
//
// components() only downloads the table.

#include <algorithm>

#include "backends/engine.hpp"
#include "compute_constants.hpp"
#include "compute_passes.hpp"
#include "gl_error.hpp"
#include "glccl/error.hpp"
#include "parallel_copy.hpp"

namespace glccl::backends {

namespace {

using namespace compute;

class ComputeEngine final : public Engine {
public:
    explicit ComputeEngine(const ContextInfo& context) {
        const int version = context.major * 10 + context.minor;
        subImageReads_ = version >= 45 && glGetTextureSubImage != nullptr;
        clearTextures_ = (version >= 44 || gl::hasExtension("GL_ARB_clear_texture")) && glClearTexImage != nullptr;
        parentsStorage_ = parentsStorageFromTuning();
        inputSampler_ = gl::Sampler::create();
        glSamplerParameteri(inputSampler_.id(), GL_TEXTURE_MIN_FILTER, GL_NEAREST);
        glSamplerParameteri(inputSampler_.id(), GL_TEXTURE_MAG_FILTER, GL_NEAREST);
        // local_merge gathers 2x2 footprints: past the image they read the
        // border, 0, i.e. background.
        glSamplerParameteri(inputSampler_.id(), GL_TEXTURE_WRAP_S, GL_CLAMP_TO_BORDER);
        glSamplerParameteri(inputSampler_.id(), GL_TEXTURE_WRAP_T, GL_CLAMP_TO_BORDER);
    }

    void reserve(int width, int height, const LabelOptions& options) override {
        resources_.reserve(width, height, NodeSize::of(options.connectivity, options.criterion), parentsStorage_);
    }

    std::uint32_t label(const gl::Texture& input, const gl::Texture& labels, const LabelOptions& options,
                        StageTimer& timer) override {
        reserve(input.width(), input.height(), options);
        programs_.select(options.connectivity, options.criterion, input.internalFormat(), resources_.node);
        // A host texture with one level and a mipmapped filter is incomplete
        // unless a nearest sampler is bound with it; the sampler also gives
        // the gathers of local_merge a zero border.
        glBindSampler(kInputUnit, inputSampler_.id());
        Frame frame{resources_, programs_, timer};
        localMerge(frame, input);
        mergeBorders(frame, input);
        count_ = countRoots(frame);
        resources_.reserveTable(count_, clearTextures_);
        finalLabels(frame, labels, count_);
        glBindSampler(kInputUnit, 0);
        // The host reads the labels as a texture, by download or by
        // framebuffer, and components() reads the table.
        glMemoryBarrier(GL_ALL_BARRIER_BITS);
        labeled_ = true;
        return count_;
    }

    void components(std::vector<Component>& out, StageTimer& timer) override {
        out.resize(labeled_ ? count_ : 0);
        if (out.empty()) return;
        auto scope = timer.scope("download_table");
        downloadTable(out);
    }

private:
    // The table's first count_ entries, field by field (compute_constants.hpp),
    // through a pixel-pack buffer: the GPU copies into it, the host reads it
    // mapped: on the H200 the copy takes 0.9 ms for 880 000 entries where a
    // read straight into client memory took 13.6 ms. The host's decoding of
    // a large table is split over the copy threads: with 880 000 entries
    // (noise at 16384^2) glccl bench's download_table took 8.7-9.7 ms on one
    // thread, 1.5-1.6 ms on the copy threads.
    // OpenGL 4.5 reads just the rows that hold them; 4.3 and 4.4 read the
    // whole array (glReadPixels of a layer is far slower on some drivers).
    void downloadTable(std::vector<Component>& table) {
        const int rows = int((std::uint64_t(count_) + kTableWidth - 1) / kTableWidth);
        const int width = rows > 1 ? kTableWidth : int(count_);
        std::size_t rowWidth = std::size_t(width), layerStride = std::size_t(width) * rows;
        if (!subImageReads_) {
            rowWidth = kTableWidth;
            layerStride = std::size_t(kTableWidth) * resources_.tableRows;
        }
        const std::size_t bytes = layerStride * kTableFields * 4;
        if (packCapacity_ < bytes) {
            clearGlErrors();
            packBuffer_ = gl::Buffer::create();
            glBindBuffer(GL_PIXEL_PACK_BUFFER, packBuffer_.id());
            glBufferData(GL_PIXEL_PACK_BUFFER, GLsizeiptr(bytes), nullptr, GL_STREAM_READ);
            checkGlError("allocating the table's read-back buffer");
            packCapacity_ = bytes;
        }
        glBindBuffer(GL_PIXEL_PACK_BUFFER, packBuffer_.id());
        if (subImageReads_) {
            glGetTextureSubImage(resources_.table.id(), 0, 0, 0, 0, width, rows, kTableFields, GL_RED_INTEGER,
                                 GL_UNSIGNED_INT, GLsizei(bytes), nullptr);
        } else {
            GLint previous = 0;
            glGetIntegerv(GL_TEXTURE_BINDING_2D_ARRAY, &previous);
            glBindTexture(GL_TEXTURE_2D_ARRAY, resources_.table.id());
            glGetTexImage(GL_TEXTURE_2D_ARRAY, 0, GL_RED_INTEGER, GL_UNSIGNED_INT, nullptr);
            glBindTexture(GL_TEXTURE_2D_ARRAY, GLuint(previous));
        }
        const auto* fields = static_cast<const std::uint32_t*>(
            glMapBufferRange(GL_PIXEL_PACK_BUFFER, 0, GLsizeiptr(bytes), GL_MAP_READ_BIT));
        if (fields == nullptr) {
            glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
            checkGlError("mapping the component table");
            throw Error("mapping the component table failed");
        }
        checkGlError("downloading the component table");
        auto field = [&](int f, std::uint32_t i) {
            return fields[std::size_t(f) * layerStride + (i / kTableWidth) * rowWidth + i % kTableWidth];
        };
        auto wide = [&](int low, std::uint32_t i) {
            return std::uint64_t(field(low, i)) | (std::uint64_t(field(low + 1, i)) << 32);
        };
        decoder_.forRanges(count_, kTableGrain, tableThreads(count_), [&](std::size_t begin, std::size_t end) {
            for (auto i = std::uint32_t(begin); i < end; ++i) {
                Component& c = table[i];
                c.left = ~field(kMinX, i);  // kept inverted: zero is "no pixel yet"
                c.top = field(kMinY, i);
                c.width = field(kMaxX, i) - c.left + 1;
                c.height = field(kMaxY, i) - c.top + 1;
                c.area = field(kArea, i);
                c.centroidX = double(wide(kSumXLow, i)) / double(c.area);
                c.centroidY = double(wide(kSumYLow, i)) / double(c.area);
            }
        });
        glUnmapBuffer(GL_PIXEL_PACK_BUFFER);
        glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
    }

    gl::Sampler inputSampler_;
    CopyThreads decoder_;    // decodes large tables (downloadTable)
    gl::Buffer packBuffer_;  // the table's read-back (downloadTable)
    std::size_t packCapacity_ = 0;
    bool subImageReads_ = false;  // glGetTextureSubImage: OpenGL 4.5
    bool clearTextures_ = false;  // glClearTexImage: OpenGL 4.4 or ARB_clear_texture
    ParentsStorage parentsStorage_ = ParentsStorage::Auto;  // Tuning::computeParents
    ComputeResources resources_;
    ComputePrograms programs_;
    std::uint32_t count_ = 0;
    bool labeled_ = false;
};

}  // namespace

std::unique_ptr<Engine> makeComputeEngine(const ContextInfo& context) {
    return std::make_unique<ComputeEngine>(context);
}

}  // namespace glccl::backends
