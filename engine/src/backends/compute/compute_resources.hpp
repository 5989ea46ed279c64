#pragma once
// What the compute backend keeps between calls: the node grid's images, the
// line counts and offsets, the component table. Sized by reserve(); a call of
// the same size and node size allocates nothing.

#include <cstdint>

#include "backends/criterion_defines.hpp"
#include "compute_constants.hpp"
#include "gl_objects.hpp"

namespace glccl::compute {

using backends::NodeSize;

// Where parents live: the faster storage buffer where it fits, else the
// image (auto); or either, as Tuning::computeParents asks.
enum class ParentsStorage { Auto, Buffer, Image };
// The storage the process's Tuning asks for (glccl/tuning.hpp).
ParentsStorage parentsStorageFromTuning();

struct ComputeResources {
    int width = 0, height = 0;          // pixels
    int depth = 1;                      // slices of a volume (1 for an image)
    bool volume = false;                // a volume: its images are 3-D
    NodeSize node;
    int gridWidth = 0, gridHeight = 0;  // nodes
    int gridDepth = 1;
    // A binary volume labeled over bundle nodes (the *_volume.comp passes,
    // volume_nodes.glsl), and its words and slots; else a node grid.
    bool bundles = false;
    VolumeNodeGrid nodes;
    // Per node, a key of its tree: a storage buffer (in the grid's raster
    // order, or by node slot for bundles), or an R32UI image where the
    // buffer would be larger than the context allows (parentsInImage): the
    // node grid's shape, or 2^kParentsSideBits x 2^kParentsSideBits x n
    // texels of slots.
    gl::Buffer parents;
    gl::Texture parentsImage;
    bool parentsInImage = false;
    gl::Texture nodeInfo;               // per node of a grid: foreground mask and backward links
    // node_info's format: R8UI, or R32UI in OpenGL ES, whose image units
    // take no 8-bit formats (compute_common.glsl's NODE_INFO_FORMAT).
    GLenum nodeInfoFormat = GL_R8UI;
    gl::Buffer bits;                    // bundles: a bit per voxel, words of lines
    gl::Buffer foreground;              // bundles: the OR of each bundle word's lines (none at 6: bits)
    gl::Buffer lineCounts;              // uint per pixel line (a volume's: height x depth): roots whose first pixel is there
    gl::Buffer lineOffsets;             // uint per pixel line + 1: the exclusive scan, then the total
    gl::Buffer groupsDone;              // uint: count_roots' work groups done (0 between labelings)
    gl::Buffer blockSums;               // volumes: uint per block of kScanLinesBlock lines (scan_lines.comp)
    gl::Object<gl::TextureTraits> table;  // R32UI 2-D array (compute_constants.hpp, TableField)
    int tableRows = 0;                  // rows of kTableWidth entries the table holds
    // Entries from the first that may hold sums of the last labeling; every
    // entry past them is zero. local_merge zeroes them for the next one.
    std::uint32_t tableDirty = 0;
    // The same for the z fields, which only a volume's labelings sum into
    // and only theirs zero.
    std::uint32_t tableDirtyZ = 0;

    // Throws glccl::Error (GL_OUT_OF_MEMORY, limits) naming what did not fit.
    // `volume`: a GL_TEXTURE_3D input of `depth` slices (1 for an image).
    // A binary volume (`binary`) takes bundle nodes where its node slots
    // are no more than its voxels and its bits fit a storage block; a
    // narrower one (a few voxels wide, where most slots of a word would lie
    // past the width) takes the node grid.
    void reserve(int width, int height, int depth, bool volume, NodeSize node, Connectivity connectivity,
                 bool binary, ParentsStorage storage);
    // The pixel lines: height, times depth for a volume.
    int lines() const { return height * depth; }
    // Room for `count` table entries (grows by doubling, never shrinks). A
    // new table starts zero: by glClearTexImage where `clearTextures`, else
    // by uploads of zeros.
    void reserveTable(std::uint32_t count, bool clearTextures);
};

}  // namespace glccl::compute
