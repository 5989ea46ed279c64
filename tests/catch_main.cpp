// The test programs' main: Catch's, with one option of ours, --tune
// NAME=VALUE (repeatable), which sets a knob of the process's Tuning
// (glccl/tuning.hpp) for the whole run, so that ctest runs a test set again
// on another path (tests/CMakeLists.txt: the compute engine's parents in an
// image).
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <iostream>
#include <string>
#include <vector>

#include "glccl/error.hpp"
#include "glccl/tuning.hpp"

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
    return session.run();
}
