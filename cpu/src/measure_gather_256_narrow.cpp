// Pass 3 with 256-bit accumulators, no intensity or one of 8 or 16 bits (measure_gather.hpp).

#include "measure_gather.hpp"

namespace glccl::cpu::measure {

GLCCL_GATHER_NARROW(GLCCL_GATHER_DEFINE, Int256)

}  // namespace glccl::cpu::measure
