// Pass 3 with 256-bit accumulators, an intensity of 32 or 64 bits or floating point (measure_gather.hpp).

#include "measure_gather.hpp"

namespace glccl::cpu::measure {

GLCCL_GATHER_WIDE(GLCCL_GATHER_DEFINE, Int256)

}  // namespace glccl::cpu::measure
