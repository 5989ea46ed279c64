// The test programs' main: Catch's, with one option of ours, --tune
// NAME=VALUE (repeatable), which sets a knob of the process's Tuning
// (glccl/tuning.hpp) for the whole run, so that ctest runs a test set again
// on another path (tests/CMakeLists.txt: the compute engine's parents in an
// image); and the skips of skip.hpp: counted, listed at the end, and the exit
// status 77 where every case that ran was skipped.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <iostream>
#include <mutex>
#include <string>
#include <vector>

#include "glccl/error.hpp"
#include "glccl/tuning.hpp"
#include "skip.hpp"

namespace {

// The cases of this run and those of them that skipped, with why.
struct Skips {
    std::mutex mutex;
    std::string current;
    std::uint64_t casesRun = 0;
    std::vector<std::string> skipped;
};

Skips& skips() {
    static Skips instance;
    return instance;
}

struct SkipCounter : Catch::TestEventListenerBase {
    using TestEventListenerBase::TestEventListenerBase;
    void testCaseStarting(const Catch::TestCaseInfo& info) override {
        Skips& s = skips();
        const std::lock_guard<std::mutex> lock(s.mutex);
        s.current = info.name;
        ++s.casesRun;
    }
};
CATCH_REGISTER_LISTENER(SkipCounter)

}  // namespace

namespace glccl::test {

void skipTest(const std::string& why) {
    std::cout << "SKIPPED: " << why << std::endl;
    {
        Skips& s = skips();
        const std::lock_guard<std::mutex> lock(s.mutex);
        s.skipped.push_back(s.current + ": " + why);
    }
    // Catch's abort of a test case: the case ends here, its failed
    // assertions (none) decide its result, and the run goes on.
    throw Catch::TestFailureException();
}

}  // namespace glccl::test

int main(int argc, char** argv) {
    Catch::Session session;
    std::vector<std::string> knobs;
    session.cli(session.cli() | Catch::clara::Opt(knobs, "name=value")["--tune"](
                                    "sets a knob of the process's glccl::Tuning for the run"));
    if (const int status = session.applyCommandLine(argc, argv); status != 0) return status;
    try {
        glccl::Tuning chosen = glccl::tuning();
        for (const std::string& knob : knobs) {
            const std::size_t equals = knob.find('=');
            if (equals == std::string::npos) throw glccl::Error("--tune: '" + knob + "' is not NAME=VALUE");
            chosen.set(knob.substr(0, equals), knob.substr(equals + 1));
        }
        glccl::setTuning(chosen);
    } catch (const glccl::Error& error) {
        std::cerr << error.what() << '\n';
        return 2;
    }
    const int failures = session.run();
    const Skips& s = skips();
    if (!s.skipped.empty()) {
        std::cout << s.skipped.size() << " of " << s.casesRun << " test cases skipped:\n";
        for (const std::string& line : s.skipped) std::cout << "  " << line << '\n';
    }
    if (failures == 0 && s.casesRun > 0 && s.skipped.size() == s.casesRun) return glccl::test::kSkipReturnCode;
    return failures;
}
