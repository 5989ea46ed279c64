#include "glccl/tuning.hpp"

#include <cstdlib>
#include <mutex>

#include "glccl/error.hpp"

namespace glccl {

namespace {

[[noreturn]] void malformed(const std::string& name, const std::string& value, const std::string& expected) {
    throw Error("glccl::Tuning::set(): " + name + " is '" + value + "'; expected " + expected);
}

// "16777216", "64K", "16M" or "1G" (binary units), at least 1.
std::size_t parseBytes(const std::string& name, const std::string& text) {
    if (text.empty() || text[0] < '0' || text[0] > '9')
        malformed(name, text, "a byte count of at least 1, optionally with a K, M or G suffix");
    char* end = nullptr;
    const unsigned long long value = std::strtoull(text.c_str(), &end, 10);
    std::size_t unit = 1;
    if (*end == 'K' || *end == 'k') unit = std::size_t(1) << 10, ++end;
    else if (*end == 'M' || *end == 'm') unit = std::size_t(1) << 20, ++end;
    else if (*end == 'G' || *end == 'g') unit = std::size_t(1) << 30, ++end;
    if (*end != '\0' || value < 1 || value > (std::size_t(1) << 40) / unit)
        malformed(name, text, "a byte count of at least 1, optionally with a K, M or G suffix");
    return std::size_t(value) * unit;
}

// A whole decimal number in [lowest, highest], else malformed().
int parseCount(const std::string& name, const std::string& text, int lowest, int highest, const std::string& expected) {
    const char* begin = text.c_str();
    char* end = nullptr;
    const long value = std::strtol(begin, &end, 10);
    if (text.empty() || end == begin || *end != '\0' || value < lowest || value > highest)
        malformed(name, text, expected);
    return int(value);
}

// One text per enumerator, in the enumeration's order.
template <class Enum, std::size_t N>
Enum parseChoice(const std::string& name, const std::string& text, const char* const (&choices)[N]) {
    for (std::size_t i = 0; i < N; ++i)
        if (text == choices[i]) return Enum(i);
    std::string expected;
    for (std::size_t i = 0; i < N; ++i)
        expected += (i == 0 ? "" : i + 1 == N ? " or " : ", ") + std::string(choices[i]);
    malformed(name, text, expected);
}

const char* const kTransfers[] = {"auto", "plain", "bands"};
const char* const kComputeParents[] = {"auto", "buffer", "image"};
const char* const kRasterWork[] = {"fragment", "vertex"};
const char* const kRasterTable[] = {"segments", "runs", "slots"};
const char* const kRasterLocal[] = {"columns", "tiles"};
const char* const kRasterTableLocal[] = {"auto", "points", "fragments"};
const char* const kRasterNumbering[] = {"auto", "scan"};
const char* const kRasterCheck[] = {"pass", "draw"};
const char* const kRasterSums[] = {"bits", "digits"};
const char* const kRasterPack[] = {"floats", "words"};

std::mutex& tuningMutex() {
    static std::mutex mutex;
    return mutex;
}

Tuning& processTuning() {
    static Tuning current;
    return current;
}

}  // namespace

void Tuning::set(const std::string& name, const std::string& value) {
    if (name == "transfer") {
        transfer = parseChoice<Transfer>(name, value, kTransfers);
    } else if (name == "transferBandBytes") {
        transferBandBytes = parseBytes(name, value);
    } else if (name == "transferBuffers") {
        transferBuffers = parseCount(name, value, 2, kMaxTransferBuffers,
                                     "a buffer count 2.." + std::to_string(kMaxTransferBuffers));
    } else if (name == "copyThreads") {
        copyThreads = value == "auto" ? 0
                                      : parseCount(name, value, 1, kMaxCopyThreads,
                                                   "auto or a thread count 1.." + std::to_string(kMaxCopyThreads));
    } else if (name == "computeParents") {
        computeParents = parseChoice<ComputeParents>(name, value, kComputeParents);
    } else if (name == "rasterLocal") {
        rasterLocal = parseChoice<RasterLocal>(name, value, kRasterLocal);
    } else if (name == "rasterBlockWidth") {
        rasterBlockWidth = value == "auto" ? 0 : parseCount(name, value, 2, 4096, "auto or a column count 2..4096");
    } else if (name == "rasterResolve") {
        rasterResolve = parseChoice<RasterWork>(name, value, kRasterWork);
    } else if (name == "rasterTable") {
        rasterTable = parseChoice<RasterTable>(name, value, kRasterTable);
    } else if (name == "rasterTableLocal") {
        rasterTableLocal = parseChoice<RasterTableLocal>(name, value, kRasterTableLocal);
    } else if (name == "rasterColumnDraws") {
        rasterColumnDraws = parseCount(name, value, 1, 3, "1, 2 or 3");
    } else if (name == "rasterNumbering") {
        rasterNumbering = parseChoice<RasterNumbering>(name, value, kRasterNumbering);
    } else if (name == "rasterBorderRounds") {
        rasterBorderRounds = value == "auto" ? 0 : parseCount(name, value, 1, 64, "auto or a round count 1..64");
    } else if (name == "rasterColumnGroup") {
        rasterColumnGroup = parseCount(name, value, 1, 32, "a node count 1..32");
    } else if (name == "rasterScatterGroup") {
        rasterScatterGroup = parseCount(name, value, 0, 32, "0 (the column group) or a node count 1..32");
    } else if (name == "rasterResolveGroup") {
        rasterResolveGroup = parseCount(name, value, 1, 8, "a square side 1..8");
    } else if (name == "rasterResolveCheck") {
        rasterResolveCheck = parseChoice<RasterCheck>(name, value, kRasterCheck);
    } else if (name == "rasterResolveAhead") {
        rasterResolveAhead = parseCount(name, value, 1, 16, "a round count 1..16");
    } else if (name == "rasterTableReads") {
        const int reads = parseCount(name, value, 1, 3, "1 or 3");
        if (reads == 2) malformed(name, value, "1 or 3");
        rasterTableReads = reads;
    } else if (name == "rasterTileRows") {
        const int rows = value == "auto" ? 0 : parseCount(name, value, 8, 32, "auto, 8, 16 or 32");
        if (rows != 0 && rows != 8 && rows != 16 && rows != 32) malformed(name, value, "auto, 8, 16 or 32");
        rasterTileRows = rows;
    } else if (name == "rasterRunHops") {
        rasterRunHops = value == "auto" ? 0 : parseCount(name, value, 2, 1024, "auto or a hop count 2..1024");
    } else if (name == "rasterBitsSpread") {
        rasterBitsSpread = parseCount(name, value, 1, 64, "a texel count 1..64");
    } else if (name == "rasterTableSpread") {
        rasterTableSpread = value == "auto" ? 0 : parseCount(name, value, 1, 64, "auto or a copy count 1..64");
    } else if (name == "rasterTableSums") {
        rasterTableSums = parseChoice<RasterSums>(name, value, kRasterSums);
    } else if (name == "rasterTablePack") {
        rasterTablePack = parseChoice<RasterPack>(name, value, kRasterPack);
    } else if (name == "shaderDir") {
        shaderDir = value;
    } else {
        throw Error("glccl::Tuning::set(): unknown knob '" + name +
                    "'; expected transfer, transferBandBytes, transferBuffers, copyThreads, computeParents, "
                    "rasterLocal, rasterBlockWidth, rasterResolve, rasterTable, rasterTableLocal, rasterColumnDraws, rasterNumbering, rasterBorderRounds, "
                    "rasterColumnGroup, rasterScatterGroup, rasterResolveGroup, rasterResolveCheck, rasterResolveAhead, rasterTableReads, rasterRunHops, rasterTileRows, rasterBitsSpread, rasterTableSpread, rasterTableSums, rasterTablePack or "
                    "shaderDir");
    }
}

std::string Tuning::describe() const {
    // The raster engine's variants only where they differ from the defaults.
    const Tuning defaults;
    std::string raster;
    if (rasterLocal != defaults.rasterLocal) raster += std::string(" rasterLocal=") + kRasterLocal[int(rasterLocal)];
    if (rasterBlockWidth != defaults.rasterBlockWidth)
        raster += " rasterBlockWidth=" + std::to_string(rasterBlockWidth);
    if (rasterResolve != defaults.rasterResolve)
        raster += std::string(" rasterResolve=") + kRasterWork[int(rasterResolve)];
    if (rasterTable != defaults.rasterTable) raster += std::string(" rasterTable=") + kRasterTable[int(rasterTable)];
    if (rasterTableLocal != defaults.rasterTableLocal)
        raster += std::string(" rasterTableLocal=") + kRasterTableLocal[int(rasterTableLocal)];
    if (rasterColumnDraws != defaults.rasterColumnDraws)
        raster += " rasterColumnDraws=" + std::to_string(rasterColumnDraws);
    if (rasterNumbering != defaults.rasterNumbering)
        raster += std::string(" rasterNumbering=") + kRasterNumbering[int(rasterNumbering)];
    if (rasterBorderRounds != defaults.rasterBorderRounds)
        raster += " rasterBorderRounds=" + std::to_string(rasterBorderRounds);
    if (rasterColumnGroup != defaults.rasterColumnGroup)
        raster += " rasterColumnGroup=" + std::to_string(rasterColumnGroup);
    if (rasterScatterGroup != defaults.rasterScatterGroup)
        raster += " rasterScatterGroup=" + std::to_string(rasterScatterGroup);
    if (rasterResolveGroup != defaults.rasterResolveGroup)
        raster += " rasterResolveGroup=" + std::to_string(rasterResolveGroup);
    if (rasterResolveCheck != defaults.rasterResolveCheck)
        raster += std::string(" rasterResolveCheck=") + kRasterCheck[int(rasterResolveCheck)];
    if (rasterResolveAhead != defaults.rasterResolveAhead)
        raster += " rasterResolveAhead=" + std::to_string(rasterResolveAhead);
    if (rasterTableReads != defaults.rasterTableReads)
        raster += " rasterTableReads=" + std::to_string(rasterTableReads);
    if (rasterRunHops != defaults.rasterRunHops) raster += " rasterRunHops=" + std::to_string(rasterRunHops);
    if (rasterTileRows != defaults.rasterTileRows) raster += " rasterTileRows=" + std::to_string(rasterTileRows);
    if (rasterBitsSpread != defaults.rasterBitsSpread)
        raster += " rasterBitsSpread=" + std::to_string(rasterBitsSpread);
    if (rasterTableSpread != defaults.rasterTableSpread)
        raster += " rasterTableSpread=" + (rasterTableSpread == 0 ? std::string("auto") : std::to_string(rasterTableSpread));
    if (rasterTableSums != defaults.rasterTableSums)
        raster += std::string(" rasterTableSums=") + kRasterSums[int(rasterTableSums)];
    if (rasterTablePack != defaults.rasterTablePack)
        raster += std::string(" rasterTablePack=") + kRasterPack[int(rasterTablePack)];
    return std::string("transfer=") + kTransfers[int(transfer)] +
           " transferBandBytes=" + std::to_string(transferBandBytes) +
           " transferBuffers=" + std::to_string(transferBuffers) +
           " copyThreads=" + (copyThreads == 0 ? std::string("auto") : std::to_string(copyThreads)) +
           " computeParents=" + kComputeParents[int(computeParents)] +
           raster + (shaderDir.empty() ? std::string() : " shaderDir=" + shaderDir);
}

void setTuning(const Tuning& tuning) {
    if (tuning.transferBandBytes < 1)
        throw Error("glccl::setTuning(): transferBandBytes is 0; expected a byte count of at least 1");
    if (tuning.transferBuffers < 2 || tuning.transferBuffers > Tuning::kMaxTransferBuffers)
        throw Error("glccl::setTuning(): transferBuffers is " + std::to_string(tuning.transferBuffers) +
                    "; expected 2.." + std::to_string(Tuning::kMaxTransferBuffers));
    if (tuning.copyThreads < 0 || tuning.copyThreads > Tuning::kMaxCopyThreads)
        throw Error("glccl::setTuning(): copyThreads is " + std::to_string(tuning.copyThreads) +
                    "; expected 0 (the hardware threads) or 1.." + std::to_string(Tuning::kMaxCopyThreads));
    if (tuning.rasterBlockWidth != 0 && (tuning.rasterBlockWidth < 2 || tuning.rasterBlockWidth > 4096))
        throw Error("glccl::setTuning(): rasterBlockWidth is " + std::to_string(tuning.rasterBlockWidth) +
                    "; expected 0 (auto: about sqrt(grid width), at most 32 blocks) or 2..4096");
    if (tuning.rasterColumnDraws < 1 || tuning.rasterColumnDraws > 3)
        throw Error("glccl::setTuning(): rasterColumnDraws is " + std::to_string(tuning.rasterColumnDraws) +
                    "; expected 1, 2 or 3");
    if (tuning.rasterBorderRounds < 0 || tuning.rasterBorderRounds > 64)
        throw Error("glccl::setTuning(): rasterBorderRounds is " + std::to_string(tuning.rasterBorderRounds) +
                    "; expected 0 (until no link) or 1..64");
    if (tuning.rasterColumnGroup < 1 || tuning.rasterColumnGroup > 32)
        throw Error("glccl::setTuning(): rasterColumnGroup is " + std::to_string(tuning.rasterColumnGroup) +
                    "; expected 1..32");
    if (tuning.rasterScatterGroup < 0 || tuning.rasterScatterGroup > 32)
        throw Error("glccl::setTuning(): rasterScatterGroup is " + std::to_string(tuning.rasterScatterGroup) +
                    "; expected 0 (the column group) or 1..32");
    if (tuning.rasterResolveGroup < 1 || tuning.rasterResolveGroup > 8)
        throw Error("glccl::setTuning(): rasterResolveGroup is " + std::to_string(tuning.rasterResolveGroup) +
                    "; expected 1..8");
    if (tuning.rasterResolveAhead < 1 || tuning.rasterResolveAhead > 16)
        throw Error("glccl::setTuning(): rasterResolveAhead is " + std::to_string(tuning.rasterResolveAhead) +
                    "; expected 1..16");
    if (tuning.rasterTableReads != 1 && tuning.rasterTableReads != 3)
        throw Error("glccl::setTuning(): rasterTableReads is " + std::to_string(tuning.rasterTableReads) +
                    "; expected 1 or 3");
    if (tuning.rasterRunHops != 0 && (tuning.rasterRunHops < 2 || tuning.rasterRunHops > 1024))
        throw Error("glccl::setTuning(): rasterRunHops is " + std::to_string(tuning.rasterRunHops) +
                    "; expected 0 (auto) or 2..1024");
    if (tuning.rasterTileRows != 0 && tuning.rasterTileRows != 8 && tuning.rasterTileRows != 16 &&
        tuning.rasterTileRows != 32)
        throw Error("glccl::setTuning(): rasterTileRows is " + std::to_string(tuning.rasterTileRows) +
                    "; expected 0 (auto), 8, 16 or 32");
    if (tuning.rasterBitsSpread < 1 || tuning.rasterBitsSpread > 64)
        throw Error("glccl::setTuning(): rasterBitsSpread is " + std::to_string(tuning.rasterBitsSpread) +
                    "; expected 1..64");
    if (tuning.rasterTableSpread < 0 || tuning.rasterTableSpread > 64)
        throw Error("glccl::setTuning(): rasterTableSpread is " + std::to_string(tuning.rasterTableSpread) +
                    "; expected 0 (auto) or 1..64");
    std::lock_guard<std::mutex> lock(tuningMutex());
    processTuning() = tuning;
}

Tuning tuning() {
    std::lock_guard<std::mutex> lock(tuningMutex());
    return processTuning();
}

}  // namespace glccl
