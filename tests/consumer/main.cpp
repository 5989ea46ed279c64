// Labels a small image in a headless context through the installed glccl
// package and checks the count against the CPU reference. Exit 0 on a match.
#include <GL/glew.h>

#include <cstdio>

#include <glccl/glccl.hpp>

int main() try {
    glccl::HeadlessContext context;
    // Three shapes; the two on the right touch only at a corner (one
    // component at 8-connectivity).
    glccl::Image image(12, 7);
    for (int y = 1; y < 5; ++y)
        for (int x = 1; x < 4; ++x) image.at(x, y) = 255;
    for (int y = 1; y < 3; ++y)
        for (int x = 6; x < 8; ++x) image.at(x, y) = 255;
    for (int y = 3; y < 6; ++y)
        for (int x = 8; x < 11; ++x) image.at(x, y) = 255;

    // The application's own texture, as a renderer would have it.
    GLuint texture = 0;
    glGenTextures(1, &texture);
    glBindTexture(GL_TEXTURE_2D, texture);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_R8, image.width, image.height, 0, GL_RED, GL_UNSIGNED_BYTE, image.pixels.data());
    // One level and no mipmaps: with the default mipmapped minification
    // filter the texture would be incomplete and read as zeros.
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);

    glccl::Labeler labeler;
    const std::uint32_t count = labeler.label(texture);
    const std::vector<glccl::Component> components = labeler.components();
    glDeleteTextures(1, &texture);

    const glccl::Labeling expected = glccl::labelReference(image, glccl::Connectivity::Eight, glccl::Criterion::binary());
    std::printf("glccl %s on %s: %u components (reference %zu)\n", glccl::versionString(),
                labeler.contextInfo().renderer.c_str(), count, expected.count());
    return count == expected.count() && components == expected.components ? 0 : 1;
} catch (const glccl::Error& error) {
    std::fprintf(stderr, "consumer: %s\n", error.what());
    return 1;
}
