#pragma once
// The luma of a colour PNG's pixels as the native reader gives it
// (host/src/read_png.cpp: libpng 1.6's png_set_rgb_to_gray(0.299, 0.587)
// after png_set_strip_alpha, with no screen gamma set), for a decoder that
// gives the file's RGB samples as they are (stb_image):
//
// - the weights are libpng's fixed-point ones: 0.299 and 0.587 become
//   29900 and 58700 of 100000, then 32768ths truncated (9797 and 19234),
//   blue the rest (13737);
// - without a file gamma (or with one within 5% of 1), a pixel whose three
//   samples are equal keeps its value, any other gets the weighted sum:
//   truncated for 8-bit samples, rounded for 16-bit ones;
// - with a file gamma g (gAMA, or sRGB's 0.45455), libpng takes the screen
//   gamma as 1/g and converts through its gamma tables: the samples to
//   linear light (exponent 1/g), the weighted sum rounded, back (exponent
//   g); a pixel of three equal samples goes through the file-to-screen
//   table (the identity, but for a 16-bit file with an sBIT chunk, whose
//   table rescales the significant bits to 16). The tables are built as
//   libpng builds them, 16-bit ones indexed by the significant bits sBIT
//   gives.
//
// The chunks read are those libpng reads for this: gAMA, sRGB and sBIT
// before PLTE and the first IDAT, each taken only with its CRC right and its
// length right; a gAMA out of libpng's range, a second gAMA, a second
// sRGB or one of an unknown rendering intent make libpng's colour space
// invalid, after which no gAMA or sRGB is taken; a gAMA and an sRGB that
// disagree are settled as libpng settles them. What
// libpng makes of cHRM and iCCP chunks (an invalid cHRM that makes it drop
// a later gAMA, an ICC profile it recognises as sRGB's) is not reproduced.

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace glccl::web {

// libpng's fixed point: 100000 is 1.0.
constexpr std::int64_t kUnit = 100000;

// What libpng decides from a colour PNG's chunks for its rgb_to_gray.
struct LumaRules {
    bool color = false;   // IHDR's colour type has colour (RGB, RGBA, palette)
    int bitDepth = 0;     // IHDR's bit depth
    std::int64_t gamma = 0;  // the file gamma (fixed point); 0: none
    int significantBits = 0;  // the largest of sBIT's red, green and blue; 0: none
};

namespace detail {

inline std::uint32_t bigEndian32(const std::uint8_t* p) {
    return (std::uint32_t(p[0]) << 24) | (std::uint32_t(p[1]) << 16) | (std::uint32_t(p[2]) << 8) | p[3];
}

inline std::uint32_t crc32(const std::uint8_t* data, std::size_t size) {
    std::uint32_t crc = 0xFFFFFFFFu;
    for (std::size_t i = 0; i < size; ++i) {
        crc ^= data[i];
        for (int bit = 0; bit < 8; ++bit) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
    }
    return ~crc;
}

// libpng's png_gamma_significant: a gamma further than 5% from 1.
inline bool significant(std::int64_t gamma) { return gamma < kUnit - 5000 || gamma > kUnit + 5000; }

// png_reciprocal and png_reciprocal2 (their floating-point arithmetic).
inline std::int64_t reciprocal(std::int64_t a) { return std::int64_t(std::floor(1e10 / double(a) + 0.5)); }
inline std::int64_t reciprocal2(std::int64_t a, std::int64_t b) {
    double r = 1e15 / double(a);
    r /= double(b);
    return std::int64_t(std::floor(r + 0.5));
}

}  // namespace detail

// The rules of the PNG `bytes` (a whole file): its chunks up to the first
// IDAT. A file too short or without IHDR first gives no gamma (the decoder
// refuses it anyway).
inline LumaRules lumaRulesOf(const std::uint8_t* bytes, std::size_t size) {
    LumaRules rules;
    if (size < 33 || bytes[12] != 'I' || bytes[13] != 'H' || bytes[14] != 'D' || bytes[15] != 'R') return rules;
    const int colorType = bytes[25];
    rules.bitDepth = bytes[24];
    rules.color = (colorType & 2) != 0;
    const bool palette = colorType == 3;
    const int channels = palette ? 1 : colorType == 2 ? 3 : colorType == 4 ? 2 : colorType == 6 ? 4 : 1;
    // libpng's colour-space flags, as far as gAMA and sRGB set them.
    bool haveGamma = false, fromGama = false, fromSrgb = false, haveIntent = false, invalid = false;
    bool haveSbit = false;
    bool afterPlte = false;
    for (std::size_t at = 8; at + 12 <= size;) {
        const std::uint32_t length = detail::bigEndian32(bytes + at);
        if (length > size - at - 12) break;
        const std::uint8_t* type = bytes + at + 4;
        const std::uint8_t* data = type + 4;
        const auto is = [&](const char* name) {
            return type[0] == name[0] && type[1] == name[1] && type[2] == name[2] && type[3] == name[3];
        };
        if (is("IDAT") || is("IEND")) break;
        const bool crcRight = detail::crc32(type, length + 4) == detail::bigEndian32(data + length);
        at += 12 + std::size_t(length);
        if (is("PLTE")) afterPlte = true;
        // libpng: out of place after PLTE; a bad CRC drops an ancillary chunk.
        if (afterPlte || !crcRight) continue;
        if (is("gAMA")) {
            if (length != 4) continue;
            const std::int64_t value = detail::bigEndian32(data);
            // png_colorspace_set_gamma: a value out of range, or a second
            // gAMA, makes the colour space invalid (the gamma taken stays,
            // and no later gAMA or sRGB is taken).
            if (value < 16 || value > 625000000 || fromGama) {
                invalid = true;
                continue;
            }
            if (invalid) continue;
            if (haveGamma) {
                // png_colorspace_check_gamma: a value that does not match
                // sRGB's is not taken; one that does not match an estimate is.
                const double ratio = std::floor(double(rules.gamma) * double(kUnit) / double(value) + 0.5);
                if (detail::significant(std::int64_t(ratio)) && fromSrgb) continue;
            }
            rules.gamma = value;
            haveGamma = fromGama = true;
        } else if (is("sRGB")) {
            if (length != 1 || invalid) continue;
            if (haveIntent || data[0] >= 4) {  // a second profile, or an unknown rendering intent
                invalid = true;
                continue;
            }
            rules.gamma = 45455;
            haveGamma = haveIntent = fromSrgb = true;
        } else if (is("sBIT")) {
            const std::uint32_t expected = palette ? 3 : std::uint32_t(channels);
            if (haveSbit || length != expected) continue;
            const int depth = palette ? 8 : rules.bitDepth;
            bool valid = true;
            for (std::uint32_t i = 0; i < length; ++i) valid = valid && data[i] != 0 && data[i] <= depth;
            if (!valid) continue;
            haveSbit = true;
            rules.significantBits = rules.color ? std::max({data[0], data[1], data[2]}) : data[0];
        }
    }
    return rules;
}

// A colour pixel's luma by `rules`, through tables made once per image.
class ColorToLuma {
public:
    explicit ColorToLuma(const LumaRules& rules) {
        // png_init_read_transformations with no screen gamma: the screen's
        // is the file's reciprocal, or both are 1.
        std::int64_t file = rules.gamma, screen = kUnit;
        if (file != 0) screen = detail::reciprocal(file);
        else file = kUnit;
        tables_ = detail::significant(file) || detail::significant(screen);
        if (!tables_) return;
        if (rules.bitDepth <= 8) {
            equal8_ = table8(detail::reciprocal2(file, screen));
            toLinear8_ = table8(detail::reciprocal(file));
            fromLinear8_ = table8(detail::reciprocal(screen));
            return;
        }
        const int sig = rules.significantBits;
        shift_ = sig > 0 && sig < 16 ? 16 - sig : 0;
        if (shift_ > 8) shift_ = 8;
        equal16_ = table16(detail::reciprocal2(file, screen));
        toLinear16_ = table16(detail::reciprocal(file));
        fromLinear16_ = table16(detail::reciprocal(screen));
    }

    // png_do_rgb_to_gray on 8-bit samples.
    std::uint8_t luma8(std::uint32_t r, std::uint32_t g, std::uint32_t b) const {
        if (!tables_)
            return r == g && r == b ? std::uint8_t(r) : std::uint8_t((kRed * r + kGreen * g + kBlue * b) >> 15);
        if (r == g && r == b) return equal8_[r];
        return fromLinear8_[(kRed * toLinear8_[r] + kGreen * toLinear8_[g] + kBlue * toLinear8_[b] + 16384) >> 15];
    }

    // png_do_rgb_to_gray on 16-bit samples.
    std::uint16_t luma16(std::uint32_t r, std::uint32_t g, std::uint32_t b) const {
        if (!tables_) return std::uint16_t((kRed * r + kGreen * g + kBlue * b + 16384) >> 15);
        if (r == g && r == b) return at(equal16_, r);
        const std::uint32_t gray = (kRed * at(toLinear16_, r) + kGreen * at(toLinear16_, g) +
                                    kBlue * at(toLinear16_, b) + 16384) >> 15;
        return at(fromLinear16_, gray);
    }

private:
    // png_set_rgb_to_gray(0.299, 0.587): png_fixed, then 32768ths truncated.
    static constexpr std::uint32_t kRed = std::uint32_t(29900u * 32768u / 100000u);
    static constexpr std::uint32_t kGreen = std::uint32_t(58700u * 32768u / 100000u);
    static constexpr std::uint32_t kBlue = 32768u - kRed - kGreen;

    // png_build_8bit_table.
    static std::vector<std::uint8_t> table8(std::int64_t gamma) {
        std::vector<std::uint8_t> table(256);
        for (unsigned i = 0; i < 256; ++i) {
            table[i] = std::uint8_t(i);
            if (detail::significant(gamma) && i > 0 && i < 255)
                table[i] = std::uint8_t(std::floor(255 * std::pow(int(i) / 255., double(gamma) * .00001) + .5));
        }
        return table;
    }

    // png_build_16bit_table: (256 >> shift) tables of 256, entry [i][j] the
    // sample whose high byte is j and whose low byte's significant bits are i.
    std::vector<std::uint16_t> table16(std::int64_t gamma) const {
        const unsigned shift = unsigned(shift_);
        const unsigned count = 1u << (8u - shift);
        const double fmax = 1.0 / double((std::int32_t(1) << (16u - shift)) - 1);
        const unsigned max = (1u << (16u - shift)) - 1u;
        const unsigned maxBy2 = 1u << (15u - shift);
        std::vector<std::uint16_t> table(std::size_t(count) * 256);
        for (unsigned i = 0; i < count; ++i)
            for (unsigned j = 0; j < 256; ++j) {
                std::uint32_t ig = (j << (8u - shift)) + i;
                if (detail::significant(gamma)) {
                    const double linear = std::pow(ig * fmax, double(gamma) * .00001);
                    table[i * 256 + j] = std::uint16_t(std::floor(65535. * linear + .5));
                } else {
                    if (shift != 0) ig = (ig * 65535u + maxBy2) / max;
                    table[i * 256 + j] = std::uint16_t(ig);
                }
            }
        return table;
    }

    std::uint16_t at(const std::vector<std::uint16_t>& table, std::uint32_t value) const {
        return table[((value & 0xFF) >> shift_) * 256 + (value >> 8)];
    }

    bool tables_ = false;
    int shift_ = 0;
    std::vector<std::uint8_t> equal8_, toLinear8_, fromLinear8_;
    std::vector<std::uint16_t> equal16_, toLinear16_, fromLinear16_;
};

}  // namespace glccl::web
