#pragma once
// The version of the glccl library a program was linked with.

namespace glccl {

// "MAJOR.MINOR.PATCH" of the library as built (the project version in the
// top-level CMakeLists.txt), e.g. "0.1.0". Compare it with the version the
// headers were found as (find_package(glccl) sets glccl_VERSION, pkg-config
// --modversion glccl) to catch a stale library. Thread-safe, no GL needed.
const char* versionString();

}  // namespace glccl
