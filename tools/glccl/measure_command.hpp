#pragma once
// Region properties on the command line (glccl/measure.hpp): the
// --properties, --intensity and --spacing of `glccl label`, and what
// `glccl measure` shares with it: reading an intensity image of any sample
// type, checking a property list before any work, and the table as CSV.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "glccl/measure.hpp"
#include "glccl/region_properties.hpp"
#include "glccl/types.hpp"

namespace glccl {
class Session;
}

namespace glccl::tools {

// --properties LIST, --intensity IMAGE and --spacing LIST as given.
struct MeasureRequest {
    std::vector<std::string> properties;  // scikit-image's names; empty: not asked
    std::string intensity;                // a file; empty: none
    std::vector<double> spacing;          // numpy axis order; empty: 1 on every axis
    bool given() const { return !properties.empty(); }
    // The options as "--name=value" arguments, to hand on to another parser.
    std::vector<std::string> asArguments() const;
};

// The names --properties takes: "label" and the declared properties
// (glccl::propertyDeclarations), in that order.
std::vector<std::string> propertyNames();

// "a,b,c" as a property list; throws UsageError naming `option` for an
// unknown name ("unknown property 'aera'; did you mean 'area'? Properties:
// ...") or a name given twice.
std::vector<std::string> parsePropertyList(const std::string& option, const std::string& text);

// "1.5,1" as spacing: positive finite numbers; throws UsageError naming `option`.
std::vector<double> parseSpacing(const std::string& option, const std::string& text);

// Takes --properties, --intensity and --spacing out of `args` (those after
// "label"): the label parsers never see them. Throws UsageError for a
// malformed value, a second one, or --intensity or --spacing without
// --properties.
MeasureRequest takeMeasureRequest(std::vector<std::string>& args);

// An intensity image as its file holds it: samples of 1, 2, 4 or 8 bytes,
// unsigned, signed or floating point, `channels` interleaved.
struct IntensityImage {
    Shape shape;
    int channels = 1;
    // A last axis of channels, even of one: the columns of intensity
    // properties end in the channel (intensity_mean-0), as scikit-image's.
    bool channelAxis = false;
    int bytes = 1;
    SampleKind kind = SampleKind::Unsigned;
    std::vector<std::uint8_t> samples;
    std::shared_ptr<const std::uint8_t> mapped;  // in place of samples: a mapped .npy's
    IntensitySamples view() const;
};

// The memory an input (labels or intensity) takes read whole, from its
// header only: 0 for an .npy that is mapped, twice the samples for one that
// is reordered after it is read (Fortran order, big-endian); 0 where it
// cannot tell (the reader says why).
std::uint64_t bytesReadWhole(const std::string& path);

// Reads `path` as the intensity of labels of `labels`: a .npy of any
// numeric dtype (shape the labels', or the labels' and a last axis of
// channels), or an image file the label command reads (PNG, JPEG, TIFF and
// TIFF stacks, PGM/PPM; gray, or color as 3 channels, an alpha left out).
// Throws UsageError for another shape or a dtype that is no number, and
// glccl::Error for a file that cannot be read.
IntensityImage readIntensity(const std::string& path, const Shape& labels);

// Checks before any measuring that the properties can be measured on
// labels of `dimensions` with this intensity (nullptr: none) and spacing:
// each defined in those dimensions, an intensity where one is needed, a
// spacing of one positive value per axis that scikit-image takes for them.
// Throws UsageError saying which.
void checkMeasurement(const MeasureRequest& request, int dimensions, const IntensityImage* intensity);

// The measuring options of a request, with `intensity` (nullptr: none).
MeasureOptions measureOptions(const MeasureRequest& request, int threads, const IntensityImage* intensity);

// The properties of `labeling` measured by the engine that labeled it
// (Session::measureTerms: on its GPU where it can, else on the host's
// threads), as glccl label and glccl bench --properties measure one.
PropertyTable measureByEngine(Session& session, const Labeling& labeling, const IntensitySamples* intensity,
                              const MeasureOptions& options);

// The terms of a label image that arrives line by line from the top (the
// rows of a tiled labeling: lines z * height + y of a volume), measured in
// pieces of whole lines (whole planes of a volume) as they come, each with
// the margin of 2 lines (planes) that glccl::PiecePlace asks for, and the
// pieces' totals merged (glccl::mergeTotals): the whole image's totals,
// with no more of its labels held than what one add() brings and the
// margins.
class StreamedMeasurement {
public:
    // Labels of `whole`'s shape, unsigned of `labelBytes` (4 or 8);
    // `intensity` (nullptr: none; kept by the caller until finish()) of the
    // same shape.
    // `sumsLimit` (0: none): the bytes the pieces' totals may hold, and
    // `processLimit` the process's own resident memory, past either of which
    // add() throws glccl::Error naming them (checked after each piece,
    // pieces cut so that one's totals take at most a quarter of sumsLimit).
    StreamedMeasurement(const Shape& whole, int labelBytes, const IntensityImage* intensity, TermRequest request,
                        int threads, std::uint64_t sumsLimit = 0, std::uint64_t processLimit = 0);
    // The next `lines` lines, width labels each.
    void add(const void* labels, std::uint64_t lines);
    // After the last line: the whole image's totals. Throws glccl::Error
    // when not every line came.
    RegionTotals finish();
    // The host memory it holds between pieces at most (labels; the totals
    // grow with the regions: bounded by sumsLimit alone).
    static std::uint64_t heldBytes(const Shape& whole, int labelBytes);

private:
    void measure(std::uint64_t ownEnd);

    Shape whole_;
    std::size_t labelBytes_;
    const IntensityImage* intensity_;
    TermRequest request_;
    int threads_;
    std::uint64_t sumsLimit_;
    std::uint64_t processLimit_;
    std::uint64_t pieceUnits_;           // the most units a piece takes (0: all that are here)
    std::uint64_t regionBytes_ = 0;      // the most bytes a region's totals took so far
    std::uint64_t unitElements_;         // a line, or a plane of a volume
    std::uint64_t units_;                // lines, or planes
    std::vector<std::uint8_t> buffer_;   // units from bufferFirst_ on, and a unit in part
    std::uint64_t bufferFirst_ = 0;
    std::uint64_t received_ = 0;         // elements
    std::uint64_t measured_ = 0;         // units owned by the pieces measured
    // Totals of runs of pieces, merged in pairs of equal runs (a binary
    // counter), so that each region's totals are merged a logarithmic
    // number of times.
    std::vector<std::pair<RegionTotals, std::uint64_t>> runs_;
};

// The table as CSV: a header of the column names, then a row a region;
// integers as integers, reals as the shortest decimal that reads back to
// the same double ("nan", "inf" and "-inf" as numpy writes them).
std::string propertyCsv(const PropertyTable& table);
// The same into `path` (an output of the open transaction), written a piece at
// a time: a table of many regions is never whole as text in memory.
void writePropertyCsv(const std::string& path, const PropertyTable& table, bool overwrite);

}  // namespace glccl::tools
