#pragma once
// The sizes of the node grid's passes that the compute engine and the CUDA
// engine's block kernels share (docs/design.md, The compute engine, stage by
// stage; The CUDA path): one patch of nodes to each work group (thread block)
// of local_merge and merge_borders, and count_roots' threads per node line.
// Written once here, with the words of a binary volume's bundle nodes;
// compute_constants.hpp hands them to the shaders as #defines,
// cuda/src/passes.hpp and cuda/src/volume_nodes.cuh to the kernels.

namespace glccl::detail {

// A patch: kNodePatchSide x kNodePatchSide nodes keep its border under a
// tenth of its nodes.
constexpr int kNodePatchSide = 32;
// local_merge: kNodePatchSide x kNodePatchLinesPerPass threads, 4 nodes each
// (a column, a line segment).
constexpr int kNodePatchLinesPerPass = 8;
// merge_borders: threads per patch, one per border node (94 of them); 128
// threads ran the stage faster than 64 on large and on small images.
constexpr int kBorderThreads = 128;
static_assert(kBorderThreads >= kNodePatchSide + 2 * (kNodePatchSide - 1), "merge_borders: a thread per border node");
// count_roots: threads per node line, each ranking a run of at most 32
// nodes. Grids up to kNarrowGridWidth nodes wide take kNarrowLineThreads:
// there a group of 1024 spends more on its scan's barriers than on nodes;
// on wider grids 256 threads were slower.
constexpr int kLineThreads = 1024;
constexpr int kNarrowLineThreads = 256;
constexpr int kNarrowGridWidth = 1024;
static_assert(kNarrowLineThreads * 32 >= kNarrowGridWidth, "count_roots: narrow grids' runs fit 32-bit masks");
constexpr int countRootsThreads(int gridWidth) { return gridWidth <= kNarrowGridWidth ? kNarrowLineThreads : kLineThreads; }

// A binary volume's bundle nodes (cuda/src/volume_nodes.cuh,
// glsl/volume_nodes.glsl): a line is cut into words of kWordBits voxels, a
// bit each, and the runs of a bundle word's foreground are its nodes, at
// most kRunsPerWord of them (runs alternate with gaps).
constexpr int kWordBits = 32;
constexpr int kRunsPerWord = kWordBits / 2;

}  // namespace glccl::detail
