#!/bin/sh
# Peak memory and time of `roofline plan --json` / `--csv` (streamed) on the full sweep (every
# catalog GPU x counts 1-64 x the 13 default concurrencies) and on a sweep 10x larger (130
# concurrencies), GLM-5 NVFP4, ISL = OSL = 1024. Peak RSS must stay flat as the sweep grows.
#   examples/bench/plan_json_rss.sh [build/roofline]
set -eu
ROOFLINE=${1:-build/roofline}
M="--model data/models/glm-5/config.json --quant data/models/glm-5/hf_quant_config.json --gpus all --counts 1-64 --isl 1024 --osl 1024"
for view in json csv; do
    for conc in "" "--concurrency 1-130"; do
        # shellcheck disable=SC2086
        /usr/bin/time -f "%e %M" -o /tmp/plan_rss.$$ "$ROOFLINE" plan $M $conc --$view > /tmp/plan_out.$$
        read -r secs kb < /tmp/plan_rss.$$
        bytes=$(wc -c < /tmp/plan_out.$$)
        points=$(if [ "$view" = json ]; then grep -c '"concurrency"' /tmp/plan_out.$$; else tail -n +2 /tmp/plan_out.$$ | wc -l; fi)
        echo "plan --$view ${conc:-(13 concurrencies)}: $points points, $((bytes / 1000000)) MB written, ${secs} s, peak RSS $((kb / 1024)) MB"
    done
done
rm -f /tmp/plan_rss.$$ /tmp/plan_out.$$
