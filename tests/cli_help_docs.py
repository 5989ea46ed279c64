"""The help of every `glccl` command against docs/command-line.md and against
what the command does, run as

    cli_help_docs.py GLCCL SCRATCH DOCS

- every command `glccl --help` lists has a section in DOCS;
- every option a command's --help lists is in the command's section of
  DOCS (docs/command-line.md), and every option that section names is in
  the help; an option whose value the help spells as a choice (4|8|6|18|26)
  is spelled so in the section too; the generated families the help lists
  are in the section;
- every option the help lists is taken by the command (an option it does
  not know is refused with "unknown option");
- the --json example of DOCS has the keys that `glccl label` prints with
  the options the example names;
- what `glccl label --help` says of the run matches what the run prints:
  the batch's closing line, which backends time their stages, and the
  sample widths a .npy may have."""

import json
import os
import re
import struct
import sys

from cli_check import CliCheck

COMMANDS = ["label", "validate", "bench", "generate"]
# An option in the first column of a help text: "  --name VALUE   text".
HELP_OPTION = re.compile(r"^  (?:-h, )?(--[a-z0-9-]+)(?: (\S+))?(?:\s{2,}|$)", re.M)
DOC_OPTION = re.compile(r"(?<![\w-])(--[a-z][a-z0-9-]*)")
UNKNOWN_MARK = "--no-such-option-zz"


def help_options(text):
    """{option: [value spellings]} of a help text."""
    options = {}
    for name, value in HELP_OPTION.findall(text):
        options.setdefault(name, [])
        if value:
            options[name].append(value)
    return options


def doc_section(doc, command):
    start = doc.index(f"\n## glccl {command}\n")
    end = doc.find("\n## ", start + 1)
    return doc[start:end if end >= 0 else len(doc)]


def own_options(section, command, commands):
    """The options a section names as its command's: not those it quotes of
    another command or script (`bench --csv`, `bench_tables.py OUT_DIR --wall`)
    or in a message (`glccl: unknown option '--critrion' ...`)."""
    others = "|".join(c for c in commands + [r"\S+\.py"] if c != command)
    quoted = re.sub(r"`(?:glccl )?(?:%s)\b[^`]*`" % others, "", section)
    quoted = re.sub(r"`glccl: [^`]*`", "", quoted)
    return set(DOC_OPTION.findall(quoted))


def families(text):
    """The families a help lists after "Families:" and "Volume families:"."""
    found = set()
    for match in re.finditer(r"(?:Volume families|Families): (.+?)\.(?=\n\n|\n[A-Z]|$)", text, re.S):
        for item in match.group(1).replace("\n", " ").split(","):
            item = re.sub(r"\s*\(.*?\)", "", item).strip()
            if item:
                found.add(re.sub(r"<.*>", "", item))
    return found


def npy_int64(path, height, width, values):
    header = "{'descr': '<i8', 'fortran_order': False, 'shape': (%d, %d), }" % (height, width)
    header += " " * (63 - (10 + len(header)) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
        f.write(struct.pack("<%dq" % len(values), *values))


def main():
    with open(sys.argv[3]) as f:
        doc = f.read()
    check = CliCheck()

    # The commands glccl --help lists, each with its section in the docs.
    general = check.run("--help").stdout
    listed = re.findall(r"^  ([a-z]+)\b", general.split("commands:", 1)[1].split("\n\n", 1)[0], re.M)
    commands = [c for c in listed if c != "help"]
    check.report("glccl --help lists the commands", set(COMMANDS) <= set(commands), str(commands))
    for command in commands:
        check.report(f"{command} has a section in the docs", f"\n## glccl {command}\n" in doc, command)
        if f"\n## glccl {command}\n" not in doc:
            continue
        text = check.run(command, "--help").stdout
        options = help_options(text)
        section = doc_section(doc, command)
        documented = own_options(section, command, commands)
        for option, values in sorted(options.items()):
            # -h and --help are documented once, for every command, at the top.
            check.report(f"{command} {option} in docs", option in documented or option == "--help",
                         f"(listed by glccl {command} --help, not in docs/command-line.md's section)")
            for value in values:
                if "|" in value:
                    check.report(f"{command} {option} {value} in docs", f"{option} {value}" in section,
                                 f"(the help's '{option} {value}' is not spelled so in the docs)")
            # Taken by the command: a value (the help's own placeholder),
            # then an option nobody knows, which must be the one refused.
            args = [command, option] + (values[:1] if values else []) + [UNKNOWN_MARK]
            if option == "--help":
                continue
            run = check.run(*args)
            said = run.stdout + run.stderr
            check.report(f"{command} {option} taken", f"unknown option '{option}" not in said and run.returncode == 2,
                         f"(glccl {' '.join(args)}: exit {run.returncode}: {said.strip()})")
        for option in sorted(documented - set(options)):
            check.report(f"{command} {option} in help", False,
                         f"(named in docs/command-line.md's section, not listed by glccl {command} --help)")
        for family in sorted(families(text)):
            check.report(f"{command} family {family} in docs", family in section,
                         f"(listed by glccl {command} --help, not in the docs)")

    # The --json example's keys against a run with the options it names.
    os.makedirs("out", exist_ok=True)
    check.run("generate", "noise50", "64x48", "a.png")
    run = check.run("label", "a.png", "--backend", "cpu", "--json", "--timing", "--table", "--out-dir", "out",
                    "--labels", "--stats")
    printed = json.loads(run.stdout)[0]
    label = doc_section(doc, "label")
    example = re.search(r"### --json\n.*?```json\n(.*?)```", label, re.S).group(1)
    example_keys = re.findall(r'"([a-z_]+)":', example)
    top = {k for k in example_keys if k in printed or k not in
           {"reading", "labeling", "writing", "labels", "stats", "label", "left", "top", "width", "height", "area",
            "centroid_x", "centroid_y"}}
    nested = {k for section in ("seconds", "outputs") for k in printed.get(section, {})} | \
        {k for row in printed.get("table", [])[:1] for k in row} | \
        {k for k in printed.get("stages", {})}
    check.report("--json example keys", set(example_keys) <= set(printed) | nested and set(printed) <= top,
                 f"(example {sorted(set(example_keys))}, printed {sorted(set(printed) | nested)})")
    for section in ("seconds", "outputs"):
        shown = re.search(r'"%s":\{([^}]*)\}' % section, example.replace("\n", "").replace(" ", ""))
        keys = set(re.findall(r'"([a-z_]+)":', shown.group(1))) if shown else set()
        check.report(f"--json example {section}", keys == set(printed[section]),
                     f"(example {sorted(keys)}, printed {sorted(printed[section])})")
    stages = re.search(r'"stages":\{([^}]*)\}', example.replace("\n", "").replace(" ", ""))
    shown_stages = set(re.findall(r'"([a-z_]+)":', stages.group(1))) if stages else None
    check.report("--json example stages", shown_stages == set(printed.get("stages", {})),
                 f"(example {shown_stages}, printed {sorted(printed.get('stages', {}))})")

    # What glccl label --help says of a run.
    label_help = check.run("label", "--help").stdout
    os.makedirs("batch", exist_ok=True)
    check.run("generate", "spiral", "40x30", "batch/b.png")
    check.run("generate", "noise50", "40x30", "batch/c.png")
    batch = check.run("label", "batch", "--backend", "cpu").stdout.splitlines()[-1]
    closing = re.search(r"'(N inputs, M labeled, F failed, total .*?)'", label_help.replace("\n", " "))
    pattern = closing and re.escape(re.sub(r"\s+", " ", closing.group(1)))
    pattern = pattern and re.sub(r"\b[A-Z]\b", r"[0-9.]+", pattern)
    check.report("label --help closing line", bool(pattern and re.fullmatch(pattern, batch)),
                 f"(help: {closing and closing.group(1)!r}; printed: {batch!r})")

    timing = check.run("label", "a.png", "--backend", "cpu", "--timing").stdout
    cpu_stages = "sum of stages" in timing
    flat_help = re.sub(r"\s+", " ", label_help)
    check.report("label --help on the cpu backend's stages",
                 not cpu_stages or "cpu backend measures no stages" not in flat_help,
                 "(the cpu backend prints its stages; the help says it measures none)")

    npy_int64("wide.npy", 2, 3, [0, 2 ** 40, 2 ** 40 + 1, 0, 0, 5])
    wide = check.run("label", "wide.npy", "--backend", "cpu", "--criterion", "segments")
    takes64 = wide.returncode == 0
    check.report("label --help on 64-bit samples", not takes64 or re.search(r"64-bit|64 bits", flat_help) is not None,
                 "(an int64 .npy is labeled; the help names no 64-bit samples)")
    check.finish()


if __name__ == "__main__":
    main()
