flat in uint scatterLabel;
out uvec4 fragLabel;

void main() { fragLabel = uvec4(scatterLabel); }
