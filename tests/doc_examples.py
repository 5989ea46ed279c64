"""The examples of README.md and docs/*.md, run as a reader runs them, and the
repository paths those pages name, run as

    doc_examples.py examples SOURCE_DIR BUILD_DIR SCRATCH
    doc_examples.py paths SOURCE_DIR

examples: every fenced block of shell commands (```sh) and of Python
(```python, or a block whose lines start with `>>> `) runs, page by page,
in SCRATCH/<page>, a fresh folder holding the repository's samples/,
links to build/ and python/, an empty out/ (as after the quick start) and
the small inputs the pages name (INPUTS below), with BUILD_DIR/tools first
on PATH and PYTHONPATH=BUILD_DIR/python:

- a shell block runs command by command (a line, with its `\\`
  continuations), each in bash after the page's earlier bare variable
  assignments (`glccl=./build/tools/glccl`); each must exit 0. A trailing
  comment that starts with a count (`# 37 components`, `# 83: ...`) is a
  claim: the command must print "37 components".
- the Python blocks of a page run in one interpreter and one namespace, in
  order, as typed into one session; each must run without an exception. A
  bare expression whose comment starts with a count (`x[1]  # 1: ...`) must
  evaluate to it. In the `>>>` form, the lines after a statement are what
  it prints (its value's repr, or "Type: message" for an exception).

What the pages show as output is compared: an unlabeled block marked
`<!-- output -->` is what the runnable block above it prints (stdout and
stderr together), one marked `<!-- output of: COMMAND -->` what COMMAND
prints. Lines that legitimately vary are compared through VARYING: a time
(a number followed by "ms" or "s") and a thread count ("2 threads") match
any; a line of the page that is `...` stands for any lines, and `...` in a
line for any text; runs of spaces compare as one space; and the page may
wrap the one line of an exception's message in the `>>>` form.

Markers in the page source, an HTML comment on the lines right above a block:
`<!-- not run: REASON -->` skips the block (a GPU, MPI across hosts, the
network, a long run or an install), `<!-- given: CODE -->` runs the Python
CODE first, for names the example leaves to the reader (`frames`), and
`<!-- not run on this page: REASON -->` anywhere skips every block of its
page. The run prints every block with its result, and how many ran and how
many were skipped, by reason.

The Python names the pages use in text (`glccl.dask.label_zarr`,
`glccl.Labeler.label`) must exist in the module too.

paths: every repository path the pages name (`bench/plot_bench.py`,
`tests/python/`, globs such as `tests/python/test_*.py`) exists, every
public header they name (`glccl/session.hpp`) is in a layer's include/, and
every relative link of a page leads to a file of the repository and, with
`#anchor`, to a heading of that page.
"""

import ast
import io
import json
import os
import re
import shutil
import subprocess
import sys
import time
import tokenize
import traceback
import warnings
from contextlib import redirect_stderr, redirect_stdout

COMMAND_TIMEOUT_S = 120

# The inputs the pages name, made small here (the page's scratch folder
# gets a copy of each). Each is a command run in the template folder.
INPUTS = [
    ("masks/ (two images)", "mkdir -p masks && glccl generate sparse_disks 96x64 masks/disks.png"
                            " && glccl generate spiral 64x64 masks/spiral.png"),
    ("a.png b.png c.png", "glccl generate noise50 64x48 a.png && glccl generate rings 64x48 b.png"
                          " && glccl generate comb 64x48 c.png"),
    ("cells.npy, volume.npy", "glccl generate blobs 48x40x24 cells.npy && glccl generate balls 40x32x20 volume.npy"),
    ("big.npy (a small one)", "glccl generate dense_disks 300x200 big.npy"),
    ("cells.tif, stack.tif (TIFF stacks)",
     "glccl label cells.npy --label-image cells.tif >/dev/null && glccl label volume.npy --label-image stack.tif >/dev/null"),
    ("cells.zarr (chunks of 16)",
     "python3 -c \"import numpy, zarr; a = numpy.load('cells.npy');"
     " zarr.open('cells.zarr', mode='w', shape=a.shape, chunks=(16, 16, 16), dtype=a.dtype)[...] = a\""),
]

# What may differ between a run and the page, each replaced by its mark in
# both before they are compared.
VARYING = [
    (re.compile(r"\b\d+(?:\.\d+)?(?:e[-+]?\d+)? ?(ms|s)\b"), r"<time \1>"),  # 1.31 ms, 0.2 s
    (re.compile(r"\b\d+ threads?\b"), "<n> threads"),                         # CPU (2 threads)
]

SHELL = {"sh", "bash", "shell", "console"}
PYTHON = {"python", "py", "python3"}
MARKER = re.compile(r"^<!--\s*(not run on this page|not run|given|output of|output)\s*(?::\s*(.*?))?\s*-->$")
COUNT_CLAIM = re.compile(r"#\s*(\d+)(?: components\b|:)")


# --- The pages ---------------------------------------------------------------

class Block:
    def __init__(self, page, line, lang, text, markers):
        self.page, self.line, self.lang, self.text = page, line, lang, text
        self.markers = markers  # [(kind, value)]

    def marker(self, kind):
        return next((value for k, value in self.markers if k == kind), None)

    @property
    def where(self):
        return f"{self.page}:{self.line}"

    @property
    def kind(self):
        if self.lang in SHELL:
            return "shell"
        if self.lang in PYTHON:
            return "doctest" if self.text.lstrip().startswith(">>> ") else "python"
        if self.lang in ("", "pycon") and self.text.lstrip().startswith(">>> "):
            return "doctest"
        if self.lang == "" and (self.marker("output") is not None or self.marker("output of")):
            return "output"
        return "other"


def pages(source):
    """Every page, or those GLCCL_DOC_PAGES names (comma-separated, e.g. "docs/measuring.md")."""
    docs = os.path.join(source, "docs")
    every = ["README.md"] + sorted("docs/" + name for name in os.listdir(docs) if name.endswith(".md"))
    asked = [p for p in os.environ.get("GLCCL_DOC_PAGES", "").split(",") if p]
    return [p for p in every if p in asked] if asked else every


def read_blocks(source, page):
    """The fenced blocks of a page and its page-wide skip reason (or None)."""
    lines = open(os.path.join(source, page), encoding="utf-8").read().split("\n")
    blocks, page_skip, i = [], None, 0
    while i < len(lines):
        line = lines[i]
        match = MARKER.match(line.strip())
        if match and match.group(1) == "not run on this page":
            page_skip = match.group(2) or "(no reason given)"
        fence = re.match(r"^(`{3,})\s*([\w+-]*)\s*$", line)
        if not fence:
            i += 1
            continue
        markers, above = [], i - 1
        while above >= 0 and not lines[above].strip():
            above -= 1
        while above >= 0 and lines[above].strip().startswith("<!--"):
            match = MARKER.match(lines[above].strip())
            if match and match.group(1) == "not run on this page":
                break
            # A comment this test does not know is reported, not ignored.
            markers.insert(0, (match.group(1), match.group(2) or "") if match else ("unknown", lines[above].strip()))
            above -= 1
        end = i + 1
        while end < len(lines) and not lines[end].startswith(fence.group(1)):
            end += 1
        blocks.append(Block(page, i + 1, fence.group(2).lower(), "\n".join(lines[i + 1:end]), markers))
        i = end + 1
    return blocks, page_skip


# --- Comparing what ran with what a page shows --------------------------------

def normalized(text):
    text = text.replace("\r\n", "\n")
    for pattern, mark in VARYING:
        text = pattern.sub(mark, text)
    lines = [re.sub(r"[ \t]+", " ", line).strip() for line in text.split("\n")]
    while lines and not lines[-1]:
        lines.pop()
    while lines and not lines[0]:
        lines.pop(0)
    return lines


def matches(expected, actual):
    """Whether the output `actual` is what the page shows as `expected`."""
    pattern = ""
    for line in normalized(expected):
        if line == "...":
            pattern += r"(?:[^\n]*\n)*?"
        else:
            pattern += "[^\n]*".join(re.escape(part) for part in line.split("...")) + r"\n"
    return re.fullmatch(pattern, "".join(line + "\n" for line in normalized(actual))) is not None


def quoted(text):
    return "".join(f"      | {line}\n" for line in text.rstrip("\n").split("\n"))


def difference(expected, actual):
    return ("    the page shows:\n" + "".join(f"      | {line}\n" for line in expected.rstrip("\n").split("\n")) +
            "    it prints:\n" + "".join(f"      | {line}\n" for line in actual.rstrip("\n").split("\n")))


# --- Shell blocks ------------------------------------------------------------

def shell_commands(text):
    """The commands of a shell block: its lines with their continuations."""
    commands, current = [], ""
    for line in text.split("\n"):
        if current:
            current += "\n" + line
        elif line.strip() and not line.strip().startswith("#"):
            current = line
        else:
            continue
        if not line.rstrip().endswith("\\"):
            commands.append(current)
            current = ""
    if current:
        commands.append(current)
    return commands


def trailing_comment(command):
    """The comment at the end of a command's last line, if any."""
    last = command.split("\n")[-1]
    match = re.search(r"\s#\s.*$", last)
    return match.group(0).strip() if match else ""


def is_assignment(command):
    return re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*=\S*", command.strip()) is not None


def run_shell(command, folder, env, prelude):
    script = "".join(line + "\n" for line in prelude) + command + "\n"
    started = time.monotonic()
    try:
        done = subprocess.run(["bash", "-c", script], cwd=folder, env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, timeout=COMMAND_TIMEOUT_S)
        output, status = done.stdout.decode("utf-8", "replace"), done.returncode
    except subprocess.TimeoutExpired as expired:
        output = (expired.stdout or b"").decode("utf-8", "replace")
        status = f"no exit within {COMMAND_TIMEOUT_S} s"
    return output, status, time.monotonic() - started


# --- Python blocks (run in one child interpreter per page) --------------------

def python_child(results_fd):
    """Runs the blocks it reads as JSON lines on stdin in one namespace;
    writes one JSON result line per block to the file descriptor `results_fd`."""
    results = os.fdopen(int(results_fd), "w")
    namespace = {"__name__": "__main__"}
    for line in sys.stdin:
        results.write(json.dumps(run_python_block(json.loads(line), namespace)) + "\n")
        results.flush()


def count_claims(code):
    """{line: N} of the lines whose comment starts with a count."""
    claims = {}
    try:
        for token in tokenize.generate_tokens(io.StringIO(code).readline):
            if token.type == tokenize.COMMENT:
                match = COUNT_CLAIM.match(token.string)
                if match:
                    claims[token.start[0]] = int(match.group(1))
    except (tokenize.TokenError, SyntaxError):
        pass
    return claims


def run_python_block(block, namespace):
    out = io.StringIO()
    problems = []
    with redirect_stdout(out), redirect_stderr(out), warnings.catch_warnings():
        warnings.simplefilter("always")
        warnings.showwarning = lambda message, category, *_: print(f"{category.__name__}: {message}", file=out)
        try:
            if block["given"]:
                exec(compile(block["given"], "<given>", "exec"), namespace)
            if block["kind"] == "doctest":
                problems += run_doctest(block["text"], namespace, out)
            else:
                claims = count_claims(block["text"])
                for statement in ast.parse(block["text"]).body:
                    claim = claims.get(statement.end_lineno)
                    if isinstance(statement, ast.Expr) and claim is not None:
                        value = eval(compile(ast.Expression(statement.value), "<example>", "eval"), namespace)
                        if value != claim:
                            problems.append(f"line {statement.lineno}: the comment says {claim}, "
                                            f"the expression is {value!r}")
                    else:
                        exec(compile(ast.Module([statement], []), "<example>", "exec"), namespace)
        except BaseException as error:  # the example's own failure, with its own frames
            frames = traceback.extract_tb(error.__traceback__)
            frames = [frame for frame in frames if frame.filename != __file__]
            problems.append("".join(traceback.format_list(frames) +
                                    traceback.format_exception_only(type(error), error)).rstrip())
    return {"output": out.getvalue(), "problems": problems}


def run_doctest(text, namespace, out):
    """Runs `>>> ` statements; compares each one's output with the lines after it."""
    problems, statements = [], []
    for line in text.split("\n"):
        if line.startswith(">>> "):
            statements.append([line[4:], []])
        elif line.startswith("... ") and statements and not statements[-1][1]:
            statements[-1][0] += "\n" + line[4:]
        elif statements:
            statements[-1][1].append(line)
    for code, expected in statements:
        shown = io.StringIO()
        with redirect_stdout(shown):
            try:
                exec(compile(code + "\n", "<doctest>", "single"), namespace)
            except Exception as error:  # the output the page shows for it
                print(f"{type(error).__name__}: {error}")
        print(f">>> {code}\n{shown.getvalue()}", file=out, end="")
        wrapped = [" ".join(line.strip() for line in expected if line.strip())]
        if not matches("\n".join(expected), shown.getvalue()) and \
                not (shown.getvalue().count("\n") == 1 and matches("\n".join(wrapped), shown.getvalue())):
            problems.append(f">>> {code}\n" + difference("\n".join(expected), shown.getvalue()))
    return problems


class PythonSession:
    """One interpreter for the Python blocks of a page, in this test's own
    interpreter (the one the module was built for), in the page's folder."""

    def __init__(self, folder, env):
        read_end, write_end = os.pipe()
        self.stray = open(os.path.join(folder, ".python-session.log"), "w+b")
        self.child = subprocess.Popen([sys.executable, os.path.abspath(__file__), "python-child", str(write_end)],
                                      cwd=folder, env=env, stdin=subprocess.PIPE, stdout=self.stray,
                                      stderr=subprocess.STDOUT, pass_fds=(write_end,))
        os.close(write_end)
        self.results = os.fdopen(read_end)

    def run(self, block):
        """The block's result: {"output", "problems"}."""
        if self.child.poll() is None:
            request = {"kind": block.kind, "text": block.text, "given": block.marker("given") or ""}
            try:
                self.child.stdin.write((json.dumps(request) + "\n").encode())
                self.child.stdin.flush()
            except BrokenPipeError:
                pass
            line = self.results.readline()
            if line:
                return json.loads(line)
        self.child.wait()
        self.stray.seek(0)
        return {"output": "", "problems": [f"the interpreter ended with status {self.child.returncode}:\n" +
                                           self.stray.read().decode("utf-8", "replace").rstrip()]}

    def close(self):
        self.child.stdin.close()
        self.child.wait()
        self.results.close()
        self.stray.close()


# --- The examples test --------------------------------------------------------

class Report:
    def __init__(self):
        self.ran = self.failed = self.compared = 0
        self.skipped = {}

    def skip(self, block, reason):
        self.skipped.setdefault(reason, []).append(block.where)
        print(f"  skipped  {block.where} ({block.kind}): {reason}")

    def result(self, block, problems, seconds, note=""):
        self.ran += 1
        if problems:
            self.failed += 1
            print(f"  FAILED   {block.where} ({block.kind}, {seconds:.1f} s){note}")
            for problem in problems:
                print("    " + problem.replace("\n", "\n    "))
        else:
            print(f"  ok       {block.where} ({block.kind}, {seconds:.1f} s){note}")


def make_inputs(source, build, template, env):
    if os.path.exists(template):
        shutil.rmtree(template)
    os.makedirs(os.path.join(template, "out"))
    shutil.copytree(os.path.join(source, "samples"), os.path.join(template, "samples"))
    for name, command in INPUTS:
        done = subprocess.run(["bash", "-c", command], cwd=template, env=env, capture_output=True, text=True)
        if done.returncode != 0:
            sys.exit(f"doc_examples: could not make {name}: {command}\n{done.stdout}{done.stderr}")


def page_folder(source, build, template, scratch, page):
    folder = os.path.join(scratch, page.replace("/", "_").replace(".md", ""))
    shutil.rmtree(folder, ignore_errors=True)
    shutil.copytree(template, folder, symlinks=True)
    os.symlink(os.path.abspath(build), os.path.join(folder, "build"))
    os.symlink(os.path.join(source, "python"), os.path.join(folder, "python"))
    return folder


def examples(source, build, scratch):
    source, build, scratch = (os.path.abspath(p) for p in (source, build, scratch))
    env = dict(os.environ)
    python_bin = os.path.join(scratch, "bin")
    env["PATH"] = os.pathsep.join([python_bin, os.path.join(build, "tools"), env.get("PATH", "")])
    env["PYTHONPATH"] = os.path.join(build, "python")
    env["MPLBACKEND"] = "Agg"
    os.makedirs(scratch, exist_ok=True)
    # `python3` in a page is the interpreter this test runs with (the one
    # the module was built for).
    shutil.rmtree(python_bin, ignore_errors=True)
    os.makedirs(python_bin)
    os.symlink(sys.executable, os.path.join(python_bin, "python3"))
    template = os.path.join(scratch, "inputs")
    make_inputs(source, build, template, env)

    module_built = os.path.isdir(os.path.join(build, "python", "glccl"))
    report = Report()
    started = time.monotonic()
    for page in pages(source):
        blocks, page_skip = read_blocks(source, page)
        runnable = [b for b in blocks if b.kind in ("shell", "python", "doctest", "output")]
        if not runnable:
            continue
        print(f"{page}:")
        folder = page_folder(source, build, template, scratch, page)
        python = None
        prelude, last_output, last_runnable = [], None, None
        for block in runnable:
            reason = page_skip or block.marker("not run")
            if block.marker("unknown"):
                report.result(block, [f"an unknown marker above the block: {block.marker('unknown')}"], 0.0)
            elif reason is not None and block.kind != "output":
                report.skip(block, reason or "(no reason given)")
                last_output = last_runnable = None
            elif block.kind in ("python", "doctest") and not module_built:
                report.skip(block, "this build has no Python module (GLCCL_BUILD_PYTHON)")
                last_output = last_runnable = None
            elif block.kind == "shell":
                problems, output, seconds = [], "", 0.0
                for command in shell_commands(block.text):
                    text, status, took = run_shell(command, folder, env, prelude)
                    output += text
                    seconds += took
                    if status != 0:
                        problems.append(f"$ {command}\n    exit status {status}\n" + quoted(text))
                    claim = COUNT_CLAIM.match(trailing_comment(command))
                    if claim and not re.search(rf"\b{claim.group(1)} components\b", text):
                        problems.append(f"$ {command}\n    the comment says {claim.group(1)} components; "
                                        "it prints:\n" + quoted(text))
                    if is_assignment(command):
                        prelude.append(command)
                report.result(block, problems, seconds)
                last_output, last_runnable = output, block
            elif block.kind in ("python", "doctest"):
                python = python or PythonSession(folder, env)
                started_block = time.monotonic()
                result = python.run(block)
                note = f", given: {block.marker('given')}" if block.marker("given") else ""
                report.result(block, result["problems"], time.monotonic() - started_block, note)
                last_output, last_runnable = result["output"], block
            else:  # an output block
                command = block.marker("output of")
                if command:
                    actual, status, seconds = run_shell(command, folder, env, prelude)
                    source_of = f"output of: {command}"
                    problems = [] if status == 0 else [f"$ {command}\n    exit status {status}"]
                elif last_runnable is not None:
                    actual, seconds, problems = last_output, 0.0, []
                    source_of = f"output of {last_runnable.where}"
                else:
                    report.result(block, ["an output block with no example run right above it"], 0.0)
                    continue
                if not matches(block.text, actual):
                    problems.append(difference(block.text, actual))
                report.compared += 1
                report.result(block, problems, seconds, f", {source_of}")
        if python:
            python.close()

    if module_built:
        names_started = time.monotonic()
        problems = python_names(source, env)
        print(f"python names in the pages: {'FAILED' if problems else 'ok'} "
              f"({time.monotonic() - names_started:.1f} s)")
        for problem in problems:
            print("    " + problem)
        report.failed += bool(problems)

    skipped = sum(len(where) for where in report.skipped.values())
    print(f"\n{report.ran} blocks ran ({report.compared} outputs compared), {report.failed} failed, "
          f"{skipped} skipped, in {time.monotonic() - started:.0f} s")
    for reason, where in sorted(report.skipped.items(), key=lambda item: -len(item[1])):
        print(f"  skipped {len(where)}: {reason} ({', '.join(where)})")
    return 1 if report.failed else 0


def python_names(source, env):
    """The `glccl.…` names of the pages that the module lacks."""
    named = set()
    for page in pages(source):
        text = open(os.path.join(source, page), encoding="utf-8").read()
        for match in re.finditer(r"(?<![\w./:-])glccl(?:\.[A-Za-z_]\w*)+", text):
            if not re.search(r"\.(hpp|pc|md|py|so|cmake)$", match.group(0)):
                named.add((match.group(0), page))
    script = """
import importlib, json, sys
missing = []
for name, page in json.load(sys.stdin):
    parts = name.split(".")
    try:
        found = importlib.import_module(parts[0])
        for depth, part in enumerate(parts[1:], 2):
            found = getattr(found, part) if hasattr(found, part) else \\
                importlib.import_module(".".join(parts[:depth]))
    except Exception as error:
        missing.append(f"{page}: {name}: {type(error).__name__}: {error}")
print(json.dumps(missing))
"""
    done = subprocess.run([sys.executable, "-c", script], input=json.dumps(sorted(named)), env=env,
                          capture_output=True, text=True)
    if done.returncode != 0:
        return [f"could not import glccl: {done.stderr.strip()}"]
    return json.loads(done.stdout.strip().split("\n")[-1])


# --- The paths test -------------------------------------------------------------

# Places the pages name that a clean tree may not have yet.
MADE_LATER = {
    "tests/data/fuzz-regressions": "where a fuzzer's finding goes with its fix (testing.md)",
}


def tracked_tops(source):
    try:
        files = subprocess.run(["git", "-C", source, "ls-files"], capture_output=True, text=True,
                               check=True).stdout.split()
        return sorted({name.split("/")[0] for name in files if "/" in name})
    except (OSError, subprocess.CalledProcessError):
        return sorted(name for name in os.listdir(source)
                      if os.path.isdir(os.path.join(source, name)) and not name.startswith(("build", "out", ".")))


def anchors(text):
    """The anchors GitHub gives the headings of a page."""
    found, seen = set(), {}
    for heading in re.findall(r"^#{1,6}\s+(.*?)\s*#*\s*$", re.sub(r"```.*?```", "", text, flags=re.S), re.M):
        slug = re.sub(r"[^\w\- ]", "", heading.lower().replace("`", "")).replace(" ", "-")
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        found.add(slug if count == 0 else f"{slug}-{count}")
    return found


def paths(source):
    import glob
    source = os.path.abspath(source)
    tops = tracked_tops(source)
    named = re.compile(r"(?<![\w./~$-])((?:%s)/[\w.*/+-]*)" % "|".join(re.escape(top) for top in tops))
    header = re.compile(r"(?<![\w/])(glccl/\w+\.hpp)\b")
    link = re.compile(r"\]\(([^)\s]+)\)")
    problems, checked = [], 0
    for page in pages(source):
        text = open(os.path.join(source, page), encoding="utf-8").read()
        for match in named.finditer(text):
            path = match.group(1).rstrip(".,:;")
            line = text.count("\n", 0, match.start()) + 1
            checked += 1
            if path.rstrip("/") in MADE_LATER or glob.glob(os.path.join(source, path)):
                continue
            problems.append(f"{page}:{line}: {path} is not in the repository")
        for match in header.finditer(text):
            checked += 1
            if not glob.glob(os.path.join(source, "*", "include", match.group(1))):
                line = text.count("\n", 0, match.start()) + 1
                problems.append(f"{page}:{line}: no layer has the header {match.group(1)}")
        for match in link.finditer(text):
            target = match.group(1)
            if re.match(r"^[a-z]+:", target):
                continue
            line = text.count("\n", 0, match.start()) + 1
            checked += 1
            file_part, _, anchor = target.partition("#")
            linked = os.path.normpath(os.path.join(os.path.dirname(os.path.join(source, page)), file_part)) \
                if file_part else os.path.join(source, page)
            if not os.path.exists(linked):
                problems.append(f"{page}:{line}: the link {target} leads to no file")
            elif anchor and linked.endswith(".md"):
                if anchor not in anchors(open(linked, encoding="utf-8").read()):
                    problems.append(f"{page}:{line}: the link {target}: {os.path.relpath(linked, source)} "
                                    f"has no heading #{anchor}")
    for problem in problems:
        print(problem)
    print(f"{checked} paths and links checked in {len(pages(source))} pages, {len(problems)} wrong")
    return 1 if problems else 0


if __name__ == "__main__":
    if sys.argv[1:2] == ["python-child"] and len(sys.argv) == 3:
        python_child(sys.argv[2])
    elif sys.argv[1:2] == ["examples"] and len(sys.argv) == 5:
        sys.exit(examples(*sys.argv[2:]))
    elif sys.argv[1:2] == ["paths"] and len(sys.argv) == 3:
        sys.exit(paths(sys.argv[2]))
    else:
        sys.exit(__doc__.split("\n\n")[0])
