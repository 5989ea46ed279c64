#pragma once
// The subcommands of glccl beside `label`: their entry points and help texts.
// Each entry point takes the arguments after the command name, prints its
// help for -h/--help, and returns the exit status; it throws UsageError
// (cli_support.hpp) for a wrong command line and glccl::Error for a failed
// run, which main() reports as one "glccl: " line.

#include <string>
#include <vector>

namespace glccl::tools {

// glccl validate: every backend against the CPU reference (validate.cpp).
int runValidate(const std::vector<std::string>& args);
extern const char kValidateHelp[];

// glccl bench: timings of the backends (bench.cpp).
int runBench(const std::vector<std::string>& args);
extern const char kBenchHelp[];

// glccl generate: writes one generated image, so that other programs (the
// peer benchmarks) label byte-identical inputs (bench.cpp); documented in
// docs/command-line.md and by `glccl help generate`.
int runGenerate(const std::vector<std::string>& args);
extern const char kGenerateHelp[];

// glccl backends: what runs here, on what (backends_command.cpp).
int runBackends(const std::vector<std::string>& args);
extern const char kBackendsHelp[];

// glccl measure: region properties of a label image made elsewhere
// (measure_command.cpp).
int runMeasure(const std::vector<std::string>& args);
extern const char kMeasureHelp[];

struct Command {
    const char* name;
    const char* help;
    int (*run)(const std::vector<std::string>& args);
};

inline const std::vector<Command>& subcommands() {
    static const std::vector<Command> commands = {
        {"measure", kMeasureHelp, runMeasure},
        {"validate", kValidateHelp, runValidate},
        {"bench", kBenchHelp, runBench},
        {"generate", kGenerateHelp, runGenerate},
        {"backends", kBackendsHelp, runBackends},
    };
    return commands;
}

}  // namespace glccl::tools
