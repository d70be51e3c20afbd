#!/bin/sh
# Peak memory and time of `roofline trace FILE --json` as the trace grows: synthetic Kineto
# traces of 117, 350 and 1,170 MB made by repeating the B200 TP8 vLLM sample's events
# (replicate_trace.py; about 13,800 kernels and 87,000 CPU ops per 117 MB), one run each, in two
# layouts: each copy whole ("copies"), and as the profiler writes a long profile, every copy's
# CPU ops first, then every GPU section ("real", replicate_trace.py --layout real). A trace whose
# tables pass 16 MB is analysed as a stream (analysis/trace_stream.hpp); the 117 MB one is read
# whole unless STREAM=1 (then every run passes --stream).
#   examples/bench/trace_json_rss.sh [build/roofline] [SOURCE_TRACE]
# BIG=FILE adds one run on a large trace made by hand, e.g. ~10 GB of ~10 M kernels:
#   python3 examples/bench/dense_trace.py /tmp/dense10g.json 10 --layout real
#   BIG=/tmp/dense10g.json examples/bench/trace_json_rss.sh
set -eu
ROOFLINE=${1:-build/roofline}
SRC=${2:-$(dirname "$0")/../../../shared/samples/kineto/tracelens_b200_vllm_gptoss_tp8_eager.trace.json.gz}
[ -f "$SRC" ] || { echo "trace_json_rss: no source trace $SRC (pass one)" >&2; exit 2; }
DIR=${TMPDIR:-/tmp}
EXTRA=""
[ "${STREAM:-0}" = 1 ] && EXTRA="--stream"
measure() {  # label file
    /usr/bin/time -f "%e %U %M" -o "$DIR/trace_rss.$$" "$ROOFLINE" trace "$2" --json $EXTRA > "$DIR/trace_out.$$"
    read -r secs user kb < "$DIR/trace_rss.$$"
    out=$(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(d['summary']['kernel_count'], 'as a stream' if any(n.startswith('read as a stream') for n in d['notes']) else 'whole')" "$DIR/trace_out.$$")
    kernels=${out%% *}
    how=${out#* }
    echo "trace --json, $1, $kernels kernels, read $how: ${secs} s (${user} s user), peak RSS $((kb / 1024)) MB"
}
for layout in copies real; do
    for mb in 117 350 1170; do
        f="$DIR/trace_rss_${layout}_${mb}mb.json"
        [ -f "$f" ] || python3 "$(dirname "$0")/replicate_trace.py" --layout "$layout" "$SRC" "$f" "$mb" > /dev/null
        measure "$layout layout, $mb MB" "$f"
    done
done
if [ -n "${BIG:-}" ]; then
    measure "$(basename "$BIG"), $(($(stat -c %s "$BIG") / 1000000)) MB" "$BIG"
fi
rm -f "$DIR/trace_rss.$$" "$DIR/trace_out.$$"
