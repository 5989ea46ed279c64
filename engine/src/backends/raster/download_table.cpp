#include "download_table.hpp"

#include <cstring>

#include "glccl/error.hpp"

namespace glccl::raster {

namespace {
constexpr TextureSlot kBoxesSlot{"boxes", 0};
constexpr TextureSlot kSumsSlot{"sums", 1};
constexpr TextureSlot kDigitsSlot{"digits", 2};
constexpr TextureSlot kMoreDigitsSlot{"moreDigits", 3};
const ProgramSpec kTableWords{"download_table_words", "fullscreen.vert", "download_table_words.frag", {"words"},
                              {kBoxesSlot, kSumsSlot, kDigitsSlot, kMoreDigitsSlot}};
static_assert(kMaxDigitTargets == 2, "download_table_words.frag reads two digit targets");
// Words of an entry (download_table_words.frag), four to a texel.
constexpr int kEntryWords = 6;
}  // namespace

void DownloadTablePass::run(const PassContext& context, const TableTargets& table, std::uint32_t count,
                            DownloadedTable& block, bool oneRead, const SumDigits* digits, bool inWords,
                            const Copies& copies) {
    auto scope = context.timer.scope(kStage);
    block.count = count;
    block.width = table.width;
    block.inWords = inWords && digits != nullptr;
    if (block.inWords) {
        readWords(context, table, count, block, *digits, copies);
        context.checkPass(kStage);
        return;
    }
    const int rows = ceilDiv(int(count), table.width);
    const std::size_t texels = std::size_t(table.width) * rows;
    block.boxes.resize(texels * 4);
    block.sums.resize(block.boxes.size());
    block.roots.resize(digits != nullptr ? 0 : texels);
    block.digits.resize(digits != nullptr ? texels * 4 * std::size_t(digits->targets()) : 0);
    block.words.clear();
#ifndef __EMSCRIPTEN__
    if (oneRead) {
        readOnce(context, table, rows, block, digits);
        context.checkPass(kStage);
        return;
    }
#else
    (void)oneRead;  // WebGL maps no buffer
#endif
    gl::readTextureRect(table.boxes.texture, 0, 0, table.width, rows, GL_RGBA, GL_FLOAT, block.boxes.data());
    countWait();  // the first read waits; the others find the table done
    gl::readTextureRect(table.sums.texture, 0, 0, table.width, rows, GL_RGBA, GL_FLOAT, block.sums.data());
    if (digits == nullptr) {
        gl::readTextureRect(table.roots.texture, 0, 0, table.width, rows, GL_RED, GL_FLOAT, block.roots.data());
    } else {
        for (int t = 0; t < digits->targets(); ++t)
            gl::readTextureRect(table.digits[t].texture, 0, 0, table.width, rows, GL_RGBA, GL_FLOAT,
                                block.digits.data() + std::size_t(t) * texels * 4);
    }
    issuedWork().readBytes +=
        std::int64_t((block.boxes.size() + block.sums.size() + block.roots.size() + block.digits.size()) * 4);
    context.checkPass(kStage);
}

void DownloadTablePass::readWords(const PassContext& context, const TableTargets& table, std::uint32_t count,
                                  DownloadedTable& block, const SumDigits& digits, const Copies& copies) {
    // Texels of four words holding kEntryWords words of each of `count`
    // entries, in whole rows of the table's width.
    const std::int64_t texels = ceilDiv(std::int64_t(count) * kEntryWords, std::int64_t(4));
    const int rows = int(ceilDiv(texels, std::int64_t(table.width)));
    auto& program = context.programs.use(kTableWords, digits.programConstants());
    program.set("quadDepth", 0.0f);
    program.set("tableWidth", table.width);
    program.set("entries", int(count));
    // The copies, where component_table left its table in them: folded here.
    const bool folding = copies.targets != nullptr && copies.count > 1;
    const TableTargets& read = folding ? *copies.targets : table;
    program.set("spread", folding ? copies.count : 1);
    program.set("copyRows", folding ? copies.rows : 0);
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, table.words.framebuffer.id());
    setViewport(table.width, rows);
    setRenderState({});
    bindTexture(kBoxesSlot, read.boxes.texture);
    bindTexture(kSumsSlot, read.sums.texture);
    bindTexture(kDigitsSlot, read.digits[0].texture);
    bindTexture(kMoreDigitsSlot, read.digits[1].texture);
    drawFullscreen();
    // The rows before the last whole, then the last row's texels that hold
    // words (the second read finds the GPU done): no more than the entries.
    const int lastTexels = int(texels - std::int64_t(rows - 1) * table.width);
    const std::size_t words = std::size_t(texels) * 4;
    block.words.resize(words);
    block.boxes.clear();
    block.sums.clear();
    block.roots.clear();
    block.digits.clear();
    gl::TransferStateGuard guard;  // pack state and bindings restored after
    glBindFramebuffer(GL_READ_FRAMEBUFFER, table.words.framebuffer.id());
    glReadBuffer(GL_COLOR_ATTACHMENT0);
    if (rows > 1)
        glReadPixels(0, 0, table.width, rows - 1, GL_RGBA_INTEGER, GL_UNSIGNED_INT, block.words.data());
    glReadPixels(0, rows - 1, lastTexels, 1, GL_RGBA_INTEGER, GL_UNSIGNED_INT,
                 block.words.data() + std::size_t(rows - 1) * std::size_t(table.width) * 4);
    countWait();
    issuedWork().readBytes += std::int64_t(words * sizeof(std::uint32_t));
}

void DownloadTablePass::readOnce(const PassContext& context, const TableTargets& table, int rows,
                                 DownloadedTable& block, const SumDigits* digits) {
    gl::TransferStateGuard guard;  // pack state and bindings restored after
    const std::size_t texels = std::size_t(table.width) * rows;
    const std::size_t vec4Bytes = texels * 4 * sizeof(float);
    // ES reads a one-channel float target as RGBA only.
    const std::size_t rootBytes = digits != nullptr ? 0 : context.es ? vec4Bytes : texels * sizeof(float);
    const std::size_t digitBytes = digits != nullptr ? vec4Bytes * std::size_t(digits->targets()) : 0;
    const std::size_t bytes = 2 * vec4Bytes + rootBytes + digitBytes;
    if (pack_.id() == 0) pack_ = gl::Buffer::create();
    glBindBuffer(GL_PIXEL_PACK_BUFFER, pack_.id());
    if (bytes > packBytes_) {
        glBufferData(GL_PIXEL_PACK_BUFFER, GLsizeiptr(bytes), nullptr, GL_STREAM_READ);
        packBytes_ = bytes;
    }
    const auto read = [&](const gl::RenderTarget& target, GLenum format, std::size_t offset) {
        glBindFramebuffer(GL_READ_FRAMEBUFFER, target.framebuffer.id());
        glReadBuffer(GL_COLOR_ATTACHMENT0);
        glReadPixels(0, 0, table.width, rows, format, GL_FLOAT, reinterpret_cast<void*>(offset));
    };
    read(table.boxes, GL_RGBA, 0);
    read(table.sums, GL_RGBA, vec4Bytes);
    if (digits == nullptr) read(table.roots, context.es ? GL_RGBA : GL_RED, 2 * vec4Bytes);
    for (int t = 0; digits != nullptr && t < digits->targets(); ++t)
        read(table.digits[t], GL_RGBA, std::size_t(2 + t) * vec4Bytes);
    issuedWork().readBytes += std::int64_t(bytes);
    const auto* mapped =
        static_cast<const unsigned char*>(glMapBufferRange(GL_PIXEL_PACK_BUFFER, 0, GLsizeiptr(bytes), GL_MAP_READ_BIT));
    countWait();
    if (mapped == nullptr) {
        glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
        throw Error("glccl::RasterPipeline::components(): the component table's pixel buffer could not be mapped");
    }
    std::memcpy(block.boxes.data(), mapped, vec4Bytes);
    std::memcpy(block.sums.data(), mapped + vec4Bytes, vec4Bytes);
    if (digits != nullptr) {
        if (digitBytes > 0) std::memcpy(block.digits.data(), mapped + 2 * vec4Bytes, digitBytes);
    } else if (context.es) {
        for (std::size_t i = 0; i < texels; ++i)
            std::memcpy(&block.roots[i], mapped + 2 * vec4Bytes + i * 4 * sizeof(float), sizeof(float));
    } else {
        std::memcpy(block.roots.data(), mapped + 2 * vec4Bytes, rootBytes);
    }
    glUnmapBuffer(GL_PIXEL_PACK_BUFFER);
}

}  // namespace glccl::raster
