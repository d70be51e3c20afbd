"""The Python twins of the teaching programs (examples/learn/python/) against the C++ ones.

Usage: learn_python_test.py NAME GOLDEN_DIR SCRIPT_DIR DATA_DIR   (PYTHONPATH: the built package)

Runs examples/learn/python/NAME.py with this interpreter and requires its stdout to equal,
byte for byte, tests/learn/golden/NAME.txt: the table the C++ program learn_NAME prints (and
that its own golden test checks). So a script cannot drift from its twin, and neither can the
roofline.models bindings it prices with. On a difference it prints a unified diff and exits 1.
"""

import difflib
import os
import subprocess
import sys


def main(argv):
    if len(argv) != 5:
        sys.exit(__doc__)
    name, golden_dir, script_dir, data_dir = argv[1:]
    script = os.path.join(script_dir, name + ".py")
    run = subprocess.run([sys.executable, script, "--data", data_dir], capture_output=True, text=True)
    if run.returncode != 0:
        print(f"{script} failed (exit {run.returncode}):\n{run.stderr}")
        return 1
    with open(os.path.join(golden_dir, name + ".txt"), encoding="utf-8") as f:
        golden = f.read()
    if run.stdout != golden:
        diff = difflib.unified_diff(golden.splitlines(True), run.stdout.splitlines(True),
                                    f"golden/{name}.txt (learn_{name})", f"{name}.py")
        print(f"{name}.py prints something else than learn_{name}:\n" + "".join(diff))
        return 1
    print(f"learn python {name}: the table equals learn_{name}'s ({len(golden.splitlines())} lines)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
