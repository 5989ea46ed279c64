// glccl_graphics_probe: the rates of the GPU's graphics pipeline that bound
// the raster engine's passes, beside a compute pass over the same texels.
//
//   glccl_graphics_probe [--sizes N,...] [--reps N]
//
// Per size N (an N x N image; default 2048,8192), the least device time of
// --reps runs (default 7, after one untimed) by GL timer queries, of:
//   pass FORMAT    a full-screen triangle whose fragments each fetch a texel
//                  of an R32F texture and write it into FORMAT, the formats
//                  of the raster engine's targets; `pass R32F` is glccl
//                  bench's yardstick (its fullscreen_pass)
//   blend FORMAT   the same into R32F and RGBA32F with GL_MAX blending, as
//                  the engine's gathers and table blend
//   pass into depth  the same into a 32-bit float depth target through
//                  gl_FragDepth
//   fetches K      into R32F, K texel fetches a fragment (1, 4, 16)
//   points         N*N/4 points, a vertex each (the vertex shader fetches a
//                  texel and places the point), a fragment each, into R32F,
//                  the value a flat varying, plain and with GL_MAX blending,
//                  as the engine's draws of a vertex per node; then a smooth
//                  varying, none, the fragment fetching the value itself
//                  from gl_PrimitiveID, and the value as the point's depth
//                  (a GL_GREATER test, colour writes off); and how many of
//                  the values k / 2^24 points bring a 32-bit float depth
//                  target keeps exactly, with z as given (glClipControl's
//                  GL_ZERO_TO_ONE) and mapped from [-1, 1], and the
//                  engine's IDs as given; then the same vertices with one
//                  in 8 drawn, as depth too, all into one texel, none
//                  drawn (after one fetch
//                  and after 8 dependent ones), and in 32 draws,
//                  apart and as a chain each reading what the one before
//                  drew
//   compute copy   the R32F texels loaded and stored by a compute shader
//                  (where the context has compute shaders)
// and prints "graphics,N,WHAT,ms,rate": rate in 10^9 fragments, points or
// texels a second, and in the last column the time in units of `pass R32F`.
// After the runs every target's first texel is read back and checked.

#include "gl.hpp"  // the engine's GL entry points, before any other GL header

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "glccl/context.hpp"
#include "glccl/error.hpp"
#include "gl_objects.hpp"

namespace {

using namespace glccl;

// A compiled shader, owned (the engine's wrapper: shaders are adopted, as
// the program builder adopts them).
gl::Object<gl::ShaderTraits> compileStage(GLenum type, const std::string& text) {
    auto shader = gl::Object<gl::ShaderTraits>::adopt(glCreateShader(type));
    const char* source = text.c_str();
    glShaderSource(shader.id(), 1, &source, nullptr);
    glCompileShader(shader.id());
    GLint ok = GL_FALSE;
    glGetShaderiv(shader.id(), GL_COMPILE_STATUS, &ok);
    if (!ok) {
        char log[4096] = {};
        glGetShaderInfoLog(shader.id(), sizeof log, nullptr, log);
        throw Error("compiling a probe shader failed:\n" + text + "\n" + log);
    }
    return shader;
}

// A linked program of the given stages' sources (vertex and fragment, or
// compute alone), made current.
struct ProbeProgram {
    gl::Object<gl::ProgramTraits> program = gl::Object<gl::ProgramTraits>::create();
    explicit ProbeProgram(const std::vector<std::pair<GLenum, std::string>>& stages) {
        std::vector<gl::Object<gl::ShaderTraits>> shaders;
        for (const auto& [type, text] : stages) shaders.push_back(compileStage(type, text));
        for (const auto& shader : shaders) glAttachShader(program.id(), shader.id());
        glLinkProgram(program.id());
        for (const auto& shader : shaders) glDetachShader(program.id(), shader.id());
        GLint ok = GL_FALSE;
        glGetProgramiv(program.id(), GL_LINK_STATUS, &ok);
        if (!ok) throw Error("linking a probe program failed");
        glUseProgram(program.id());
    }
};

const char* const kVersion = "#version 430 core\n";
// A triangle that covers the viewport.
const char* const kFullscreen =
    "void main() { vec2 p = vec2((gl_VertexID << 1) & 2, gl_VertexID & 2); gl_Position = vec4(p * 2.0 - 1.0, 0.0, 1.0); }\n";

struct Format {
    GLenum internal;
    const char* name;
    bool integer;
};

class Probe {
public:
    explicit Probe(int reps) : reps_(reps) { glBindVertexArray(vertexArray_.id()); }

    // The least device time of `draw`, ms; 0 where the timer measures nothing.
    double time(const std::function<void()>& draw) {
        double least = 0.0;
        for (int r = 0; r <= reps_; ++r) {
            glBeginQuery(GL_TIME_ELAPSED, query_.id());
            draw();
            glEndQuery(GL_TIME_ELAPSED);
            GLuint64 ns = 0;
            glGetQueryObjectui64v(query_.id(), GL_QUERY_RESULT, &ns);
            const double ms = double(ns) / 1e6;
            if (r > 0 && ms > 0.0 && (least == 0.0 || ms < least)) least = ms;
        }
        return least;
    }

private:
    int reps_;
    gl::Query query_ = gl::Query::create();
    gl::VertexArray vertexArray_ = gl::VertexArray::create();
};

void print(int size, const std::string& what, double ms, double items, double yardstick) {
    if (ms < 1e-3) {  // a timer that measured nothing (llvmpipe's compute dispatches)
        std::printf("graphics,%d,%s,n/a,n/a,n/a\n", size, what.c_str());
        return;
    }
    std::printf("graphics,%d,%s,%.3f,%.2f,%.2f\n", size, what.c_str(), ms, items / ms / 1e6,
                yardstick > 0.0 ? ms / yardstick : 0.0);
}

// The first texel of `target` (a one-channel float or unsigned target) read back.
double firstTexel(const gl::RenderTarget& target, bool integer) {
    glBindFramebuffer(GL_READ_FRAMEBUFFER, target.framebuffer.id());
    if (integer) {
        GLuint v[4] = {};
        glReadPixels(0, 0, 1, 1, GL_RGBA_INTEGER, GL_UNSIGNED_INT, v);
        return double(v[0]);
    }
    float v[4] = {};
    glReadPixels(0, 0, 1, 1, GL_RGBA, GL_FLOAT, v);
    return double(v[0]);
}

// A 32-bit float depth target, an R32F colour target beside it, bound for
// depth-only draws with depth test `test` while it lives (cleared to 0,
// colour writes off); the default state back at its end.
class DepthTarget {
public:
    DepthTarget(int width, int height, GLenum test)
        : width_(width),
          height_(height),
          depth_(gl::allocateRenderbuffer(GL_DEPTH_COMPONENT32F, width, height, "the probe's depth")),
          target_(gl::RenderTarget::allocate(GL_R32F, width, height, "the probe's depth target", depth_.id())) {
        glBindFramebuffer(GL_FRAMEBUFFER, target_.framebuffer.id());
        glClearDepth(0.0);
        glClear(GL_DEPTH_BUFFER_BIT);
        glEnable(GL_DEPTH_TEST);
        glDepthFunc(test);
        glColorMask(GL_FALSE, GL_FALSE, GL_FALSE, GL_FALSE);
    }
    ~DepthTarget() {
        glColorMask(GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE);
        glDisable(GL_DEPTH_TEST);
        glDepthFunc(GL_LESS);
        glClearDepth(1.0);
    }
    DepthTarget(const DepthTarget&) = delete;
    DepthTarget& operator=(const DepthTarget&) = delete;

    // The depths, row by row from the first texel; `count` of them.
    std::vector<GLfloat> read(std::size_t count) const {
        std::vector<GLfloat> depths(std::size_t(width_) * std::size_t(height_));
        glBindFramebuffer(GL_READ_FRAMEBUFFER, target_.framebuffer.id());
        glPixelStorei(GL_PACK_ALIGNMENT, 4);
        glReadPixels(0, 0, width_, height_, GL_DEPTH_COMPONENT, GL_FLOAT, depths.data());
        depths.resize(count);
        return depths;
    }

private:
    int width_, height_;
    gl::Renderbuffer depth_;
    gl::RenderTarget target_;
};

int run(int argc, char** argv) {
    std::vector<int> sizes = {2048, 8192};
    int reps = 7;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--sizes" && i + 1 < argc) {
            sizes.clear();
            for (const char* p = argv[++i]; *p;) {
                char* end = nullptr;
                sizes.push_back(int(std::strtol(p, &end, 10)));
                if (end == p || sizes.back() < 1) throw Error("--sizes: a list of positive sizes, e.g. 2048,8192");
                p = *end == ',' ? end + 1 : end;
            }
        } else if (arg == "--reps" && i + 1 < argc) {
            reps = std::atoi(argv[++i]);
            if (reps < 1) throw Error("--reps: at least 1");
        } else {
            std::fprintf(stderr, "usage: glccl_graphics_probe [--sizes N,...] [--reps N]\n");
            return 2;
        }
    }
    HeadlessContext context;
    context.makeCurrent();
    const ContextInfo& info = context.info();
    std::printf("graphics,renderer,%s\n", info.renderer.c_str());
    Probe probe(reps);
    // R32F first: the yardstick the others are given in units of.
    const Format formats[] = {{GL_R32F, "R32F", false},   {GL_R8, "R8", false},         {GL_R32UI, "R32UI", true},
                              {GL_RG32F, "RG32F", false}, {GL_RGBA8, "RGBA8", false},   {GL_RGBA16F, "RGBA16F", false},
                              {GL_RGBA32F, "RGBA32F", false}, {GL_RGBA32UI, "RGBA32UI", true}};
    int failures = 0;
    for (int size : sizes) {
        const double texels = double(size) * double(size);
        // The source: 1.0 everywhere, so that a pass's first texel is known.
        gl::RenderTarget source = gl::RenderTarget::allocate(GL_R32F, size, size, "the probe's source");
        glBindFramebuffer(GL_DRAW_FRAMEBUFFER, source.framebuffer.id());
        const GLfloat one[4] = {1.0f, 1.0f, 1.0f, 1.0f};
        glClearBufferfv(GL_COLOR, 0, one);
        glActiveTexture(GL_TEXTURE0);
        glBindTexture(GL_TEXTURE_2D, source.texture.id());
        glViewport(0, 0, size, size);
        const auto expect = [&](const gl::RenderTarget& target, bool integer, double value, const std::string& what) {
            const double got = firstTexel(target, integer);
            if (got != value) {
                std::printf("graphics,%d,%s,WRONG: first texel %g, not %g\n", size, what.c_str(), got, value);
                ++failures;
            }
        };
        const auto expectDepth = [&](const DepthTarget& depth, const std::string& what) {
            const GLfloat got = depth.read(1)[0];
            if (got != 0.5f) {
                std::printf("graphics,%d,%s,WRONG: first depth %g, not 0.5\n", size, what.c_str(), double(got));
                ++failures;
            }
        };
        double yardstick = 0.0;
        for (const Format& format : formats) {
            gl::RenderTarget target = gl::RenderTarget::allocate(format.internal, size, size, "a probe target");
            glBindFramebuffer(GL_DRAW_FRAMEBUFFER, target.framebuffer.id());
            const std::string out = format.integer ? "uvec4" : "vec4";
            ProbeProgram program({{GL_VERTEX_SHADER, std::string(kVersion) + kFullscreen},
                                  {GL_FRAGMENT_SHADER, std::string(kVersion) + "uniform sampler2D source;\nout " + out +
                                                           " color;\nvoid main() { color = " + out +
                                                           "(texelFetch(source, ivec2(gl_FragCoord.xy), 0).r); }\n"}});
            const double ms = probe.time([] { glDrawArrays(GL_TRIANGLES, 0, 3); });
            if (format.internal == GL_R32F) yardstick = ms;
            print(size, std::string("pass ") + format.name, ms, texels, yardstick);
            if (format.internal == GL_R32F || format.internal == GL_RGBA32F) {
                glEnable(GL_BLEND);
                glBlendEquation(GL_MAX);
                print(size, std::string("blend ") + format.name, probe.time([] { glDrawArrays(GL_TRIANGLES, 0, 3); }),
                      texels, yardstick);
                glDisable(GL_BLEND);
            }
            if (format.internal == GL_R32F || format.internal == GL_R32UI) expect(target, format.integer, 1.0, format.name);
        }
        {
            // The fetched value into a 32-bit float depth target through
            // gl_FragDepth (the depth test always passing, colour writes
            // off), as a fragment pass would write values that points then
            // raise by their depths.
            DepthTarget depth(size, size, GL_ALWAYS);
            ProbeProgram program({{GL_VERTEX_SHADER, std::string(kVersion) + kFullscreen},
                                  {GL_FRAGMENT_SHADER, std::string(kVersion) + "uniform sampler2D source;\nvoid main() {\n"
                                                       "  gl_FragDepth = 0.5 * texelFetch(source, ivec2(gl_FragCoord.xy), 0).r;\n}\n"}});
            print(size, "pass into depth", probe.time([] { glDrawArrays(GL_TRIANGLES, 0, 3); }), texels, yardstick);
            expectDepth(depth, "pass into depth");
        }
        gl::RenderTarget target = gl::RenderTarget::allocate(GL_R32F, size, size, "a probe target");
        glBindFramebuffer(GL_DRAW_FRAMEBUFFER, target.framebuffer.id());
        for (int fetches : {1, 4, 16}) {
            ProbeProgram program(
                {{GL_VERTEX_SHADER, std::string(kVersion) + kFullscreen},
                 {GL_FRAGMENT_SHADER, std::string(kVersion) + "uniform sampler2D source;\nout vec4 color;\nvoid main() {\n"
                                      "  ivec2 p = ivec2(gl_FragCoord.xy);\n  float sum = 0.0;\n  for (int i = 0; i < " +
                                          std::to_string(fetches) + "; ++i)\n    sum += texelFetch(source, (p + ivec2(7 * i, 3 * i)) & ivec2(" +
                                          std::to_string(size - 1) + "), 0).r;\n  color = vec4(sum);\n}\n"}});
            print(size, "fetches " + std::to_string(fetches), probe.time([] { glDrawArrays(GL_TRIANGLES, 0, 3); }), texels,
                  yardstick);
            expect(target, false, double(fetches), "fetches " + std::to_string(fetches));
        }
        {
            // A point a vertex on every texel of a quarter-size target (a
            // node grid of 2x2 pixels), as the engine's draws of a vertex per
            // node: the vertex fetches a texel and places the point, its
            // value reaching the fragment as a flat varying (the engine's
            // way), as a smooth one, not at all, or fetched again by the
            // fragment from gl_PrimitiveID (a point's own index).
            const int half = std::max(1, size / 2);
            const GLsizei points = GLsizei(half) * GLsizei(half);
            gl::RenderTarget nodes = gl::RenderTarget::allocate(GL_R32F, half, half, "the probe's node grid");
            glBindFramebuffer(GL_DRAW_FRAMEBUFFER, nodes.framebuffer.id());
            glViewport(0, 0, half, half);
            const std::string h = std::to_string(half);
            const std::string place = "  ivec2 q = ivec2(gl_VertexID % " + h + ", gl_VertexID / " + h + ");\n"
                                      "  gl_Position = vec4((vec2(q) + 0.5) / float(" + h + ") * 2.0 - 1.0, 0.0, 1.0);\n"
                                      "  gl_PointSize = 1.0;\n";
            struct Variant {
                const char* name;
                std::string vertex, fragment;
            };
            const std::string head = std::string(kVersion) + "uniform sampler2D source;\n";
            // The engine's way: the vertex fetches its texel's value and
            // hands it to the fragment in a flat varying (then `tail`, a
            // vertex's further lines); the fragment writes value + 1.
            const auto valueVertex = [&](const std::string& tail) {
                return head + "flat out float value;\nvoid main() {\n" + place + "  value = texelFetch(source, q, 0).r;\n" +
                       tail + "}\n";
            };
            const std::string valueFragment =
                head + "flat in float value;\nout vec4 color;\nvoid main() { color = vec4(value + 1.0); }\n";
            const Variant variants[] = {
                {"points", valueVertex(""), valueFragment},
                {"points smooth", head + "out float value;\nvoid main() {\n" + place + "  value = texelFetch(source, q, 0).r;\n}\n",
                 head + "in float value;\nout vec4 color;\nvoid main() { color = vec4(value + 1.0); }\n"},
                {"points no varying", head + "void main() {\n" + place + "  gl_Position.w += 0.0 * texelFetch(source, q, 0).r;\n}\n",
                 head + "out vec4 color;\nvoid main() { color = vec4(2.0); }\n"},
                {"points primitive id", head + "void main() {\n" + place + "  gl_Position.w += 0.0 * texelFetch(source, q, 0).r;\n}\n",
                 head + "out vec4 color;\nvoid main() {\n  ivec2 q = ivec2(gl_PrimitiveID % " + h + ", gl_PrimitiveID / " + h +
                     ");\n  color = vec4(texelFetch(source, q, 0).r + 1.0);\n}\n"}};
            for (const Variant& variant : variants) {
                ProbeProgram program({{GL_VERTEX_SHADER, variant.vertex}, {GL_FRAGMENT_SHADER, variant.fragment}});
                print(size, variant.name, probe.time([points] { glDrawArrays(GL_POINTS, 0, points); }), double(points),
                      yardstick);
                if (variant.name == std::string("points")) {
                    glEnable(GL_BLEND);
                    glBlendEquation(GL_MAX);
                    print(size, "points blended", probe.time([points] { glDrawArrays(GL_POINTS, 0, points); }),
                          double(points), yardstick);
                    glDisable(GL_BLEND);
                }
                expect(nodes, false, 2.0, variant.name);
            }
            // The value as the point's depth instead (colour writes off, a
            // GL_GREATER test into a depth target: GL_MAX blending's effect
            // where one value a point is combined): the vertex carries it
            // in its position, the fragment nothing.
            {
                DepthTarget depth(half, half, GL_GREATER);
                ProbeProgram program({{GL_VERTEX_SHADER, head + "void main() {\n" + place +
                                                             "  gl_Position.z = texelFetch(source, q, 0).r - 1.0;\n}\n"},
                                      {GL_FRAGMENT_SHADER, std::string(kVersion) + "void main() {}\n"}});
                print(size, "points as depth", probe.time([points] { glDrawArrays(GL_POINTS, 0, points); }),
                      double(points), yardstick);
                expectDepth(depth, "points as depth");
            }
            // The same vertices with one in 8 drawn and the rest clipped, as
            // in the engine's draws, where a vertex per node draws only
            // where its node has something to send: the value in a flat
            // varying, and as the point's depth; and every vertex clipped,
            // what the vertices alone cost.
            {
                const std::string sparse = "  if (gl_VertexID % 8 != 0) gl_Position = vec4(2.0, 2.0, 2.0, 1.0);\n";
                glBindFramebuffer(GL_DRAW_FRAMEBUFFER, nodes.framebuffer.id());
                {
                    ProbeProgram program(
                        {{GL_VERTEX_SHADER, valueVertex(sparse)}, {GL_FRAGMENT_SHADER, valueFragment}});
                    print(size, "points 1 in 8", probe.time([points] { glDrawArrays(GL_POINTS, 0, points); }),
                          double(points), yardstick);
                    expect(nodes, false, 2.0, "points 1 in 8");
                }
                {
                    DepthTarget depth(half, half, GL_GREATER);
                    ProbeProgram program({{GL_VERTEX_SHADER, head + "void main() {\n" + place +
                                                                 "  gl_Position.z = texelFetch(source, q, 0).r - 1.0;\n" + sparse +
                                                                 "}\n"},
                                          {GL_FRAGMENT_SHADER, std::string(kVersion) + "void main() {}\n"}});
                    print(size, "points 1 in 8 as depth", probe.time([points] { glDrawArrays(GL_POINTS, 0, points); }),
                          double(points), yardstick);
                    expectDepth(depth, "points 1 in 8 as depth");
                }
                glBindFramebuffer(GL_DRAW_FRAMEBUFFER, nodes.framebuffer.id());
                // The one in 8 drawn all into one texel, blended (GL_MAX),
                // as points raise one root: blends into one texel go one
                // after another.
                {
                    ProbeProgram program(
                        {{GL_VERTEX_SHADER,
                          valueVertex(sparse + "  else gl_Position.xy = vec2(-1.0 + 1.0 / float(" + h + "));\n")},
                         {GL_FRAGMENT_SHADER, valueFragment}});
                    glEnable(GL_BLEND);
                    glBlendEquation(GL_MAX);
                    print(size, "points 1 in 8 into one texel, blended", probe.time([points] { glDrawArrays(GL_POINTS, 0, points); }),
                          double(points), yardstick);
                    glDisable(GL_BLEND);
                    expect(nodes, false, 2.0, "points 1 in 8 into one texel");
                }
                {
                    ProbeProgram program(
                        {{GL_VERTEX_SHADER, valueVertex("  if (value < 2.0) gl_Position = vec4(2.0, 2.0, 2.0, 1.0);\n")},
                         {GL_FRAGMENT_SHADER, valueFragment}});
                    print(size, "points all clipped", probe.time([points] { glDrawArrays(GL_POINTS, 0, points); }),
                          double(points), yardstick);
                }
                // Every vertex clipped after 8 fetches, each at a neighbour
                // of the texel the one before it read (the engine's
                // vertices read a node's bits, its neighbours' labels and
                // their run tops, each fetch waiting on the one before).
                {
                    ProbeProgram program(
                        {{GL_VERTEX_SHADER,
                          valueVertex("  for (int i = 0; i < 8; ++i)\n"
                                      "    value = texelFetch(source, clamp(q + ivec2(-1, i % 3 - 1) * int(value), ivec2(0), ivec2(" +
                                      h + " - 1)), 0).r;\n"
                                      "  if (value < 2.0) gl_Position = vec4(2.0, 2.0, 2.0, 1.0);\n")},
                         {GL_FRAGMENT_SHADER, valueFragment}});
                    print(size, "points all clipped, 8 fetches", probe.time([points] { glDrawArrays(GL_POINTS, 0, points); }),
                          double(points), yardstick);
                }
                // The same vertices in 32 draws, as column processing's
                // gathers draw a column of every block each: into one
                // target, each draw reading the source (no draw waits on
                // another), and as a chain, each draw reading the target
                // the one before it drew into (column c reads column c - 1).
                {
                    constexpr int kDraws = 32;
                    const GLsizei each = points / kDraws;
                    gl::RenderTarget other = gl::RenderTarget::allocate(GL_R32F, half, half, "the probe's second node grid");
                    ProbeProgram program(
                        {{GL_VERTEX_SHADER, valueVertex(sparse)}, {GL_FRAGMENT_SHADER, valueFragment}});
                    print(size, "points 1 in 8, 32 draws", probe.time([each] {
                              for (int k = 0; k < kDraws; ++k) glDrawArrays(GL_POINTS, k * each, each);
                          }),
                          double(points), yardstick);
                    const gl::RenderTarget* targets[2] = {&nodes, &other};
                    print(size, "points 1 in 8, a chain of 32 draws", probe.time([&] {
                              for (int k = 0; k < kDraws; ++k) {
                                  glBindFramebuffer(GL_DRAW_FRAMEBUFFER, targets[k % 2]->framebuffer.id());
                                  glBindTexture(GL_TEXTURE_2D, targets[1 - k % 2]->texture.id());
                                  glDrawArrays(GL_POINTS, k * each, each);
                              }
                          }),
                          double(points), yardstick);
                    glBindTexture(GL_TEXTURE_2D, source.texture.id());
                    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, nodes.framebuffer.id());
                }
            }
            // Whether a 32-bit float depth target keeps the values points
            // bring exactly: point k brings k / 2^24 (every one a float),
            // as its depth through glClipControl's GL_ZERO_TO_ONE (OpenGL
            // 4.5: z as given) and through the default mapping of z from
            // [-1, 1]; and, through GL_ZERO_TO_ONE, the raster engine's IDs
            // (float bit patterns from 0x00800000 up, spread over the range
            // below 1.0). The depths read back and counted where they
            // differ. A measurement, not a check: the count is printed.
            if (half <= 4096) {
                using ClipControl = void(APIENTRY*)(GLenum, GLenum);
                const auto clipControl = reinterpret_cast<ClipControl>(gl::procAddress("glClipControl"));
                const bool zeroToOneHere = (info.major > 4 || (info.major == 4 && info.minor >= 5)) && !info.es && clipControl;
                const std::uint32_t idStep = std::uint32_t((0x3F000000u - 1u) / std::uint64_t(points));
                struct Mapping {
                    const char* name;
                    bool zeroToOne;
                    bool ids;  // the engine's IDs, else k / 2^24
                    std::string z;
                };
                const Mapping mappings[] = {
                    {"k/2^24, GL_ZERO_TO_ONE", true, false, "  gl_Position.z = float(gl_VertexID) / 16777216.0;\n"},
                    {"k/2^24, z from [-1, 1]", false, false, "  gl_Position.z = 2.0 * (float(gl_VertexID) / 16777216.0) - 1.0;\n"},
                    {"IDs, GL_ZERO_TO_ONE", true, true,
                     "  gl_Position.z = uintBitsToFloat(0x00800000u + uint(gl_VertexID) * " + std::to_string(idStep) + "u);\n"}};
                for (const Mapping& mapping : mappings) {
                    if (mapping.zeroToOne && !zeroToOneHere) continue;
                    if (mapping.zeroToOne) clipControl(GL_LOWER_LEFT, GL_ZERO_TO_ONE);
                    DepthTarget depth(half, half, GL_ALWAYS);
                    ProbeProgram program({{GL_VERTEX_SHADER, head + "void main() {\n" + place + mapping.z + "}\n"},
                                          {GL_FRAGMENT_SHADER, std::string(kVersion) + "void main() {}\n"}});
                    glDrawArrays(GL_POINTS, 0, points);
                    if (mapping.zeroToOne) clipControl(GL_LOWER_LEFT, GL_NEGATIVE_ONE_TO_ONE);
                    const std::vector<GLfloat> depths = depth.read(std::size_t(points));
                    std::size_t differ = 0;
                    for (std::size_t k = 0; k < depths.size(); ++k) {
                        std::uint32_t bits = 0x00800000u + std::uint32_t(k) * idStep;
                        float id = 0.0f;
                        std::memcpy(&id, &bits, sizeof id);
                        if (depths[k] != (mapping.ids ? id : float(double(k) / 16777216.0))) ++differ;
                    }
                    std::printf("graphics,%d,depth keeps %s,%zu of %zu differ\n", size, mapping.name, differ,
                                depths.size());
                }
            }
            glViewport(0, 0, size, size);
        }
        const bool compute = info.major > 4 || (info.major == 4 && info.minor >= 3);
        if (compute && !info.es) {
            ProbeProgram program({{GL_COMPUTE_SHADER,
                                   std::string(kVersion) +
                                       "layout(local_size_x = 16, local_size_y = 16) in;\n"
                                       "layout(r32f, binding = 0) uniform readonly image2D source;\n"
                                       "layout(r32f, binding = 1) uniform writeonly image2D target;\n"
                                       "void main() { ivec2 p = ivec2(gl_GlobalInvocationID.xy);\n"
                                       "  if (all(lessThan(p, imageSize(target)))) imageStore(target, p, imageLoad(source, p) + 1.0); }\n"}});
            glBindImageTexture(0, source.texture.id(), 0, GL_FALSE, 0, GL_READ_ONLY, GL_R32F);
            glBindImageTexture(1, target.texture.id(), 0, GL_FALSE, 0, GL_WRITE_ONLY, GL_R32F);
            const GLuint groups = GLuint((size + 15) / 16);
            print(size, "compute copy", probe.time([groups] {
                      glDispatchCompute(groups, groups, 1);
                      glMemoryBarrier(GL_ALL_BARRIER_BITS);
                  }),
                  texels, yardstick);
            expect(target, false, 2.0, "compute copy");
        }
        const GLenum error = glGetError();
        if (error != GL_NO_ERROR) throw Error("GL error " + std::to_string(error) + " at " + std::to_string(size));
    }
    std::printf("probe: every target %s\n", failures == 0 ? "read back as written" : "NOT as written");
    return failures == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
    try {
        return run(argc, argv);
    } catch (const std::exception& error) {
        std::fprintf(stderr, "glccl_graphics_probe: %s\n", error.what());
        return 1;
    }
}
