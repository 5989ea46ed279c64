// Channel c of target t is counter 4t + c: counter 0 is the area, 1..15 the
// bits of x - left, 16..30 the bits of y - top, 31 unused. (GLSL 3.30 allows
// only constant indices into output arrays, hence the unrolled writes.)
flat in ivec3 scatterBits;
out vec4 counters[8];

float bitOf(int counter) {
    if (counter == 0) return float(scatterBits.x);
    if (counter <= 15) return float((scatterBits.y >> (counter - 1)) & 1);
    if (counter <= 30) return float((scatterBits.z >> (counter - 16)) & 1);
    return 0.0;
}

#define COUNTERS(t) counters[t] = vec4(bitOf(4 * t), bitOf(4 * t + 1), bitOf(4 * t + 2), bitOf(4 * t + 3))

void main() {
    COUNTERS(0); COUNTERS(1); COUNTERS(2); COUNTERS(3);
    COUNTERS(4); COUNTERS(5); COUNTERS(6); COUNTERS(7);
}
