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

}  // namespace glccl::cpu::detail
