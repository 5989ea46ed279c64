// Writes the counters of component_bits.vert, four per target. (GLSL 3.30
// allows only constant indices into output arrays, hence the unrolled lines.)
flat in vec4 scatterCounters[8];
out vec4 counters[8];

void main() {
    counters[0] = scatterCounters[0]; counters[1] = scatterCounters[1];
    counters[2] = scatterCounters[2]; counters[3] = scatterCounters[3];
    counters[4] = scatterCounters[4]; counters[5] = scatterCounters[5];
    counters[6] = scatterCounters[6]; counters[7] = scatterCounters[7];
}
