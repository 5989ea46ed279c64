// Names of the backends, one entry each (no GL here: the options fuzzer
// links the host library alone). What each engine is, the router, the
// factory and the Labeler read from its entry in
// core/src/engine_registry.cpp; which of them runs is the router's
// (core/src/route.cpp).

#include "glccl/backend.hpp"

#include <string>

#include "glccl/error.hpp"

namespace glccl {

namespace {

struct BackendName {
    Backend backend;
    const char* name;  // as users spell it
    int listed;        // its place in summaries (concreteBackends()); -1 for auto
};

// Every backend, in the enum's order, which is the order messages name them.
constexpr BackendName kBackends[] = {
    {Backend::Auto, "auto", -1}, {Backend::Compute, "compute", 0}, {Backend::Raster, "raster", 2},
    {Backend::Cuda, "cuda", 1},  {Backend::Cpu, "cpu", 3},         {Backend::Reference, "reference", 4},
};
static_assert(sizeof(kBackends) / sizeof(kBackends[0]) == kBackendCount);

constexpr bool inEnumOrder() {
    for (int i = 0; i < kBackendCount; ++i)
        if (int(kBackends[i].backend) != i) return false;
    return true;
}
static_assert(inEnumOrder(), "backendName() indexes kBackends by the enum");

}  // namespace

const char* backendName(Backend backend) {
    const int index = int(backend);
    return index >= 0 && index < kBackendCount ? kBackends[index].name : "?";
}

Backend parseBackend(std::string_view name) {
    std::string choices;
    for (int i = 0; i < kBackendCount; ++i) {
        if (name == kBackends[i].name) return kBackends[i].backend;
        choices += (i == 0 ? "" : i + 1 == kBackendCount ? " or " : ", ") + std::string(kBackends[i].name);
    }
    throw Error("unknown backend '" + std::string(name) + "' (expected " + choices + ")");
}

const std::vector<Backend>& concreteBackends() {
    static const std::vector<Backend> all = [] {
        std::vector<Backend> listed(kBackendCount - 1);
        for (const BackendName& entry : kBackends)
            if (entry.listed >= 0) listed.at(std::size_t(entry.listed)) = entry.backend;
        return listed;
    }();
    return all;
}

}  // namespace glccl
