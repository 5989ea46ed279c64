#pragma once
// glccl::Labeler: connected-component labeling of a texture in the caller's
// own OpenGL context, on the GPU, with the output contract of every glccl
// backend (labels 1..N in raster order of each component's first pixel).
//
// GL state. Every call leaves the host's GL state as it found it. Saved and
// restored: current program, vertex array, draw and read framebuffers,
// viewport, scissor box, the enables of scissor test, blend, depth test,
// stencil test, cull face, program point size, rasterizer discard, color
// logic op, framebuffer sRGB, multisample, sample alpha-to-coverage, sample
// coverage, polygon offset fill, depth clamp, primitive restart, dither and
// clip distances 0-7; blend color; for each of draw buffers 0-7 its blend
// enable and color mask, and its blend equations and functions (one pair for
// all buffers before OpenGL 4.0); depth function, mask, range and clear value;
// stencil functions, operations and masks (front and back) and clear value;
// color clear value; the active texture unit, the 2-D texture binding and the
// sampler binding of units 0-15, and the 3-D and 2-D array texture bindings of
// unit 0 (the only unit glccl binds those on); point size; polygon mode; every pixel pack and
// unpack parameter (alignment, row length, image height, skipped rows, pixels
// and images, swap bytes, LSB first) and the pixel pack/unpack buffer
// bindings; the renderbuffer binding; the uniform buffer binding and indexed
// uniform buffer bindings 0-7 (buffer, offset, size). In OpenGL 4.3+ and ES 3.1+ contexts also: image units 0-7 (texture,
// level, layered, layer, access, format), the shader storage buffer binding
// and indexed bindings 0-7 (buffer, offset, size), and the dispatch-indirect
// buffer binding. Errors: no GL error is left behind by a call.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "glccl/backend.hpp"
#include "glccl/context.hpp"
#include "glccl/label_options.hpp"
#include "glccl/region_properties.hpp"
#include "glccl/types.hpp"

namespace glccl {

struct Route;  // glccl/route.hpp
namespace detail {
struct LabelerWithTable;  // engine/src/labeler_with_table.hpp
}

// One row of Labeler::regionBuffer(), 64 bytes, as a shader declares it
// (std430 and std140 lay it out alike):
//   struct RegionRow { vec4 boxMin; vec4 boxMax; vec4 centre; vec4 ellipse; };
// Coordinates are the label texture's texels, element (x, y, z) covering
// [x, x + 1) x [y, y + 1) x [z, z + 1) (divided by the texture's size they
// are texture coordinates); a 2-D labeling is the slice z = 0.
struct RegionRow {
    // x, y, z: the box's least corner (scikit-image's bbox minimum); w: the
    // area in elements (a float: exact up to 2^24).
    float boxMin[4];
    // x, y, z: one past the box's greatest element (bbox maximum); w: 0.
    float boxMax[4];
    // x, y, z: the mean of the elements' centres, scikit-image's centroid
    // plus 0.5 along each axis; w: 0.
    float centre[4];
    // The ellipse of the second central moments, scikit-image's measures:
    // 2-D (orientation, axis_major_length, axis_minor_length, 0), the major
    // axis along (x, y) = (sin orientation, cos orientation); 3-D (0,
    // axis_major_length, axis_minor_length, 0).
    float ellipse[4];
};

class Labeler {
public:
    // Uses the context current on this thread (OpenGL 3.3 core or newer) and
    // loads its entry points. Throws glccl::Error naming what is missing.
    Labeler();
    ~Labeler();
    Labeler(const Labeler&) = delete;
    Labeler& operator=(const Labeler&) = delete;

    // Allocates every resource for this size and these options now, so that
    // labeling frames of this size with them allocates nothing. Optional:
    // label() reserves as needed.
    void reserve(int width, int height, const LabelOptions& options = {});

    // Labels the 2-D texture `texture` of the current context: GL_R8,
    // GL_R8UI, GL_R16, GL_R16UI (16-bit samples where an OpenGL ES context
    // has no GL_R16), GL_R32UI, GL_RG32UI, GL_R32F, GL_RGBA8 or GL_RGBA16
    // (binary, segments and delta read its red channel, threshold all four;
    // GL_RG32UI is one 64-bit sample, red its low and green its high 32 bits);
    // the cpu and reference backends read all but GL_R32F, the cuda backend GL_R8, and
    // GL_RGBA8 for threshold (other formats, binary with a level, and delta
    // are an error there).
    // Values are read in the units of the format (0..255, 0..65535 for
    // GL_R16, GL_R16UI and GL_RGBA16, 0..2^32-1 for GL_R32UI, 0..2^64-1 for GL_RG32UI,
    // compared as integers, the float for GL_R32F); a threshold, binary
    // level or delta is in those units and
    // beyond the format's range is an error. Any size
    // up to GL_MAX_TEXTURE_SIZE (and 32768). A GL_TEXTURE_3D of those
    // formats is a volume, labeled with connectivity 6, 18 or 26 by the
    // backends that take volumes (compute; the raster backend refuses one)
    // into a 3-D label texture; up to GL_MAX_3D_TEXTURE_SIZE a side and 2^30
    // voxels (larger volumes go in bricks). Returns the component count; the
    // labels are in labelTexture(). Throws glccl::Error on a bad texture, a
    // connectivity of the other dimension (6, 18, 26 for a 2-D image, 4 or 8
    // for a volume), a backend that cannot run in this context (the reason
    // is named), or a GL error. Cost, O(width * height) GPU work in every GPU backend:
    //   compute  6 dispatches, one 4-byte readback (the count); the table is
    //            summed here too, so components() only downloads it
    //   raster   about 2 * sqrt(width) + log2(height) + 10 passes, small
    //            readbacks (occlusion-query results)
    //   cuda     the kernels of cuda/ through CUDA-GL interop, table included
    //   cpu, reference
//            a download of the texture, the engine on the host, an upload of labels
    // Thread-safety: one Labeler per context, used from the thread on which
    // that context is current.
    // With options.measure naming properties, the call measures them too
    // (properties()), as measureTerms() and glccl::finalizeProperties() do,
    // at their cost. The properties are checked before anything is labeled:
    // glccl::Error names an unknown property, one computed from each
    // region's pixels rather than from terms (image, coords, solidity, ...:
    // the message lists those measured here), one of 2-D images only for a
    // volume, one that needs an intensity without options.intensity, an
    // intensity texture of another size, target or format (or in a context
    // before OpenGL 4.3), and a spacing finalizeProperties() refuses.
    std::uint32_t label(unsigned texture, const LabelOptions& options = {});

    // The same for a 2-D texture whose size and internal format the caller
    // gives (one of the formats above), for contexts that cannot say them:
    // OpenGL ES 3.0 and WebGL2, which lack glGetTexLevelParameteriv. GL is
    // asked only whether `texture` is a 2-D texture of the current context;
    // a size or format other than the texture's is the caller's error, not
    // detected.
    std::uint32_t label(unsigned texture, int width, int height, unsigned internalFormat,
                        const LabelOptions& options = {});

    // The same by a route chosen before (chooseRoute, glccl/route.hpp) for
    // this texture: its backend labels, and nothing is chosen again. The
    // texture is checked against the route's engine (whyRefused) as the
    // router would. For the callers that route once and carry the route
    // down (OffscreenLabeler).
    std::uint32_t label(unsigned texture, const Route& route, const LabelOptions& options);

    // The properties options.measure named, of the regions of the last
    // label() call (row i for label i + 1, columns as scikit-image's
    // regionprops_table names them); empty (no rows, no columns) where it
    // named none. Owned by the Labeler, valid until the next call; costs
    // nothing (label() measured them). Throws glccl::Error when nothing was
    // labeled.
    const PropertyTable& properties() const;

    // A GL buffer object holding one RegionRow per region of the last
    // label() call, row i for label i + 1 (count rows, count label()'s
    // return; the buffer may hold more, and holds one row's bytes where
    // there are none), for a renderer to bind as a shader storage buffer
    // or as instanced vertex attributes and draw the boxes or ellipses of
    // the components without reading anything back. Owned by the Labeler,
    // valid until the next call; made on the first request after a call,
    // then the same name. Cost: where the component table stays on the GPU
    // (the compute engine, OpenGL 4.3) written there, by one pass over the
    // labels (glsl/measure_terms.comp, moments of level 2) and two
    // dispatches of one invocation per region (glsl/region_rows.comp),
    // nothing read back (where the moment sums pass
    // GL_MAX_SHADER_STORAGE_BLOCK_SIZE, millions of regions, in batches,
    // each reading the labels again); elsewhere (raster, cpu, reference, cuda) a copy:
    // the properties measured as measureTerms() does and finalized on the
    // host, 64 bytes a region uploaded. Throws glccl::Error when nothing
    // was labeled.
    unsigned regionBuffer();

    // GL_R32UI texture with the labels of the last call (0 background,
    // 1..N), owned by the Labeler and valid until the next call: a
    // GL_TEXTURE_3D of the volume's size after a volume.
    unsigned labelTexture() const;

    // The component table of the last call (label i + 1 at index i),
    // computed on the GPU; downloads only the compact table (compute: one
    // copy into a pixel-pack buffer kept between calls, then a mapped read,
    // 36 bytes a component; cuda: a copy of the table label() downloaded;
    // raster: the table's texels and a decode; cpu: a copy). Waits for the
    // labeling to finish. The overload fills `out`, reusing its storage: at
    // an unchanged component count it allocates nothing.
    std::vector<Component> components();
    void components(std::vector<Component>& out);

    // Downloads the whole label image of the last call (row 0 first): 4 bytes
    // a pixel over the bus, waiting for the labeling to finish. The overload
    // reuses `out`'s storage: at an unchanged size it is overwritten without
    // being cleared or reallocated (resized, and so zero-filled, only when
    // the size changes). The cuda backend copies the labels from its device
    // buffer (what label() wrote into the label texture, not later writes
    // to it) through two page-locked chunks of 32 MiB made on the first call
    // and kept, the host's copies split over threads. The GL backends read
    // the label texture in bands of at most 32 MiB (glGetTextureSubImage,
    // OpenGL 4.5) through three persistently mapped pixel-pack buffers kept by
    // the Labeler, each band copied into `out` by several threads while the
    // next one crosses the bus; on older contexts, software rasterizers and
    // labels under 1 MiB, one glGetTexImage into `out` (glccl::Tuning, in
    // glccl/tuning.hpp, chooses otherwise).
    std::vector<std::uint32_t> downloadLabels();
    void downloadLabels(std::vector<std::uint32_t>& out);
    // The same into `count` labels the caller owns (count must be the label
    // texture's width x height; else glccl::Error).
    void downloadLabels(std::uint32_t* out, std::size_t count);

    // The labels and the table of the last call in one host object
    // (downloadLabels() and components()); the overload reuses `out`.
    Labeling result();
    void result(Labeling& out);

    // The terms `request` asks (glccl/region_properties.hpp) of the regions
    // of the last call, labels 1..N, gathered on the GPU from the label
    // texture without downloading it; finalizeProperties() turns them into
    // columns, the same as glccl::measureTerms of the downloaded labels gives.
    // Counts and boxes come from the table (components()). Moments,
    // perimeter and Crofton classes (2-D) and Euler sums (2-D and 3-D) are
    // gathered; intensity terms (sums, extrema and their first positions,
    // weighted moments) of `intensity`, a texture of the current context of
    // the labels' size and target holding one channel of unsigned integers:
    // GL_R8, GL_R8UI, GL_R16, GL_R16UI or GL_R32UI, the normalized formats
    // in their units (0..255, 0..65535), for a request of channels 1 and
    // SampleKind::Unsigned. Floating-point, signed, 64-bit and many-channel
    // intensities are measured on the host (glccl::measureTerms,
    // glccl/measure.hpp). A request for no terms (TermRequest::any() false)
    // costs the table's download alone.
    // Cost: one dispatch over the small regions (glsl/measure_small.comp:
    // every term of a region whose box holds at most 64 elements), in an
    // image one over the medium ones (glsl/measure_medium.comp: a work group
    // a region whose box holds at most 16,384 elements, each side below 256,
    // where the request has no weighted moments and a record of at most 64
    // words; where the context has subgroups of 32 with ballots, walked in
    // strips of 28 columns, a subgroup a strip, and those at most 28 wide by
    // a subgroup each in the same dispatch, glsl/measure_strips.glsl), and
    // one to three over the labels, run where a larger region
    // is left (glsl/measure_terms.comp for moments, perimeter and intensity,
    // glsl/measure_extrema.comp for the extrema's positions,
    // glsl/measure_windows.comp for Crofton and Euler, which an image's
    // measure_terms counts itself where the perimeter is asked; in an image
    // the first and the last only over the tiles that hold such a region),
    // the boxes' upload (16 bytes a region, 4 more a small or medium one)
    // and one readback of the totals (4 bytes a 32-bit limb: 2 to 8 limbs a
    // wide sum, as wide as the largest box and the samples need, 16 (64)
    // sums at moment level 4, 10 words of perimeter, Crofton and Euler
    // counts, 4 of extrema; a region with a small box in the limbs its box
    // needs, glsl/measure_pack.comp, where that saves a quarter of the
    // words); where the totals
    // pass GL_MAX_SHADER_STORAGE_BLOCK_SIZE (millions of regions), the
    // regions go in batches, each reading the labels again. Before OpenGL
    // 4.3 the labels are downloaded and measured on the host, and an
    // intensity is refused. Throws glccl::Error when nothing was labeled,
    // for a request of the other dimension, for perimeter or Crofton terms
    // of a volume, for intensity terms without an intensity texture (or of
    // other samples), and for an intensity texture of another size or format.
    RegionTotals measureTerms(const TermRequest& request, unsigned intensity = 0);

    // Tells the Labeler that `texture`, which it has labeled, is about to be
    // deleted or given new storage (glDeleteTextures, or glTexImage2D /
    // glTexStorage2D on a re-created name): drops what any backend keeps about
    // it (the cuda backend's CUDA registration of it). GL hands a deleted
    // texture's name to the next texture it creates; without forget() the
    // cuda backend could read a new texture of the same name, size and format
    // from the old storage. Changing a texture's contents (glTexSubImage2D,
    // rendering into it) needs nothing. Cheap; does nothing for a texture it
    // does not know.
    void forget(unsigned texture);

    // The backend that ran the last call (auto resolved); Backend::Auto
    // before the first.
    Backend backend() const;

    // Per-stage GPU times of the last label() + components() with timings on,
    // and of the passes that measure its regions on the GPU since
    // (measureTerms(), regionBuffer(), LabelOptions::measure): clear_records
    // and upload_boxes (the records zeroed, the boxes and lists uploaded),
    // measure_small, measure_medium (its narrow regions' subgroups too),
    // measure_terms, measure_fold, measure_extrema, measure_windows,
    // region_rows, measure_pack, download_terms; a stage the driver did not time
    // (llvmpipe's compute dispatches) has StageTime::measured false.
    const StageTimings& stageTimings() const;
    const ContextInfo& contextInfo() const;

private:
    // measureTerms() given the table components() gave for this labeling,
    // so that it is not downloaded again: for glccl's engines, which hold
    // it already (detail::LabelerWithTable). nullptr: downloaded here.
    friend struct detail::LabelerWithTable;
    RegionTotals measureTerms(const TermRequest& request, unsigned intensity, const std::vector<Component>* table);

    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace glccl
