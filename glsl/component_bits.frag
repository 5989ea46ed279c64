// Channel c of target t is counter 4t + c: counter 0 is the area, 1..15 the
// bits of x - left, 16..30 the bits of y - top, 31 unused. (GLSL 3.30 allows
// only constant indices into output arrays, hence the unrolled writes.)
flat in ivec3 scatterRun;  // length, x - left of the first pixel, y - top

// How many integers in [0, n) have bit b set.
int withBitBelow(int n, int b) {
    int period = 1 << (b + 1), halfPeriod = 1 << b;
    return (n / period) * halfPeriod + max(0, n % period - halfPeriod);
}

float counter(int index) {
    int length = scatterRun.x, first = scatterRun.y, dy = scatterRun.z;
    if (index == 0) return float(length);
    if (index <= 15) return float(withBitBelow(first + length, index - 1) - withBitBelow(first, index - 1));
    if (index <= 30) return ((dy >> (index - 16)) & 1) != 0 ? float(length) : 0.0;
    return 0.0;
}

out vec4 counters[8];

#define COUNTERS(t) counters[t] = vec4(counter(4 * t), counter(4 * t + 1), counter(4 * t + 2), counter(4 * t + 3))

void main() {
    COUNTERS(0); COUNTERS(1); COUNTERS(2); COUNTERS(3);
    COUNTERS(4); COUNTERS(5); COUNTERS(6); COUNTERS(7);
}
