// JPEG through libjpeg-turbo: 8-bit gray and color (YCbCr or RGB) files,
// baseline, extended or progressive. Read as gray, a file gives libjpeg's
// own gray output (for YCbCr files the decoded Y channel, as OpenCV's
// IMREAD_GRAYSCALE gives it). Every warning about corrupt data is an error:
// libjpeg would fill what it cannot decode with guesses. EXIF orientation is
// not applied (pixels are labeled as stored).

// jpeglib.h needs size_t and FILE declared first.
#include <cstddef>
#include <cstdio>

#include <jerror.h>
#include <jpeglib.h>

#include <algorithm>
#include <climits>
#include <csetjmp>
#include <memory>
#include <vector>

#include "image_decoders.hpp"

namespace glccl::detail {

namespace {

// A progressive file may rescan the image any number of times; each scan
// costs a pass over the whole coefficient buffer, so a small file of many
// scans takes minutes. No encoder writes more than a few dozen.
constexpr int kMaxScans = 500;
// Arithmetic coding can code a block in far less than a bit, so the file
// size bounds nothing; such files (rare) are read up to this many pixels.
constexpr std::uint64_t kMaxArithmeticPixels = std::uint64_t(16) << 20;

// libjpeg leaves an error by longjmp; the message is a plain buffer and
// the functions that setjmp hold no object with a destructor.
struct JpegErrors {
    jpeg_error_mgr manager;
    std::jmp_buf jump;
    char message[JMSG_LENGTH_MAX + 64];
};

[[noreturn]] void failJpeg(j_common_ptr info, const char* text) {
    auto* errors = reinterpret_cast<JpegErrors*>(info->err);
    std::snprintf(errors->message, sizeof errors->message, "%s", text);
    std::longjmp(errors->jump, 1);
}

[[noreturn]] void onJpegError(j_common_ptr info) {
    char text[JMSG_LENGTH_MAX];
    (*info->err->format_message)(info, text);
    failJpeg(info, text);
}

// Warnings (level -1) say that data was corrupt and libjpeg carried on with
// guessed coefficients; only padding between segments is harmless.
void onJpegMessage(j_common_ptr info, int level) {
    if (level >= 0 || info->err->msg_code == JWRN_EXTRANEOUS_DATA) return;
    char text[JMSG_LENGTH_MAX];
    (*info->err->format_message)(info, text);
    failJpeg(info, text);
}

void onJpegProgress(j_common_ptr info) {
    const auto* decompress = reinterpret_cast<j_decompress_ptr>(info);
    if (decompress->input_scan_number > kMaxScans) failJpeg(info, "more than 500 scans (a scan bomb)");
}

// libjpeg's input from a ByteSource; the end of the data is an error (libjpeg's
// own sources would insert an end marker and decode the rest as gray).
struct JpegInput {
    jpeg_source_mgr manager;
    ByteSource* source;
    JOCTET buffer[65536];
};

void startJpegInput(j_decompress_ptr) {}
void endJpegInput(j_decompress_ptr) {}

boolean fillJpegInput(j_decompress_ptr info) {
    auto* input = reinterpret_cast<JpegInput*>(info->src);
    const std::size_t count = input->source->read(input->buffer, sizeof input->buffer);
    if (count == 0) failJpeg(reinterpret_cast<j_common_ptr>(info), "the file ends early (truncated)");
    input->manager.next_input_byte = input->buffer;
    input->manager.bytes_in_buffer = count;
    return TRUE;
}

void skipJpegInput(j_decompress_ptr info, long count) {
    auto* input = reinterpret_cast<JpegInput*>(info->src);
    if (count <= 0) return;
    std::size_t skip = std::size_t(count);
    const std::size_t buffered = std::min(skip, input->manager.bytes_in_buffer);
    input->manager.next_input_byte += buffered;
    input->manager.bytes_in_buffer -= buffered;
    skip -= buffered;
    if (skip > 0 && !input->source->seek(input->source->tell() + skip))
        failJpeg(reinterpret_cast<j_common_ptr>(info), "the file ends early (truncated)");
}

bool createJpeg(j_decompress_ptr info, JpegErrors* errors) {
    if (setjmp(errors->jump)) return false;
    jpeg_create_decompress(info);
    return true;
}

struct JpegHeader {
    std::uint64_t width = 0, height = 0;
    int components = 0;
    bool arithmetic = false;
    std::uint64_t fewestBlocks = 0;  // blocks of the component with the fewest
};

bool readJpegHeader(j_decompress_ptr info, JpegErrors* errors, JpegHeader* header) {
    if (setjmp(errors->jump)) return false;
    jpeg_read_header(info, TRUE);
    header->width = info->image_width;
    header->height = info->image_height;
    header->components = info->num_components;
    header->arithmetic = info->arith_code != 0;
    header->fewestBlocks = ~std::uint64_t(0);
    for (int c = 0; c < info->num_components; ++c) {
        const jpeg_component_info& component = info->comp_info[c];
        header->fewestBlocks = std::min<std::uint64_t>(
            header->fewestBlocks, std::uint64_t(component.width_in_blocks) * component.height_in_blocks);
    }
    return true;
}

bool readJpegPixels(j_decompress_ptr info, JpegErrors* errors, J_COLOR_SPACE space, int channels,
                    JSAMPROW* rows, JDIMENSION width, JDIMENSION height, long memory) {
    if (setjmp(errors->jump)) return false;
    info->out_color_space = space;
    info->mem->max_memory_to_use = memory;
    jpeg_start_decompress(info);
    if (info->output_width != width || info->output_height != height || info->output_components != channels)
        failJpeg(reinterpret_cast<j_common_ptr>(info), "libjpeg's output layout is not the one expected");
    while (info->output_scanline < height) {
        if (jpeg_read_scanlines(info, rows + info->output_scanline, height - info->output_scanline) == 0)
            failJpeg(reinterpret_cast<j_common_ptr>(info), "no scanline decoded");
    }
    // Up to the end marker: a file cut after its last scanline is refused too.
    jpeg_finish_decompress(info);
    return true;
}

struct JpegDecompress {
    jpeg_decompress_struct info{};
    bool created = false;
    ~JpegDecompress() {
        if (created) jpeg_destroy_decompress(&info);
    }
};

}  // namespace

Image decodeJpeg(const ReadContext& context) {
    ByteSource& source = context.source;
    source.seek(0);
    // Heap-allocated: both hold buffers too large for a deep stack.
    auto errors = std::make_unique<JpegErrors>();
    auto input = std::make_unique<JpegInput>();
    JpegDecompress decompress;
    decompress.info.err = jpeg_std_error(&errors->manager);
    errors->manager.error_exit = onJpegError;
    errors->manager.emit_message = onJpegMessage;
    if (!createJpeg(&decompress.info, errors.get())) throw context.fail(std::string("JPEG: ") + errors->message);
    decompress.created = true;

    input->source = &source;
    input->manager.init_source = startJpegInput;
    input->manager.fill_input_buffer = fillJpegInput;
    input->manager.skip_input_data = skipJpegInput;
    input->manager.resync_to_restart = jpeg_resync_to_restart;
    input->manager.term_source = endJpegInput;
    input->manager.bytes_in_buffer = 0;
    input->manager.next_input_byte = nullptr;
    decompress.info.src = &input->manager;
    jpeg_progress_mgr progress{};
    progress.progress_monitor = onJpegProgress;
    decompress.info.progress = &progress;

    JpegHeader header;
    if (!readJpegHeader(&decompress.info, errors.get(), &header))
        throw context.fail(std::string("JPEG: ") + errors->message);
    const std::string problem = dimensionProblem(header.width, header.height);
    if (!problem.empty()) throw context.fail("JPEG: the image " + problem);
    if (header.components != 1 && header.components != 3)
        throw context.fail("JPEG: " + std::to_string(header.components) +
                           " color components (CMYK or YCCK); gray and color (3 components) JPEGs are read");
    // Huffman coding spends at least one bit on every block of every
    // component a scan holds: the file must hold that many bits for the
    // component with the fewest blocks.
    if (header.arithmetic) {
        if (header.width * header.height > kMaxArithmeticPixels)
            throw context.fail("JPEG: arithmetic-coded and " + std::to_string(header.width) + "x" +
                               std::to_string(header.height) + "; such files are read up to " +
                               std::to_string(kMaxArithmeticPixels) + " pixels (their size cannot be checked "
                               "against the file's)");
    } else if (header.fewestBlocks / 8 > source.size()) {
        throw context.fail("JPEG: truncated or forged: its " + std::to_string(header.width) + "x" +
                           std::to_string(header.height) + " pixels need at least " +
                           std::to_string(header.fewestBlocks / 8) + " bytes of coded data but the file has " +
                           std::to_string(source.size()));
    }

    const bool gray = context.mode == ChannelMode::Gray || header.components == 1;
    const int channels = gray ? 1 : 4;
    checkClaimedSize(context, "JPEG", header.width, header.height, channels, 8);
    Image image(int(header.width), int(header.height), channels, 8);
    std::vector<JSAMPROW> rows(std::size_t(header.height));
    const std::size_t rowBytes = std::size_t(header.width) * std::size_t(channels);
    for (std::size_t y = 0; y < rows.size(); ++y) rows[y] = image.pixels.data() + y * rowBytes;
    // libjpeg's own buffers: a progressive file keeps every coefficient
    // (2 bytes per sample of each component), the rest is small.
    const std::uint64_t coefficients = 2 * header.width * header.height * std::uint64_t(header.components);
    const long memory = long(std::min<std::uint64_t>(coefficients + (std::uint64_t(64) << 20), LONG_MAX));
    if (!readJpegPixels(&decompress.info, errors.get(), gray ? JCS_GRAYSCALE : JCS_EXT_RGBA, channels, rows.data(),
                        JDIMENSION(header.width), JDIMENSION(header.height), memory))
        throw context.fail(std::string("JPEG: ") + errors->message);
    return image;
}

}  // namespace glccl::detail
