flat in vec4 scatterVector;
out vec4 fragColor;

void main() { fragColor = scatterVector; }
