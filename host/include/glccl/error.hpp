#pragma once
// The one error type of glccl. Messages start with the API entry that failed
// ("glccl::readImage(): ...") and say what was expected.

#include <stdexcept>
#include <string>

namespace glccl {

class Error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

}  // namespace glccl
