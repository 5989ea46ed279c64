// Host transfers (engine/src/transfer.hpp): images uploaded and labels
// downloaded in pipelined bands through persistently mapped pixel buffers,
// copied by several threads (host/internal/parallel_copy.hpp). Every labeling
// is compared with the CPU reference on the host image, and every uploaded
// image read back byte for byte: odd sizes, bands that do not divide the
// image, one row per band, sizes repeated, changed and repeated again, both
// readbacks (glReadPixels on a framebuffer, glGetTextureSubImage), two and
// three buffers. The host's transfer state must survive every call, and the
// buffers must stay bounded by the band size.
//
// The settings are the process's Tuning, read at the start of every
// transfer; each test sets them for its scope (transfer=bands takes the
// banded path even on llvmpipe, whose auto choice is the plain one).

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "backends/compute/compute_passes.hpp"
#include "gl_objects.hpp"
#include "gl_support.hpp"
#include "glccl/error.hpp"
#include "glccl/generate.hpp"
#include "glccl/texture.hpp"
#include "glccl/tuning.hpp"
#include "parallel_copy.hpp"
#include "transfer.hpp"
#include "volume_support.hpp"

using namespace glccl;
using glccl::test::offscreen;
using glccl::test::session;
using glccl::test::ScopedTuning;

namespace {


struct Variant {
    const char* buffers;
    const char* bandBytes;
    std::string describe() const { return std::string(buffers) + " buffers, bands of " + bandBytes + " bytes"; }
};

// Bands of one byte are one row each; 3000 bytes split rows of every test
// width unevenly; 64K holds several rows of the wide images and all of the
// small ones.
const Variant kVariants[] = {
    {"2", "1"}, {"3", "3000"}, {"2", "64K"}, {"2", "3000"}, {"3", "1"}, {"3", "64K"},
};

void requireReference(const Image& image, const LabelOptions& options, const Labeling& actual, const std::string& what) {
    const Comparison comparison =
        compareLabelings(labelReference(image, options.connectivity, options.criterion), actual);
    INFO(what << " " << image.width << "x" << image.height << ": " << comparison.describe());
    REQUIRE(comparison.identical());
}

// The 8-bit image as 16-bit samples: v becomes v * 257 + 1 (odd, and the
// same partition into segments).
Image widened(const Image& image) {
    Image wide(image.width, image.height, image.channels, 16);
    const std::size_t samples = std::size_t(image.width) * std::size_t(image.height) * std::size_t(image.channels);
    for (std::size_t i = 0; i < samples; ++i) wide.setSample(i, 0, image.pixels[i] * 257u + 1u);
    return wide;
}

// Reads GL state the transfers save, as numbers, by name.
std::map<std::string, GLint> transferState() {
    std::map<std::string, GLint> state;
    const std::pair<const char*, GLenum> names[] = {
        {"GL_UNPACK_ALIGNMENT", GL_UNPACK_ALIGNMENT},     {"GL_UNPACK_ROW_LENGTH", GL_UNPACK_ROW_LENGTH},
        {"GL_UNPACK_SKIP_ROWS", GL_UNPACK_SKIP_ROWS},     {"GL_UNPACK_SKIP_PIXELS", GL_UNPACK_SKIP_PIXELS},
        {"GL_UNPACK_IMAGE_HEIGHT", GL_UNPACK_IMAGE_HEIGHT}, {"GL_UNPACK_SWAP_BYTES", GL_UNPACK_SWAP_BYTES},
        {"GL_PACK_ALIGNMENT", GL_PACK_ALIGNMENT},         {"GL_PACK_ROW_LENGTH", GL_PACK_ROW_LENGTH},
        {"GL_PACK_SKIP_ROWS", GL_PACK_SKIP_ROWS},         {"GL_PACK_SKIP_PIXELS", GL_PACK_SKIP_PIXELS},
        {"GL_PACK_IMAGE_HEIGHT", GL_PACK_IMAGE_HEIGHT},   {"GL_PACK_SWAP_BYTES", GL_PACK_SWAP_BYTES},
        {"GL_PIXEL_UNPACK_BUFFER_BINDING", GL_PIXEL_UNPACK_BUFFER_BINDING},
        {"GL_PIXEL_PACK_BUFFER_BINDING", GL_PIXEL_PACK_BUFFER_BINDING},
        {"GL_READ_FRAMEBUFFER_BINDING", GL_READ_FRAMEBUFFER_BINDING},
        {"GL_DRAW_FRAMEBUFFER_BINDING", GL_DRAW_FRAMEBUFFER_BINDING},
        {"GL_TEXTURE_BINDING_2D", GL_TEXTURE_BINDING_2D},  {"GL_ACTIVE_TEXTURE", GL_ACTIVE_TEXTURE},
    };
    for (const auto& [name, parameter] : names) glGetIntegerv(parameter, &state[name]);
    return state;
}

// `values` up into the R32UI `texture` and back down, byte for byte.
void roundTrip(const gl::Texture& texture, const std::vector<std::uint32_t>& values,
               transfer::TextureUploader& uploader, transfer::TextureDownloader& downloader) {
    uploader.upload(texture, values.data(), GL_RED_INTEGER, GL_UNSIGNED_INT, 4, "test upload");
    std::vector<std::uint32_t> back(values.size(), 0);
    downloader.download(texture, back.data(), GL_RED_INTEGER, GL_UNSIGNED_INT, 4, "test download");
    REQUIRE(back == values);
}

}  // namespace

TEST_CASE("transfer: copy threads copy every byte of large and odd-sized blocks, and nothing else", "[transfer]") {
    CopyThreads copier;
    const std::size_t sizes[] = {0, 1, 4095, kParallelCopyBytes - 1, kParallelCopyBytes, kParallelCopyBytes + 7,
                                 9 * kCopyPieceBytes + 13, 21 * kCopyPieceBytes + 3};
    std::vector<unsigned char> source(22 * kCopyPieceBytes + 16);
    for (std::size_t i = 0; i < source.size(); ++i) source[i] = static_cast<unsigned char>((i * 2654435761u) >> 13);
    std::vector<unsigned char> destination(source.size() + 16);
    for (int threads : {1, 2, 3, 8}) {
        for (std::size_t bytes : sizes) {
            INFO(threads << " threads, " << bytes << " bytes");
            std::fill(destination.begin(), destination.end(), 0xA5);
            // Unaligned ends on both sides.
            copier.copy(destination.data() + 3, source.data() + 1, bytes, threads);
            REQUIRE(std::memcmp(destination.data() + 3, source.data() + 1, bytes) == 0);
            CHECK(destination[0] == 0xA5);
            CHECK(destination[2] == 0xA5);
            CHECK(destination[3 + bytes] == 0xA5);
            CHECK(destination[destination.size() - 1] == 0xA5);
        }
    }
}

TEST_CASE("transfer: copy threads' ranges cover every element once", "[transfer]") {
    CopyThreads pool;
    for (int threads : {1, 2, 3, 8})
        for (std::size_t count : {std::size_t(0), std::size_t(1), kTableGrain - 1, kTableGrain, 5 * kTableGrain + 3,
                                  3 * kParallelTableEntries + 1}) {
            INFO(threads << " threads, " << count << " elements");
            std::vector<int> visits(count, 0);
            pool.forRanges(count, kTableGrain, threads, [&](std::size_t begin, std::size_t end) {
                for (std::size_t i = begin; i < end; ++i) ++visits[i];
            });
            REQUIRE(std::count(visits.begin(), visits.end(), 1) == std::ptrdiff_t(count));
        }
}

TEST_CASE("transfer: tables large enough for the copy threads come out like the reference", "[transfer]") {
    // A checkerboard at 4-connectivity: every foreground pixel a component,
    // 90 000 of them, past kParallelTableEntries.
    const Image image = generateFamily("checkerboard", 600, 300);
    const Labeling expected = labelReference(image, Connectivity::Four, Criterion::binary());
    REQUIRE(expected.count() >= kParallelTableEntries);
    LabelOptions options;
    options.backend = Backend::Compute;
    options.connectivity = Connectivity::Four;
    for (const char* threads : {"1", "3"}) {
        ScopedTuning knobs{{"copyThreads", threads}};
        Labeling out;
        session().label(image, options, out);
        const Comparison comparison = compareLabelings(expected, out);
        INFO(threads << " threads: " << comparison.describe());
        REQUIRE(comparison.identical());
    }
}

TEST_CASE("transfer: tables read back in pieces of rows come out like the reference", "[transfer]") {
    // From kPiecedEntries components on the compute engine reads its table
    // back in pieces: checkerboards at 4- and 6-connectivity (every
    // foreground pixel or voxel a component), sized so that the pieces differ
    // in rows and the last table row is partly filled.
    const std::uint32_t pieced = compute::DownloadTablePass::kPiecedEntries;
    Image volume(Shape::volume(173, 161, 157));
    for (int z = 0; z < volume.depth; ++z)
        for (int y = 0; y < volume.height; ++y)
            for (int x = 0; x < volume.width; ++x)
                if ((x + y + z) % 2 == 0) test::setVoxel(volume, x, y, z);
    const std::pair<Image, Connectivity> cases[] = {{generateFamily("checkerboard", 2901, 1501), Connectivity::Four},
                                                    {volume, Connectivity::Six}};
    for (const auto& [image, connectivity] : cases) {
        const Labeling expected = labelReference(image, connectivity, Criterion::binary());
        REQUIRE(expected.count() >= pieced);
        LabelOptions options;
        options.backend = Backend::Compute;
        options.connectivity = connectivity;
        Labeling out;
        session().label(image, options, out);
        const Comparison comparison = compareLabelings(expected, out);
        INFO(image.depth << " slices: " << comparison.describe());
        REQUIRE(comparison.identical());
    }
}

TEST_CASE("transfer: banded uploads and downloads label like the reference at odd sizes, repeated and changed",
          "[transfer]") {
    // Sizes repeated, then another, then the first again; one labeling
    // reused throughout, as a batch reuses it.
    const std::pair<int, int> sizes[] = {{1, 1},     {3, 5},   {1531, 1013}, {1531, 1013}, {257, 129},
                                         {1531, 1013}, {1, 37}, {37, 1},      {3, 5}};
    for (const Variant& variant : kVariants) {
        ScopedTuning knobs{{"transfer", "bands"},
                           {"transferBuffers", variant.buffers},
                           {"transferBandBytes", variant.bandBytes},
                           {"copyThreads", "3"}};
        LabelOptions options;
        options.backend = Backend::Cpu;  // the same label texture and download as every backend, fast on llvmpipe
        Labeling out;
        std::uint64_t seed = 11;
        for (const auto& [width, height] : sizes) {
            options.connectivity = seed % 2 ? Connectivity::Eight : Connectivity::Four;
            const Image image = generateFamily(seed % 3 ? "noise50" : "dense_disks", width, height, seed);
            ++seed;
            session().label(image, options, out);
            requireReference(image, options, out, variant.describe());
        }
        // A GPU engine too, on a size whose bands split unevenly.
        if (whyUnavailable(Backend::Compute, offscreen().context().info()).empty()) {
            options.backend = Backend::Compute;
            const Image image = generateFamily("noise50", 301, 97, seed);
            session().label(image, options, out);
            requireReference(image, options, out, variant.describe() + ", compute");
        }
    }
}

TEST_CASE("transfer: labels of several megabytes come down in bands copied by several threads", "[transfer]") {
    // 2049 x 1501 labels are 12.3 MB: bands of 9 MiB are copied by threads,
    // the second band is the short rest.
    ScopedTuning knobs{{"transfer", "bands"},
                                  {"transferBandBytes", "9M"},
                                  {"copyThreads", "4"}};
    LabelOptions options;
    options.backend = Backend::Cpu;
    Labeling out;
    const Image first = generateFamily("noise50", 2049, 1501, 3);
    session().label(first, options, out);
    requireReference(first, options, out, "9M bands");
    const Image second = generateFamily("sparse_disks", 2049, 1501, 4);
    session().label(second, options, out);
    requireReference(second, options, out, "9M bands, the same size again");
}

TEST_CASE("transfer: a transfer of a few bands' size or less moves in several smaller bands", "[transfer]") {
    const std::size_t mebibyte = std::size_t(1) << 20;
    for (const std::size_t bandBytes : {std::size_t(32) * mebibyte, std::size_t(3) * mebibyte, std::size_t(65536),
                                        std::size_t(1)}) {
        for (const std::size_t total : {std::size_t(0), std::size_t(1), mebibyte - 1, 3 * mebibyte, 4 * mebibyte,
                                        16 * mebibyte + 3, 100 * mebibyte, 1024 * mebibyte}) {
            INFO("a transfer of " << total << " bytes, bands of at most " << bandBytes);
            const std::size_t band = pipelinedBandBytes(total, bandBytes);
            CHECK(band >= 1);
            CHECK(band <= bandBytes);
            CHECK(band >= std::min(bandBytes, kMinBandBytes));
            const std::size_t bands = total == 0 ? 0 : (total + band - 1) / band;
            // Large enough for several bands of at least kMinBandBytes, and
            // no more than a few of the largest: several, not one.
            if (total >= kSmallTransferBands * kMinBandBytes && bandBytes >= kMinBandBytes)
                CHECK(bands >= kSmallTransferBands - 1);
            if (total > kSmallTransferBands * bandBytes) CHECK(band == bandBytes);
        }
    }

    // An 8 MiB label image with the default band size comes down in bands of
    // a quarter of it, byte for byte, through buffers of that size.
    offscreen().makeCurrent();
    const int width = 2048, height = 1024;
    gl::Texture texture = gl::Texture::allocate(GL_R32UI, width, height, "transfer test");
    std::vector<std::uint32_t> values(std::size_t(width) * height);
    for (std::size_t i = 0; i < values.size(); ++i) values[i] = std::uint32_t(i * 2246822519u + 7u);
    ScopedTuning knobs{{"transfer", "bands"}, {"transferBuffers", "3"}};
    transfer::TextureUploader uploader;
    transfer::TextureDownloader downloader;
    roundTrip(texture, values, uploader, downloader);
    const std::size_t total = values.size() * sizeof(std::uint32_t);
    CHECK(downloader.bufferBytes() == 3 * (total / 4));
    CHECK(uploader.bufferBytes() == 3 * (total / 4));
}

TEST_CASE("transfer: every image format goes up in bands and reads back byte for byte", "[transfer]") {
    ScopedTuning knobs{{"transfer", "bands"}, {"transferBandBytes", "1000"}};
    offscreen().makeCurrent();
    const struct {
        int channels, sampleBits;
    } formats[] = {{1, 8}, {4, 8}, {1, 16}, {4, 16}, {1, 32}};
    for (const auto& format : formats) {
        for (const auto& [width, height] : {std::pair{1, 1}, std::pair{3, 5}, std::pair{263, 71}}) {
            INFO(format.channels << " channel(s) of " << format.sampleBits << " bits, " << width << "x" << height);
            Image image(width, height, format.channels, format.sampleBits);
            for (std::size_t i = 0; i < image.pixels.size(); ++i) image.pixels[i] = std::uint8_t(i * 7 + 1);
            ImageTexture texture(image);
            REQUIRE(texture.download().pixels == image.pixels);
            for (std::size_t i = 0; i < image.pixels.size(); ++i) image.pixels[i] = std::uint8_t(i * 13 + 5);
            texture.update(image);
            REQUIRE(texture.download().pixels == image.pixels);
        }
    }
}

TEST_CASE("transfer: pixel buffers stay bounded by the band size, not the image", "[transfer]") {
    offscreen().makeCurrent();
    const int width = 1531, height = 1013;
    gl::Texture texture = gl::Texture::allocate(GL_R32UI, width, height, "transfer test");
    std::vector<std::uint32_t> values(std::size_t(width) * height);
    for (std::size_t i = 0; i < values.size(); ++i) values[i] = std::uint32_t(i * 2654435761u);
    const std::size_t row = std::size_t(width) * 4;
    for (const auto& [band, perBuffer] : {std::pair<const char*, std::size_t>{"64K", 10 * row},
                                          std::pair<const char*, std::size_t>{"1", row}}) {
        for (const char* buffers : {"2", "3"}) {
            ScopedTuning knobs{{"transfer", "bands"},
                                          {"transferBandBytes", band},
                                          {"transferBuffers", buffers}};
            INFO("bands of " << band << " bytes, " << buffers << " buffers");
            transfer::TextureUploader uploader;
            transfer::TextureDownloader downloader;
            roundTrip(texture, values, uploader, downloader);
            const std::size_t bound = perBuffer * std::size_t(std::atoi(buffers));
            CHECK(uploader.bufferBytes() == bound);
            CHECK(downloader.bufferBytes() == bound);
        }
    }
    // The plain path holds no buffers.
    ScopedTuning plain{{"transfer", "plain"}};
    transfer::TextureDownloader downloader;
    std::vector<std::uint32_t> back(values.size(), 0);
    downloader.download(texture, back.data(), GL_RED_INTEGER, GL_UNSIGNED_INT, 4, "test download");
    CHECK(back == values);
    CHECK(downloader.bufferBytes() == 0);
}

TEST_CASE("transfer: uploads and downloads leave the host's pixel-store state, pixel buffers and framebuffers",
          "[transfer][state]") {
    OffscreenLabeler& labeler = offscreen();
    labeler.makeCurrent();
    const Image image = generateFamily("noise50", 301, 203, 21);
    const Image next = generateFamily("dense_disks", 301, 203, 22);
    // A host's own objects bound where the transfers bind theirs.
    gl::Buffer unpack = gl::Buffer::create(), pack = gl::Buffer::create();
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, unpack.id());
    glBufferData(GL_PIXEL_UNPACK_BUFFER, 64, nullptr, GL_STREAM_DRAW);
    glBindBuffer(GL_PIXEL_PACK_BUFFER, pack.id());
    glBufferData(GL_PIXEL_PACK_BUFFER, 64, nullptr, GL_STREAM_READ);
    gl::Texture hostTexture = gl::Texture::allocate(GL_RGBA8, 8, 8, "the host's texture");
    gl::Framebuffer read = gl::Framebuffer::create(), draw = gl::Framebuffer::create();
    glBindFramebuffer(GL_READ_FRAMEBUFFER, read.id());
    glFramebufferTexture2D(GL_READ_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, hostTexture.id(), 0);
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, draw.id());
    glFramebufferTexture2D(GL_DRAW_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, hostTexture.id(), 0);
    glActiveTexture(GL_TEXTURE3);
    glBindTexture(GL_TEXTURE_2D, hostTexture.id());
    // Values that would shift or corrupt every row of a transfer that kept them.
    glPixelStorei(GL_UNPACK_ALIGNMENT, 8);
    glPixelStorei(GL_UNPACK_ROW_LENGTH, 7);
    glPixelStorei(GL_UNPACK_SKIP_ROWS, 2);
    glPixelStorei(GL_UNPACK_SKIP_PIXELS, 3);
    glPixelStorei(GL_UNPACK_IMAGE_HEIGHT, 5);
    glPixelStorei(GL_UNPACK_SWAP_BYTES, GL_TRUE);
    glPixelStorei(GL_PACK_ALIGNMENT, 2);
    glPixelStorei(GL_PACK_ROW_LENGTH, 9);
    glPixelStorei(GL_PACK_SKIP_ROWS, 1);
    glPixelStorei(GL_PACK_SKIP_PIXELS, 4);
    glPixelStorei(GL_PACK_IMAGE_HEIGHT, 6);
    glPixelStorei(GL_PACK_SWAP_BYTES, GL_TRUE);
    REQUIRE(glGetError() == GL_NO_ERROR);
    const std::map<std::string, GLint> before = transferState();

    for (const char* mode : {"bands", "plain"}) {
        ScopedTuning knobs{{"transfer", mode}, {"transferBandBytes", "5000"}};
        INFO("transfer=" << mode);
        ImageTexture texture(image);
        CHECK(transferState() == before);
        texture.update(next);
        CHECK(transferState() == before);
        CHECK(texture.download().pixels == next.pixels);
        CHECK(transferState() == before);
        for (Backend backend : {Backend::Cpu, Backend::Compute}) {
            if (!whyUnavailable(backend, labeler.context().info()).empty()) continue;
            LabelOptions options;
            options.backend = backend;
            labeler.labeler().label(texture.id(), options);
            Labeling labeling;
            labeler.labeler().result(labeling);
            CHECK(transferState() == before);
            requireReference(next, options, labeling, std::string(mode) + " " + backendName(backend));
        }
        CHECK(glGetError() == GL_NO_ERROR);
    }
    glPixelStorei(GL_UNPACK_SWAP_BYTES, GL_FALSE);
    glPixelStorei(GL_PACK_SWAP_BYTES, GL_FALSE);
    for (GLenum parameter : {GL_UNPACK_ROW_LENGTH, GL_UNPACK_SKIP_ROWS, GL_UNPACK_SKIP_PIXELS, GL_UNPACK_IMAGE_HEIGHT,
                             GL_PACK_ROW_LENGTH, GL_PACK_SKIP_ROWS, GL_PACK_SKIP_PIXELS, GL_PACK_IMAGE_HEIGHT})
        glPixelStorei(parameter, 0);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    glPixelStorei(GL_PACK_ALIGNMENT, 4);
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
    glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    glBindTexture(GL_TEXTURE_2D, 0);
    glActiveTexture(GL_TEXTURE0);
}

TEST_CASE("transfer: a malformed setting is an error naming the knob, and leaves the Tuning as it was",
          "[transfer]") {
    const Image image = generateFamily("noise50", 40, 30, 1);
    const std::pair<const char*, const char*> settings[] = {{"transfer", "fast"},
                                                            {"transferBuffers", "1"},
                                                            {"transferBandBytes", "0"},
                                                            {"transferBandBytes", "12Q"},
                                                            {"copyThreads", "0"},
                                                            {"computeParents", "texture"}};
    const std::string before = tuning().describe();
    for (const auto& [name, value] : settings) {
        INFO(name << "=" << value);
        try {
            Tuning chosen = tuning();
            chosen.set(name, value);
            setTuning(chosen);
            FAIL("no error");
        } catch (const Error& error) {
            CHECK_THAT(std::string(error.what()), Catch::StartsWith("glccl::Tuning::set(): "));
            CHECK_THAT(std::string(error.what()), Catch::Contains(std::string(name) + " is '" + value + "'"));
        }
        CHECK(tuning().describe() == before);
    }
    // Out-of-range values set directly are refused by setTuning.
    Tuning outOfRange;
    outOfRange.transferBuffers = 1;
    CHECK_THROWS_WITH(setTuning(outOfRange), Catch::StartsWith("glccl::setTuning(): transferBuffers is 1"));
    outOfRange = Tuning{};
    outOfRange.transferBandBytes = 0;
    CHECK_THROWS_WITH(setTuning(outOfRange), Catch::StartsWith("glccl::setTuning(): transferBandBytes is 0"));
    outOfRange = Tuning{};
    outOfRange.copyThreads = 65;
    CHECK_THROWS_WITH(setTuning(outOfRange), Catch::StartsWith("glccl::setTuning(): copyThreads is 65"));
    CHECK(tuning().describe() == before);
    // And the labeler works as before.
    requireReference(image, LabelOptions{}, session().label(image, LabelOptions{}),
                     "after the errors");
}

TEST_CASE("transfer: every knob set from text reads back as set, and the defaults are the documented ones",
          "[transfer]") {
    const Tuning defaults;
    CHECK(defaults.transfer == Tuning::Transfer::Auto);
    CHECK(defaults.transferBandBytes == std::size_t(32) << 20);
    CHECK(defaults.transferBuffers == 3);
    CHECK(defaults.copyThreads == 0);
    CHECK(defaults.computeParents == Tuning::ComputeParents::Auto);
    Tuning chosen;
    const std::pair<const char*, const char*> knobs[] = {
        {"transfer", "bands"},   {"transferBandBytes", "64K"},  {"transferBuffers", "8"},
        {"copyThreads", "5"},    {"computeParents", "image"}};
    for (const auto& [name, value] : knobs) chosen.set(name, value);
    CHECK(chosen.describe() ==
          "transfer=bands transferBandBytes=65536 transferBuffers=8 copyThreads=5 computeParents=image");
    chosen.set("copyThreads", "auto");
    CHECK(chosen.copyThreads == 0);
    CHECK_THROWS_WITH(chosen.set("transferSpeed", "fast"),
                      Catch::StartsWith("glccl::Tuning::set(): unknown knob 'transferSpeed'"));
    // The knobs of the variants that left the library are unknown too.
    for (const char* gone : {"transferReadback", "transferClientStorage", "copyStores", "computeVolumes", "cudaKernels",
                             "cudaSyncEachKernel"})
        CHECK_THROWS_WITH(chosen.set(gone, "auto"),
                          Catch::StartsWith("glccl::Tuning::set(): unknown knob '" + std::string(gone) + "'"));
}

TEST_CASE("transfer: a view of the caller's pixels labels into the caller's labels like the reference",
          "[transfer]") {
    // OffscreenLabeler::label(ImageView, ..., labels, components): the
    // entry the Python module hands numpy arrays to. Sizes repeated and
    // changed (the kept input texture), 1- and 4-channel, 8 and 16 bits,
    // plain and banded transfers.
    for (const char* mode : {"plain", "bands"}) {
        ScopedTuning knobs{{"transfer", mode}, {"transferBandBytes", "3000"}};
        LabelOptions options;
        options.backend = Backend::Cpu;
        std::vector<Component> components;
        std::uint64_t seed = 40;
        for (const auto& [width, height] : {std::pair{301, 97}, std::pair{301, 97}, std::pair{1, 1}, std::pair{97, 301}}) {
            for (const int sampleBits : {8, 16}) {
                Image image = randomImage(width, height, 0.5, 3, 1, seed++);
                if (sampleBits == 16) image = widened(image);
                // Labels the call must overwrite, every one of them.
                std::vector<std::uint32_t> labels(std::size_t(width) * std::size_t(height) + 1, 0xDEADBEEFu);
                options.criterion = Criterion::segments();
                session().label(ImageView(width, height, 1, sampleBits, image.pixels.data()), options, labels.data(),
                                  components);
                CHECK(labels.back() == 0xDEADBEEFu);  // nothing past width x height
                labels.pop_back();
                Labeling actual;
                actual.width = width;
                actual.height = height;
                actual.labels = labels;
                actual.components = components;
                requireReference(image, options, actual, std::string(mode) + " view, " + std::to_string(sampleBits) + "-bit");
            }
        }
        const Image color = randomImage(65, 33, 0.5, 2, 4, seed++);
        options.criterion = Criterion::thresholded(128);
        std::vector<std::uint32_t> labels(65 * 33);
        session().label(ImageView(color), options, labels.data(), components);
        Labeling actual{65, 33, labels, components};
        requireReference(color, options, actual, std::string(mode) + " 4-channel view");
    }
}

TEST_CASE("transfer: downloads into caller memory refuse a count that is not the label image's", "[transfer]") {
    // A GL engine, so that the labels are the Labeler's (the cpu backend
    // labels a host image without it).
    LabelOptions options;
    options.backend = Backend::Raster;
    const Image image = generateFamily("noise50", 31, 17, 5);
    session().label(image, options);
    Labeler& labeler = offscreen().labeler();
    std::vector<std::uint32_t> labels(31 * 17 + 5, 7u);
    REQUIRE_THROWS_WITH(labeler.downloadLabels(labels.data(), 31 * 17 + 5),
                        Catch::Contains("room for 532 labels given, the labels are 31x17"));
    REQUIRE_THROWS_AS(labeler.downloadLabels(nullptr, 31 * 17), Error);
    CHECK(labels[0] == 7u);
    labeler.downloadLabels(labels.data(), 31 * 17);
    labels.resize(31 * 17);
    CHECK(labels == labelReference(image, options.connectivity, options.criterion).labels);
    // A view of nothing is an error, not a crash.
    std::vector<Component> components;
    REQUIRE_THROWS_WITH(session().label(ImageView(31, 17, 1, 8, nullptr), options, labels.data(), components),
                        Catch::Contains("the image is empty"));
    REQUIRE_THROWS_WITH(session().label(ImageView(image), options, nullptr, components),
                        Catch::Contains("no storage for the labels"));
}

TEST_CASE("transfer: a slab plan covers every row of every slice once, in memory order", "[transfer]") {
    struct Case {
        int height, depth;
        std::size_t rowBytes, slabBytes;
    };
    // Whole slices (several, one, a remainder), bands of rows (uneven, one
    // row each, a row above the slab size), and 2-D images (depth 1).
    const Case cases[] = {{5, 7, 12, 180}, {5, 7, 12, 60},  {5, 7, 12, 59}, {5, 7, 12, 1}, {5, 3, 100, 50},
                          {9, 1, 8, 20},   {9, 1, 8, 1000}, {1, 1, 8, 4},   {1, 4, 8, 4},  {33, 2, 3000, 7000}};
    for (const Case& c : cases) {
        INFO(c.height << " rows x " << c.depth << " slices of " << c.rowBytes << " bytes, slabs of " << c.slabBytes);
        const transfer::SlabPlan plan(c.height, c.depth, c.rowBytes, c.slabBytes);
        std::size_t next = 0;  // the byte the next slab must start at
        std::size_t largest = 0;
        for (int k = 0; k < plan.count(); ++k) {
            const transfer::Slab slab = plan[k];
            CHECK(plan.offset(slab) == next);
            CHECK((slab.slices == 1 || slab.rows == c.height));
            CHECK(slab.rows >= 1);
            CHECK(slab.y + slab.rows <= c.height);
            CHECK(slab.z + slab.slices <= c.depth);
            CHECK((plan.bytes(slab) <= c.slabBytes || (slab.rows == 1 && slab.slices == 1)));
            next += plan.bytes(slab);
            largest = std::max(largest, plan.bytes(slab));
        }
        CHECK(next == std::size_t(c.height) * std::size_t(c.depth) * c.rowBytes);
        CHECK(plan.largestBytes() == largest);
        if (c.depth == 1) {
            // A band of a 2-D image: max(1, slabBytes / rowBytes) rows, or the whole image.
            const std::size_t rows = std::clamp<std::size_t>(c.slabBytes / c.rowBytes, 1, std::size_t(c.height));
            CHECK(plan[0].rows == int(rows));
        }
    }
}

TEST_CASE("transfer: a volume texture goes up and comes down in slabs byte for byte", "[transfer]") {
    offscreen().makeCurrent();
    const int width = 37, height = 11, depth = 6;
    std::vector<std::uint8_t> voxels(std::size_t(width) * height * depth);
    for (std::size_t i = 0; i < voxels.size(); ++i) voxels[i] = std::uint8_t(i * 7 + i / 37);
    // 37 * 11 = 407 bytes a slice: 1000 is two slices a slab (a remainder
    // of none), 300 bands of 8 rows, 1 one row a slab.
    for (const char* slabBytes : {"1000", "300", "1", "64K"}) {
        INFO("slabs of " << slabBytes << " bytes");
        const ScopedTuning knobs{{"transfer", "bands"}, {"transferBandBytes", slabBytes}};
        const gl::Texture texture = gl::Texture::allocateVolume(GL_R8, width, height, depth, "a test volume");
        REQUIRE(texture.target() == GLenum(GL_TEXTURE_3D));
        transfer::TextureUploader uploader;
        uploader.upload(texture, voxels.data(), GL_RED, GL_UNSIGNED_BYTE, 1, "uploading a test volume");
        std::vector<std::uint8_t> back(voxels.size(), 0xA5);
        transfer::TextureDownloader downloader;
        downloader.download(texture, back.data(), GL_RED, GL_UNSIGNED_BYTE, 1, "downloading a test volume");
        CHECK(back == voxels);
        CHECK(glGetError() == GL_NO_ERROR);
    }
}
