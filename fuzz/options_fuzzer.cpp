// libFuzzer harness for the option parser of `glccl label`
// (glccl::tools::parseLabelCommand, with the library's parsers of
// backends, connectivities and criteria it calls). The input is the
// argument list, arguments separated by NUL bytes. A UsageError or
// glccl::Error is a correct answer; anything else is a finding.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "cli_support.hpp"
#include "glccl/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::vector<std::string> arguments(1);
    for (std::size_t i = 0; i < size; ++i) {
        if (data[i] == 0) {
            arguments.emplace_back();
        } else {
            arguments.back().push_back(char(data[i]));
        }
    }
    try {
        glccl::tools::ArgumentCursor cursor(arguments);
        const glccl::tools::LabelCommand command = glccl::tools::parseLabelCommand(cursor);
        // What the parser accepted must print and parse back the same way.
        if (!(glccl::Criterion::parse(command.criterion.toString()) == command.criterion)) __builtin_trap();
    } catch (const glccl::tools::UsageError&) {
    } catch (const glccl::Error&) {
    }
    return 0;
}
