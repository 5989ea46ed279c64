#pragma once
// The yardstick of the GL backends' cost on any GPU: one full-screen
// fragment pass. A labeling time divided by it reads as "full-screen-pass
// equivalents", which compare across GPUs and with the papers' figures.

#include <optional>

namespace glccl::bench {

// The GPU time (timer query) of one full-screen fragment pass over a
// width x height R32F target that reads one texel per fragment, in the
// context current on this thread: the median of `reps` passes after one
// untimed pass, over the passes the timer measured (StageTime::measured);
// std::nullopt where it measured none (an OpenGL ES context without
// EXT_disjoint_timer_query, a disjoint event on every pass): no time at all. Make a Labeler (or an OffscreenLabeler) in that context
// first, so that GL's functions are loaded. Leaves the host's GL state as it
// found it (as Labeler does).
// Throws glccl::Error ("glccl::bench::fullscreenPassMilliseconds(): ...")
// for a size outside 1..GL_MAX_TEXTURE_SIZE, reps < 1, or a GL error. Cost:
// two width x height R32F textures and reps + 1 passes.
std::optional<double> fullscreenPassMilliseconds(int width, int height, int reps = 5);

}  // namespace glccl::bench
