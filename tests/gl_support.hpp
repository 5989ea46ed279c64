#pragma once
// Shared by the gl_* tests: headless contexts (llvmpipe in CI) and the
// comparison of a GPU labeling with the CPU reference.

#include <catch2/catch.hpp>

#include <filesystem>
#include <initializer_list>
#include <map>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "glccl/compare.hpp"
#include "glccl/labeler.hpp"
#include "glccl/offscreen.hpp"
#include "glccl/reference.hpp"
#include "glccl/route.hpp"
#include "glccl/session.hpp"
#include "glccl/tuning.hpp"

namespace glccl::test {

// Sets knobs of the process's Tuning (Tuning::set's names and values) for
// its lifetime, restoring the Tuning that was there.
class ScopedTuning {
public:
    ScopedTuning(std::initializer_list<std::pair<const char*, const char*>> knobs) : saved_(tuning()) {
        Tuning chosen = saved_;
        for (const auto& [name, value] : knobs) chosen.set(name, value);
        setTuning(chosen);
    }
    ~ScopedTuning() { setTuning(saved_); }
    ScopedTuning(const ScopedTuning&) = delete;
    ScopedTuning& operator=(const ScopedTuning&) = delete;

private:
    Tuning saved_;
};

// An empty folder under the temporary directory for Tuning::shaderDir,
// which use() points the process's Tuning at; the Tuning before it is
// restored and the folder removed when it goes.
class ShaderFolder {
public:
    explicit ShaderFolder(const std::string& name)
        : saved_(tuning()),
          path_(std::filesystem::temp_directory_path() / (name + "_" + std::to_string(std::random_device{}()))) {
        std::filesystem::create_directories(path_);
    }
    ~ShaderFolder() {
        setTuning(saved_);
        std::error_code ignored;
        std::filesystem::remove_all(path_, ignored);
    }
    ShaderFolder(const ShaderFolder&) = delete;
    ShaderFolder& operator=(const ShaderFolder&) = delete;
    const std::filesystem::path& path() const { return path_; }
    void use() const {
        Tuning withFolder = saved_;
        withFolder.shaderDir = path_.string();
        setTuning(withFolder);
    }

private:
    Tuning saved_;
    std::filesystem::path path_;
};

// One Session per GL version for the whole test process, its headless
// context of that version. Never destroyed: NVIDIA's EGL library tears
// itself down at exit before static destructors run, and destroying a
// context after that corrupts the heap.
inline Session& session(int major = 4, int minor = 5) {
    static std::map<int, Session*> sessions;
    Session*& session = sessions[major * 10 + minor];
    if (!session) {
        Session::Options options;
        options.context.major = major;
        options.context.minor = minor;
        session = new Session(options);
    }
    return *session;
}

// The headless context of that Session and the Labeler in it (made on the
// first call; a test fails where none can be made).
inline OffscreenLabeler& offscreen(int major = 4, int minor = 5) { return session(major, minor).offscreen(); }

// The concrete backends that run in the shared 4.5 context, fastest first.
inline std::vector<Backend> backendsHere() {
    std::vector<Backend> here;
    for (Backend backend : concreteBackends())
        if (whyUnavailable(backend, offscreen().context().info()).empty()) here.push_back(backend);
    return here;
}

inline std::string describeCase(const Image& image, Connectivity connectivity, const Criterion& criterion) {
    return std::to_string(image.width) + "x" + std::to_string(image.height) + "x" + std::to_string(image.channels) +
           " connectivity " + std::to_string(int(connectivity)) + " " + criterion.toString();
}

// Labels `image` offscreen with `backend` forced, and requires that the
// router kept it.
inline Labeling labelWith(Backend backend, const Image& image, Connectivity connectivity, const Criterion& criterion) {
    LabelOptions options;
    options.backend = backend;
    options.connectivity = connectivity;
    options.criterion = criterion;
    Labeling labeling = session().label(image, options);
    REQUIRE(session().backend() == backend);
    return labeling;
}

// The last result of a Labeler as a host Labeling: labels and table downloaded.
inline Labeling downloadResult(Labeler& labeler, int width, int height) {
    Labeling result;
    result.width = width;
    result.height = height;
    result.labels = labeler.downloadLabels();
    result.components = labeler.components();
    return result;
}

// Requires `actual` to be `expected` byte for byte: the shape, the count,
// the labels, then the table row by row (the first differing row named).
inline void requireSameLabeling(const Labeling& expected, const Labeling& actual) {
    REQUIRE(actual.shape() == expected.shape());
    REQUIRE(actual.components.size() == expected.components.size());
    REQUIRE(actual.labels == expected.labels);
    for (std::size_t i = 0; i < expected.components.size(); ++i) {
        INFO("component " << i + 1);
        REQUIRE(actual.components[i] == expected.components[i]);
    }
}

// Labels through the Session's route (auto) and requires the exact reference result.
inline void requireMatchesReference(Session& session, const Image& image, Connectivity connectivity,
                                    const Criterion& criterion, const std::string& name = "") {
    const Labeling expected = labelReference(image, connectivity, criterion);
    LabelOptions options;
    options.connectivity = connectivity;
    options.criterion = criterion;
    const Labeling actual = session.label(image, options);
    const Comparison comparison = compareLabelings(expected, actual);
    INFO(name << " " << describeCase(image, connectivity, criterion) << ": " << comparison.describe());
    REQUIRE(comparison.identical());
}

}  // namespace glccl::test
