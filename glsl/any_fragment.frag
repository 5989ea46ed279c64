// Where a draw left its stencil mark, 1: the browser's stand-in for an
// occlusion query (raster_pass.cpp, anySamplesPassed), whose result WebGL
// gives only after the page's task has ended.
layout(location = 0) out vec4 fragColor;

void main() { fragColor = vec4(1.0); }
