flat in vec4 scatterBox;
flat in vec4 scatterSums;
flat in float scatterRoot;
out vec4 box;
out vec4 sums;
out vec4 root;

void main() {
    box = scatterBox;
    sums = scatterSums;
    root = vec4(scatterRoot);
}
