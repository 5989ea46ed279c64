// The compiled side of glccl's measurements: numpy label and intensity
// arrays in, the property table's columns out, measured by the cpu engine's
// accumulator without the GIL (on a worker thread that Ctrl-C abandons for
// large images).

#include "measure_binding.hpp"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "glccl/error.hpp"
#include "glccl/measure.hpp"
#include "glccl/measure_team.hpp"
#include "interruptible.hpp"

namespace py = pybind11;

namespace glccl::python {
namespace {

const char* const kWhere = "glccl.measure_regions()";


void requireContiguous(const py::array& a, const char* what) {
    if (!(a.flags() & py::array::c_style))
        throw py::value_error(std::string(kWhere) + ": the " + what + " must be C-contiguous");
    if (!nativeOrder(a.dtype()))
        throw py::value_error(std::string(kWhere) + ": the " + what + " must be in native byte order");
}

Shape shapeOf(const py::array& labels) {
    if (labels.ndim() == 2) return Shape::image(labels.shape(1), labels.shape(0));
    if (labels.ndim() == 3) return Shape::volume(labels.shape(2), labels.shape(1), labels.shape(0));
    throw py::value_error(std::string(kWhere) + ": labels must be 2-D or 3-D, not " + std::to_string(labels.ndim()) + "-D");
}

// A call's labels and intensity as the library's samples (the arrays stay
// the caller's: they are read where they are).
struct Samples {
    LabelSamples labels;
    std::optional<IntensitySamples> intensity;
    bool channelAxis = false;
    PythonReferences keep;
};

// An intensity array checked against labels of `labelsShape` (numpy order)
// and `shape`: the same shape, plus perhaps a channel axis.
IntensitySamples intensitySamplesOf(const py::array& intensity, const std::vector<py::ssize_t>& labelsShape,
                                    const Shape& shape, bool& channelAxis, const std::string& where) {
    requireContiguous(intensity, "intensity image");
    const auto dims = py::ssize_t(labelsShape.size());
    bool sameShape = intensity.ndim() == dims || intensity.ndim() == dims + 1;
    for (py::ssize_t a = 0; sameShape && a < dims; ++a) sameShape = intensity.shape(a) == labelsShape[std::size_t(a)];
    if (!sameShape)
        throw py::value_error(where + ": the intensity image's shape must be the labels' (plus a channel axis)");
    IntensitySamples s;
    s.shape = shape;
    channelAxis = intensity.ndim() == dims + 1;
    s.channels = channelAxis ? int(intensity.shape(dims)) : 1;
    s.data = intensity.data();
    s.bytes = int(intensity.dtype().itemsize());
    const char k = intensity.dtype().kind();
    if (k == 'f') s.kind = SampleKind::Float;
    else if (k == 'i') s.kind = SampleKind::Signed;
    else if (k == 'u' || k == 'b') s.kind = SampleKind::Unsigned;
    else
        throw py::type_error(where + ": intensity of dtype " + std::string(py::str(intensity.attr("dtype"))) +
                             " is not measured");
    return s;
}

Samples samplesOf(const py::array& labels, const py::object& intensityObject) {
    requireContiguous(labels, "labels");
    const char kind = labels.dtype().kind();
    if (kind != 'i' && kind != 'u' && kind != 'b')
        throw py::type_error(std::string(kWhere) + ": labels must be of an integer dtype, not " +
                             std::string(py::str(labels.attr("dtype"))));
    Samples out;
    out.labels.shape = shapeOf(labels);
    out.labels.data = labels.data();
    out.labels.bytes = int(labels.dtype().itemsize());
    out.labels.isSigned = kind == 'i';
    out.keep.push_back(labels);
    if (intensityObject.is_none()) return out;
    const py::array intensity = py::reinterpret_borrow<py::array>(intensityObject);
    const std::vector<py::ssize_t> labelsShape(labels.shape(), labels.shape() + labels.ndim());
    out.intensity = intensitySamplesOf(intensity, labelsShape, out.labels.shape, out.channelAxis, kWhere);
    out.keep.push_back(intensity);
    return out;
}

// Runs work() without the GIL (on a worker that Ctrl-C abandons for large
// images); the library's errors become ValueError.
void runMeasurement(std::uint64_t elements, const std::function<void()>& work, PythonReferences keep) {
    try {
        if (elements < kInterruptibleElements) {
            py::gil_scoped_release noGil;
            work();
        } else {
            runInterruptibly(work, std::move(keep));
        }
    } catch (const Error& error) {
        throw py::value_error(std::string(kWhere) + ": " + userMessage(error.what()));
    }
}


PropertyOptions propertyOptions(const std::vector<std::string>& properties, const std::optional<std::vector<double>>& spacing,
                                const std::string& separator) {
    PropertyOptions options;
    options.properties = properties;
    if (spacing) options.spacing = *spacing;
    options.separator = separator;
    return options;
}

// --- Terms as numpy arrays (a picklable record for Dask's tasks) -----------------------------

template <class T, class Allocator>
py::array_t<T> arrayOf(const std::vector<T, Allocator>& v, py::ssize_t columns = 1) {
    py::array_t<T> a(std::vector<py::ssize_t>{py::ssize_t(v.size()) / columns, columns});
    std::copy(v.begin(), v.end(), a.mutable_data());
    return a;
}
template <class T>
std::vector<T> vectorOf(const py::dict& d, const char* key) {
    const auto a = py::array_t<T, py::array::c_style | py::array::forcecast>(d[key]);
    return std::vector<T>(a.data(), a.data() + a.size());
}
// d[key] into a term array.
template <class T>
void readInto(TermArray<T>& into, const py::dict& d, const char* key) {
    const auto a = py::array_t<T, py::array::c_style | py::array::forcecast>(d[key]);
    into.assign(a.data(), a.data() + a.size());
}
py::array_t<std::uint64_t> limbsOf(const TermArray<Int256>& v) {
    py::array_t<std::uint64_t> a(std::vector<py::ssize_t>{py::ssize_t(v.size()), 4});
    for (std::size_t i = 0; i < v.size(); ++i) std::copy(v[i].limb.begin(), v[i].limb.end(), a.mutable_data() + 4 * i);
    return a;
}
TermArray<Int256> int256Of(const py::dict& d, const char* key) {
    const auto limbs = py::array_t<std::uint64_t, py::array::c_style | py::array::forcecast>(d[key]);
    TermArray<Int256> v(std::size_t(limbs.size()) / 4);
    for (std::size_t i = 0; i < v.size(); ++i) std::copy(limbs.data() + 4 * i, limbs.data() + 4 * i + 4, v[i].limb.begin());
    return v;
}
py::array_t<double> pairsOf(const TermArray<DoubleDouble>& v) {
    py::array_t<double> a(std::vector<py::ssize_t>{py::ssize_t(v.size()), 2});
    for (std::size_t i = 0; i < v.size(); ++i) {
        a.mutable_data()[2 * i] = v[i].hi;
        a.mutable_data()[2 * i + 1] = v[i].lo;
    }
    return a;
}
TermArray<DoubleDouble> doubleDoublesOf(const py::dict& d, const char* key) {
    const auto pairs = py::array_t<double, py::array::c_style | py::array::forcecast>(d[key]);
    const double* p = pairs.data();
    TermArray<DoubleDouble> v(std::size_t(pairs.size()) / 2);
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = DoubleDouble(p[2 * i], p[2 * i + 1]);
    return v;
}

py::dict measureRegions(const py::array& labels, const py::object& intensityObject, const std::vector<std::string>& properties,
                        const std::optional<std::vector<double>>& spacing, const std::string& separator,
                        const std::optional<int>& threads, bool background, const py::object& componentsObject) {
    // The measuring team starts while the arrays are read and checked.
    glccl::startMeasuringTeam(threads.value_or(0));
    Samples samples = samplesOf(labels, intensityObject);
    MeasureOptions options;
    options.properties = propertyOptions(properties, spacing, separator);
    options.threads = threads.value_or(0);
    options.backgroundIsRegion = background;
    options.intensityChannelAxis = samples.channelAxis;
    // glccl's own labels 1..n with their component table: boxes and areas from it.
    auto components = std::make_shared<std::vector<Component>>();
    const bool fromTable = !componentsObject.is_none();
    if (fromTable) {
        if (background) throw py::value_error(std::string(kWhere) + ": components= measures labels 1..n, not the background");
        const py::dict columns = py::reinterpret_borrow<py::dict>(componentsObject);
        const auto left = vectorOf<std::int64_t>(columns, "left"), top = vectorOf<std::int64_t>(columns, "top");
        const auto width = vectorOf<std::int64_t>(columns, "width"), height = vectorOf<std::int64_t>(columns, "height");
        const auto area = vectorOf<std::uint64_t>(columns, "area");
        const bool volume = columns.contains("front");
        const auto front = volume ? vectorOf<std::int64_t>(columns, "front") : std::vector<std::int64_t>(left.size(), 0);
        const auto depth = volume ? vectorOf<std::int64_t>(columns, "depth") : std::vector<std::int64_t>(left.size(), 1);
        for (std::size_t k = 0; k < left.size(); ++k) {
            Component c;
            c.left = std::uint32_t(left[k]);
            c.top = std::uint32_t(top[k]);
            c.width = std::uint32_t(width[k]);
            c.height = std::uint32_t(height[k]);
            c.area = area[k];
            c.front = std::uint32_t(front[k]);
            c.depth = std::uint32_t(depth[k]);
            components->push_back(c);
        }
    }
    auto table = std::make_shared<PropertyTable>();
    const LabelSamples l = samples.labels;
    const std::optional<IntensitySamples> i = samples.intensity;
    runMeasurement(std::uint64_t(labels.size()), [table, l, i, options, components, fromTable] {
        *table = fromTable ? glccl::measureComponents(l, *components, i ? &*i : nullptr, options)
                           : glccl::measureRegions(l, i ? &*i : nullptr, options);
    }, std::move(samples.keep));
    return columnsOf(std::move(*table));
}

py::dict recordOf(const RegionTotals& t) {
    const TermRequest& q = t.request;
    py::dict d;
    d["request"] = arrayOf(std::vector<std::int64_t>{q.dimensions, q.momentLevel, q.perimeter, q.crofton, q.euler, q.channels,
                                                    int(q.intensityKind), q.intensityBits, q.intensityChannelAxis, q.intensitySums,
                                                    q.intensityExtrema, q.weightedMomentLevel, q.intensityPositions});
    d["labels"] = arrayOf(t.labels);
    d["image_extents"] = arrayOf(t.imageExtents);
    d["counts"] = arrayOf(t.counts);
    std::vector<std::int64_t> lo, hi;
    for (std::size_t r = 0; r < t.regions; ++r)
        for (int a = 0; a < 3; ++a) {
            lo.push_back(t.boxMin[r][std::size_t(a)]);
            hi.push_back(t.boxMax[r][std::size_t(a)]);
        }
    d["box_min"] = arrayOf(lo, 3);
    d["box_max"] = arrayOf(hi, 3);
    d["moments"] = limbsOf(t.moments);
    d["perimeter"] = arrayOf(t.perimeterClasses);
    d["crofton"] = arrayOf(t.croftonClasses);
    d["euler"] = arrayOf(t.eulerTimes);
    d["intensity_sum"] = limbsOf(t.intensitySum);
    d["intensity_squares"] = limbsOf(t.intensitySquares);
    d["intensity_sum_float"] = pairsOf(t.intensitySumFloat);
    d["intensity_squares_float"] = pairsOf(t.intensitySquaresFloat);
    d["intensity_min"] = arrayOf(t.intensityMin);
    d["intensity_max"] = arrayOf(t.intensityMax);
    d["intensity_min_bits"] = arrayOf(t.intensityMinBits);
    d["intensity_max_bits"] = arrayOf(t.intensityMaxBits);
    d["intensity_min_at"] = arrayOf(t.intensityMinAt);
    d["intensity_max_at"] = arrayOf(t.intensityMaxAt);
    d["weighted_moments"] = limbsOf(t.weightedMoments);
    d["weighted_moments_float"] = pairsOf(t.weightedMomentsFloat);
    return d;
}

RegionTotals totalsOf(const py::dict& d) {
    RegionTotals t;
    const auto r = vectorOf<std::int64_t>(d, "request");
    if (r.size() != 13) throw py::value_error(std::string(kWhere) + ": not a terms record of measure_terms()");
    TermRequest& q = t.request;
    q.dimensions = int(r[0]);
    q.momentLevel = int(r[1]);
    q.perimeter = r[2];
    q.crofton = r[3];
    q.euler = r[4];
    q.channels = int(r[5]);
    q.intensityKind = SampleKind(r[6]);
    q.intensityBits = int(r[7]);
    q.intensityChannelAxis = r[8];
    q.intensitySums = r[9];
    q.intensityExtrema = r[10];
    q.weightedMomentLevel = int(r[11]);
    q.intensityPositions = r[12];
    t.labels = vectorOf<std::uint64_t>(d, "labels");
    t.regions = t.labels.size();
    t.imageExtents = vectorOf<std::int64_t>(d, "image_extents");
    t.counts = vectorOf<std::uint64_t>(d, "counts");
    const auto lo = vectorOf<std::int64_t>(d, "box_min"), hi = vectorOf<std::int64_t>(d, "box_max");
    if (t.counts.size() != t.regions || lo.size() != 3 * t.regions || hi.size() != 3 * t.regions)
        throw py::value_error(std::string(kWhere) + ": a terms record's columns differ in length");
    for (std::size_t i = 0; i < t.regions; ++i) {
        t.boxMin.push_back({lo[3 * i], lo[3 * i + 1], lo[3 * i + 2]});
        t.boxMax.push_back({hi[3 * i], hi[3 * i + 1], hi[3 * i + 2]});
    }
    t.moments = int256Of(d, "moments");
    readInto(t.perimeterClasses, d, "perimeter");
    readInto(t.croftonClasses, d, "crofton");
    readInto(t.eulerTimes, d, "euler");
    t.intensitySum = int256Of(d, "intensity_sum");
    t.intensitySquares = int256Of(d, "intensity_squares");
    t.intensitySumFloat = doubleDoublesOf(d, "intensity_sum_float");
    t.intensitySquaresFloat = doubleDoublesOf(d, "intensity_squares_float");
    readInto(t.intensityMin, d, "intensity_min");
    readInto(t.intensityMax, d, "intensity_max");
    readInto(t.intensityMinBits, d, "intensity_min_bits");
    readInto(t.intensityMaxBits, d, "intensity_max_bits");
    readInto(t.intensityMinAt, d, "intensity_min_at");
    readInto(t.intensityMaxAt, d, "intensity_max_at");
    t.weightedMoments = int256Of(d, "weighted_moments");
    t.weightedMomentsFloat = doubleDoublesOf(d, "weighted_moments_float");
    return t;
}

// numpy-ordered triples as x, y, z.
std::array<std::int64_t, 3> xyzOf(const std::vector<std::int64_t>& v, int dims, const char* what) {
    if (int(v.size()) != dims)
        throw py::value_error(std::string(kWhere) + ": " + what + " needs " + std::to_string(dims) + " entries");
    std::array<std::int64_t, 3> out{0, 0, 0};
    for (int a = 0; a < dims; ++a) out[std::size_t(dims - 1 - a)] = v[std::size_t(a)];
    return out;
}

py::dict measureTermsEntry(const py::array& labels, const py::object& intensityObject, const std::vector<std::string>& properties,
                           const std::vector<std::int64_t>& origin, const std::vector<std::int64_t>& ownBegin,
                           const std::vector<std::int64_t>& ownEnd, const std::vector<std::int64_t>& shape,
                           const std::optional<int>& threads, bool background) {
    Samples samples = samplesOf(labels, intensityObject);
    const int dims = int(labels.ndim());
    PiecePlace place;
    place.origin = xyzOf(origin, dims, "origin");
    place.ownBegin = xyzOf(ownBegin, dims, "own_begin");
    place.ownEnd = xyzOf(ownEnd, dims, "own_end");
    const auto whole = xyzOf(shape, dims, "shape");
    place.whole = dims == 3 ? Shape::volume(whole[0], whole[1], whole[2]) : Shape::image(whole[0], whole[1]);
    if (dims == 2) {
        place.ownBegin[2] = 0;
        place.ownEnd[2] = 1;
    }
    const auto& i = samples.intensity;
    TermRequest q = termsFor(properties, dims, i ? i->channels : 0, i ? i->kind : SampleKind::Unsigned, i ? i->bytes * 8 : 8);
    q.intensityChannelAxis = samples.channelAxis;
    auto totals = std::make_shared<RegionTotals>();
    const LabelSamples l = samples.labels;
    const std::optional<IntensitySamples> in = samples.intensity;
    const int t = threads.value_or(0);
    runMeasurement(std::uint64_t(labels.size()), [totals, l, in, q, t, background, place] {
        *totals = measureTerms(l, in ? &*in : nullptr, q, t, background, &place);
    }, std::move(samples.keep));
    return recordOf(*totals);
}

py::dict mergeTermsEntry(const std::vector<py::dict>& records) {
    if (records.empty()) throw py::value_error(std::string(kWhere) + ": merge_terms() needs at least one record");
    std::vector<RegionTotals> all;
    for (const auto& r : records) all.push_back(totalsOf(r));
    {
        py::gil_scoped_release noGil;
        try {
            for (std::size_t k = 1; k < all.size(); ++k) mergeTotals(all[0], all[k]);
        } catch (const Error& error) {
            py::gil_scoped_acquire gil;
            throw py::value_error(std::string(kWhere) + ": " + userMessage(error.what()));
        }
    }
    return recordOf(all[0]);
}

py::dict finalizeTermsEntry(const py::dict& record, const std::vector<std::string>& properties,
                            const std::optional<std::vector<double>>& spacing, const std::string& separator) {
    RegionTotals totals = totalsOf(record);
    // A region only margins held has no element of its own: not a region.
    std::size_t kept = 0;
    for (std::size_t r = 0; r < totals.regions; ++r) kept += totals.counts[r] > 0;
    if (kept != totals.regions)
        throw py::value_error(std::string(kWhere) + ": finalize_terms() needs the merged terms of every piece");
    try {
        return columnsOf(finalizeProperties(totals, propertyOptions(properties, spacing, separator)));
    } catch (const Error& error) {
        throw py::value_error(std::string(kWhere) + ": " + userMessage(error.what()));
    }
}

std::vector<std::string> termProperties() {
    std::vector<std::string> names;
    for (const auto& d : propertyDeclarations()) names.emplace_back(d.name);
    return names;
}


}  // namespace

std::shared_ptr<LabelingMeasurement> labelingMeasurement(const py::handle& measure, const Shape& shape,
                                                         PythonReferences& keep, const std::string& where) {
    if (measure.is_none()) return nullptr;
    const auto spec = py::reinterpret_borrow<py::tuple>(measure);
    if (spec.size() != 3) throw py::value_error(where + ": measure is (properties, intensity, spacing)");
    auto m = std::make_shared<LabelingMeasurement>();
    const auto properties = spec[0].cast<std::vector<std::string>>();
    const auto spacing = spec[2].cast<std::optional<std::vector<double>>>();
    m->properties = propertyOptions(properties, spacing, "-");
    int channels = 0, bits = 8;
    SampleKind kind = SampleKind::Unsigned;
    bool channelAxis = false;
    if (!spec[1].is_none()) {
        const auto intensity = py::reinterpret_borrow<py::array>(spec[1]);
        std::vector<py::ssize_t> labelsShape{py::ssize_t(shape.height), py::ssize_t(shape.width)};
        if (shape.dimensions == 3) labelsShape.insert(labelsShape.begin(), py::ssize_t(shape.depth));
        m->intensity = intensitySamplesOf(intensity, labelsShape, shape, channelAxis, where);
        channels = m->intensity->channels;
        kind = m->intensity->kind;
        bits = m->intensity->bytes * 8;
        keep.push_back(intensity);
    }
    try {
        m->request = termsFor(properties, shape.dimensions, channels, kind, bits);
    } catch (const Error& error) {
        throw py::value_error(where + ": " + userMessage(error.what()));
    }
    m->request.intensityChannelAxis = channelAxis;
    return m;
}

void measureLabeling(Session& session, LabelingMeasurement& m, const std::uint32_t* labels, const Shape& shape,
                     const std::vector<Component>& table) {
    LabelSamples samples;
    samples.shape = shape;
    samples.data = labels;
    samples.bytes = 4;
    const IntensitySamples* intensity = m.intensity ? &*m.intensity : nullptr;
    const RegionTotals totals = session.measureTerms(m.request, intensity, samples, table, m.threads);
    m.gatherer = totals.gatheredBy;
    m.table = finalizeProperties(totals, m.properties, m.threads);
}

py::dict measuredColumns(LabelingMeasurement& m) { return columnsOf(std::move(m.table)); }

void bindMeasure(py::module_& m) {
    m.def("measure_regions", &measureRegions, py::arg("labels"), py::arg("intensity").none() = py::none(),
          py::arg("properties"), py::arg("spacing").none() = py::none(), py::arg("separator") = "-",
          py::arg("threads").none() = py::none(), py::arg("background") = false, py::arg("components").none() = py::none(),
          R"doc(measure_regions(labels, intensity, properties, spacing=None, separator="-", threads=None, background=False, components=None)

The columns of regionprops_table for `properties` (every one a name of
term_properties()), measured by the cpu engine: a dict of 1-D arrays, rows
in ascending label order. labels: a C-contiguous 2-D or 3-D array of an
integer (or bool) dtype; intensity: None or a C-contiguous array of the
labels' shape, with or without a trailing channel axis. background: label 0
is measured too, as the first row. components: the component table glccl
made with these labels (a dict with left, top, width, height, area and, for
a volume, front and depth): labels are 1..n, and boxes and areas are taken
from it instead of gathered. glccl.regionprops_table is the entry to call.)doc");
    m.def("measure_terms", &measureTermsEntry, py::arg("labels"), py::arg("intensity").none(), py::arg("properties"),
          py::arg("origin"), py::arg("own_begin"), py::arg("own_end"), py::arg("shape"), py::arg("threads").none() = py::none(),
          py::arg("background") = false,
          R"doc(measure_terms(labels, intensity, properties, origin, own_begin, own_end, shape, threads=None, background=False)

The terms (per-region totals) of one piece of a larger image, as a dict of
numpy arrays (picklable): labels/intensity hold the piece and a margin of up
to 2 elements from its neighbours; origin is the whole image's index of the
array's first element, own_begin/own_end the array's range the piece owns,
shape the whole image's (all in numpy's axis order). merge_terms() adds
pieces' terms; finalize_terms() gives the columns.)doc");
    m.def("merge_terms", &mergeTermsEntry, py::arg("records"), "The terms of several pieces added (exactly), one record.");
    m.def("finalize_terms", &finalizeTermsEntry, py::arg("record"), py::arg("properties"), py::arg("spacing").none() = py::none(),
          py::arg("separator") = "-", "The columns of regionprops_table from merged terms (as measure_regions returns).");
    m.def("term_properties", &termProperties,
          "The property names measure_regions computes (the others are computed from each region's crop).");
}

bool nativeOrder(const py::dtype& dtype) {
    return !(dtype.byteorder() == '>' || (dtype.byteorder() == '<' && !PY_LITTLE_ENDIAN));
}

namespace {

// A column's values as a 1-D numpy array that owns them: the vector moves
// into the array's capsule, so that a table of millions of rows is handed
// over without a copy (a copy of fresh memory would fault every page of it
// on this one thread).
template <class T>
py::array adoptColumn(std::vector<T>&& values) {
    if (values.empty()) return py::array_t<T>(0);
    auto* owned = new std::vector<T>(std::move(values));
    py::capsule owner(owned, [](void* p) { delete static_cast<std::vector<T>*>(p); });
    return py::array_t<T>(py::ssize_t(owned->size()), owned->data(), owner);
}

}  // namespace

py::dict columnsOf(PropertyTable&& table) {
    py::dict columns;
    for (auto& c : table.columns) {
        py::array column;
        switch (c.type) {
        case PropertyColumn::Type::Int64: column = adoptColumn(std::move(c.ints)); break;
        case PropertyColumn::Type::UInt64: column = adoptColumn(std::move(c.uints)); break;
        default: column = adoptColumn(std::move(c.reals)); break;
        }
        columns[py::str(c.name)] = std::move(column);
    }
    return columns;
}

}  // namespace glccl::python
