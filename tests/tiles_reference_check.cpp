// tiles_reference_check: the CPU reference on a whole .npy or TIFF image or
// 3-D .npy volume, compared with a labeling written by glccl label /
// glccl-mpi (tiled or bricked, any label type) and, if given, its stats CSV.
// For the inputs too large for the tests (50000^2, 2048^3): the reference
// reads the input whole and labels it as it labels every test image, so the
// check stays obviously right; it needs about 9 bytes an element of memory
// (input, labels, forest), 13 past 2^32 elements (a 64-bit forest).
//
//   tiles_reference_check INPUT.npy|INPUT.tif LABELS.npy [STATS.csv] [LABELS.npy [STATS.csv]...]
//                         [--connectivity 4|8|6|18|26] [--criterion C]
//
// Several labelings of one image (e.g. by two backends) are checked against
// one reference run. Prints "identical: N components, WxH ...: LABELS" for
// each, or its first difference; exits 0 when all are identical, else 1; 2
// for a usage error.

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "glccl/error.hpp"
#include "glccl/image_io.hpp"
#include "glccl/image_source.hpp"
#include "glccl/reference.hpp"
#include "glccl/tile_plan.hpp"

using namespace glccl;

namespace {

// The values of a labels .npy ('<u4' or '<u8', C order), read row by row.
class LabelRows {
public:
    explicit LabelRows(const std::string& path) : file_(path, std::ios::binary) {
        char preamble[10];
        if (!file_.read(preamble, 10) || std::memcmp(preamble, "\x93NUMPY", 6) != 0)
            throw Error("'" + path + "' is not an .npy file");
        const std::size_t headerLength = std::size_t(std::uint8_t(preamble[8])) | std::size_t(std::uint8_t(preamble[9])) << 8;
        std::string header(headerLength, '\0');
        file_.read(header.data(), std::streamsize(headerLength));
        if (header.find("'<u4'") != std::string::npos) bytes_ = 4;
        else if (header.find("'<u8'") != std::string::npos) bytes_ = 8;
        else throw Error("'" + path + "' holds neither '<u4' nor '<u8' labels: " + header);
        const std::size_t shape = header.find("'shape': (");
        if (shape == std::string::npos || header.find("'fortran_order': False") == std::string::npos)
            throw Error("'" + path + "' has no C-order shape");
        // (H, W) or (D, H, W): rows are lines of x, slice after slice.
        std::vector<std::uint64_t> sides;
        for (std::size_t at = shape + 10; at < header.size() && header[at] != ')';) {
            std::size_t used = 0;
            sides.push_back(std::stoull(header.substr(at), &used));
            at += used;
            while (at < header.size() && (header[at] == ',' || header[at] == ' ')) ++at;
        }
        if (sides.size() < 2 || sides.size() > 3) throw Error("'" + path + "' is neither an image nor a volume");
        width_ = sides.back();
        height_ = sides[sides.size() - 2];
        depth_ = sides.size() == 3 ? sides[0] : 1;
    }
    std::uint64_t width() const { return width_; }
    std::uint64_t height() const { return height_; }
    std::uint64_t depth() const { return depth_; }
    int bytes() const { return bytes_; }
    bool row(std::vector<std::uint64_t>& values) {
        raw_.resize(std::size_t(width_) * std::size_t(bytes_));
        if (!file_.read(raw_.data(), std::streamsize(raw_.size()))) return false;
        values.assign(std::size_t(width_), 0);
        for (std::size_t x = 0; x < values.size(); ++x) std::memcpy(&values[x], raw_.data() + x * std::size_t(bytes_), std::size_t(bytes_));
        return true;
    }
    bool atEnd() { return file_.peek() == std::char_traits<char>::eof(); }

private:
    std::ifstream file_;
    int bytes_ = 4;
    std::uint64_t width_ = 0, height_ = 0, depth_ = 1;
    std::vector<char> raw_;
};

// One labeling to check: its labels and, if given, its stats.
struct Written {
    std::string labels, stats;
};

// Compares one written labeling with the reference; prints the verdict.
bool matches(const Labeling& reference, const Written& written, const std::string& referenceCsv) {
    const std::string name = written.labels + ": ";
    LabelRows labels(written.labels);
    const std::string size = std::to_string(reference.width) + "x" + std::to_string(reference.height) +
                             (reference.dimensions == 3 ? "x" + std::to_string(reference.depth) : "");
    if (labels.width() != std::uint64_t(reference.width) || labels.height() != std::uint64_t(reference.height) ||
        labels.depth() != std::uint64_t(reference.depth)) {
        std::cout << name << "different: the labels are " << labels.width() << "x" << labels.height() << "x"
                  << labels.depth() << ", the input " << size << '\n';
        return false;
    }
    std::vector<std::uint64_t> row;
    for (int z = 0; z < reference.depth; ++z)
        for (int y = 0; y < reference.height; ++y) {
            if (!labels.row(row)) {
                std::cout << name << "different: the labels end at row " << y << " of slice " << z << '\n';
                return false;
            }
            for (int x = 0; x < reference.width; ++x)
                if (row[std::size_t(x)] != reference.at(x, y, z)) {
                    std::cout << name << "different: element (" << x << ", " << y << ", " << z << ") is "
                              << row[std::size_t(x)] << ", the reference says " << reference.at(x, y, z) << '\n';
                    return false;
                }
        }
    if (!labels.atEnd()) {
        std::cout << name << "different: the labels file has bytes after its rows\n";
        return false;
    }
    if (!written.stats.empty()) {
        std::ifstream file(written.stats, std::ios::binary);
        const std::string csv((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
        if (csv != referenceCsv) {
            std::size_t at = 0;
            while (at < csv.size() && at < referenceCsv.size() && csv[at] == referenceCsv[at]) ++at;
            std::cout << name << "different: " << written.stats << " differs from byte " << at << " (line "
                      << std::count(csv.begin(), csv.begin() + std::ptrdiff_t(at), '\n') + 1 << ")\n";
            return false;
        }
    }
    std::cout << "identical: " << reference.count() << " components, " << size << " (" << (labels.bytes() == 8 ? "uint64" : "uint32") << " labels"
              << (written.stats.empty() ? "" : ", stats") << "): " << written.labels << '\n';
    return true;
}

bool endsWith(const std::string& text, const std::string& end) {
    return text.size() >= end.size() && text.compare(text.size() - end.size(), end.size(), end) == 0;
}

}  // namespace

int main(int argc, char** argv) {
    std::string input;
    std::vector<Written> written;
    Connectivity connectivity = Connectivity::Eight;
    Criterion criterion = Criterion::binary();
    try {
        for (int i = 1; i < argc; ++i) {
            const std::string arg = argv[i];
            if (arg == "--connectivity" && i + 1 < argc) connectivity = parseConnectivity(argv[++i]);
            else if (arg == "--criterion" && i + 1 < argc) criterion = Criterion::parse(argv[++i]);
            else if (arg.rfind("--", 0) == 0) throw Error("unknown option " + arg);
            else if (input.empty()) input = arg;
            else if (endsWith(arg, ".csv") && !written.empty() && written.back().stats.empty()) written.back().stats = arg;
            else if (endsWith(arg, ".csv")) throw Error("stats '" + arg + "' follow no labels file");
            else written.push_back({arg, ""});
        }
        if (written.empty())
            throw Error("usage: tiles_reference_check INPUT LABELS.npy [STATS.csv] [LABELS.npy [STATS.csv]...] "
                        "[--connectivity 4|8|6|18|26] [--criterion C]");
    } catch (const Error& error) {
        std::cerr << "tiles_reference_check: " << error.what() << '\n';
        return 2;
    }
    try {
        const ChannelMode mode = criterion.kind == Criterion::Kind::Threshold ? ChannelMode::Natural : ChannelMode::Gray;
        Image image;
        {
            const std::unique_ptr<ImageSource> source = openImageSource(input, mode);
            if (source->dimensions() == 3) {
                TileRect whole;
                whole.width = source->width(), whole.height = source->height(), whole.depth = source->depth();
                source->readBrick(whole, image);
            } else {
                source->read(0, 0, source->width(), source->height(), image);
            }
        }
        const Labeling reference = labelReference(image, connectivity, criterion);
        image = Image();
        // The reference's CSV, written once by the host's own writer.
        std::string referenceCsv;
        for (const Written& w : written) {
            if (w.stats.empty() || !referenceCsv.empty()) continue;
            const std::string path = w.stats + ".reference.csv";
            writeStatsCsv(path, reference, true);
            std::ifstream file(path, std::ios::binary);
            referenceCsv.assign(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>());
            std::remove(path.c_str());
        }
        bool all = true;
        for (const Written& w : written) all = matches(reference, w, referenceCsv) && all;
        return all ? 0 : 1;
    } catch (const std::exception& error) {
        std::cerr << "tiles_reference_check: " << error.what() << '\n';
        return 1;
    }
}
