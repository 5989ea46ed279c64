#pragma once
// Test hooks of the cpu engine, outside the public header.

#include <cstdint>

namespace glccl::cpu::detail {

// While alive, labelers called on this thread plan stripes of at most
// `elements` elements (at least one row each), instead of the 2^31 - 1 that
// only inputs of billions of elements reach: small inputs then take the
// paths of huge ones (more stripes than threads, stripes shorter than the
// rows a link reaches back, borders merged one after the other).
class ScopedStripeLimit {
public:
    explicit ScopedStripeLimit(std::uint64_t elements);
    ~ScopedStripeLimit();
    ScopedStripeLimit(const ScopedStripeLimit&) = delete;
    ScopedStripeLimit& operator=(const ScopedStripeLimit&) = delete;

private:
    std::uint64_t previous_;
};

// While alive, labelers called on this thread write their labels with
// non-temporal stores whatever the input's size (they do so from
// kStreamLabelBytes of labels on), so that small inputs test that path.
class ScopedStreamedLabels {
public:
    ScopedStreamedLabels();
    ~ScopedStreamedLabels();
    ScopedStreamedLabels(const ScopedStreamedLabels&) = delete;
    ScopedStreamedLabels& operator=(const ScopedStreamedLabels&) = delete;

private:
    bool previous_;
};

}  // namespace glccl::cpu::detail
