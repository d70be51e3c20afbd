#!/bin/sh
# Peak memory and time of `roofline trace FILE --json` as the trace grows: synthetic Kineto
# traces of 117, 350 and 1,170 MB made by repeating the B200 TP8 vLLM sample's events
# (replicate_trace.py; about 13,800 kernels and 87,000 CPU ops per 117 MB), one run each.
#   examples/bench/trace_json_rss.sh [build/roofline] [SOURCE_TRACE]
set -eu
ROOFLINE=${1:-build/roofline}
SRC=${2:-$(dirname "$0")/../../../shared/samples/kineto/tracelens_b200_vllm_gptoss_tp8_eager.trace.json.gz}
[ -f "$SRC" ] || { echo "trace_json_rss: no source trace $SRC (pass one)" >&2; exit 2; }
DIR=${TMPDIR:-/tmp}
for mb in 117 350 1170; do
    f="$DIR/trace_rss_${mb}mb.json"
    [ -f "$f" ] || python3 "$(dirname "$0")/replicate_trace.py" "$SRC" "$f" "$mb" > /dev/null
    /usr/bin/time -f "%e %M" -o "$DIR/trace_rss.$$" "$ROOFLINE" trace "$f" --json > "$DIR/trace_out.$$"
    read -r secs kb < "$DIR/trace_rss.$$"
    kernels=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['summary']['kernel_count'])" "$DIR/trace_out.$$")
    echo "trace --json, $mb MB trace, $kernels kernels: ${secs} s, peak RSS $((kb / 1024)) MB"
done
rm -f "$DIR/trace_rss.$$" "$DIR/trace_out.$$"
