// Column processing, step 2: update column (O'Connell §5, Fig. 5.3). Every
// node of the column copies the value of its run's root, which the gather
// step may have raised, so the next column gathers current labels.
uniform sampler2D roots;  // the texture the gather step blended into
out vec4 fragColor;

void main() {
    ivec2 n = ivec2(gl_FragCoord.xy);
    float runTop = texelFetch(roots, n, 0).r;
    fragColor = vec4(runTop == 0.0 ? 0.0 : texelFetch(roots, nodeOfId(runTop), 0).r);
}
