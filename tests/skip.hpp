#pragma once
// A skipped test that ctest reports as skipped, and that skips one test case
// only. Catch2 v2 has no SKIP, and a test that returns early is reported as
// passed, which says more than it checked. So a test that cannot run here
// calls skipTest(why): it prints "SKIPPED: why", records the skip, and ends
// the test case (Catch's own abort, with no failed assertion), and the run
// goes on with the next case. When the run ends (catch_main.cpp) the skips
// are listed, and a run in which every case that ran was skipped (ctest runs
// each discovered case in a process of its own) exits with kSkipReturnCode,
// which tests/CMakeLists.txt declares as every test's SKIP_RETURN_CODE:
// ctest then lists it as "Skipped" with the reason in its output. A whole
// binary run by hand (on the GPU machine, say) runs to its end and says how
// many cases it skipped.

#include <string>

namespace glccl::test {

constexpr int kSkipReturnCode = 77;

// Records the skip of the current test case and ends it (never returns).
// Call from the test case's own thread.
[[noreturn]] void skipTest(const std::string& why);

}  // namespace glccl::test
