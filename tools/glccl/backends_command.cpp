// glccl backends: which backends run here, on what, and what to expect of
// them (glccl::describeBackends, the rows of Python's glccl.backends()).

#include <iostream>
#include <string>
#include <vector>

#include "backends.hpp"
#include "cli_support.hpp"
#include "commands.hpp"
#include "glccl/backend.hpp"
#include "glccl/session.hpp"

namespace glccl::tools {

const char kBackendsHelp[] =
    "usage: glccl backends\n"
    "\n"
    "Lists the backends, auto first: whether each runs here, on what (a GPU, the\n"
    "CPU, or a software renderer: a GL engine whose shaders run on the CPU, as on\n"
    "Mesa's llvmpipe, many times slower than the cpu backend and never chosen by\n"
    "auto), its device, and a note (auto's choice here; why a backend cannot run).\n"
    "Makes the headless GL context to answer for compute and raster.\n"
    "\n"
    "options:\n"
    "  -h, --help                    show this help\n";

int runBackends(const std::vector<std::string>& args) {
    if (hasHelpFlag(args)) {
        std::cout << kBackendsHelp;
        return 0;
    }
    if (!args.empty()) {
        const std::string& arg = args.front();
        if (arg.size() > 1 && arg[0] == '-') throw unknownOption(arg, "backends", {"--help"});
        throw UsageError("backends takes no arguments, not '" + arg + "' (see glccl backends --help)");
    }
    LabelSession session;
    std::vector<std::vector<std::string>> rows{{"backend", "runs", "on", "device", "note"}};
    for (const BackendReport& report : describeBackends(session.session())) {
        const bool runs = report.whyNot.empty();
        const std::string on = report.backend == Backend::Auto ? "-"
                               : !runs                        ? "-"
                               : report.softwareRenderer      ? "software renderer"
                               : report.gpu                   ? "GPU"
                                                              : "CPU";
        rows.push_back({backendName(report.backend), runs ? "yes" : "no", on,
                        report.device.empty() ? "-" : report.device, userMessage(runs ? report.note : report.whyNot)});
    }
    printAlignedTable(std::cout, rows, {0, 1, 2, 3, 4});
    return 0;
}

}  // namespace glccl::tools
