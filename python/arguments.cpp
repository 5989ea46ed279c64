#include "arguments.hpp"

#include <cstdint>

#include "glccl/error.hpp"

namespace glccl::python {

namespace {

constexpr const char* kCriterionChoices =
    "\"binary\", \"segments\", (\"threshold\", T) or (\"binary\", L)";
constexpr std::int64_t kLargestSample = 0xFFFFFFFFll;

// A Python int that is not a bool (True would otherwise pass as 1).
bool isInteger(const py::handle& value) {
    return py::isinstance<py::int_>(value) && !py::isinstance<py::bool_>(value);
}

// T of ("threshold", T) or L of ("binary", L): an int in 0..2^32-1, the
// range of the deepest samples; the image's own sampleBits is checked later.
std::int64_t parseSampleValue(const py::handle& value, const char* what, const std::string& where) {
    if (!isInteger(value))
        throw py::type_error(where + ": the " + what + " must be an int, not " +
                             std::string(py::str(py::type::of(value).attr("__name__"))));
    // Through Python's int: a value past int64 must not wrap around.
    const bool negative = py::reinterpret_borrow<py::object>(value) < py::int_(0);
    const bool tooLarge = py::reinterpret_borrow<py::object>(value) > py::int_(kLargestSample);
    if (negative || tooLarge)
        throw py::value_error(where + ": the " + what + " must be in 0..4294967295, not " +
                              std::string(py::str(value)));
    return value.cast<std::int64_t>();
}

}  // namespace

Connectivity parseConnectivity(const py::handle& value, const std::string& where) {
    if (!isInteger(value))
        throw py::type_error(where + ": connectivity must be an int (4 or 8, or scikit-image's 1 or 2)");
    const py::object number = py::reinterpret_borrow<py::object>(value);
    if (number.equal(py::int_(1)) || number.equal(py::int_(4))) return Connectivity::Four;
    if (number.equal(py::int_(2)) || number.equal(py::int_(8))) return Connectivity::Eight;
    throw py::value_error(where + ": connectivity must be 4 or 8 (or scikit-image's 1 or 2), not " +
                          std::string(py::str(value)));
}

Criterion parseCriterion(const py::handle& value, const std::string& where) {
    if (py::isinstance<py::str>(value)) {
        const std::string text = value.cast<std::string>();
        // The command line's spellings ("threshold:12", "binary:100") too.
        if (text == "binary" || text == "segments" || text.rfind("threshold:", 0) == 0 ||
            text.rfind("binary:", 0) == 0) {
            try {
                return Criterion::parse(text);
            } catch (const Error& error) {
                throw py::value_error(where + ": " + error.what());
            }
        }
        throw py::value_error(where + ": criterion must be " + kCriterionChoices + ", not '" + text + "'");
    }
    if (py::isinstance<py::tuple>(value)) {
        const auto tuple = py::reinterpret_borrow<py::tuple>(value);
        const std::string kind = tuple.size() == 2 && py::isinstance<py::str>(tuple[0]) ? tuple[0].cast<std::string>() : "";
        if (kind == "threshold") return Criterion::thresholded(parseSampleValue(tuple[1], "threshold T", where));
        if (kind == "binary") return Criterion::binaryAbove(parseSampleValue(tuple[1], "binary level L", where));
        throw py::value_error(where + ": criterion must be " + kCriterionChoices);
    }
    throw py::type_error(where + ": criterion must be " + kCriterionChoices);
}

Backend parseBackend(const py::handle& value, const std::string& where) {
    if (!py::isinstance<py::str>(value))
        throw py::type_error(where + ": backend must be a str: auto, compute, raster, cuda or cpu");
    try {
        return glccl::parseBackend(value.cast<std::string>());
    } catch (const Error& error) {
        throw py::value_error(where + ": " + error.what());
    }
}

void checkCriterionForSampleBits(const Criterion& criterion, int sampleBits, const std::string& where) {
    const std::string problem = criterion.problemForSampleBits(sampleBits);
    if (!problem.empty()) throw py::value_error(where + ": " + problem);
}

}  // namespace glccl::python
