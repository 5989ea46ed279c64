#pragma once
// Deterministic samples shared by the tests of every layer: a xorshift64
// sequence (the same numbers on every platform and standard library, which
// std:: distributions do not promise) and images of values clustered near a
// few centres. Header-only, so that host_* and gl_* tests include it alike.

#include <cstdint>
#include <vector>

#include "glccl/types.hpp"

namespace glccl::test {

// Marsaglia's xorshift64 (shifts 13, 7, 17). `salt` keeps the sequences of
// different test files apart for equal seeds.
class XorShift {
public:
    XorShift(std::uint64_t seed, std::uint64_t salt) : state_(seed * 0x9E3779B97F4A7C15ull + salt) {}
    std::uint64_t next() {
        state_ ^= state_ << 13;
        state_ ^= state_ >> 7;
        state_ ^= state_ << 17;
        return state_;
    }

private:
    std::uint64_t state_;
};

// A one-channel image or volume of `sampleBits`-bit samples, each a centre
// (reduced to the sample range) moved by -spread..spread and kept inside
// 0..largest: equal, close and far neighbours where the centres say so.
inline Image samplesNearCentres(const Shape& shape, int sampleBits, std::uint64_t seed, std::uint64_t salt,
                                const std::vector<std::uint64_t>& centres, std::uint64_t spread) {
    Image image(shape, 1, sampleBits);
    XorShift random(seed, salt);
    const std::uint64_t top = Image::largestSample(sampleBits);
    for (std::size_t i = 0; i < shape.count(); ++i) {
        const std::uint64_t centre = centres[random.next() % centres.size()] & top;
        const std::uint64_t step = random.next() % (2 * spread + 1);
        // Below and above the centre by subtraction, so that no value wraps.
        std::uint64_t v = centre;
        if (step < spread)
            v = centre >= spread - step ? centre - (spread - step) : 0;
        else
            v = top - centre >= step - spread ? centre + (step - spread) : top;
        image.setSample(i, 0, v);
    }
    return image;
}

}  // namespace glccl::test
