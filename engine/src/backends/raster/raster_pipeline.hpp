#pragma once
// Connected-component labeling as OpenGL 3.3 (and ES 3.0) render passes,
// exact on every input: Sean O'Connell's pipeline past the paper's limits,
// its vertical runs and column processing replaced by default by tiles
// labeled over bit masks (tile_labels). label() and components() list the
// stages; each stage is a pass unit of the same name (node_graph.cpp ↔
// node_graph.frag ↔ timer key "node_graph").

#include <cstdint>
#include <vector>

#include "backends/pass_check.hpp"
#include "column_processing.hpp"
#include "component_bits.hpp"
#include "component_table.hpp"
#include "count_roots.hpp"
#include "download_table.hpp"
#include "final_labels.hpp"
#include "gl_objects.hpp"
#include "glccl/types.hpp"
#include "merge_block_borders.hpp"
#include "node_graph.hpp"
#include "post_column_processing.hpp"
#include "raster_constants.hpp"
#include "raster_pass.hpp"
#include "raster_resources.hpp"
#include "resolve_links.hpp"
#include "route_roots.hpp"
#include "scan_roots.hpp"
#include "stage_timer.hpp"
#include "table_decoding.hpp"
#include "tile_labels.hpp"
#include "vertical_runs.hpp"

namespace glccl {

struct Tuning;

class RasterPipeline {
public:
    // Switches for tests and experiments; the defaults are what the Labeler
    // runs. Nothing is read from the environment.
    struct Options {
        // Nodes' labels before resolve_links from tile_labels (rasterLocal
        // tiles), not from vertical runs, column processing and the block
        // borders' merge.
        bool localTiles = false;
        // tile_labels_runs' tile rows a fragment, 1, 2 or 4 (tests); 0, as many
        // as the context draws targets for (raster_constants.hpp,
        // runRowsFor).
        int tileRunRows = 0;
        // tile_labels' tile rows for nodes of one pixel row (rasterTileRows):
        // 8, kTallTileRows or kHugeTileRows, or 0 (auto): kHugeTileRows where
        // the last labeling's components were fewer than its areas of
        // kHugeTileNodes nodes, kTallTileRows where they were fewer than its
        // row segments (one a kSegment nodes), else 8. 2x2 nodes take 16 rows
        // whatever it says.
        int tileRows = 0;
        // Columns per block of column processing; 0 chooses about
        // sqrt(grid width), between 4 and 64.
        int blockWidth = 0;
        // Pixels per band of component_bits' exact sums; at most, and by
        // default, 2^24. Smaller bands only cost passes (tests).
        int bandPixels = raster::kExactFloatSum;
        // The variants of Tuning (glccl/tuning.hpp), which the raster
        // engine sets from it at every call; each labels exactly.
        // resolve_links' links found by a fragment pass (rasterResolve
        // fragment) or by the link draw's vertices.
        bool resolveInFragments = true;
        // component_table's points per run of a root along a row segment
        // (rasterTable runs) or per root and segment.
        bool tableByRuns = false;
        // component_table's points per root and segment from a vertex per
        // segment and slot (rasterTable slots); before tableByRuns.
        bool tableBySlots = false;
        // With tableBySlots, the components inside one segment summed by a
        // fragment of their entry, not a point: never, always, or (auto,
        // rasterTableLocal's default) where the components are at least as
        // many as the segments.
        enum class Local { Points, Fragments, Auto };
        Local tableLocal = Local::Points;
        // Roots numbered by the scan at any count (rasterNumbering scan),
        // not routed by the stencil where 255 or fewer.
        bool scanAlways = false;
        // Column processing's draws a column (rasterColumnDraws): 1, the
        // gathers alone, into a texture per column parity, and every
        // column's scatter back after them; 2, a column's scatter back and
        // the next one's gather as one draw, update column between; 3,
        // gather, update and scatter back apart.
        int columnDraws = 1;
        // Link rounds across block borders, unchecked; 0: until none links
        // (rasterBorderRounds).
        int borderRounds = 0;
        // Nodes (consecutive rows of a column) per vertex of column
        // processing's point draws (rasterColumnGroup), 1..kMaxColumnGroup.
        int columnGroup = 1;
        // Nodes per vertex of column processing's scatter back
        // (rasterScatterGroup), 1..kMaxColumnGroup; 0, columnGroup.
        int scatterGroup = 0;
        // Side of the square of nodes per vertex of resolve_links' link
        // draw (rasterResolveGroup), 1..kMaxResolveGroup.
        int resolveGroup = 1;
        // resolve_links' check by the link draw under the query instead of a
        // fragment pass before it (rasterResolveCheck draw); with
        // resolveInFragments the values pass is the check either way.
        bool resolveCheckInDraw = false;
        // resolve_links' rounds issued per wait for the GPU, each under
        // conditional rendering on the check before it
        // (rasterResolveAhead), 1..kMaxResolveAhead; desktop GL, with the
        // check a pass and the links found by vertices.
        int resolveAhead = 1;
        // download_table's three targets read into one pixel pack buffer,
        // mapped once (rasterTableReads 1), or a read each (3).
        bool tableInOneRead = false;
        // Hops per pass of vertical_runs (rasterRunHops), 2..kMaxHops, or
        // 0: runHops() chooses by the grid's height.
        int runHops = 0;
        // Texels per large component among which component_bits spreads its
        // points of a band (rasterBitsSpread), 1..kMaxBitsSpread.
        int bitsSpread = 1;
        // Copies of the component table among which component_table spreads
        // each entry's points (rasterTableSpread), 1..kMaxTableSpread, or 0:
        // kAutoTableSpread (2x2 nodes) or kAutoTableSpreadRowNodes (2x1)
        // where the last table had a component over kAutoSpreadSegments
        // segments, else 1.
        int tableSpread = 0;
        // component_table's sums split into digits, exact in its one draw
        // where the channels allow (rasterTableSums digits), or relative to
        // the root, with component_bits for the components past float
        // precision (bits).
        bool tableDigits = false;
        // With tableDigits, digits of at most this many bits (tests: small
        // images split into several digits); 0, as exactness allows.
        int digitBits = 0;
        // With tableDigits where the digits fit, the table turned into six
        // exact 32-bit words an entry on the GPU and read as those, one
        // read (rasterTablePack words); or its float targets read as they
        // are (floats).
        bool tableWords = false;
        // glFinish and glGetError after every pass, so an error names its
        // stage; on in debug builds.
        bool checkEachPass = backends::kCheckEachPass;
    };

    // Needs the context that will label current.
    RasterPipeline();
    explicit RasterPipeline(const Options& options);

    const Options& options() const { return options_; }
    void setOptions(const Options& options);
    // `base` with the variants glccl::Tuning chooses (its raster* knobs).
    static Options tuned(Options base, const Tuning& tuning);

    // Allocates every per-size resource up front (no allocation while
    // labeling frames of this size and node shape later, but tile_labels'
    // targets where rasterTileRows auto changes the tiles' rows). Throws
    // glccl::Error with the GL error (GL_OUT_OF_MEMORY) if the context
    // cannot hold them.
    void reserve(int width, int height, raster::NodeSize shape);

    // Labels `input`: GL_R8, GL_R8UI, GL_R16 or GL_R32F, or GL_RGBA8 for the
    // threshold criterion (values in the units of the format).
    // Writes the canonical labels into `labels` (GL_R32UI, the input's size,
    // owned by the caller) and returns the count.
    std::uint32_t label(const gl::Texture& input, const gl::Texture& labels, Connectivity connectivity,
                        Criterion criterion, StageTimer& timer);

    // The component table of the last label() call (label i + 1 at index i),
    // computed on the GPU and downloaded as a compact block into `out`. A
    // table of a count met before allocates nothing: `out` and the
    // pipeline's download and decoding storage keep their capacity.
    void components(std::vector<Component>& out, StageTimer& timer);
    std::vector<Component> components(StageTimer& timer) {
        std::vector<Component> out;
        components(out, timer);
        return out;
    }

    // tile_labels' tile rows for the next labeling of nodes of `shape`.
    int tileRows(raster::NodeSize shape) const;
    // Merge rounds the exactness loop needed in the last call (diagnostics).
    int resolveRounds() const { return resolveRounds_; }
    // Copies of the table the last call's component_table drew into.
    int tableCopies() const { return tableCopies_; }
    // Columns per block of column processing for the reserved size.
    int blockWidth() const;
    // Hops a pass of vertical_runs for the reserved size.
    int runHops() const;

private:
    Options options_;
    raster::RasterPrograms programs_;
    raster::RasterResources resources_;
    gl::VertexArray emptyVertexArray_;  // every pass draws without attributes
    std::uint32_t count_ = 0;
    // The node grid's nodes in the last labeling (rasterTileRows auto: its
    // components against its segments).
    std::int64_t lastNodes_ = 0;
    int resolveRounds_ = 0;
    int tableCopies_ = 1;
    // The segments the box of the last table's largest component covered
    // (rasterTableSpread auto).
    std::int64_t busiestSegments_ = 0;
    // The context is OpenGL ES: roots are counted by the scan's up-sweep
    // (ES occlusion queries say any or none, not how many).
    bool es_ = false;
    // Stencil routing draws points kRoutingSide wide; ES guarantees points
    // of 1 only (GL_ALIASED_POINT_SIZE_RANGE), and without wider ones every
    // count takes the scan.
    bool routing_ = true;

    raster::NodeGraphPass nodeGraph_;
    raster::TileLabelsPass tileLabels_;
    raster::VerticalRunsPass verticalRuns_;
    raster::ColumnProcessingPass columnProcessing_;
    raster::PostColumnProcessingPass postColumnProcessing_;
    raster::MergeBlockBordersPass mergeBlockBorders_;
    raster::ResolveLinksPass resolveLinks_;
    raster::CountRootsPass countRoots_;
    raster::RouteRootsPass routeRoots_;
    raster::ScanRootsPass scanRoots_;
    raster::FinalLabelsPass finalLabels_;
    raster::ComponentTablePass componentTable_;
    raster::DownloadTablePass downloadTable_;
    raster::ComponentBitsPass componentBits_;

    // components()' storage, kept from call to call.
    raster::DownloadedTable downloaded_;
    raster::DecodedSums sums_;
    std::vector<std::uint64_t> bitCounters_;
};

}  // namespace glccl
