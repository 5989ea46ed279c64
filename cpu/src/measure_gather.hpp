#pragma once
// Pass 3 (measure_chunks.hpp's gatherTerms) for every accumulator and
// intensity type, each instantiated in one of the measure_gather_*.cpp
// files rather than where it is called: together they are most of the cpu
// engine's compile time, and apart they compile in parallel.

#include "measure_chunks.hpp"

#include <cstdint>

// GLCCL_GATHER_NARROW(X, Acc) and GLCCL_GATHER_WIDE(X, Acc): X(Acc, In)
// for every intensity type In of one file (no intensity and the integers
// of 8 and 16 bits; the wider integers and floating point), declared
// (extern) or defined by X.
#define GLCCL_GATHER_NARROW(X, Acc)                                                                          \
    X(Acc, NoIntensity)                                                                                      \
    X(Acc, Intensity<std::uint8_t>) X(Acc, Intensity<std::int8_t>) X(Acc, Intensity<std::uint16_t>)           \
    X(Acc, Intensity<std::int16_t>)
#define GLCCL_GATHER_WIDE(X, Acc)                                                                            \
    X(Acc, Intensity<std::uint32_t>) X(Acc, Intensity<std::int32_t>) X(Acc, Intensity<std::uint64_t>)         \
    X(Acc, Intensity<std::int64_t>) X(Acc, Intensity<float>) X(Acc, Intensity<double>)

#define GLCCL_GATHER_DECLARE(Acc, In) \
    extern template void gatherTerms<Acc, In>(const Pass&, const In&, detail::ThreadPool&, int, RegionTotals&);
#define GLCCL_GATHER_DEFINE(Acc, In) \
    template void gatherTerms<Acc, In>(const Pass&, const In&, detail::ThreadPool&, int, RegionTotals&);

namespace glccl::cpu::measure {

GLCCL_GATHER_NARROW(GLCCL_GATHER_DECLARE, __int128)
GLCCL_GATHER_WIDE(GLCCL_GATHER_DECLARE, __int128)
GLCCL_GATHER_NARROW(GLCCL_GATHER_DECLARE, Int256)
GLCCL_GATHER_WIDE(GLCCL_GATHER_DECLARE, Int256)

}  // namespace glccl::cpu::measure
