// Column processing with Tuning::rasterColumnDraws 1, after the gathers:
// every node takes its value from the roots of its column's parity
// (column_processing.glsl), so the scatter back and post_column_processing's
// marked roots follow one texture of pointers.
uniform sampler2D columns;     // the even columns' roots
uniform sampler2D oddColumns;  // the odd columns' roots
uniform int blockWidth;
out vec4 fragColor;

void main() {
    ivec2 n = ivec2(gl_FragCoord.xy);
    fragColor = n.x % blockWidth % 2 == 1 ? texelFetch(oddColumns, n, 0) : texelFetch(columns, n, 0);
}
