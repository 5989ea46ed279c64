"""The fragment shaders' outputs, as OpenGL ES 3.0 compilers demand them:
where a shader declares more than one output, each has an explicit
layout(location = N) (GLSL ES 3.00, 4.3.8.2). ES has no
glBindFragDataLocation, so the engine relies on those qualifiers there;
some compilers (Mesa's) place unqualified outputs anyway, so the raster
tests on llvmpipe's ES context would pass without them while another
vendor's compiler refuses the shader.

    glsl_outputs_check.py GLSL_DIR
"""

import pathlib
import re
import sys

OUTPUT = re.compile(r"^\s*(layout\s*\(([^)]*)\)\s*)?out\s+\w+\s+\w+")

failures = []
shaders = sorted(pathlib.Path(sys.argv[1]).glob("*.frag"))
for shader in shaders:
    outputs = []
    for number, line in enumerate(shader.read_text().splitlines(), 1):
        match = OUTPUT.match(line)
        if match:
            outputs.append((number, line.strip(), match.group(2) or ""))
    if len(outputs) < 2:
        continue
    for number, line, layout in outputs:
        if not re.search(r"\blocation\s*=\s*\d+", layout):
            failures.append(f"{shader.name}:{number}: one of {len(outputs)} outputs without layout(location = N): {line}")
    print(f"{shader.name}: {len(outputs)} outputs")
for failure in failures:
    print("FAIL  " + failure)
print(f"{len(shaders)} fragment shaders, {len(failures)} outputs without a location where several are declared")
sys.exit(1 if failures or not shaders else 0)
