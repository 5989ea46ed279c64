#!/usr/bin/env bash
# The page in headless Chromium against the native build: builds web/ with
# Emscripten (build-web/, or $GLCCL_WEB_BUILD), serves the page, loads it in
# headless Chromium (WebGL2 by SwiftShader where there is no GPU), and checks
# that its labels of the bundled sample (gray) and of a color PNG with a
# gAMA chunk (tests/data/color_gamma.png, whose luma depends on libpng's
# gamma), the first at 8-connectivity and the second at 4, equal byte for
# byte those that the native `glccl label` writes, and that the page's own
# check against the reference labeler (in wasm) passed.
#
#   web/test.sh [path/to/native/glccl]     (default build/tools/glccl)
#
# Exit 0 when equal, 77 (skipped) when the browser offers no WebGL2, else 1.
# Environment: CHROMIUM (default chromium), GLCCL_WEB_BUILD, GLCCL_WEB_JOBS
# (build jobs, default 2), GLCCL_WEB_TIMEOUT (seconds for the page, default 120).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cli=${1:-$root/build/tools/glccl}
build=${GLCCL_WEB_BUILD:-$root/build-web}
chromium=${CHROMIUM:-chromium}
timeout_s=${GLCCL_WEB_TIMEOUT:-120}
sample=$root/samples/blobs_and_text.png
color_sample=$root/tests/data/color_gamma.png

work=$(mktemp -d)
server=""
browser=""
cleanup() {
  # The browser runs in a process group of its own (setsid): its helpers end with it.
  if [[ -n $browser ]]; then kill -- "-$browser" 2>/dev/null || true; wait "$browser" 2>/dev/null || true; fi
  if [[ -n $server ]]; then kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

for tool in emcmake "$chromium" python3; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "web test: $tool is missing (tools/install-deps.sh installs it)" >&2
    exit 1
  fi
done
if [[ ! -x $cli ]]; then
  echo "web test: no native glccl at $cli (build the glccl_cli target, or pass its path)" >&2
  exit 1
fi

# The module and the page; a folder configured here builds them unoptimized
# (-O0), which halves the build and labels alike (one configured before
# keeps its level).
if [[ ! -f $build/CMakeCache.txt ]]; then
  if ! emcmake cmake -S "$root/web" -B "$build" -DGLCCL_WEB_OPTIMIZE=-O0 >"$work/configure.log" 2>&1; then
    cat "$work/configure.log" >&2
    exit 1
  fi
fi
if ! cmake --build "$build" -j"${GLCCL_WEB_JOBS:-2}" >"$work/build.log" 2>&1; then
  tail -50 "$work/build.log" >&2
  exit 1
fi
# The color sample beside the page, which labels it when its address names it.
cp "$color_sample" "$build/site/"

# One image and connectivity: the native labels, then the page's, served
# until it reports (result-NAME-C.json).
label_both() {
  local path=$1 connectivity=$2
  local name
  name=$(basename "$path")
  local tag=$name-$connectivity
  "$cli" label "$path" --connectivity "$connectivity" --labels "$work/native-$tag.npy" --force \
    >"$work/native.log"
  rm -f "$work/port"
  python3 "$root/web/serve.py" --dir "$build/site" --port 0 --port-file "$work/port" \
    --result "$work/result-$tag.json" --once &
  server=$!
  for _ in $(seq 100); do [[ -s $work/port ]] && break; sleep 0.1; done
  # --no-sandbox: the page is this repository's, and Chromium's sandbox does
  # not start as root or in most containers. SwiftShader is Chromium's
  # software WebGL; with a GPU, Chromium takes the GPU instead where these
  # flags allow.
  setsid "$chromium" --headless=new --no-sandbox --use-angle=swiftshader --enable-unsafe-swiftshader \
    --no-first-run --no-default-browser-check --disable-extensions --user-data-dir="$work/profile" \
    "http://127.0.0.1:$(cat "$work/port")/index.html?report&connectivity=$connectivity&sample=$name" \
    >"$work/chromium.log" 2>&1 &
  browser=$!
  for _ in $(seq $((timeout_s * 10))); do [[ -s $work/result-$tag.json ]] && break; sleep 0.1; done
  kill -- "-$browser" 2>/dev/null || true
  wait "$browser" 2>/dev/null || true
  browser=""
  wait "$server" 2>/dev/null || true
  server=""
  if [[ ! -s $work/result-$tag.json ]]; then
    echo "web test: the page reported nothing on $name in ${timeout_s} s; Chromium said:" >&2
    tail -20 "$work/chromium.log" >&2
    exit 1
  fi
}

# The sample at 8-connectivity, the color file at 4: each input and each
# connectivity once (a page load each, seconds of Chromium's start).
runs=()
for case in "$sample 8" "$color_sample 4"; do
  read -r path connectivity <<<"$case"
  label_both "$path" "$connectivity"
  runs+=("$(basename "$path")-$connectivity")
done

python3 - "$work" "${runs[@]}" <<'EOF'
import array, ast, hashlib, json, os, sys

work = sys.argv[1]
failures = []
for tag in sys.argv[2:]:
    name, connectivity = tag.rsplit("-", 1)
    connectivity = int(connectivity)
    result = json.load(open(os.path.join(work, f"result-{tag}.json")))
    if not result.get("webgl2"):
        print("web test: SKIP: this browser offers no WebGL2 (no GPU and no software WebGL)")
        sys.exit(77)
    if not result.get("ok"):
        failures.append(f"{name}, connectivity {connectivity}: the page failed: " + result.get("error", "?"))
        continue

    # The native labels: a .npy of uint32, read without numpy.
    data = open(os.path.join(work, f"native-{tag}.npy"), "rb").read()
    if data[:6] != b"\x93NUMPY":
        sys.exit("web test: the native labels are not a .npy file")
    size_bytes = 2 if data[6] == 1 else 4
    header_length = int.from_bytes(data[8:8 + size_bytes], "little")
    header = ast.literal_eval(data[8 + size_bytes:8 + size_bytes + header_length].decode("latin-1"))
    native = data[8 + size_bytes + header_length:]
    shape = (result["height"], result["width"])
    if header["descr"] != "<u4" or header["fortran_order"] or tuple(header["shape"]) != shape:
        sys.exit(f"web test: the native labels are {header}, the page's {shape} <u4")
    expected = hashlib.sha256(native).hexdigest()
    count = max(array.array("I", native)) if native else 0
    print(f"web test: {name}, connectivity {connectivity}: page {result['count']} components, "
          f"{result['ms']['label']:.2f} ms a labeling ({result['context']['renderer']}); native {count} components")
    if result.get("name") != name:
        failures.append(f"the page labeled {result.get('name')}, not {name}")
    if result["connectivity"] != connectivity:
        failures.append(f"the page labeled with connectivity {result['connectivity']}, not {connectivity}")
    if result["sha256"] != expected:
        failures.append(f"{name}, connectivity {connectivity}: labels differ from the native build's: "
                        f"sha256 {result['sha256']} against {expected}")
    if result["count"] != count:
        failures.append(f"{name}, connectivity {connectivity}: {result['count']} components against the native "
                        f"{count}")
    if not result["reference"]["same"]:
        failures.append(f"{name}, connectivity {connectivity}: the page's labels or table differ from the reference "
                        "labeler's in wasm")
for failure in failures:
    print("web test: " + failure)
sys.exit(1 if failures else 0)
EOF
