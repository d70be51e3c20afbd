#!/usr/bin/env bash
# Compile time of the library, one translation unit per public header (and the umbrellas):
# each TU is `#include "HEADER"` alone, compiled to an object at -O2, and the script prints the
# wall-clock seconds and the compiler's peak memory (GNU time's "Maximum resident set size").
#
#   examples/bench/compile_time.sh [REGEX]        e.g. 'core/|models/' or 'roofline\.hpp'
#
# Environment: CXX (default g++), CXXFLAGS (default "-std=c++20 -O2"), EXTRA (default: Eigen's
# include path, which only analysis/calibration.hpp and roofline/calibration.hpp need). No -D is
# passed: the optional fast paths (simdjson, sqlite) are off, as for a plain `g++ -I include`.
# Separate compilation (include/roofline/core/compilation.hpp), declarations only:
#   CXXFLAGS="-std=c++20 -O2 -DROOFLINE_SEPARATE_COMPILATION" examples/bench/compile_time.sh
# A benchmark, not a test: numbers depend on the machine and its load (say which in a report).
set -euo pipefail
cd "$(dirname "$0")/../.."
CXX=${CXX:-g++}
CXXFLAGS=${CXXFLAGS:-"-std=c++20 -O2"}
EXTRA=${EXTRA:-"-I/usr/include/eigen3"}
filter=${1:-.}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
[ -x /usr/bin/time ] || { echo "compile_time.sh: needs GNU time (Debian package 'time')" >&2; exit 2; }

printf '%-44s %8s %9s\n' header seconds peak_MB
find include/roofline -name '*.hpp' ! -path '*/cuda/*' ! -path '*/detail/*' ! -path '*/core/gpus/*' |
    sed 's|^include/||' | sort | grep -E -- "$filter" | while read -r h; do
    printf '#include "%s"\nint main() { return 0; }\n' "$h" > "$work/tu.cpp"
    if /usr/bin/time -f '%e %M' -o "$work/time" $CXX $CXXFLAGS -I include $EXTRA -c "$work/tu.cpp" \
            -o "$work/tu.o" 2> "$work/err"; then
        read -r s kb < "$work/time"
        printf '%-44s %8.1f %9.0f\n' "$h" "$s" "$((kb / 1024))"
    else
        printf '%-44s %8s %9s  (%s)\n' "$h" failed - "$(grep -m1 error "$work/err" || true)"
    fi
done
