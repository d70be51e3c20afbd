#!/usr/bin/env python3
"""Checks that every program output the README prints is what the program prints.

Two forms are checked:
  1. a ```sh block holding one `build/roofline ...` command line (the last line of a quick-start
     command chain counts), followed by a ```text block: the text block is that command's stdout;
  2. a ```text block whose lines start with `$ build/roofline ...` (a shell session): each such
     line is run, and the lines after it, up to the next `$ ` line, are its stdout.

  python3 tests/readme/readme_outputs.py REPO_ROOT ROOFLINE_EXE

Outputs shown otherwise (the Python session, the learn programs' goldens, other tools) are not
covered here. Commands that read `../shared/samples` are skipped (and counted) where that folder is absent.
Exit status 1 when an output differs (a unified diff is printed), 0 otherwise.
"""
import difflib
import os
import re
import shlex
import shutil
import subprocess
import sys


def commands(readme: str):
    """(line number, command, expected stdout) for every checked output of the README."""
    blocks = [(m.start(), m.group(1), m.group(2)) for m in re.finditer(r"```(\w*)\n(.*?)```", readme, re.S)]
    line_of = lambda pos: readme.count("\n", 0, pos) + 1
    def tail(body):  # the last command of a one-line chain
        lines = [l for l in body.strip().splitlines() if l.strip()]
        return lines[0].split(" && ")[-1].strip() if len(lines) == 1 else ""

    for k, ((pos, kind, body), nxt) in enumerate(zip(blocks, blocks[1:] + [None])):
        if kind == "sh" and nxt and nxt[1] == "text":
            cmd = tail(body)
            # The quick start: command 1 (install, build, analyze), command 2 (tests), then the
            # output of command 1.
            if not cmd.startswith("build/roofline ") and k > 0 and blocks[k - 1][1] == "sh":
                cmd = tail(blocks[k - 1][2])
            if cmd.startswith("build/roofline ") and not nxt[2].lstrip().startswith("$ "):
                yield line_of(nxt[0]), cmd, nxt[2]
        if kind == "text" and body.lstrip().startswith("$ build/roofline "):
            cur, out, at = None, [], pos
            for i, l in enumerate(body.splitlines(keepends=True)):
                if l.startswith("$ "):
                    if cur:
                        yield line_of(at), cur, "".join(out)
                    cur, out, at = l[2:].strip(), [], pos
                else:
                    out.append(l)
            if cur:
                yield line_of(at), cur, "".join(out)


def scratch_tree(root, name, have_shared):
    """(base, scratch): a scratch copy of the tree made of links, where the README's commands run,
    so the files they write (plan.svg, predictions.csv) never land in the source tree; ../shared
    resolves as beside the checkout. The caller removes `base`."""
    base = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"{name}_{os.getpid()}")
    scratch = os.path.join(base, "repo")
    os.makedirs(scratch, exist_ok=True)
    for entry in os.listdir(root):
        os.symlink(os.path.abspath(os.path.join(root, entry)), os.path.join(scratch, entry))
    if have_shared:
        os.symlink(os.path.abspath(os.path.join(root, "..", "shared")), os.path.join(base, "shared"))
    return base, scratch


def main():
    root, exe = sys.argv[1], os.path.abspath(sys.argv[2])
    readme = open(os.path.join(root, "README.md"), encoding="utf-8").read()
    have_shared = os.path.isdir(os.path.join(root, "..", "shared", "samples"))
    checked = skipped = failed = 0
    base, scratch = scratch_tree(root, "roofline_readme_outputs", have_shared)
    for line, cmd, expected in commands(readme):
        if "../shared/" in cmd and not have_shared:
            skipped += 1
            continue
        if cmd.endswith(" --version"):  # lists the fast paths this build found (simdjson, sqlite)
            skipped += 1
            continue
        argv = shlex.split(cmd)
        argv[0] = exe
        got = subprocess.run(argv, cwd=scratch, capture_output=True, text=True).stdout
        checked += 1
        if got.rstrip("\n") != expected.rstrip("\n"):
            failed += 1
            print(f"README.md:{line}: the output of `{cmd}` differs from what the program prints:")
            sys.stdout.writelines(difflib.unified_diff(expected.splitlines(True), got.splitlines(True),
                                                       "README", "program", n=1))
    shutil.rmtree(base, ignore_errors=True)
    print(f"readme outputs: {checked} checked, {failed} differ, {skipped} skipped" +
          (" (--version, which depends on the build, or reading ../shared/samples where absent)" if skipped else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
