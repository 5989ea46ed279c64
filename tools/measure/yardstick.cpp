#include "yardstick.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "gl_error.hpp"
#include "gl_objects.hpp"
#include "glccl/error.hpp"
#include "program.hpp"
#include "stage_timer.hpp"
#include "state_guard.hpp"

namespace glccl::bench {

std::optional<double> fullscreenPassMilliseconds(int width, int height, int reps) {
    const std::string what = "glccl::bench::fullscreenPassMilliseconds()";
    GLint largest = 0;
    glGetIntegerv(GL_MAX_TEXTURE_SIZE, &largest);
    if (width < 1 || height < 1 || width > largest || height > largest || reps < 1)
        throw Error(what + ": " + std::to_string(width) + "x" + std::to_string(height) + " is outside 1.." +
                    std::to_string(largest) + " (or reps < 1)");
    StateGuard guard;
    auto source = gl::RenderTarget::allocate(GL_R32F, width, height, what);
    auto target = gl::RenderTarget::allocate(GL_R32F, width, height, what);
    auto program = gl::ProgramBuilder("fullscreen_pass")
                       .vertex("fullscreen.vert")
                       .fragmentSource("uniform sampler2D source;\nout vec4 fragColor;\n"
                                       "void main() { fragColor = texelFetch(source, ivec2(gl_FragCoord.xy), 0); }\n")
                       .output("fragColor")
                       .build();
    auto vertexArray = gl::VertexArray::create();
    glBindVertexArray(vertexArray.id());
    program.set("quadDepth", 0.0f);
    program.set("source", 0);
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_2D, source.texture.id());
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, target.framebuffer.id());
    glViewport(0, 0, width, height);
    std::vector<double> times;
    for (int i = 0; i <= reps; ++i) {
        StageTimer timer(true);
        {
            auto scope = timer.scope("fullscreen_pass");
            glDrawArrays(GL_TRIANGLES, 0, 3);
        }
        const StageTimings timed = timer.collect();
        if (i > 0 && timed.front().measured) times.push_back(timed.front().milliseconds);
    }
    checkGlError(what);
    if (times.empty()) return std::nullopt;
    std::sort(times.begin(), times.end());
    return times[times.size() / 2];
}

}  // namespace glccl::bench
