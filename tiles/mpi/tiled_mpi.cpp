// labelTiledMpi(): the passes of tile_pipeline.hpp on every rank's block of
// bands, and what joins the blocks:
//
//   rank 0  [ bands 0 .. b1 )      pass 1 on each rank, in parallel
//   rank 1  [ bands b1 .. b2 )
//   rank 2  [ bands b2 .. b3 )     ...
//
//   MergeBlocksPass: a binary tree over the ranks. At level k, the leader of
//   each pair of neighbouring blocks receives the other block's summary (its
//   first and last rows: the owning-part name of every pixel, the pixels,
//   the keys of those names), unites across the middle border with the same
//   forEachConnectedPair as inside a block, and broadcasts the renames to the
//   ranks of the merged block. A summary is two rows, so no rank ever holds
//   more than two rows of border data per level: nothing is funnelled to
//   one rank, whatever the rank count (Bester & Pulles gathered every block
//   on rank 0 and merged there).
//   Then every rank resolves its roots, the counts are scanned (MPI_Exscan)
//   into label offsets, final labels and stats of components that span
//   ranks travel to and from their owning rank (MPI_Alltoallv), and every
//   rank writes its rows at their offsets of the one .npy (MPI-IO).
//
// A volume goes the same way: its bands are layers of bricks, so a block is
// a slab of whole slices, a summary holds its first and last slices (faces
// of height x width), and a rank's rows are its lines (z * height + y).

#include "glccl/tiled_mpi.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "glccl/error.hpp"
#include "glccl/output_transaction.hpp"
#include "glccl/tile_pipeline.hpp"
#include "output_file.hpp"

namespace glccl {

namespace {

using Clock = std::chrono::steady_clock;
double millisecondsSince(Clock::time_point start) {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

const std::string kWhere = "glccl::labelTiledMpi(): ";

// Local work between collectives: a failure on one rank becomes an error on
// every rank, so that none waits in the next collective for a rank that left.
template <typename Work>
void together(MPI_Comm comm, Work&& work) {
    std::string message;
    int failed = 0;
    try {
        work();
    } catch (const std::exception& error) {
        message = error.what();
        failed = 1;
    }
    int anyFailed = 0;
    MPI_Allreduce(&failed, &anyFailed, 1, MPI_INT, MPI_MAX, comm);
    if (failed) throw Error(message);
    if (anyFailed) throw OtherRankFailed(kWhere + "another rank failed (it printed why)");
}

// ---------------------------------------------------------------- bytes

class Packer {
public:
    template <typename T>
    void put(const T& value) {
        const auto* p = reinterpret_cast<const char*>(&value);
        bytes_.insert(bytes_.end(), p, p + sizeof(T));
    }
    template <typename T>
    void putVector(const std::vector<T>& values) {
        put(std::uint64_t(values.size()));
        const auto* p = reinterpret_cast<const char*>(values.data());
        bytes_.insert(bytes_.end(), p, p + values.size() * sizeof(T));
    }
    std::vector<char>& bytes() { return bytes_; }

private:
    std::vector<char> bytes_;
};

class Unpacker {
public:
    explicit Unpacker(const std::vector<char>& bytes) : at_(bytes.data()), end_(bytes.data() + bytes.size()) {}
    template <typename T>
    T get() {
        T value;
        take(&value, sizeof(T));
        return value;
    }
    template <typename T>
    std::vector<T> getVector() {
        std::vector<T> values(std::size_t(get<std::uint64_t>()));
        take(values.data(), values.size() * sizeof(T));
        return values;
    }

private:
    void take(void* to, std::size_t size) {
        if (std::size_t(end_ - at_) < size) throw Error(kWhere + "a message from another rank is truncated");
        if (size == 0) return;  // an empty vector's data() may be null, which memcpy may not take
        std::memcpy(to, at_, size);
        at_ += size;
    }
    const char* at_;
    const char* end_;
};

// Messages of any size: the length first, then chunks below MPI's int counts.
constexpr std::size_t kChunk = std::size_t(1) << 30;

void sendBytes(MPI_Comm comm, const std::vector<char>& bytes, int to, int tag) {
    const std::uint64_t size = bytes.size();
    MPI_Send(&size, 1, MPI_UINT64_T, to, tag, comm);
    for (std::size_t at = 0; at < bytes.size(); at += kChunk)
        MPI_Send(bytes.data() + at, int(std::min(kChunk, bytes.size() - at)), MPI_BYTE, to, tag, comm);
}

std::vector<char> receiveBytes(MPI_Comm comm, int from, int tag) {
    std::uint64_t size = 0;
    MPI_Recv(&size, 1, MPI_UINT64_T, from, tag, comm, MPI_STATUS_IGNORE);
    std::vector<char> bytes(static_cast<std::size_t>(size));
    for (std::size_t at = 0; at < bytes.size(); at += kChunk)
        MPI_Recv(bytes.data() + at, int(std::min(kChunk, bytes.size() - at)), MPI_BYTE, from, tag, comm,
                 MPI_STATUS_IGNORE);
    return bytes;
}

void broadcastBytes(MPI_Comm comm, std::vector<char>& bytes, int root) {
    std::uint64_t size = bytes.size();
    MPI_Bcast(&size, 1, MPI_UINT64_T, root, comm);
    bytes.resize(std::size_t(size));
    for (std::size_t at = 0; at < bytes.size(); at += kChunk)
        MPI_Bcast(bytes.data() + at, int(std::min(kChunk, bytes.size() - at)), MPI_BYTE, root, comm);
}

// ---------------------------------------------------------------- blocks

// A block of consecutive ranks' bands, as the tree merge sees it.
struct BlockSummary {
    bool empty = true;
    BorderFace top, bottom;                              // nodes: owning-part names so far
    std::vector<std::uint64_t> names;                   // the names in the rows, ascending
    std::vector<PartKey> keys;                          // their keys

    void pack(Packer& out) const {
        out.put(std::uint8_t(empty ? 1 : 0));
        if (empty) return;
        out.put(top.channels);
        out.put(top.sampleBits);
        out.put(std::uint64_t(top.rows));
        out.put(std::uint64_t(bottom.rows));
        out.putVector(top.nodes);
        out.putVector(top.pixels);
        out.putVector(bottom.nodes);
        out.putVector(bottom.pixels);
        out.putVector(names);
        out.putVector(keys);
    }
    static BlockSummary unpack(const std::vector<char>& bytes) {
        Unpacker in(bytes);
        BlockSummary block;
        block.empty = in.get<std::uint8_t>() != 0;
        if (block.empty) return block;
        block.top.channels = block.bottom.channels = in.get<int>();
        block.top.sampleBits = block.bottom.sampleBits = in.get<int>();
        block.top.rows = std::size_t(in.get<std::uint64_t>());
        block.bottom.rows = std::size_t(in.get<std::uint64_t>());
        block.top.nodes = in.getVector<std::uint64_t>();
        block.top.pixels = in.getVector<std::uint8_t>();
        block.bottom.nodes = in.getVector<std::uint64_t>();
        block.bottom.pixels = in.getVector<std::uint8_t>();
        block.names = in.getVector<std::uint64_t>();
        block.keys = in.getVector<PartKey>();
        return block;
    }
};

using Renames = std::vector<std::pair<std::uint64_t, std::uint64_t>>;  // old name -> new, ascending by old

// MergeBlocksPass, one pair: `upper` becomes the merged block; returns the
// renames (every name whose component now has a smaller-keyed owning part).
Renames mergeBlocks(BlockSummary& upper, BlockSummary lower, Connectivity connectivity, const Criterion& criterion) {
    if (lower.empty) return {};
    if (upper.empty) {
        upper = std::move(lower);
        return {};
    }
    // A union-find over the names of both blocks' rows, roots the smallest key.
    std::vector<std::uint64_t> names = upper.names;
    std::vector<PartKey> keys = upper.keys;
    names.insert(names.end(), lower.names.begin(), lower.names.end());
    keys.insert(keys.end(), lower.keys.begin(), lower.keys.end());
    std::vector<std::size_t> order(names.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return names[a] < names[b]; });
    std::vector<std::uint64_t> sortedNames;
    std::vector<PartKey> sortedKeys;
    for (const std::size_t i : order)
        if (sortedNames.empty() || sortedNames.back() != names[i]) {
            sortedNames.push_back(names[i]);
            sortedKeys.push_back(keys[i]);
        }
    std::vector<std::size_t> parent(sortedNames.size());
    for (std::size_t i = 0; i < parent.size(); ++i) parent[i] = i;
    const auto indexOf = [&](std::uint64_t name) {
        const auto at = std::lower_bound(sortedNames.begin(), sortedNames.end(), name);
        if (at == sortedNames.end() || *at != name) throw Error(kWhere + "a block's row names a part it has no key for");
        return std::size_t(at - sortedNames.begin());
    };
    const auto find = [&](std::size_t i) {
        while (parent[i] != i) {
            parent[i] = parent[parent[i]];
            i = parent[i];
        }
        return i;
    };
    forEachConnectedPair(upper.bottom, lower.top, connectivity, criterion, [&](std::uint64_t a, std::uint64_t b) {
        const std::size_t rootA = find(indexOf(a)), rootB = find(indexOf(b));
        if (rootA == rootB) return;
        if (sortedKeys[rootB] < sortedKeys[rootA]) parent[rootA] = rootB;
        else parent[rootB] = rootA;
    });
    Renames renames;
    for (std::size_t i = 0; i < sortedNames.size(); ++i) {
        const std::size_t root = find(i);
        if (root != i) renames.emplace_back(sortedNames[i], sortedNames[root]);
    }
    const auto rename = [&](BorderFace& row) {
        for (std::uint64_t& node : row.nodes)
            if (node != BorderFace::kNone) node = sortedNames[find(indexOf(node))];
    };
    upper.bottom = std::move(lower.bottom);
    rename(upper.top);
    rename(upper.bottom);
    // The merged block's names: those left in its outer rows.
    std::vector<std::uint64_t> present;
    for (const BorderFace* row : {&upper.top, &upper.bottom})
        for (const std::uint64_t node : row->nodes)
            if (node != BorderFace::kNone) present.push_back(node);
    std::sort(present.begin(), present.end());
    present.erase(std::unique(present.begin(), present.end()), present.end());
    upper.names = present;
    upper.keys.clear();
    for (const std::uint64_t name : present) upper.keys.push_back(sortedKeys[indexOf(name)]);
    return renames;
}

// ---------------------------------------------------------------- output

// A hidden file beside the target that every rank writes through MPI-IO,
// made by rank 0 as glccl's other writers make theirs (detail::OutputFile:
// only a regular file replaced, removed by a failure or a handled signal);
// close() hands it to the open OutputTransaction, so that the labels and
// the table take their names together, or neither.
class StagedOutput {
public:
    StagedOutput(MPI_Comm comm, std::string path, bool overwrite) : comm_(comm), path_(std::move(path)), overwrite_(overwrite) {
        MPI_Comm_rank(comm, &rank_);
    }
    // Collective: rank 0 creates the temporary file with `head` in it.
    void create(const std::string& head) {
        std::vector<char> name;
        together(comm_, [&] {
            if (rank_ != 0) return;
            file_ = std::make_unique<detail::OutputFile>(kWhere, path_, overwrite_);
            file_->write(head);
            // On disk before the other ranks write past it.
            if (std::fflush(file_->stream()) != 0) throw Error(kWhere + "cannot write '" + path_ + "'");
            temporary_ = file_->temporaryPath();
        });
        name.assign(temporary_.begin(), temporary_.end());
        broadcastBytes(comm_, name, 0);
        temporary_.assign(name.begin(), name.end());
    }
    const std::string& temporary() const { return temporary_; }
    // Rank 0, after every rank closed the file: complete, to be committed.
    void close() {
        if (file_) file_->close();
    }

private:
    MPI_Comm comm_;
    std::string path_, temporary_;
    bool overwrite_ = false;
    int rank_ = 0;
    std::unique_ptr<detail::OutputFile> file_;  // rank 0's
};

// A write that MPI reports done but that wrote fewer bytes (a full disk, a
// file past ulimit -f) is an error too.
void writeAt(MPI_File file, std::uint64_t offset, const char* data, std::uint64_t size, const std::string& path) {
    for (std::uint64_t at = 0; at < size; at += kChunk) {
        const int count = int(std::min<std::uint64_t>(kChunk, size - at));
        MPI_Status status;
        int written = 0;
        if (MPI_File_write_at(file, MPI_Offset(offset + at), data + at, count, MPI_BYTE, &status) != MPI_SUCCESS ||
            MPI_Get_count(&status, MPI_BYTE, &written) != MPI_SUCCESS || written != count)
            throw Error(kWhere + "cannot write '" + path + "' (" + std::to_string(offset + at + std::uint64_t(written)) +
                        " bytes in): no space left on its device, or past a file size limit");
    }
}

// Collective: every rank's writes on the disk (so that the file's rename
// into its name finds nothing left to flush, and a run stopped then leaves
// the earlier file or the new one whole), then the file closed; a failure
// on any rank fails every rank.
void closeShared(MPI_Comm comm, MPI_File& file, const std::string& path) {
    const bool synced = MPI_File_sync(file) == MPI_SUCCESS;
    const bool closed = MPI_File_close(&file) == MPI_SUCCESS;
    together(comm, [&] {
        if (!synced || !closed) throw Error(kWhere + "cannot write '" + path + "': the disk did not take it");
    });
}

// This rank's rows into the shared .npy at their offsets; its table rows
// into a string (placed by an exclusive scan of the ranks' lengths).
class MpiRowsSink : public LabelSink {
public:
    MpiRowsSink(MPI_File file, std::uint64_t headerBytes, std::string path, bool table)
        : file_(file), headerBytes_(headerBytes), path_(std::move(path)), table_(table) {}
    void begin(std::uint32_t width, std::uint32_t height, LabelType type, std::uint64_t count) override {
        begin(Shape::image(width, height), type, count);
    }
    // A volume's rows are its lines (z * height + y), as its .npy holds them.
    void begin(const Shape& shape, LabelType type, std::uint64_t) override {
        width_ = std::uint32_t(shape.width);
        volume_ = shape.dimensions == 3;
        bytes_ = labelBytes(type);
    }
    void writeRows(std::uint32_t y0, std::uint32_t rows, const void* labels) override {
        if (file_ == MPI_FILE_NULL) return;
        const std::uint64_t rowBytes = std::uint64_t(width_) * bytes_;
        writeAt(file_, headerBytes_ + std::uint64_t(y0) * rowBytes, static_cast<const char*>(labels), rows * rowBytes,
                path_);
    }
    bool wantsLabels() const override { return file_ != MPI_FILE_NULL; }
    bool wantsTable() const override { return table_; }
    void writeComponents(std::uint64_t firstLabel, const std::vector<Component>& components) override {
        for (std::size_t i = 0; i < components.size(); ++i) {
            if (volume_) appendVolumeStatsCsvRow(text_, firstLabel + i, components[i]);
            else appendStatsCsvRow(text_, firstLabel + i, components[i]);
        }
    }
    void finish() override {}
    std::string& text() { return text_; }

private:
    MPI_File file_;
    std::uint64_t headerBytes_;
    std::string path_;
    bool table_;
    std::uint32_t width_ = 0;
    bool volume_ = false;
    std::size_t bytes_ = 4;
    std::string text_;
};

MPI_File openShared(MPI_Comm comm, const std::string& path) {
    MPI_File file = MPI_FILE_NULL;
    std::vector<char> name(path.begin(), path.end());
    name.push_back('\0');
    const int status = MPI_File_open(comm, name.data(), MPI_MODE_WRONLY, MPI_INFO_NULL, &file);
    int ok = status == MPI_SUCCESS ? 1 : 0, allOk = 0;
    MPI_Allreduce(&ok, &allOk, 1, MPI_INT, MPI_MIN, comm);
    if (!allOk) {
        if (file != MPI_FILE_NULL) MPI_File_close(&file);
        throw Error(kWhere + "MPI_File_open failed on '" + path + "' on some rank");
    }
    return file;
}

int ownerRank(const std::vector<std::uint64_t>& bases, const std::vector<std::uint64_t>& counts, std::uint64_t id) {
    // The rank whose node range holds id (ranks without nodes hold none).
    const auto at = std::upper_bound(bases.begin(), bases.end(), id) - bases.begin() - 1;
    for (auto r = at; r >= 0; --r)
        if (id - bases[std::size_t(r)] < counts[std::size_t(r)]) return int(r);
    throw Error(kWhere + "part " + std::to_string(id) + " belongs to no rank");
}

}  // namespace

MpiTiledResult labelTiledMpi(MPI_Comm comm, const ImageSource& source, const TiledOptions& options,
                             const std::function<Route()>& route, const std::string& labelsPath,
                             const std::string& statsPath, bool overwrite) {
    int rank = 0, ranks = 1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &ranks);
    MpiTiledResult result;
    result.ranks = ranks;
    const Connectivity connectivity = options.label.connectivity;
    const Criterion criterion = options.label.criterion;

    // Plan: every rank's backend limit, rank 0's tile size for all.
    together(comm, [&] {
        if (rank != 0) return;
        for (const std::string* path : {&labelsPath, &statsPath})
            if (!path->empty() && !overwrite && ::access(path->c_str(), F_OK) == 0)
                throw Error(kWhere + "'" + *path + "' already exists; use --force (overwrite) to replace it");
    });
    BackendLimits limits;
    together(comm, [&] {
        const std::string misfit = whyConnectivityDoesNotFit(
            connectivity, source.dimensions() == 3 ? Shape::volume(source.width(), source.height(), source.depth())
                                                   : Shape::image(source.width(), source.height()));
        if (!misfit.empty()) throw Error(kWhere + misfit);
        limits = limitsOf(route());
    });
    unsigned maxSide = limits.maxSide, smallestSide = 0;
    MPI_Allreduce(&maxSide, &smallestSide, 1, MPI_UNSIGNED, MPI_MIN, comm);
    limits.maxSide = smallestSide;
    std::uint32_t tile[3] = {0, 0, 1};
    const unsigned workers = options.devices.empty() ? 1 : unsigned(options.devices.size());
    together(comm, [&] {
        if (rank != 0) return;
        const TilePlan plan = planTiles(source, options, limits, workers, &result.local.memoryEstimate);
        tile[0] = plan.tileWidth();
        tile[1] = plan.tileHeight();
        tile[2] = plan.tileDepth();
    });
    MPI_Bcast(tile, 3, MPI_UINT32_T, 0, comm);
    // A volume's ranks take slabs of layers of bricks: whole slices.
    const TilePlan plan = source.dimensions() == 3
                              ? TilePlan(Shape::volume(source.width(), source.height(), source.depth()), tile[0],
                                         tile[1], tile[2])
                              : TilePlan(source.width(), source.height(), tile[0], tile[1]);
    result.local.plan = plan;
    result.local.backend = limits.backend;
    result.local.device = limits.device;
    result.local.workers = workers;
    const std::uint64_t bands = plan.bands();
    result.firstBand = std::uint32_t(bands * std::uint64_t(rank) / std::uint64_t(ranks));
    result.endBand = std::uint32_t(bands * std::uint64_t(rank + 1) / std::uint64_t(ranks));

    // Pass 1 on this rank's block.
    auto start = Clock::now();
    TilePipeline pipeline(source, plan, options, result.firstBand, result.endBand);
    // The rank's workers serve both passes; a rank without bands has none.
    std::unique_ptr<TileWorkerPool> pool;
    together(comm, [&] {
        if (result.endBand == result.firstBand) return;
        pool = std::make_unique<TileWorkerPool>(limits, options.label, options.devices);
        result.local.device = pool->describeDevices();
        result.local.tilesInFlight = tilesInFlight(options, pool->size());
        if (!labelsPath.empty()) pipeline.prepareBands(options.labelType == LabelType::Uint64 ? 8 : 4);
        pipeline.labelTiles(*pool);
    });
    double phase = millisecondsSince(start);
    MPI_Allreduce(&phase, &result.labelMilliseconds, 1, MPI_DOUBLE, MPI_MAX, comm);

    // MergeBlocksPass: global ids, then the tree.
    start = Clock::now();
    std::uint64_t nodeCount = pipeline.nodeCount(), nodeBase = 0;
    MPI_Exscan(&nodeCount, &nodeBase, 1, MPI_UINT64_T, MPI_SUM, comm);
    if (rank == 0) nodeBase = 0;
    result.local.borderParts = nodeCount;
    BlockSummary mine;
    std::map<std::uint64_t, std::uint64_t> nameOf;  // this rank's row names -> their names now
    if (result.endBand > result.firstBand) {
        mine.empty = false;
        mine.top = pipeline.regionTopRow();
        mine.bottom = pipeline.regionBottomRow();
        for (BorderFace* row : {&mine.top, &mine.bottom})
            for (std::uint64_t& node : row->nodes)
                if (node != BorderFace::kNone) {
                    const std::uint64_t root = node;
                    node = nodeBase + root;
                    nameOf[node] = node;
                }
        for (const auto& entry : nameOf) {
            mine.names.push_back(entry.first);
            mine.keys.push_back(pipeline.nodeKey(entry.first - nodeBase));
        }
    }
    for (int step = 1; step < ranks; step *= 2) {
        // The right block of each pair sends its summary to the left block's
        // leader, which merges the two.
        const bool leader = rank % (2 * step) == 0 && rank + step < ranks;
        BlockSummary theirs;
        if (leader) {
            theirs = BlockSummary::unpack(receiveBytes(comm, rank + step, step));
        } else if (rank % (2 * step) == step) {
            Packer packer;
            mine.pack(packer);
            result.treeBytes += packer.bytes().size();
            sendBytes(comm, packer.bytes(), rank - step, step);
            mine = BlockSummary();
        }
        Renames renames;
        together(comm, [&] {
            if (leader) renames = mergeBlocks(mine, std::move(theirs), connectivity, criterion);
        });
        // The renames reach every rank of the merged block.
        MPI_Comm block = MPI_COMM_NULL;
        MPI_Comm_split(comm, rank / (2 * step), rank, &block);
        Packer packer;
        packer.putVector(renames);
        std::vector<char> bytes = std::move(packer.bytes());
        broadcastBytes(block, bytes, 0);
        MPI_Comm_free(&block);
        renames = Unpacker(bytes).getVector<std::pair<std::uint64_t, std::uint64_t>>();
        for (auto& entry : nameOf) {
            const auto at = std::lower_bound(renames.begin(), renames.end(), std::make_pair(entry.second, std::uint64_t(0)));
            if (at != renames.end() && at->first == entry.second) entry.second = at->second;
        }
    }
    together(comm, [&] {
        pipeline.resolveRoots(nodeBase, [&](std::uint64_t root) {
            const auto at = nameOf.find(root);
            return at == nameOf.end() ? root : at->second;
        });
    });
    phase = millisecondsSince(start);
    MPI_Allreduce(&phase, &result.mergeMilliseconds, 1, MPI_DOUBLE, MPI_MAX, comm);

    // NumberComponentsPass: offsets by exclusive scan; finals and stats of
    // components that span ranks to and from their owning rank.
    start = Clock::now();
    std::uint64_t owned = pipeline.ownedCount(), labelOffset = 0;
    MPI_Exscan(&owned, &labelOffset, 1, MPI_UINT64_T, MPI_SUM, comm);
    if (rank == 0) labelOffset = 0;
    MPI_Allreduce(&owned, &result.count, 1, MPI_UINT64_T, MPI_SUM, comm);
    together(comm, [&] {
        result.labelType = decideLabelType(options.labelType, result.count, options.uint32Limit, kWhere);
        pipeline.number(labelOffset);
    });
    std::vector<std::uint64_t> bases(static_cast<std::size_t>(ranks)), counts(static_cast<std::size_t>(ranks));
    MPI_Allgather(&nodeBase, 1, MPI_UINT64_T, bases.data(), 1, MPI_UINT64_T, comm);
    MPI_Allgather(&nodeCount, 1, MPI_UINT64_T, counts.data(), 1, MPI_UINT64_T, comm);
    const std::vector<std::uint64_t> foreign = pipeline.foreignRoots();  // ascending, so grouped by rank
    const std::vector<std::pair<std::uint64_t, PartStats>> shares = pipeline.foreignStats();
    std::vector<int> sendCounts(static_cast<std::size_t>(ranks), 0), receiveCounts(static_cast<std::size_t>(ranks), 0);
    std::vector<int> sendOffsets(static_cast<std::size_t>(ranks), 0), receiveOffsets(static_cast<std::size_t>(ranks), 0);
    together(comm, [&] {
        for (const std::uint64_t id : foreign) ++sendCounts[std::size_t(ownerRank(bases, counts, id))];
    });
    MPI_Alltoall(sendCounts.data(), 1, MPI_INT, receiveCounts.data(), 1, MPI_INT, comm);
    for (int r = 1; r < ranks; ++r) {
        sendOffsets[std::size_t(r)] = sendOffsets[std::size_t(r - 1)] + sendCounts[std::size_t(r - 1)];
        receiveOffsets[std::size_t(r)] = receiveOffsets[std::size_t(r - 1)] + receiveCounts[std::size_t(r - 1)];
    }
    const std::size_t requests = std::size_t(receiveOffsets.back() + receiveCounts.back());
    std::vector<std::uint64_t> asked(requests), answers(requests), finals(foreign.size());
    MPI_Alltoallv(foreign.data(), sendCounts.data(), sendOffsets.data(), MPI_UINT64_T, asked.data(),
                  receiveCounts.data(), receiveOffsets.data(), MPI_UINT64_T, comm);
    together(comm, [&] {
        for (std::size_t i = 0; i < requests; ++i) answers[i] = pipeline.finalLabelOf(asked[i]);
    });
    MPI_Alltoallv(answers.data(), receiveCounts.data(), receiveOffsets.data(), MPI_UINT64_T, finals.data(),
                  sendCounts.data(), sendOffsets.data(), MPI_UINT64_T, comm);
    // The stats shares go the same way, one record per foreign root.
    struct Share {
        std::uint64_t root;
        PartStats stats;
    };
    std::vector<Share> outgoing(shares.size()), incoming(requests);
    for (std::size_t i = 0; i < shares.size(); ++i) outgoing[i] = {shares[i].first, shares[i].second};
    MPI_Datatype shareType;
    MPI_Type_contiguous(int(sizeof(Share)), MPI_BYTE, &shareType);
    MPI_Type_commit(&shareType);
    MPI_Alltoallv(outgoing.data(), sendCounts.data(), sendOffsets.data(), shareType, incoming.data(),
                  receiveCounts.data(), receiveOffsets.data(), shareType, comm);
    MPI_Type_free(&shareType);
    together(comm, [&] {
        pipeline.setForeignFinals(finals);
        for (const Share& share : incoming) pipeline.addStats(share.root, share.stats);
    });
    phase = millisecondsSince(start);
    MPI_Allreduce(&phase, &result.numberMilliseconds, 1, MPI_DOUBLE, MPI_MAX, comm);

    // Pass 2: rows at their offsets of the shared .npy, then the table.
    start = Clock::now();
    const std::string header = labelsNpyHeader(plan.shape(), result.labelType);
    StagedOutput labels(comm, labelsPath, overwrite), stats(comm, statsPath, overwrite);
    MPI_File file = MPI_FILE_NULL;
    if (!labelsPath.empty()) {
        labels.create(header);
        file = openShared(comm, labels.temporary());
    }
    MpiRowsSink sink(file, header.size(), labelsPath, !statsPath.empty());
    together(comm, [&] {
        sink.begin(plan.shape(), result.labelType, result.count);
        if (pool) pipeline.writeLabels(*pool, sink, result.labelType);
    });
    if (file != MPI_FILE_NULL) closeShared(comm, file, labelsPath);
    if (!statsPath.empty()) {
        std::string& text = sink.text();
        if (rank == 0) text.insert(0, plan.isVolume() ? kVolumeStatsCsvHeader : kStatsCsvHeader);
        std::uint64_t length = text.size(), offset = 0;
        MPI_Exscan(&length, &offset, 1, MPI_UINT64_T, MPI_SUM, comm);
        if (rank == 0) offset = 0;
        stats.create("");
        MPI_File table = openShared(comm, stats.temporary());
        together(comm, [&] { writeAt(table, offset, text.data(), text.size(), statsPath); });
        closeShared(comm, table, statsPath);
    }
    MPI_Barrier(comm);
    together(comm, [&] {
        // A caller's transaction (glccl-mpi's) takes both in; else this one.
        OutputTransaction transaction;
        labels.close();
        stats.close();
        transaction.commit();
    });
    phase = millisecondsSince(start);
    MPI_Allreduce(&phase, &result.writeMilliseconds, 1, MPI_DOUBLE, MPI_MAX, comm);
    double device = pipeline.deviceMilliseconds();
    MPI_Allreduce(&device, &result.deviceMilliseconds, 1, MPI_DOUBLE, MPI_SUM, comm);
    double busiest = pipeline.busiestDeviceMilliseconds();
    MPI_Allreduce(&busiest, &result.busiestDeviceMilliseconds, 1, MPI_DOUBLE, MPI_MAX, comm);
    result.local.count = result.count;
    result.local.labelType = result.labelType;
    return result;
}

}  // namespace glccl
