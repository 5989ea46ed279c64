// Draws samples/blobs_and_text.png, the binary sample image of the quick
// start: text in the glyphs of stb_easy_font scaled up, filled disks and
// ellipses, a ring around a disk, and shapes that touch only at a corner, so
// that 4- and 8-connectivity give different counts.
//
// Not part of the CMake build; the image is committed. To redraw it:
//   g++ -std=c++17 -O2 tools/make_sample.cpp -o /tmp/make_sample
//   /tmp/make_sample samples/blobs_and_text.png

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include <stb/stb_easy_font.h>
#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <stb/stb_image_write.h>

namespace {

constexpr int kWidth = 512;
constexpr int kHeight = 256;
constexpr std::uint8_t kInk = 255;

class Canvas {
public:
    Canvas(int width, int height) : width_(width), height_(height), pixels_(std::size_t(width) * height, 0) {}

    void set(int x, int y) {
        if (x >= 0 && y >= 0 && x < width_ && y < height_) pixels_[std::size_t(y) * width_ + x] = kInk;
    }
    void clear(int x, int y) {
        if (x >= 0 && y >= 0 && x < width_ && y < height_) pixels_[std::size_t(y) * width_ + x] = 0;
    }

    // Half-open [x0, x1) x [y0, y1); `ink` false punches a hole instead.
    void fillRect(int x0, int y0, int x1, int y1, bool ink = true) {
        for (int y = y0; y < y1; ++y)
            for (int x = x0; x < x1; ++x) ink ? set(x, y) : clear(x, y);
    }

    // Pixel centres inside the ellipse with semi-axes rx, ry around (cx, cy);
    // `ink` false punches a hole instead.
    void fillEllipse(double cx, double cy, double rx, double ry, bool ink = true) {
        for (int y = int(cy - ry) - 1; y <= int(cy + ry) + 1; ++y) {
            for (int x = int(cx - rx) - 1; x <= int(cx + rx) + 1; ++x) {
                const double dx = (x + 0.5 - cx) / rx, dy = (y + 0.5 - cy) / ry;
                if (dx * dx + dy * dy <= 1.0) ink ? set(x, y) : clear(x, y);
            }
        }
    }

    // stb_easy_font builds every glyph from unit quads on an integer grid;
    // scaling them by an integer keeps strokes that meet only at a corner
    // meeting only at a corner.
    void text(int x, int y, int scale, const std::string& line) {
        std::vector<char> mutableText(line.begin(), line.end());
        mutableText.push_back('\0');
        std::vector<char> vertices(line.size() * 300 * 16);
        const int quads = stb_easy_font_print(0, 0, mutableText.data(), nullptr, vertices.data(), int(vertices.size()));
        for (int q = 0; q < quads; ++q) {
            const float* first = reinterpret_cast<const float*>(vertices.data() + q * 64);
            const float* third = reinterpret_cast<const float*>(vertices.data() + q * 64 + 32);
            fillRect(x + int(first[0]) * scale, y + int(first[1]) * scale, x + int(third[0]) * scale,
                     y + int(third[1]) * scale);
        }
    }

    bool writePng(const char* path) const {
        return stbi_write_png(path, width_, height_, 1, pixels_.data(), width_) != 0;
    }

private:
    int width_, height_;
    std::vector<std::uint8_t> pixels_;
};

void draw(Canvas& canvas) {
    // Text: a title and a line in smaller glyphs.
    canvas.text(16, 8, 9, "glccl");
    canvas.text(18, 112, 3, "connected components");

    // Blobs on the right: a disk, an ellipse, a ring around a disk.
    canvas.fillEllipse(318, 44, 26, 26);
    canvas.fillEllipse(392, 36, 34, 16);
    canvas.fillEllipse(458, 72, 40, 40);
    canvas.fillEllipse(458, 72, 30, 30, false);
    canvas.fillEllipse(458, 72, 16, 16);
    canvas.fillEllipse(380, 86, 12, 22);

    // Bottom row: disks of several sizes and a flat ellipse.
    canvas.fillEllipse(40, 208, 28, 28);
    canvas.fillEllipse(104, 222, 14, 14);
    canvas.fillEllipse(150, 196, 8, 8);
    canvas.fillEllipse(226, 212, 50, 20);

    // Two squares that share only a corner: one component at 8, two at 4.
    canvas.fillRect(300, 170, 330, 200);
    canvas.fillRect(330, 200, 360, 230);

    // A diagonal chain of small squares, corner to corner.
    for (int step = 0; step < 6; ++step)
        canvas.fillRect(390 + 10 * step, 172 + 10 * step, 400 + 10 * step, 182 + 10 * step);

    // A square frame around a dot: the frame is one component, the dot another.
    canvas.fillRect(466, 180, 504, 218);
    canvas.fillRect(472, 186, 498, 212, false);
    canvas.fillRect(482, 196, 488, 202);
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: make_sample OUT.png\n");
        return 2;
    }
    Canvas canvas(kWidth, kHeight);
    draw(canvas);
    if (!canvas.writePng(argv[1])) {
        std::fprintf(stderr, "make_sample: cannot write %s\n", argv[1]);
        return 1;
    }
    return 0;
}
