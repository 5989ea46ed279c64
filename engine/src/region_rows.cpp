#include "region_rows.hpp"

#include <algorithm>

#include "backends/compute/compute_constants.hpp"
#include "gl_error.hpp"
#include "glccl/error.hpp"
#include "program.hpp"
#include "small_helpers.hpp"

namespace glccl::measure {

namespace {

// Bindings of region_rows beside measure_common.glsl's (labels on image
// unit 0, records on storage binding 1).
constexpr int kTableImage = 2;
constexpr int kCornersBuffer = 2;
constexpr int kRowsBuffer = 2;
constexpr std::size_t kRowBytes = sizeof(RegionRow);


// The moment sums of level 2 that region_rows reads.
TermRequest rowRequest(int dimensions) {
    TermRequest q;
    q.dimensions = dimensions;
    q.momentLevel = 2;
    return q;
}

}  // namespace

std::vector<std::string> RegionRowWriter::rowProperties(int dimensions) {
    std::vector<std::string> names = {"area", "bbox", "centroid", "axis_major_length", "axis_minor_length"};
    if (dimensions == 2) names.push_back("orientation");
    return names;
}

std::vector<RegionRow> RegionRowWriter::rowsOf(const PropertyTable& table, int dimensions) {
    std::vector<RegionRow> rows(table.rows);
    auto column = [&](const std::string& name) {
        const PropertyColumn* c = table.find(name);
        if (!c) throw Error("the region rows need the column " + name);
        return c;
    };
    // Columns are in numpy's axis order (planes, rows, columns); rows in x, y, z.
    for (int axis = 0; axis < dimensions; ++axis) {
        const int numpy = dimensions - 1 - axis;
        const PropertyColumn* least = column("bbox-" + std::to_string(numpy));
        const PropertyColumn* past = column("bbox-" + std::to_string(numpy + dimensions));
        const PropertyColumn* centroid = column("centroid-" + std::to_string(numpy));
        for (std::size_t r = 0; r < rows.size(); ++r) {
            rows[r].boxMin[axis] = float(least->ints[r]);
            rows[r].boxMax[axis] = float(past->ints[r]);
            rows[r].centre[axis] = float(centroid->reals[r] + 0.5);
        }
    }
    const PropertyColumn* area = column("area");
    const PropertyColumn* major = column("axis_major_length");
    const PropertyColumn* minor = column("axis_minor_length");
    const PropertyColumn* orientation = dimensions == 2 ? column("orientation") : nullptr;
    for (std::size_t r = 0; r < rows.size(); ++r) {
        RegionRow& row = rows[r];
        if (dimensions == 2) {
            row.boxMin[2] = 0.0f;
            row.boxMax[2] = 1.0f;
            row.centre[2] = 0.5f;
        }
        row.boxMin[3] = float(area->reals[r]);
        row.ellipse[0] = orientation ? float(orientation->reals[r]) : 0.0f;
        row.ellipse[1] = float(major->reals[r]);
        row.ellipse[2] = float(minor->reals[r]);
    }
    return rows;
}

void RegionRowWriter::upload(const std::vector<RegionRow>& rows, gl::Buffer& buffer, std::size_t& capacity) {
    if (!buffer) buffer = gl::Buffer::create(), capacity = 0;
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, buffer.id());
    const std::size_t bytes = std::max<std::size_t>(rows.size(), 1) * kRowBytes;
    if (bytes > capacity) {
        glBufferData(GL_PIXEL_UNPACK_BUFFER, GLsizeiptr(bytes), nullptr, GL_DYNAMIC_DRAW);
        capacity = bytes;
    }
    if (!rows.empty()) glBufferSubData(GL_PIXEL_UNPACK_BUFFER, 0, GLsizeiptr(rows.size() * kRowBytes), rows.data());
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
    checkGlError("uploading the region rows");
}

gl::Program& RegionRowWriter::program(const std::string& stage, int dimensions, const RecordLayout& layout) {
    std::string limbs;
    for (int n : layout.momentLimbs) limbs += char('0' + n);
    const std::string key = stage + "/" + std::to_string(dimensions) + "/" + std::to_string(layout.limbs) + "/" + limbs;
    auto found = programs_.find(key);
    if (found != programs_.end()) return found->second;
    gl::ProgramBuilder builder("region_rows");
    // measure_common.glsl's defines, for its records.
    builder.define("DIMENSIONS", dimensions)
        .define("MEASURE_LABELS_IMAGE", kLabelsImage)
        .define("MEASURE_BOXES_BUFFER", kBoxesBuffer)
        .define("MEASURE_TOTALS_BUFFER", kTotalsBuffer)
        .define("MEASURE_INTENSITY_IMAGE", kIntensityImage)
        .define("MEASURE_GROUP", kGroupThreads)
        .define("MEASURE_SEGMENT", kElementSegment)
        .define("LIMBS", layout.limbs)
        .define("MOMENT_LEVEL", 2)
        .define("WEIGHTED_LEVEL", 0)
        .define("RECORD_WORDS", layout.words)
        .define("MOMENTS_AT", layout.momentsAt)
        .define("TABLE_IMAGE", kTableImage)
        .define("TABLE_WIDTH", compute::kTableWidth)
        .define("FIELD_MIN_X", compute::kMinX)
        .define("FIELD_MIN_Y", compute::kMinY)
        .define("FIELD_MIN_Z", compute::kMinZ)
        .define("FIELD_MAX_X", compute::kMaxX)
        .define("FIELD_MAX_Y", compute::kMaxY)
        .define("FIELD_MAX_Z", compute::kMaxZ)
        .define("FIELD_AREA", compute::kArea)
        .define("CORNERS_BUFFER", kCornersBuffer)
        .define("ROWS_BUFFER", kRowsBuffer);
    const struct {
        const char* name;
        int x, y, z;
    } terms[] = {{"TERM_0", 0, 0, 0},  {"TERM_X", 1, 0, 0},  {"TERM_Y", 0, 1, 0},  {"TERM_Z", 0, 0, 1},
                 {"TERM_XX", 2, 0, 0}, {"TERM_YY", 0, 2, 0}, {"TERM_XY", 1, 1, 0}, {"TERM_ZZ", 0, 0, 2},
                 {"TERM_XZ", 1, 0, 1}, {"TERM_YZ", 0, 1, 1}};
    // TERM_*: a moment's offset from MOMENTS_AT and its limbs.
    for (const auto& t : terms)
        if (dimensions == 3 || t.z == 0) {
            const int term = TermRequest::exponentIndex(2, dimensions, t.x, t.y, t.z);
            builder.define(t.name, "ivec2(" + std::to_string(layout.momentOffsets[std::size_t(term)]) + ", " +
                                       std::to_string(layout.momentLimbs[std::size_t(term)]) + ")");
        }
    builder.define(stage == "corners" ? "REGION_CORNERS" : "REGION_ROWS");
    builder.compute("region_rows.comp", "measure_common.glsl");
    return programs_.emplace(key, builder.build()).first->second;
}

void RegionRowWriter::writeOnGpu(const gl::Texture& labels, unsigned table, bool volume, std::uint32_t count,
                                 TermGatherer& gatherer, gl::Buffer& buffer, std::size_t& capacity,
                                 StageTimer* timer) {
    StageTimer untimed(false);
    StageTimer& stages = timer ? *timer : untimed;
    const int dimensions = volume ? 3 : 2;
    if (!buffer) buffer = gl::Buffer::create(), capacity = 0;
    const std::size_t bytes = std::max<std::size_t>(count, 1) * kRowBytes;
    if (bytes > capacity) {
        glBindBuffer(GL_PIXEL_UNPACK_BUFFER, buffer.id());
        glBufferData(GL_PIXEL_UNPACK_BUFFER, GLsizeiptr(bytes), nullptr, GL_DYNAMIC_COPY);
        glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
        capacity = bytes;
    }
    if (count == 0) return;
    // Sums wide enough for any region of these labels: no table is read
    // on the host to size them.
    const std::uint64_t extent = std::uint64_t(std::max({labels.width(), labels.height(), labels.depth()}));
    const std::uint64_t elements =
        std::uint64_t(labels.width()) * std::uint64_t(labels.height()) * std::uint64_t(labels.depth());
    const TermRequest q = rowRequest(dimensions);
    const RecordLayout layout = recordLayout(extent, elements, q, 0);

    // Batches whose records and rows fit one storage block, each starting
    // at an offset the storage bindings take.
    GLint64 largestBlock = 0;
    GLint alignment = 1;
    glGetInteger64v(GL_MAX_SHADER_STORAGE_BLOCK_SIZE, &largestBlock);
    glGetIntegerv(GL_SHADER_STORAGE_BUFFER_OFFSET_ALIGNMENT, &alignment);
    std::uint64_t block = std::uint64_t(std::max<GLint64>(largestBlock, 0));
    if (largestBatchBytes_ > 0) block = std::min<std::uint64_t>(block, largestBatchBytes_);
    const std::uint64_t recordBytes = std::uint64_t(layout.words) * 4;
    const std::size_t step = std::size_t(std::max<GLint>(alignment, 1)) > kRowBytes
                                 ? std::size_t(alignment) / kRowBytes
                                 : 1;
    std::size_t batch = std::size_t(std::min<std::uint64_t>({std::uint64_t(count), block / recordBytes, block / kRowBytes}));
    batch -= batch % step;
    if (batch == 0) throw Error("a region's moment sums pass GL_MAX_SHADER_STORAGE_BLOCK_SIZE");

    glBindImageTexture(kTableImage, table, 0, GL_TRUE, 0, GL_READ_ONLY, GL_R32UI);
    for (std::size_t first = 0; first < count; first += batch) {
        const std::size_t n = std::min<std::size_t>(batch, count - first);
        auto run = [&](const std::string& stage) {
            gl::Program& p = program(stage, dimensions, layout);
            auto scope = stages.scope("region_rows");
            p.use();
            p.set("firstLabel", unsigned(first + 1));
            p.set("batchLabels", unsigned(n));
            glDispatchCompute(GLuint(ceilDiv(n, std::size_t(kGroupThreads))), 1, 1);
            checkGlError("stage region_rows (" + stage + ")");
        };
        gatherer.gatherOnGpu(labels, q, layout, first, n, [&](const gl::Buffer& corners) {
            glBindBufferRange(GL_SHADER_STORAGE_BUFFER, kCornersBuffer, corners.id(), 0, GLsizeiptr(n * 16));
            run("corners");
        }, timer);
        glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kTotalsBuffer, gatherer.records().id());
        glBindBufferRange(GL_SHADER_STORAGE_BUFFER, kRowsBuffer, buffer.id(), GLintptr(first * kRowBytes),
                          GLsizeiptr(n * kRowBytes));
        run("rows");
    }
    // A renderer reads the rows as storage, vertex attributes or by a copy.
    glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT | GL_VERTEX_ATTRIB_ARRAY_BARRIER_BIT | GL_BUFFER_UPDATE_BARRIER_BIT |
                    GL_COMMAND_BARRIER_BIT);
}

}  // namespace glccl::measure
