// glccl_viewer: glccl inside a live renderer. Each frame draws moving,
// merging and splitting blobs into an offscreen GL_R8 texture, labels that
// texture with glccl::Labeler in the same context (no copy through host
// memory), and shows the labels in color with the components' boxes, the
// count and the labeling time. --frames/--screenshot run without interaction.
// A volume (--image of a 3-D .npy or TIFF stack) is labeled as a 3-D texture
// and shown a slice at a time, stepped with the arrow keys.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <GL/glew.h>  // before any other GL header

#include "glccl/backend.hpp"
#include "glccl/context.hpp"
#include "glccl/error.hpp"
#include "glccl/image_io.hpp"
#include "glccl/labeler.hpp"
#include "glccl/output_transaction.hpp"
#include "glccl/route.hpp"
#include "glccl/texture.hpp"
#include "cli_support.hpp"
#include "view.hpp"

// GLEW declares the GL API; GLFW must not include a second set.
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

namespace glccl::viewer {
namespace {

constexpr const char* kUsage =
    "usage: glccl_viewer [--image FILE] [--size WxH] [--backend B] [--connectivity C]\n"
    "                    [--criterion binary|segments|threshold:T]\n"
    "                    [--slice Z] [--frames N [--screenshot OUT.png] [--dump PREFIX]] [--force]\n"
    "\n"
    "Labels an animated scene (or --image FILE) every frame with glccl::Labeler in\n"
    "the window's own OpenGL 3.3 context and shows each component in its color,\n"
    "with its bounding box, the count and the labeling time.\n"
    "\n"
    "  --image FILE        label this picture instead of the animated scene; a volume\n"
    "                      (3-D .npy, TIFF stack) is shown a slice at a time\n"
    "  --size WxH          size of the scene (default 640x400)\n"
    "  --backend B         auto (default: the fastest that runs in the window's\n"
    "                      context), compute, raster, cuda or cpu\n"
    "  --connectivity C    4 or 8 (default 8) for images, 6, 18 or 26 (default 26)\n"
    "                      for volumes; the c key switches it\n"
    "  --slice Z           the volume's slice shown first (default: the middle one)\n"
    "  --criterion C       binary (default), segments or threshold:T; the scene\n"
    "                      draws blobs for binary, bands of the blob field otherwise\n"
    "  --frames N          run N frames without interaction, then exit; the scene\n"
    "                      time follows the frame number, so runs repeat exactly\n"
    "  --screenshot OUT    with --frames: write the last frame's window as PNG\n"
    "  --dump PREFIX       with --frames: write the last frame's input as\n"
    "                      PREFIX.mask.png (not for a volume: that is its file) and\n"
    "                      its labels as PREFIX.labels.npy\n"
    "  --force             overwrite output files that exist\n"
    "\n"
    "Keys: space pauses, c switches the connectivity, up/down (page up/down: ten)\n"
    "step through a volume's slices, home/end go to its first/last, esc quits.\n";

constexpr int kBarHeight = 34;        // the text line under the picture
constexpr int kMinWindowWidth = 480;  // room for the text line
constexpr int kMaxPictureWidth = 1600, kMaxPictureHeight = 1000;
constexpr double kSecondsPerFrame = 1.0 / 60.0;

struct UsageError : Error {
    using Error::Error;
};

struct Options {
    std::string image;
    int width = 640, height = 400;
    Backend backend = Backend::Auto;
    std::optional<Connectivity> connectivity;  // default: 8 for images, 26 for volumes
    int slice = -1;                             // -1: the middle one
    Criterion criterion = Criterion::binary();
    int frames = 0;  // 0: until the window is closed
    std::string screenshot, dump;
    bool force = false;
};

int parsePositive(const std::string& option, const std::string& text) {
    char* end = nullptr;
    const long value = std::strtol(text.c_str(), &end, 10);
    if (text.empty() || *end != '\0' || value < 1 || value > 1 << 20)
        throw UsageError(option + ": expected a positive integer, got '" + text + "'");
    return int(value);
}

Options parseOptions(int argc, char** argv) {
    Options options;
    for (int i = 1; i < argc; ++i) {
        std::string option = argv[i], value;
        const bool takesValue = option != "--force" && option != "--help" && option != "-h";
        if (const auto equals = option.find('='); equals != std::string::npos && option.rfind("--", 0) == 0) {
            value = option.substr(equals + 1);
            option.resize(equals);
        } else if (takesValue) {
            if (i + 1 >= argc) throw UsageError(option + " needs a value");
            value = argv[++i];
        }
        if (option == "--help" || option == "-h") {
            std::fputs(kUsage, stdout);
            std::exit(0);
        } else if (option == "--image") options.image = value;
        else if (option == "--size") {
            const auto x = value.find('x');
            if (x == std::string::npos) throw UsageError("--size: expected WxH, got '" + value + "'");
            options.width = parsePositive("--size", value.substr(0, x));
            options.height = parsePositive("--size", value.substr(x + 1));
        } else if (option == "--backend") {
            try {
                options.backend = parseBackend(value);
            } catch (const Error& error) {
                throw UsageError(std::string("--backend: ") + error.what());
            }
        } else if (option == "--connectivity") {
            try {
                options.connectivity = parseConnectivity(value);
            } catch (const Error& error) {
                throw UsageError(std::string("--connectivity: ") + error.what());
            }
        } else if (option == "--criterion") {
            try {
                options.criterion = Criterion::parse(value);
            } catch (const Error& error) {
                throw UsageError(std::string("--criterion: ") + error.what());
            }
        } else if (option == "--slice") {
            options.slice = value == "0" ? 0 : parsePositive("--slice", value);
        } else if (option == "--frames") options.frames = parsePositive("--frames", value);
        else if (option == "--screenshot") options.screenshot = value;
        else if (option == "--dump") options.dump = value;
        else if (option == "--force") options.force = true;
        else throw UsageError("unknown option '" + option + "'");
    }
    if ((!options.screenshot.empty() || !options.dump.empty()) && options.frames == 0)
        throw UsageError("--screenshot and --dump need --frames N (they write the last of N frames)");
    return options;
}

// GLFW reports failures through a callback; the last message goes into the error.
std::string lastGlfwError;
void onGlfwError(int code, const char* description) {
    lastGlfwError = description ? description : ("GLFW error " + std::to_string(code));
}

struct Glfw {
    Glfw() {
        glfwSetErrorCallback(onGlfwError);
        if (!glfwInit())
            throw Error("glfwInit() failed: " + lastGlfwError + " (no display? run it under xvfb-run for no screen)");
    }
    ~Glfw() { glfwTerminate(); }
    Glfw(const Glfw&) = delete;
    Glfw& operator=(const Glfw&) = delete;
};

struct WindowDeleter {
    void operator()(GLFWwindow* window) const { glfwDestroyWindow(window); }
};
using Window = std::unique_ptr<GLFWwindow, WindowDeleter>;

struct Controls {
    bool paused = false;
    bool switchConnectivity = false;
    int sliceStep = 0;      // slices to move by, from the arrow keys
    bool toFirst = false, toLast = false;
};

// The next connectivity the c key gives: 4 <-> 8, 6 -> 18 -> 26 -> 6.
Connectivity nextConnectivity(Connectivity c) {
    switch (c) {
        case Connectivity::Four: return Connectivity::Eight;
        case Connectivity::Eight: return Connectivity::Four;
        case Connectivity::Six: return Connectivity::Eighteen;
        case Connectivity::Eighteen: return Connectivity::TwentySix;
        case Connectivity::TwentySix: return Connectivity::Six;
    }
    return c;
}

void onKey(GLFWwindow* window, int key, int, int action, int) {
    if (action != GLFW_PRESS && action != GLFW_REPEAT) return;
    auto* controls = static_cast<Controls*>(glfwGetWindowUserPointer(window));
    if (key == GLFW_KEY_ESCAPE) glfwSetWindowShouldClose(window, GLFW_TRUE);
    else if (key == GLFW_KEY_SPACE) controls->paused = !controls->paused;
    else if (key == GLFW_KEY_C) controls->switchConnectivity = true;
    else if (key == GLFW_KEY_UP || key == GLFW_KEY_RIGHT) ++controls->sliceStep;
    else if (key == GLFW_KEY_DOWN || key == GLFW_KEY_LEFT) --controls->sliceStep;
    else if (key == GLFW_KEY_PAGE_UP) controls->sliceStep += 10;
    else if (key == GLFW_KEY_PAGE_DOWN) controls->sliceStep -= 10;
    else if (key == GLFW_KEY_HOME) controls->toFirst = true;
    else if (key == GLFW_KEY_END) controls->toLast = true;
}

// The back buffer as an RGBA image, top row first (what the window shows).
Image readWindow(int width, int height) {
    Image image(width, height, 4);
    std::vector<std::uint8_t> rows(image.pixels.size());
    glBindFramebuffer(GL_READ_FRAMEBUFFER, 0);
    glReadBuffer(GL_BACK);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadPixels(0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, rows.data());
    const std::size_t stride = std::size_t(width) * 4;
    for (int y = 0; y < height; ++y)
        std::copy_n(rows.data() + std::size_t(height - 1 - y) * stride, stride, image.pixels.data() + std::size_t(y) * stride);
    return image;
}

std::string fixed(double value, int decimals) {
    char text[64];
    std::snprintf(text, sizeof text, "%.*f", decimals, value);
    return text;
}

int run(const Options& options) {
    // Refused before any window opens, so a run writes all its outputs or none.
    std::vector<tools::NamedOutput> outputs;
    if (!options.screenshot.empty()) outputs.push_back({"--screenshot", options.screenshot});
    if (!options.dump.empty()) {
        outputs.push_back({"--dump", options.dump + ".mask.png"});  // not written for a volume, refused alike
        outputs.push_back({"--dump", options.dump + ".labels.npy"});
    }
    tools::checkOutputs(outputs, options.image.empty() ? std::vector<std::string>{} : std::vector<std::string>{options.image},
                        options.force);
    // Read before the window opens: a bad file should not flash a window.
    std::optional<Image> picture;
    if (!options.image.empty()) {
        const bool color = options.criterion.kind == Criterion::Kind::Threshold;
        picture = readImage(options.image, color ? ChannelMode::Natural : ChannelMode::Gray);
    }
    const int width = picture ? picture->width : options.width;
    const int height = picture ? picture->height : options.height;
    const int depth = picture ? picture->depth : 1;
    const Shape shape = picture ? picture->shape() : Shape::image(width, height);
    const bool volume = shape.dimensions == 3;
    const Connectivity connectivity = options.connectivity.value_or(volume ? Connectivity::TwentySix : Connectivity::Eight);
    if (const std::string why = whyConnectivityDoesNotFit(connectivity, shape); !why.empty())
        throw UsageError("--connectivity: " + why);
    if (options.slice >= depth)
        throw UsageError("--slice " + std::to_string(options.slice) + ": the " +
                         (volume ? "volume has slices 0 to " + std::to_string(depth - 1) : std::string("image is not a volume")));
    int slice = options.slice >= 0 ? options.slice : depth / 2;

    // Large pictures are shown scaled down; the labeling is always at full size.
    const double scale = std::min({1.0, double(kMaxPictureWidth) / width, double(kMaxPictureHeight) / height});
    const int shownWidth = std::max(1, int(width * scale)), shownHeight = std::max(1, int(height * scale));

    Glfw glfw;
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
    glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
    glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
    glfwWindowHint(GLFW_RESIZABLE, GLFW_FALSE);
    const int windowWidth = std::max(shownWidth, kMinWindowWidth), windowHeight = shownHeight + kBarHeight;
    Window window(glfwCreateWindow(windowWidth, windowHeight,
                                   "glccl viewer - space: pause, c: 4/8-connectivity, esc: quit", nullptr, nullptr));
    if (!window) throw Error("glfwCreateWindow() for an OpenGL 3.3 core context failed: " + lastGlfwError);
    glfwMakeContextCurrent(window.get());
    glfwSwapInterval(options.frames > 0 ? 0 : 1);
    Controls controls;
    glfwSetWindowUserPointer(window.get(), &controls);
    glfwSetKeyCallback(window.get(), onKey);
    // The viewer's own GL calls go through GLEW; glccl finds its own
    // entry points (Labeler does so itself).
    glewExperimental = GL_TRUE;
    if (const GLenum status = glewInit(); status != GLEW_OK)
        throw Error(std::string("glewInit() failed: ") + reinterpret_cast<const char*>(glewGetErrorString(status)));
    while (glGetError() != GL_NO_ERROR) {  // glewInit's probing leaves GL_INVALID_ENUM in core profiles
    }

    // Everything GL lives in this scope, so it is deleted before the window's context.
    {
        Labeler labeler;
        const std::string why = whyUnavailable(options.backend, labeler.contextInfo());
        if (!why.empty())
            throw Error(std::string("the ") + backendName(options.backend) + " backend cannot run here: " + why);
        LabelOptions labelOptions;
        labelOptions.backend = options.backend;
        labelOptions.connectivity = connectivity;
        labelOptions.criterion = options.criterion;

        std::optional<BlobScene> scene;
        ImageTexture pictureTexture;
        if (picture) {
            pictureTexture = volume ? ImageTexture::volume(*picture) : ImageTexture(*picture);
        } else {
            const bool bands = options.criterion.kind != Criterion::Kind::Binary;
            scene.emplace(width, height, bands ? BlobScene::Output::Bands : BlobScene::Output::Mask);
        }
        const ImageTexture& input = picture ? pictureTexture : scene->texture();
        LabelView labelView;
        BoxOverlay boxes;
        TextOverlay text;

        // The viewer's own drawing state; glccl leaves it as it is.
        glDisable(GL_DITHER);  // the label colors reach the screen exactly
        glClearColor(0.08f, 0.08f, 0.1f, 1.0f);

        std::uint32_t count = 0;
        std::vector<Component> components, shownBoxes;
        double milliseconds = 0.0;
        long sceneFrame = 0;
        for (int frame = 1; !glfwWindowShouldClose(window.get()); ++frame) {
            bool relabel = frame == 1;
            if (controls.switchConnectivity) {
                labelOptions.connectivity = nextConnectivity(labelOptions.connectivity);
                controls.switchConnectivity = false;
                relabel = true;
            }
            slice = controls.toFirst ? 0 : controls.toLast ? depth - 1 : std::clamp(slice + controls.sliceStep, 0, depth - 1);
            controls.sliceStep = 0;
            controls.toFirst = controls.toLast = false;
            // A volume does not move: it is labeled again only for another connectivity.
            if (relabel || (!controls.paused && !volume)) {
                // Time is the frame number, never the clock: a frame can be reproduced.
                if (scene) scene->render(double(sceneFrame++) * kSecondsPerFrame);
                const auto start = std::chrono::steady_clock::now();
                count = labeler.label(input.id(), labelOptions);
                components = labeler.components();
                milliseconds = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
            }

            int framebufferWidth = 0, framebufferHeight = 0;
            glfwGetFramebufferSize(window.get(), &framebufferWidth, &framebufferHeight);
            // Window units to framebuffer pixels (1 except on high-DPI screens).
            const double unitsX = double(framebufferWidth) / windowWidth, unitsY = double(framebufferHeight) / windowHeight;
            const int pictureWidth = int(shownWidth * unitsX), pictureHeight = int(shownHeight * unitsY);
            const int barHeight = framebufferHeight - pictureHeight;

            glBindFramebuffer(GL_FRAMEBUFFER, 0);
            glViewport(0, 0, framebufferWidth, framebufferHeight);
            glClear(GL_COLOR_BUFFER_BIT);
            glViewport(0, barHeight, pictureWidth, pictureHeight);
            if (volume) {
                labelView.drawSlice(labeler.labelTexture(), slice);
                // The boxes of the components this slice cuts.
                shownBoxes.clear();
                for (const Component& c : components)
                    if (std::uint32_t(slice) >= c.front && std::uint32_t(slice) < c.front + c.depth) shownBoxes.push_back(c);
                boxes.draw(shownBoxes, width, height);
            } else {
                labelView.draw(labeler.labelTexture());
                boxes.draw(components, width, height);
            }
            glViewport(0, 0, framebufferWidth, barHeight);
            const std::string status = std::to_string(count) + " components  " + fixed(milliseconds, 2) + " ms  " +
                                       backendName(labeler.backend()) + "  " +
                                       std::to_string(neighbourCount(labelOptions.connectivity)) + "-conn " +
                                       labelOptions.criterion.toString() +
                                       (volume ? "  slice " + std::to_string(slice) + "/" + std::to_string(depth - 1) : "") +
                                       (controls.paused ? "  paused" : "");
            text.draw(status, 8.0f, 6.0f, 2.0f * float(unitsY), framebufferWidth, barHeight);
            checkGlError("frame " + std::to_string(frame));

            if (options.frames > 0) {
                std::printf("frame %d: %u components, %.3f ms (%s)%s\n", frame, count, milliseconds,
                            backendName(labeler.backend()),
                            volume ? (", slice " + std::to_string(slice)).c_str() : "");
                if (frame == options.frames) {
                    if (!options.screenshot.empty()) {
                        writePng(options.screenshot, readWindow(framebufferWidth, framebufferHeight), options.force);
                        std::printf("wrote %s\n", options.screenshot.c_str());
                    }
                    if (!options.dump.empty()) {
                        if (!volume) writePng(options.dump + ".mask.png", input.download(), options.force);
                        writeLabelsNpy(options.dump + ".labels.npy", labeler.result(), options.force);
                        std::printf("wrote %s%s.labels.npy\n", volume ? "" : (options.dump + ".mask.png and ").c_str(),
                                    options.dump.c_str());
                    }
                    break;
                }
            }
            glfwSwapBuffers(window.get());
            glfwPollEvents();
        }
    }
    return 0;
}

}  // namespace
}  // namespace glccl::viewer

int main(int argc, char** argv) {
    try {
        // The screenshot and the dumps are outputs as glccl label's are:
        // SIGINT, SIGTERM, SIGHUP and SIGPIPE leave no temporary, and a file
        // past ulimit -f is a write error.
        glccl::installOutputSignalHandlers();
        return glccl::viewer::run(glccl::viewer::parseOptions(argc, argv));
    } catch (const glccl::viewer::UsageError& error) {
        std::fprintf(stderr, "glccl_viewer: %s\n%s", error.what(), glccl::viewer::kUsage);
        return 2;
    } catch (const glccl::Error& error) {
        std::fprintf(stderr, "glccl_viewer: %s\n", error.what());
        return 1;
    } catch (const std::exception& error) {
        std::fprintf(stderr, "glccl_viewer: %s\n", error.what());
        return 1;
    }
}
