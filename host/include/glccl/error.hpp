#pragma once
// The error types of glccl. Messages start with the API entry that failed
// ("glccl::readImage(): ...") and say what was expected.

#include <stdexcept>
#include <string>

namespace glccl {

class Error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// A long run stopped at the caller's request (a progress callback that
// returned false), before it wrote anything more.
class Cancelled : public Error {
public:
    using Error::Error;
};

// A message as a user reads it, without the C++ API entries in it
// ("glccl::readImage(): ", "glccl::cpu::Labeler::label(): ", a class's
// "glccl::TiffImageSource: "): they name C++, not anything the user typed
// or called. The command line and Python print messages through it.
std::string userMessage(const std::string& message);

}  // namespace glccl
