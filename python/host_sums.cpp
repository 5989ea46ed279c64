// The compiled side of glccl.ndimage's measurements of numpy arrays: the
// arrays are read where they are, without the GIL, and each column comes
// back as a new numpy array of the list's length.

#include "host_sums.hpp"

#include <pybind11/numpy.h>

#include <cstdint>
#include <string>

#include "glccl/error.hpp"
#include "glccl/label_sums.hpp"
#include "measure_binding.hpp"

namespace py = pybind11;

namespace glccl::python {
namespace {

void requireReadable(const py::array& a, const std::string& where, const char* what) {
    if (!(a.flags() & py::array::c_style))
        throw py::value_error(where + ": the " + what + " must be C-contiguous");
    if (!nativeOrder(a.dtype())) throw py::value_error(where + ": the " + what + " must be in native byte order");
}

py::dict hostSumsByLabel(const py::array& labels, const py::object& valuesObject, const py::array& sortedLabels,
                         unsigned terms, int threads, const std::string& where) {
    requireReadable(labels, where, "labels");
    const char labelKind = labels.dtype().kind();
    if (labelKind != 'i' && labelKind != 'u' && labelKind != 'b')
        throw py::type_error(where + ": labels must be integers or booleans");
    if (labels.ndim() < 1 || labels.ndim() > 3) throw py::value_error(where + ": labels must have 1 to 3 axes");
    LabelSumsInput in;
    in.axes = int(labels.ndim());
    for (int a = 0; a < in.axes; ++a) in.extents[std::size_t(a)] = std::uint64_t(labels.shape(a));
    in.labels = labels.data();
    in.labelBytes = int(labels.itemsize());
    in.labelsSigned = labelKind == 'i';

    py::array values;
    if (!valuesObject.is_none()) {
        values = py::reinterpret_borrow<py::array>(valuesObject);
        requireReadable(values, where, "values");
        bool same = values.ndim() == labels.ndim();
        for (int a = 0; same && a < in.axes; ++a) same = values.shape(a) == labels.shape(a);
        if (!same) throw py::value_error(where + ": the values must have the labels' shape");
        const char kind = values.dtype().kind();
        if (kind != 'i' && kind != 'u' && kind != 'b' && kind != 'f')
            throw py::type_error(where + ": values must be integers, booleans or floats");
        in.values = values.data();
        in.valueBytes = int(values.itemsize());
        in.valueKind = kind == 'f' ? SampleKind::Float : kind == 'i' ? SampleKind::Signed : SampleKind::Unsigned;
    } else if (terms & ~unsigned(HostLabelSums::Count)) {
        throw py::value_error(where + ": values are needed for sums, variances, extrema or centres");
    }

    requireReadable(sortedLabels, where, "sorted labels");
    const auto listType = in.labelsSigned ? py::dtype::of<std::int64_t>() : py::dtype::of<std::uint64_t>();
    if (sortedLabels.ndim() != 1 || !sortedLabels.dtype().is(listType))
        throw py::type_error(where + ": the sorted labels must be 1-D, int64 for signed labels, uint64 for unsigned");
    in.sortedList = sortedLabels.data();
    in.listCount = std::size_t(sortedLabels.shape(0));

    const auto n = py::ssize_t(in.listCount);
    py::dict columns;
    LabelSumsOutput out;
    py::array_t<std::int64_t> counts(n);
    out.counts = counts.mutable_data();
    columns["counts"] = counts;
    if (terms & HostLabelSums::Sum) {
        py::array_t<double> sums(n);
        out.sums = sums.mutable_data();
        columns["sums"] = sums;
    }
    if (terms & HostLabelSums::Variance) {
        py::array_t<double> variances(n);
        out.variances = variances.mutable_data();
        columns["variances"] = variances;
    }
    if (terms & HostLabelSums::Extrema) {
        py::array_t<std::int64_t> low(n), high(n);
        out.minimumAt = low.mutable_data();
        out.maximumAt = high.mutable_data();
        columns["minimum_at"] = low;
        columns["maximum_at"] = high;
    }
    if (terms & HostLabelSums::Centre) {
        for (int a = 0; a < in.axes; ++a) {
            py::array_t<double> centre(n);
            out.centres[std::size_t(a)] = centre.mutable_data();
            columns[py::str("centre-" + std::to_string(a))] = centre;
        }
    }
    try {
        py::gil_scoped_release noGil;
        sumsByLabel(in, terms, out, threads);
    } catch (const Error& e) {
        throw py::value_error(where + ": " + e.what());
    }
    return columns;
}

}  // namespace

void bindHostSums(py::module_& m) {
    m.def("host_sums_by_label", &hostSumsByLabel, py::arg("labels"), py::arg("values").none(),
          py::arg("sorted_labels"), py::arg("terms"), py::arg("threads") = 0, py::arg("where") = "host_sums_by_label()",
          R"doc(host_sums_by_label(labels, values, sorted_labels, terms, threads=0, where="host_sums_by_label()")

scipy.ndimage's reductions over labels for a list of labels of numpy arrays,
in one pass on `threads` threads (0: every core the process may run on;
every count gives the same bits): labels C-ordered integers or booleans of
1 to 8 bytes (1 to 3 axes), values None (counts alone) or C-ordered
integers, booleans or floats of the same shape, sorted_labels the distinct
labels asked in ascending order (int64; uint64 for unsigned labels), terms
the bits count 1, sum 2, variance 4, extrema 8, centre 16. Returns a dict of
arrays of sorted_labels' length: counts (int64), sums, variances (float64),
minimum_at, maximum_at (int64 flat positions, the first in C order, NaN
after every number), centre-0.. (float64, by axis). glccl.ndimage's
functions are the entries to call.)doc");
}

}  // namespace glccl::python
