// Labels a small image through the installed glccl package with the calls
// docs/renderer.md shows, and checks every result against the CPU reference:
// a texture of the program's own context through glccl::Labeler, then the
// same image as a file through glccl::Session. Exit 0 when all match.
#include <GL/glew.h>

#include <cstdio>
#include <string>

#include <glccl/glccl.hpp>

int main(int argc, char** argv) try {
    // Three shapes; the two on the right touch only at a corner (one
    // component at 8-connectivity, two at 4).
    glccl::Image image(12, 7);
    for (int y = 1; y < 5; ++y)
        for (int x = 1; x < 4; ++x) image.at(x, y) = 255;
    for (int y = 1; y < 3; ++y)
        for (int x = 6; x < 8; ++x) image.at(x, y) = 255;
    for (int y = 3; y < 6; ++y)
        for (int x = 8; x < 11; ++x) image.at(x, y) = 255;
    bool same = true;

    {
        glccl::HeadlessContext context;
        // The application's own GL loader. Debian's GLEW is a GLX build:
        // under EGL it loads every entry point, then reports the missing
        // GLX display.
        const GLenum loaded = glewInit();
        if (loaded != GLEW_OK && loaded != GLEW_ERROR_NO_GLX_DISPLAY) {
            std::printf("glewInit failed: %s\n", reinterpret_cast<const char*>(glewGetErrorString(loaded)));
            return 1;
        }
        // The application's own texture, as a renderer would have it.
        GLuint mask = 0;
        glGenTextures(1, &mask);
        glBindTexture(GL_TEXTURE_2D, mask);
        glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
        glTexImage2D(GL_TEXTURE_2D, 0, GL_R8, image.width, image.height, 0, GL_RED, GL_UNSIGNED_BYTE,
                     image.pixels.data());
        // One level and no mipmaps: with the default mipmapped minification
        // filter the texture would be incomplete and read as zeros.
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);

        const glccl::Labeling expected =
            glccl::labelReference(image, glccl::Connectivity::Four, glccl::Criterion::binary());
        glccl::Labeler labeler;
        std::printf("glccl %s: Labeler on %s:", glccl::versionString(), labeler.contextInfo().renderer.c_str());
        // What the router picks here, then the GLSL compute engine (the
        // shaders embedded in the library) whatever the GL.
        for (const glccl::Backend backend : {glccl::Backend::Auto, glccl::Backend::Compute}) {
            glccl::LabelOptions options;
            options.connectivity = glccl::Connectivity::Four;
            options.backend = backend;
            labeler.reserve(image.width, image.height, options);
            const std::uint32_t count = labeler.label(mask, options);
            const GLuint labels = labeler.labelTexture();
            const std::vector<glccl::Component> table = labeler.components();
            std::printf(" %s %u components,", glccl::backendName(labeler.backend()), count);
            same = same && labels != 0 && count == expected.count() && table == expected.components;
        }
        std::printf(" reference %zu\n", expected.count());
        glDeleteTextures(1, &mask);
    }

    // A host image from a file, routed by the Session.
    const std::string path = std::string(argc > 1 ? argv[1] : ".") + "/mask.png";
    glccl::writePng(path, image, /*overwrite=*/true);
    glccl::Session session;
    glccl::LabelOptions options;
    const glccl::Labeling labeling = session.label(glccl::readImage(path), options);
    const glccl::Labeling expected = glccl::labelReference(image, glccl::Connectivity::Eight, glccl::Criterion::binary());
    std::printf("Session (%s): %zu components (reference %zu)\n", glccl::backendName(session.backend()),
                labeling.count(), expected.count());
    same = same && labeling.count() == expected.count() && labeling.labels == expected.labels &&
           labeling.components == expected.components;
    return same ? 0 : 1;
} catch (const glccl::Error& error) {
    std::fprintf(stderr, "consumer: %s\n", error.what());
    return 1;
}
