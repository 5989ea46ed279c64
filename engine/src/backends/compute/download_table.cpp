#include <algorithm>
#include <array>

#include "compute_constants.hpp"
#include "compute_passes.hpp"
#include "gl_error.hpp"
#include "glccl/error.hpp"

namespace glccl::compute {

namespace {

// Entry i of the table into c, in place: each field is stored once, straight
// into the caller's table (a component assembled in registers and then
// copied costs twice the time). A volume's minima are all inverted but the
// front, which the component's first voxel writes; an image's but the top,
// and its z fields are those of a 2-D component.
template <class Field, class Wide>
void decodeEntry(const Field& field, const Wide& wide, std::uint32_t i, bool volume, Component& c) {
    c.left = ~field(kMinX, i);  // kept inverted: zero is "no pixel yet"
    c.top = volume ? ~field(kMinY, i) : field(kMinY, i);
    c.width = field(kMaxX, i) - c.left + 1;
    c.height = field(kMaxY, i) - c.top + 1;
    c.area = field(kArea, i);
    c.centroidX = double(wide(kSumXLow, i)) / double(c.area);
    c.centroidY = double(wide(kSumYLow, i)) / double(c.area);
    if (volume) {
        c.front = field(kMinZ, i);
        c.depth = field(kMaxZ, i) - c.front + 1;
        c.centroidZ = double(wide(kSumZLow, i)) / double(c.area);
    } else {
        c.front = 0;
        c.depth = 1;
        c.centroidZ = 0.0;
    }
}

}  // namespace

// The table's first `count` entries, field by field (compute_constants.hpp),
// through pixel-pack buffers: the GPU copies into them and the host reads
// them mapped, far faster than a read straight into client memory. A large
// table goes in pieces of rows (kPieces): every copy is queued first, and
// each piece is decoded as soon as its own copy is done, its decoding split
// over the copy threads. OpenGL 4.5 reads just the table rows that hold
// entries; 4.3 and 4.4 read the whole array in one piece (glReadPixels of a
// layer is far slower on some drivers).
void DownloadTablePass::run(const PassContext& context, std::uint32_t count, std::vector<Component>& table) {
    auto scope = context.timer.scope(kStage);
    const ComputeResources& r = context.resources;
    const int rows = int((std::uint64_t(count) + kTableWidth - 1) / kTableWidth);
    const int width = rows > 1 ? kTableWidth : int(count);
    // A volume's table has the z fields too; 4.3 reads every layer there is.
    const int fieldCount = r.volume ? kVolumeTableFields : kTableFields;
    if (layerReads_) {
        // A layer a field, from a framebuffer: the rows that hold entries.
        const std::size_t layerStride = std::size_t(width) * std::size_t(rows);
        layerFields_.resize(layerStride * std::size_t(fieldCount));
        for (int f = 0; f < fieldCount; ++f)
            gl::readTextureLayerRect(r.table.id(), f, 0, 0, width, rows, GL_RED_INTEGER, GL_UNSIGNED_INT,
                                     layerFields_.data() + layerStride * std::size_t(f));
        checkGlError("downloading the component table");
        auto field = [&](int f, std::uint32_t i) {
            const std::size_t row = i / kTableWidth;
            return layerFields_[std::size_t(f) * layerStride + row * std::size_t(width) + i % kTableWidth];
        };
        auto wide = [&](int low, std::uint32_t i) {
            return std::uint64_t(field(low, i)) | (std::uint64_t(field(low + 1, i)) << 32);
        };
        const bool volume = r.volume;
        decoder_.forRanges(count, kTableGrain, tableThreads(count), [&](std::size_t begin, std::size_t stop) {
            for (auto i = std::uint32_t(begin); i < stop; ++i) decodeEntry(field, wide, i, volume, table[i]);
        });
        context.checkPass(kStage);
        return;
    }
    const int pieces = subImageReads_ && count >= kPiecedEntries ? std::min(kPieces, rows) : 1;
    const int rowsPerPiece = (rows + pieces - 1) / pieces;
    struct Piece {
        int firstRow = 0, rows = 0;
        std::size_t rowWidth = 0, layerStride = 0, bytes = 0;
    };
    std::array<Piece, kPieces> layout;
    for (int p = 0; p < pieces; ++p) {
        Piece& piece = layout[std::size_t(p)];
        piece.firstRow = p * rowsPerPiece;
        piece.rows = std::min(rowsPerPiece, rows - piece.firstRow);
        piece.rowWidth = std::size_t(width);
        piece.layerStride = std::size_t(width) * std::size_t(piece.rows);
        if (!subImageReads_) {
            piece.rowWidth = kTableWidth;
            piece.layerStride = std::size_t(kTableWidth) * r.tableRows;
        }
        piece.bytes = piece.layerStride * std::size_t(subImageReads_ ? fieldCount : kVolumeTableFields) * 4;
        gl::Buffer& buffer = packBuffers_[std::size_t(p)];
        std::size_t& capacity = packCapacities_[std::size_t(p)];
        if (capacity < piece.bytes) {
            clearGlErrors();
            buffer = gl::Buffer::create();
            glBindBuffer(GL_PIXEL_PACK_BUFFER, buffer.id());
            glBufferData(GL_PIXEL_PACK_BUFFER, GLsizeiptr(piece.bytes), nullptr, GL_STREAM_READ);
            checkGlError("allocating the table's read-back buffer");
            capacity = piece.bytes;
        }
        glBindBuffer(GL_PIXEL_PACK_BUFFER, buffer.id());
        if (subImageReads_) {
            glGetTextureSubImage(r.table.id(), 0, 0, piece.firstRow, 0, width, piece.rows, fieldCount, GL_RED_INTEGER,
                                 GL_UNSIGNED_INT, GLsizei(piece.bytes), nullptr);
        } else {
            GLint previous = 0;
            glGetIntegerv(GL_TEXTURE_BINDING_2D_ARRAY, &previous);
            glBindTexture(GL_TEXTURE_2D_ARRAY, r.table.id());
            glGetTexImage(GL_TEXTURE_2D_ARRAY, 0, GL_RED_INTEGER, GL_UNSIGNED_INT, nullptr);
            glBindTexture(GL_TEXTURE_2D_ARRAY, GLuint(previous));
        }
    }
    checkGlError("downloading the component table");
    const bool volume = r.volume;
    for (int p = 0; p < pieces; ++p) {
        const Piece& piece = layout[std::size_t(p)];
        glBindBuffer(GL_PIXEL_PACK_BUFFER, packBuffers_[std::size_t(p)].id());
        const auto* fields = static_cast<const std::uint32_t*>(
            glMapBufferRange(GL_PIXEL_PACK_BUFFER, 0, GLsizeiptr(piece.bytes), GL_MAP_READ_BIT));
        if (fields == nullptr) {
            glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
            checkGlError("mapping the component table");
            throw Error("mapping the component table failed");
        }
        auto field = [&](int f, std::uint32_t i) {
            const std::size_t row = i / kTableWidth - std::uint32_t(piece.firstRow);
            return fields[std::size_t(f) * piece.layerStride + row * piece.rowWidth + i % kTableWidth];
        };
        auto wide = [&](int low, std::uint32_t i) {
            return std::uint64_t(field(low, i)) | (std::uint64_t(field(low + 1, i)) << 32);
        };
        const std::uint32_t first = std::uint32_t(piece.firstRow) * kTableWidth;
        const auto end =
            std::uint32_t(std::min<std::uint64_t>(count, std::uint64_t(piece.firstRow + piece.rows) * kTableWidth));
        decoder_.forRanges(end - first, kTableGrain, tableThreads(count), [&](std::size_t begin, std::size_t stop) {
            for (auto i = std::uint32_t(first + begin); i < first + stop; ++i)
                decodeEntry(field, wide, i, volume, table[i]);
        });
        glUnmapBuffer(GL_PIXEL_PACK_BUFFER);
    }
    glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
    context.checkPass(kStage);
}

}  // namespace glccl::compute
