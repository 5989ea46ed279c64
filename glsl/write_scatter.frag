// Writes the value a scatter vertex carried (O'Connell: "the fragment shader
// is trivial and simply writes the incoming scatterID").
flat in float scatterValue;
out vec4 fragColor;

void main() { fragColor = vec4(scatterValue); }
