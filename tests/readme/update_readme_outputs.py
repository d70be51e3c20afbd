#!/usr/bin/env python3
"""Rewrites every program output the README prints (the blocks readme_outputs.py checks) with
what the program prints now. For a maintainer after a change that moves numbers: run it, then
read `git diff README.md` (the prose around a block is not rewritten: numbers quoted in it still
need a hand). Commands that read ../shared/samples are left alone where that folder is absent,
as is `--version`.

  python3 tests/readme/update_readme_outputs.py REPO_ROOT ROOFLINE_EXE
"""
import os
import re
import shlex
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from readme_outputs import scratch_tree  # noqa: E402


def run(cmd, scratch, exe):
    """The command's stdout; exits (the README untouched) when the command fails."""
    argv = shlex.split(cmd)
    argv[0] = exe
    r = subprocess.run(argv, cwd=scratch, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"`{cmd}` failed (exit {r.returncode}), README.md not rewritten:\n{r.stderr}")
    return r.stdout


def main():
    root, exe = sys.argv[1], os.path.abspath(sys.argv[2])
    path = os.path.join(root, "README.md")
    readme = open(path, encoding="utf-8").read()
    have_shared = os.path.isdir(os.path.join(root, "..", "shared", "samples"))
    base, scratch = scratch_tree(root, "roofline_readme_update", have_shared)
    usable = lambda cmd: not cmd.endswith(" --version") and ("../shared/" not in cmd or have_shared)

    blocks = list(re.finditer(r"```(\w*)\n(.*?)```", readme, re.S))
    tail = lambda body: (lambda ls: ls[0].split(" && ")[-1].strip() if len(ls) == 1 else "")(
        [l for l in body.strip().splitlines() if l.strip()])
    edits, changed = [], 0  # (start, end, new body) of text-block bodies
    for k, b in enumerate(blocks):
        kind, body = b.group(1), b.group(2)
        nxt = blocks[k + 1] if k + 1 < len(blocks) else None
        if kind == "sh" and nxt and nxt.group(1) == "text" and not nxt.group(2).lstrip().startswith("$ "):
            cmd = tail(body)
            if not cmd.startswith("build/roofline ") and k > 0 and blocks[k - 1].group(1) == "sh":
                cmd = tail(blocks[k - 1].group(2))
            if cmd.startswith("build/roofline ") and usable(cmd):
                got = run(cmd, scratch, exe)
                new = got if got.endswith("\n") else got + "\n"
                if new.rstrip("\n") != nxt.group(2).rstrip("\n"):
                    edits.append((nxt.start(2), nxt.end(2), new))
                    changed += 1
        if kind == "text" and body.lstrip().startswith("$ build/roofline "):
            out, cur, acc = [], None, []
            for line in body.splitlines(keepends=True):
                if line.startswith("$ "):
                    if cur is not None:
                        out.append((cur, acc))
                    cur, acc = line, []
                else:
                    acc.append(line)
            out.append((cur, acc))
            new = ""
            for cmd_line, acc in out:
                cmd = cmd_line[2:].strip()
                if usable(cmd):
                    got = run(cmd, scratch, exe)
                    acc_new = got if got.endswith("\n") or not got else got + "\n"
                    if "".join(acc).rstrip("\n") != acc_new.rstrip("\n"):
                        changed += 1
                    new += cmd_line + acc_new
                else:
                    new += cmd_line + "".join(acc)
            if new != body:
                edits.append((b.start(2), b.end(2), new))
    for start, end, new in sorted(edits, reverse=True):
        readme = readme[:start] + new + readme[end:]
    open(path, "w", encoding="utf-8").write(readme)
    shutil.rmtree(base, ignore_errors=True)
    print(f"readme outputs: {changed} rewritten")


if __name__ == "__main__":
    sys.exit(main())
