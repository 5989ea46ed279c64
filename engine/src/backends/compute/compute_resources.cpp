#include "compute_resources.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "compute_constants.hpp"
#include "gl_error.hpp"
#include "glccl/error.hpp"
#include "glccl/tuning.hpp"
#include "small_helpers.hpp"

namespace glccl::compute {

namespace {


gl::Buffer storageBuffer(std::size_t bytes, const std::string& what, const void* data = nullptr) {
    clearGlErrors();
    auto buffer = gl::Buffer::create();
    GLint previous = 0;
    glGetIntegerv(GL_SHADER_STORAGE_BUFFER_BINDING, &previous);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, buffer.id());
    glBufferData(GL_SHADER_STORAGE_BUFFER, GLsizeiptr(bytes), data, GL_DYNAMIC_COPY);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, GLuint(previous));
    checkGlError("allocating " + what);
    return buffer;
}

}  // namespace

ParentsStorage parentsStorageFromTuning() {
    switch (tuning().computeParents) {
        case Tuning::ComputeParents::Buffer: return ParentsStorage::Buffer;
        case Tuning::ComputeParents::Image: return ParentsStorage::Image;
        case Tuning::ComputeParents::Auto: break;
    }
    return ParentsStorage::Auto;
}

void ComputeResources::reserve(int w, int h, int d, bool v, NodeSize n, Connectivity connectivity, bool binary,
                               ParentsStorage storage) {
    GLint64 largest = 0;
    glGetInteger64v(GL_MAX_SHADER_STORAGE_BLOCK_SIZE, &largest);
    const VolumeNodeGrid grid = VolumeNodeGrid::of(w, h, d, connectivity);
    const bool b = v && binary && grid.slots() <= grid.voxels() && grid.lineWords() * 4 <= std::uint64_t(largest);
    if (w == width && h == height && d == depth && v == volume && n == node && b == bundles &&
        (!b || connectivity == nodes.connectivity))
        return;
    width = height = 0;
    const std::string size = std::to_string(w) + "x" + std::to_string(h) + (v ? "x" + std::to_string(d) : "");
    const std::string what = "the compute backend's buffers for " + size;
    const int gw = ceilDiv(w, n.width), gh = ceilDiv(h, n.height), gd = v ? ceilDiv(d, n.depth) : 1;
    auto nodeImage = [&](GLenum format) {
        return v ? gl::Texture::allocateVolume(format, gw, gh, gd, what) : gl::Texture::allocate(format, gw, gh, what);
    };
    parents = {};
    parentsImage = {};
    nodeInfo = {};
    bits = {};
    foreground = {};
    const std::uint64_t parentCount = b ? grid.slots() : std::uint64_t(gw) * std::uint64_t(gh) * std::uint64_t(gd);
    const std::uint64_t parentBytes = parentCount * 4;
    const bool fits = parentBytes <= std::uint64_t(largest);
    if (storage == ParentsStorage::Buffer && !fits)
        throw Error("Tuning::computeParents is buffer: a " + size + (v ? " volume" : " image") +
                    " needs a storage buffer of " + std::to_string(parentBytes) +
                    " bytes for the compute backend's nodes; this context allows " + std::to_string(largest) +
                    " (GL_MAX_SHADER_STORAGE_BLOCK_SIZE)");
    parentsInImage = storage == ParentsStorage::Image || !fits;
    if (!parentsInImage) {
        parents = storageBuffer(std::size_t(parentBytes), what);
    } else if (b) {
        // Slots in rows of 2^kParentsSideBits, 2^kParentsSideBits rows a
        // slice: a volume of at most 2^30 voxels has at most 2^30 slots, 1024
        // slices, within the 2048 a side every OpenGL 4.3 context allows.
        const std::uint64_t side = std::uint64_t(1) << kParentsSideBits;
        const auto rows = int(std::min<std::uint64_t>(side, (parentCount + side - 1) / side));
        const auto slices = int((parentCount + side * side - 1) / (side * side));
        parentsImage = gl::Texture::allocateVolume(GL_R32UI, int(side), rows, slices, what);
    } else {
        parentsImage = nodeImage(GL_R32UI);
    }
    if (b) {
        bits = storageBuffer(std::size_t(grid.lineWords()) * 4, what);
        if (connectivity != Connectivity::Six) foreground = storageBuffer(std::size_t(grid.bundleWords()) * 4, what);
    } else {
        nodeInfoFormat = gl::isEs() ? GL_R32UI : GL_R8UI;
        nodeInfo = nodeImage(nodeInfoFormat);
    }
    const std::size_t lineCount = std::size_t(h) * std::size_t(v ? d : 1);
    lineCounts = storageBuffer(lineCount * 4, what);
    lineOffsets = storageBuffer((lineCount + 1) * 4, what);
    const std::uint32_t zero = 0;
    if (!groupsDone) groupsDone = storageBuffer(4, what, &zero);
    if (v) blockSums = storageBuffer((lineCount + kScanLinesBlock - 1) / kScanLinesBlock * 4, what);
    width = w;
    height = h;
    depth = v ? d : 1;
    volume = v;
    node = n;
    bundles = b;
    nodes = grid;
    gridWidth = gw;
    gridHeight = gh;
    gridDepth = gd;
}

void ComputeResources::reserveTable(std::uint32_t count, bool clearTextures) {
    const int rows = std::max(1, int((std::uint64_t(count) + kTableWidth - 1) / kTableWidth));
    if (rows <= tableRows) return;
    int capacity = 1;
    while (capacity < rows) capacity *= 2;
    GLint largest = 0;
    glGetIntegerv(GL_MAX_TEXTURE_SIZE, &largest);
    capacity = std::min(capacity, int(largest));
    if (capacity < rows)
        throw Error("the component table of " + std::to_string(count) + " components needs " + std::to_string(rows) +
                    " rows of " + std::to_string(kTableWidth) + " entries, GL_MAX_TEXTURE_SIZE is " +
                    std::to_string(largest));
    clearGlErrors();
    table.reset();
    table = gl::Object<gl::TextureTraits>::create();
    GLint previous = 0;
    glGetIntegerv(GL_TEXTURE_BINDING_2D_ARRAY, &previous);
    glBindTexture(GL_TEXTURE_2D_ARRAY, table.id());
    // The z fields too, whatever this labeling is: a table serves images
    // and volumes alike.
    glTexStorage3D(GL_TEXTURE_2D_ARRAY, 1, GL_R32UI, kTableWidth, capacity, kVolumeTableFields);
    const std::uint32_t zero = 0;
    if (clearTextures) {
        glClearTexImage(table.id(), 0, GL_RED_INTEGER, GL_UNSIGNED_INT, &zero);
    } else {
        // Blocks of kZeroRows rows, so that a large table needs no large
        // host buffer.
        constexpr int kZeroRows = 64;
        const std::vector<std::uint32_t> zeros(std::size_t(kTableWidth) * kZeroRows, 0u);
        GLint unpackBuffer = 0;
        glGetIntegerv(GL_PIXEL_UNPACK_BUFFER_BINDING, &unpackBuffer);
        glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
        for (int field = 0; field < kVolumeTableFields; ++field)
            for (int row = 0; row < capacity; row += kZeroRows)
                glTexSubImage3D(GL_TEXTURE_2D_ARRAY, 0, 0, row, field, kTableWidth, std::min(kZeroRows, capacity - row),
                                1, GL_RED_INTEGER, GL_UNSIGNED_INT, zeros.data());
        glBindBuffer(GL_PIXEL_UNPACK_BUFFER, GLuint(unpackBuffer));
    }
    glBindTexture(GL_TEXTURE_2D_ARRAY, GLuint(previous));
    checkGlError("allocating the component table for " + std::to_string(count) + " components");
    tableRows = capacity;
    tableDirty = 0;
    tableDirtyZ = 0;
}

}  // namespace glccl::compute
