#pragma once
// The library's process-wide tuning knobs: how whole-texture transfers move
// pixels, how many threads copy on the host, and where the compute engine
// keeps its parents. None of them changes a result, only how it is reached;
// the defaults are the fastest measured choice, so most programs never set
// any. A variant that lost to the default wherever it was measured has no
// knob (docs/benchmarks.md has the current figures).
//
// One Tuning holds for the whole process (setTuning, tuning), read by every
// labeler at the start of each call and by the copy threads. It lives in
// the host library, below both the engine and the CUDA library (which the
// engine links), because both read it: the band size cuts the engine's
// transfers and the CUDA engine's staging alike, and the copy threads copy
// for both and decode their tables. The compute engine's parents storage
// rides along until engines take options of their own; the CUDA engine's
// debug switch is its own (glccl::cuda::setSyncEachKernel).
//
//   glccl::Tuning tuning = glccl::tuning();
//   tuning.transfer = glccl::Tuning::Transfer::Plain;
//   tuning.copyThreads = 4;
//   glccl::setTuning(tuning);

#include <cstddef>
#include <string>

namespace glccl {

struct Tuning {
    // Whole-texture transfers between host memory and a texture.
    enum class Transfer {
        Auto,   // bands where they pay (buffer storage, a hardware renderer,
                // at least 1 MiB; downloads with glGetTextureSubImage, OpenGL
                // 4.5), one plain call elsewhere
        Plain,  // one glTexSubImage2D / glGetTexImage on host memory
        Bands,  // pipelined bands through persistently mapped pixel buffers
                // wherever the context has buffer storage (and, to download,
                // glGetTextureSubImage), even for small transfers and
                // software renderers (tests use it)
    };
    // Where the compute engine keeps the parents of its nodes.
    enum class ComputeParents {
        Auto,    // the faster storage buffer where it fits, else an image
        Buffer,  // the storage buffer; an image too large for it is an error
        Image,   // an R32UI image (tests use it: llvmpipe's storage blocks
                 // hold every image the tests label)
    };

    static constexpr std::size_t kDefaultTransferBandBytes = std::size_t(32) << 20;
    static constexpr int kDefaultTransferBuffers = 3;
    static constexpr int kMaxTransferBuffers = 8;
    static constexpr int kMaxCopyThreads = 64;

    // Transfers: auto (default), plain or bands.
    Transfer transfer = Transfer::Auto;
    // Bytes per band, at least 1 (a band holds at least one row); default
    // 32 MiB. The pixel buffers hold this much each, never the whole image.
    std::size_t transferBandBytes = kDefaultTransferBandBytes;
    // Pixel buffers per direction, 2..8; default 3.
    int transferBuffers = kDefaultTransferBuffers;
    // Threads of the large host copies (transfer bands, CUDA staging) and of
    // the decoding of large component tables: 1..64, or 0 (default) for the
    // machine's hardware threads, at most 16 (memory bandwidth, not cores,
    // bounds a copy past that).
    int copyThreads = 0;
    // The compute engine's parents: auto (default), buffer or image.
    ComputeParents computeParents = ComputeParents::Auto;
    // The raster engine's variants, to compare them in one build (glccl
    // bench --backends raster): where a stage's per-node work runs, how
    // column processing is cut into blocks, how roots are numbered. Every
    // variant labels exactly; only the defaults are what the Labeler is
    // measured with (docs/design.md: what each changes).
    enum class RasterWork {
        Fragment,  // found by a full-screen fragment pass, each connected
                   // pair once; the draw that scatters points reads one
                   // texel a vertex
        Vertex,    // found per node, every neighbour, in the vertex shader
                   // of the draw itself
    };
    enum class RasterTable {
        Segments,  // a point per component and row segment of 32 nodes,
                   // found by walking the segment
        Runs,      // a point per run of a component along a row segment,
                   // found from two texels
        Slots,     // the points of Segments, from a vertex per segment and
                   // slot (as many slots as the most components in one
                   // segment, read back) instead of one per node
    };
    enum class RasterTableLocal {
        Auto,       // fragments where the components are at least as many
                    // as the segments (a point saved per component inside
                    // one, the entries' search paid per entry), else points
        Points,     // a component inside one segment takes its point like
                    // any other
        Fragments,  // a fragment pass over the table's entries sums the
                    // components inside one segment (rasterTable slots,
                    // with the scan's numbering): no point for them
    };
    enum class RasterCheck {
        Pass,  // a fragment pass before each link draw
        Draw,  // the link draw itself, under the occlusion query
    };
    enum class RasterSums {
        Bits,    // sums relative to the root, one float channel each;
                 // components past float precision counted again by
                 // component_bits (a draw per band and rank, a read-back)
        Digits,  // sums split into digits over as many float channels as
                 // keep every entry exact, in component_table's one draw
                 // (bits where the image is too large for 12 channels)
    };
    enum class RasterPack {
        Floats,  // the table's float targets read as they are: 16 bytes an
                 // entry a target (boxes, sums and each digit target), a
                 // read each
        Words,   // the table turned into six exact 32-bit words an entry
                 // by a fragment pass, 24 bytes an entry in one read
    };
    enum class RasterLocal {
        Columns,  // O'Connell's vertical runs, column processing a column
                  // at a time in blocks, and links across the blocks'
                  // borders
        Tiles,    // tile_labels: each node's component within its tile of
                  // 32 nodes across (16 rows of 2x2 nodes, else 8), filled
                  // over bit masks of the tile's links by fragment passes;
                  // only links across the tiles' borders left to
                  // resolve_links
    };
    enum class RasterNumbering {
        Auto,  // stencil routing for up to 255 roots, the scan beyond
        Scan,  // the scan's prefix count for any count (no draw of a vertex
               // per node)
    };
    // How nodes get their labels before resolve_links: tiles (default) or
    // columns.
    RasterLocal rasterLocal = RasterLocal::Tiles;
    // Columns per block of column processing, 2..4096; 0 (default) about
    // sqrt(grid width) and at most 32 blocks, between 4 and 256 columns.
    int rasterBlockWidth = 0;
    // resolve_links' links across connections: vertex (default) or fragment.
    RasterWork rasterResolve = RasterWork::Vertex;
    // component_table's points: slots (default), segments or runs.
    RasterTable rasterTable = RasterTable::Slots;
    // With rasterTable slots, how a component inside one segment reaches
    // its entry: auto (default), points or fragments.
    RasterTableLocal rasterTableLocal = RasterTableLocal::Auto;
    // Draws a column of column processing: 1 (default), the gathers alone,
    // into a texture per column parity, and every column's scatter back
    // after them; 2, scatter back and the next column's gather as one draw,
    // update column between; 3, gather, update and scatter back apart.
    int rasterColumnDraws = 1;
    // How roots are numbered: scan (default) or auto.
    RasterNumbering rasterNumbering = RasterNumbering::Scan;
    // Link rounds across block borders, each a draw and a compression:
    // N (default 1) rounds, unchecked, resolve_links linking what they
    // leave; 0 (auto) until an occlusion query sees no link (a wait for the
    // GPU each round).
    int rasterBorderRounds = 1;
    // Nodes per vertex of column processing's point draws, consecutive rows
    // of a column: 1..32, 2 by default. A vertex raises one root for its
    // group, so past 1 the draws have a group-th of the vertices and
    // resolve_links links what the groups leave.
    int rasterColumnGroup = 2;
    // Nodes per vertex of column processing's scatter back: 1..32, or 0
    // (default) rasterColumnGroup's. The scatter back is one draw after
    // every gather (rasterColumnDraws 1), so a larger group than the
    // gathers' cuts its vertices alone; resolve_links links what the
    // groups leave.
    int rasterScatterGroup = 0;
    // Side of the square of nodes per vertex of resolve_links' link draw:
    // 1..8, 2 by default. A square raises one root a round, so past 1 the
    // draw has side² times fewer vertices and may need more rounds.
    int rasterResolveGroup = 2;
    // How rasterResolve vertex finds whether links are left: draw
    // (default), the link draw under the query (no pass a round; the last
    // round draws once for nothing), or pass, a fragment pass each round.
    RasterCheck rasterResolveCheck = RasterCheck::Draw;
    // resolve_links' rounds issued per wait for the GPU, with rasterResolve
    // vertex in a desktop context: 1..16, 4 by
    // default (1: the host reads each round's check). Past 1, each round's
    // link draws are conditional on the check before them (conditional
    // rendering), and the host reads only the last check of each batch;
    // rounds past the last link are skipped by the GPU. With rasterNumbering
    // scan, the first batch's last check is read once the labels are
    // queued (where links are left, the rounds go on and the labels are
    // drawn again). ES has no conditional rendering: a wait each round there.
    int rasterResolveAhead = 4;
    // Reads of download_table: 3 (default), one per target of the
    // component table, each a wait for the GPU; or 1, the three into one
    // pixel pack buffer, mapped once (WebGL: 3 whatever it says).
    int rasterTableReads = 3;
    // Hops per pass of vertical_runs' pointer jumping: 2..1024, or 0
    // (auto, the default): 32, or up to 64 where that many reach the node
    // grid's height in two passes and 32 do not. The reach grows that
    // many-fold per pass: fewer passes, more fetches in each.
    int rasterRunHops = 0;
    // tile_labels' tile rows for nodes of one pixel row (binary images at
    // 4-connectivity, the segments, threshold and delta criteria), with
    // rasterLocal tiles: 8, 16, 32, or 0 (auto, the default): 32 where the
    // pipeline's last labeling had fewer components than areas of 65536
    // nodes, 16 where it had fewer than row segments of 32 nodes, else 8.
    // Taller tiles leave fewer border nodes to resolve_links and cost more
    // fills where components are many. 2x2 nodes take 16 rows.
    int rasterTileRows = 0;
    // Texels among which component_bits spreads a large component's points
    // of a band: 1..64, 32 by default. A texel's blends are done one after
    // another, and a component crossing every row segment sends a point per
    // segment; past 1, each texel takes about a spread-th of them and the
    // fold adds the partial counts.
    int rasterBitsSpread = 32;
    // Copies of the component table among which component_table spreads
    // each entry's points: 1..64, or 0 (auto, the default). As for
    // rasterBitsSpread, a component crossing many row segments blends a
    // point per segment into its entry; past 1 (fewer where the table is
    // large), each copy takes about a copies-th of them and a fragment pass
    // folds the copies. auto: 2 copies where the pipeline's last table had
    // a component whose box covers many segments (a frame like the last
    // one, or the same image again), else 1.
    int rasterTableSpread = 0;
    // How component_table's coordinate sums stay exact: digits (default),
    // each split into digits over up to 12 float channels, so that no entry
    // needs component_bits; or bits, relative to the root, with
    // component_bits for the components past float precision.
    RasterSums rasterTableSums = RasterSums::Digits;
    // How download_table reads a table of digits (rasterTableSums digits):
    // words (default), each entry's box, area and exact sums packed into
    // six 32-bit words by a fragment pass and read at once, 24 bytes an
    // entry (rasterTableReads then changes nothing); or floats, every
    // target of the table read as it is, 16 bytes an entry a target (with
    // two digit targets, 64), the host adding the digits.
    RasterPack rasterTablePack = RasterPack::Words;
    // For work on the shaders: a folder whose files replace the embedded
    // GLSL files of their names in every program built afterwards, so a
    // variant runs without a rebuild. Empty (default): the embedded files.
    // The one knob that can change a result: the shaders are then whatever
    // that folder holds.
    std::string shaderDir;

    // Sets one knob from text, as a command line gives it: name is a field
    // above ("transfer", "transferBandBytes", ...), value one of the values
    // it lists ("bands"; a byte count such as "16777216", "64K", "32M" or
    // "1G"; "auto" for copyThreads 0).
    // Throws glccl::Error("glccl::Tuning::set(): transfer is 'fast';
    // expected auto, plain or bands") for an unknown name or a malformed or
    // out-of-range value, leaving the Tuning as it was.
    void set(const std::string& name, const std::string& value);

    // "transfer=auto transferBandBytes=33554432 ...": every knob, in the form
    // set() takes.
    std::string describe() const;
};

// Makes `tuning` the process's Tuning, for every call that starts after
// this one returns. Throws glccl::Error("glccl::setTuning(): ...") where a
// value is out of range (transferBandBytes 0, transferBuffers outside 2..8,
// copyThreads outside 0..64), leaving the current Tuning. Thread-safe.
void setTuning(const Tuning& tuning);

// A copy of the process's Tuning: the defaults until setTuning is called.
// Thread-safe; costs one uncontended lock.
Tuning tuning();

}  // namespace glccl
