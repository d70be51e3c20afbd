#!/usr/bin/env python3
"""Facts the aiconfigurator silicon CSV lacks for the runs SemiAnalysis' InferenceX benchmark
measured (its rows from source_file=2026-03-25.csv and 2026-04-06.csv), recovered from that
benchmark's public configuration history, written as a `roofline estimate --run-facts` file.

The silicon CSV gives a disaggregated InferenceX run's pool layouts garbled (the decode pool's MoE
EP copied from the prefill pool) and no worker counts, and no run says whether it speculated. The
benchmark's launch configuration (.github/configs/nvidia-master.yaml, one entry per model, GPU,
precision and framework, each search-space point with its concurrencies, layouts, worker counts,
`spec-decoding` and, for disaggregated runs, the recipe file) says all of it. A run is matched to
the entries of every version of that file by model, GPU, framework, precision, ISL/OSL,
concurrency and layout (aggregated: TP/EP/DP attention; disaggregated: the prefill and decode
TP; a GB200/GB300 run labeled aggregated whose "TP" is a disaggregated entry's GPU count: that
entry, and the run becomes disaggregated), then by the container image where the run names one, then by date (the newest version on or
before the run's `measured=` date, else the oldest). A run whose candidates disagree on any fact
is left out (ambiguous), as is one no entry matches, except that a disaggregated run whose
candidates disagree on speculation alone (an MTP and a non-MTP variant of one layout) keeps the
pools they agree on, with its speculation unknown. The MTP depth comes from the recipe name
(`..._mtp3.yaml`) or the entry's `DECODE_MTP_SIZE`, the srt-slurm recipe (`speculative-num-steps`, `num_nextn_predict_layers`), or
the single-node launch script of the matched version (`MTP=` / `SPECULATIVE_NUM_STEPS=`, with its
DP-attention branch).

    inferencex_run_facts.py SILICON_CSV INFERENCEX_GIT_DIR SRT_SLURM_GIT_DIR OUT_CSV [CACHE.pkl]
    inferencex_run_facts.py --db-dump-only SILICON_CSV FACTS_CSV   (only the db-dump layouts, below)

The file's `db-dump/...` aggregated rows (InferenceX runs under other names) with MoE EP above 1
write the GPU count squared; `db_dump_agg_layouts` gives them their layout (no repository needed).

Every InferenceX run also gets its mean lengths: the benchmark draws each request's input and
output lengths uniformly from [0.8 L, L] (.github/workflows/benchmark-tmpl.yml and
benchmark-multinode-tmpl.yml: RANDOM_RANGE_RATIO 0.8, the default since the first version;
utils/bench_serving/benchmark_serving.py sample_uniform), so ISL and OSL are 0.9 L on average.
CACHE.pkl (optional) keeps the parsed configuration history between runs (5 minutes to parse).

The two git directories are clones (bare is fine) of github.com/SemiAnalysisAI/InferenceX and
github.com/NVIDIA/srt-slurm. Needs PyYAML and pandas (Debian: python3-yaml, python3-pandas).
"""
import re
import subprocess
import sys

import pandas as pd

CONFIG = ".github/configs/nvidia-master.yaml"
PREFIX = {"deepseek-ai/DeepSeek-R1": {"dsr1", "DeepSeek-R1-0528", "dsr1-fp8"}, "zhipuai/GLM-5": {"glm5"},
          "openai/gpt-oss-120b": {"gptoss"}, "moonshotai/Kimi-K2.5": {"kimik2.5"},
          "Qwen/Qwen3.5-397B-A17B": {"qwen3.5"}, "MiniMaxAI/MiniMax-M2.5": {"minimaxm2.5"}}
FRAMEWORKS = {"trtllm": {"trt", "dynamo-trt"}, "sglang": {"sglang", "dynamo-sglang"}, "vllm": {"vllm", "dynamo-vllm"}}
INFERENCEX_SOURCES = {"2026-03-25.csv", "2026-04-06.csv"}
RANGE_RATIO = 0.8  # RANDOM_RANGE_RATIO of the benchmark workflows: lengths uniform in [0.8 L, L]
FACTS = ["spec", "config_file", "mtp_size", "tp", "ep", "dpa", "p_workers", "p_tp", "p_ep", "p_dpa", "d_workers", "d_tp", "d_ep", "d_dpa"]
POOL_FACTS = ["p_workers", "p_tp", "p_ep", "p_dpa", "d_workers", "d_tp", "d_ep", "d_dpa"]  # a disaggregated deployment's pools


def git(repo, *args):
    return subprocess.run(["git", "-C", repo, *args], check=True, capture_output=True, text=True).stdout


def concurrencies(point):
    if "conc-list" in point:
        return [int(c) for c in point["conc-list"]]
    if "conc-start" in point:
        out, c = [], int(point["conc-start"])
        while c <= int(point["conc-end"]):
            out.append(c)
            c *= 2
        return out
    return []


def config_entries(repo):
    """Every (version, entry, concurrency) of the configuration's history, one dict each."""
    import yaml  # here: --db-dump-only runs without PyYAML

    rows = []
    for line in git(repo, "log", "--format=%h %cs", "--", CONFIG).split("\n"):
        if not line:
            continue
        commit, date = line.split()
        try:
            doc = yaml.safe_load(git(repo, "show", f"{commit}:{CONFIG}"))
        except (yaml.YAMLError, subprocess.CalledProcessError):
            continue
        for key, v in (doc or {}).items():
            if not isinstance(v, dict) or "seq-len-configs" not in v:
                continue
            for slc in v["seq-len-configs"] or []:
                for s in slc.get("search-space") or []:
                    base = dict(date=date, commit=commit, key=key, image=str(v.get("image") or "").replace("#", "/"),
                                prefix=v.get("model-prefix"), runner=str(v.get("runner")).split("-")[0],
                                precision=v.get("precision"), framework=v.get("framework"), disagg=bool(v.get("disagg")),
                                isl=slc.get("isl"), osl=slc.get("osl"), spec=s.get("spec-decoding", "none"))
                    if "prefill" in s or "decode" in s:
                        p, d = s.get("prefill") or {}, s.get("decode") or {}
                        cfg, mtp_size, nodes = "", None, {}
                        for a in (p.get("additional-settings") or []) + (d.get("additional-settings") or []):
                            m = re.search(r"CONFIG_FILE=(\S+)", str(a))
                            cfg = m.group(1) if m else cfg
                            m = re.search(r"DECODE_MTP_SIZE=(\d+)", str(a))
                            mtp_size = int(m.group(1)) if m else mtp_size
                            m = re.search(r"(PREFILL|DECODE)_NODES=(\d+)", str(a))
                            if m:
                                nodes[m.group(1)] = int(m.group(2))
                        base.update(p_workers=p.get("num-worker"), p_tp=p.get("tp"), p_ep=p.get("ep", 1),
                                    p_dpa=bool(p.get("dp-attn")), d_workers=d.get("num-worker"), d_tp=d.get("tp"),
                                    d_ep=d.get("ep", 1), d_dpa=bool(d.get("dp-attn")), config_file=cfg,
                                    mtp_size=mtp_size, p_nodes=nodes.get("PREFILL"), d_nodes=nodes.get("DECODE"))
                    else:
                        base.update(tp=s.get("tp"), ep=s.get("ep", 1), dpa=bool(s.get("dp-attn")))
                    for c in concurrencies(s):
                        rows.append(dict(base, conc=c))
    return pd.DataFrame(rows)


def recipe_depth(srt, path):
    """Draft tokens of an srt-slurm recipe (its newest version), or None."""
    for commit in git(srt, "log", "--all", "--format=%h", "--", f"recipes/{path}").split():
        try:
            text = git(srt, "show", f"{commit}:recipes/{path}")
        except subprocess.CalledProcessError:
            continue  # the commit that deleted it
        m = re.search(r"(speculative-num-steps|num_nextn_predict_layers):\s*(\d+)", text)
        return int(m.group(2)) if m else None
    return None


def script_depth(repo, commit, key, dpa):
    """Draft tokens of the single-node launch script of `key` at `commit` (its DP-attention
    branch when `dpa`), or None."""
    prefix, precision, runner, *rest = key.split("-")
    fw = [w for w in rest if w not in ("mtp",)]
    names = [n for n in git(repo, "ls-tree", "-r", "--name-only", commit).split("\n")
             if re.search(rf"/{re.escape(prefix)}_{precision}_{runner}(_{'_'.join(fw)})?_mtp(_slurm)?\.sh$", n)
             or re.search(rf"/{re.escape(prefix)}_{precision}_{runner}_mtp\.sh$", n)]
    if not names:
        return None
    default = branch_true = branch_false = None
    state = None  # None: outside, "t": in the DP-attention branch, "f": in its else branch
    for line in git(repo, "show", f"{commit}:{names[0]}").split("\n"):
        s = line.strip()
        if re.match(r'if \[\[ "\$DP_ATTENTION" == "true" \]\]', s):
            state = "t"
            continue
        if state and s == "else":
            state = "f"
            continue
        if state and s == "fi":
            state = None
            continue
        m = re.match(r"(MTP|SPECULATIVE_NUM_STEPS)=(\d+)", s) or re.search(r"--speculative-num-steps (\d+)", s)
        if not m:
            continue
        v = int(m.group(m.lastindex))
        if state == "t":
            branch_true = v
        elif state == "f":
            branch_false = v
        else:
            default = v
    if dpa and branch_true is not None:
        return branch_true
    if not dpa and branch_false is not None:
        return branch_false
    return default


GPUS_PER_NODE = {"gb200": 4, "gb300": 4}  # a GB200/GB300 NVL72 tray: 4 GPUs (srt-slurm recipes' gpus_per_node: 4)


def recipe_layouts(srt, runner, precision, isl, osl):
    """Every version of the srt-slurm recipes for one GPU, precision and ISL/OSL without
    speculation (recipes/{runner}-{precision}/{1k1k,8k1k,1k8k}/, names without "mtp"), one tuple
    each: (path, commit, prefill nodes, prefill workers, decode nodes, decode workers, prefill
    (DP attention, EP > 1), decode (DP attention, EP > 1)). Versions without scalar resources
    and SGLang parallel settings are left out."""
    import yaml

    folder = f"recipes/{runner}-{precision}/{isl // 1024}k{osl // 1024}k"
    out = []
    for path in sorted(set(git(srt, "log", "--all", "--name-only", "--format=", "--", folder).split())):
        if "mtp" in path.split("/")[-1] or not path.endswith(".yaml"):
            continue
        for commit in git(srt, "log", "--all", "--format=%h", "--", path).split():
            try:
                doc = yaml.safe_load(git(srt, "show", f"{commit}:{path}"))
            except (yaml.YAMLError, subprocess.CalledProcessError):
                continue
            res = (doc or {}).get("resources") or {}
            cfg = ((doc or {}).get("backend") or {}).get("sglang_config") or {}
            counts = [res.get(k) for k in ("prefill_nodes", "prefill_workers", "decode_nodes", "decode_workers")]
            if not all(isinstance(v, int) for v in counts) or not isinstance(cfg.get("prefill"), dict) \
                    or not isinstance(cfg.get("decode"), dict):
                continue
            styles = []
            for side in ("prefill", "decode"):
                c = cfg[side]
                ep = c.get("expert-parallel-size", c.get("ep-size", 1))
                dpa = c.get("enable-dp-attention", False)
                if not isinstance(ep, int) or not isinstance(dpa, bool):
                    break
                styles.append((dpa, ep > 1))
            if len(styles) == 2:
                out.append((path, commit, *counts, *styles))
    return out


def placeholder_pools(srt, f, cache):
    """Pools for a GB200/GB300 disaggregated SGLang entry that writes tp 1 and ep 1 in both pools
    as placeholders (InferenceX's December 2025 entries: the GPUs come from PREFILL_NODES and
    DECODE_NODES, the layout from a launch script in ai-dynamo/dynamo, e.g. the 1k1k low-latency
    script runs --tensor-parallel-size $TOTAL_GPUS --expert-parallel-size 1 where the entry says
    "dp-attn: true"). Each pool has G = nodes x 4 / workers GPUs; its style (DP attention, EP G or
    MoE TP G) is that of the srt-slurm recipes, the scripts' successors, of the same GPU,
    precision and lengths with the same nodes and workers, where all their versions agree.
    Returns ((prefill pool, decode pool), recipe path) or (None, why)."""
    if not (f.p_tp == 1 and f.p_ep == 1 and f.d_tp == 1 and f.d_ep == 1 and f.runner in GPUS_PER_NODE
            and not pd.isna(f.get("p_nodes")) and not pd.isna(f.get("d_nodes"))):
        return None, ""
    per_node = GPUS_PER_NODE[f.runner]
    g_p, g_d = int(f.p_nodes) * per_node / int(f.p_workers), int(f.d_nodes) * per_node / int(f.d_workers)
    if g_p % 1 or g_d % 1:
        return None, "nodes x GPUs per node not a multiple of the workers"
    key = (f.runner, f.precision, int(f.isl), int(f.osl))
    if key not in cache:
        cache[key] = recipe_layouts(srt, *key)
    same = [r for r in cache[key] if r[2:6] == (int(f.p_nodes), int(f.p_workers), int(f.d_nodes), int(f.d_workers))]
    styles = {r[6:8] for r in same}
    if len(styles) != 1:
        return None, "no srt-slurm recipe of these nodes and workers" if not same else "srt-slurm recipes disagree"
    (p_dpa, p_ep), (d_dpa, d_ep) = styles.pop()
    g_p, g_d = int(g_p), int(g_d)
    pools = (pool(g_p, g_p if p_ep else 1, p_dpa), pool(g_d, g_d if d_ep else 1, d_dpa))
    return pools, ", ".join(sorted({r[0].replace("recipes/", "") for r in same}))


def speculation(repo, srt, f):
    """(spec, draft tokens or None, where the depth came from, recipe file) of one configuration
    entry `f`: "mtp" with its depth from DECODE_MTP_SIZE, the recipe name, the srt-slurm recipe or
    the launch script, else "none"."""
    depth, where = None, ""
    cfg = f.get("config_file")
    cfg = "" if pd.isna(cfg) else str(cfg)
    spec = f.spec
    if spec == "mtp" and not pd.isna(f.get("mtp_size")):
        depth, where = int(f.mtp_size), "configuration (DECODE_MTP_SIZE)"
        spec = "mtp" if depth > 0 else "none"
    elif m := re.search(r"mtp(\d+)", cfg.split("/")[-1]):
        depth, where = int(m.group(1)), "recipe name"
        spec = "mtp" if depth > 0 else "none"
    elif spec == "mtp" and cfg:
        depth, where = recipe_depth(srt, cfg.replace("recipes/", "", 1)), "srt-slurm recipe"
    elif spec == "mtp":
        depth, where = script_depth(repo, f.commit, f.key, bool(f.get("dpa"))), "launch script"
    return spec, depth, where, cfg


PAIR_LAYOUT = ["system", "backend", "model_path", "precision", "mode", "isl", "osl", "tp_size", "attention_dp_size",
               "moe_tp_size", "moe_ep_size", "prefill_tp_size", "decode_tp_size"]


def pair_key(r, c):
    """What two runs of one configuration share: the candidate entries, concurrency, image and the
    row's own layout columns."""
    return (tuple(sorted(set(c.key))), r.conc, r.image) + tuple(str(r[k]) for k in PAIR_LAYOUT)


def speculation_pairs(pair_candidates, rows, runs):
    """The pair rule. A run matched to an MTP and a non-MTP variant of one configuration (same
    layout, concurrency and image; the candidates differ in speculation alone) is one of two
    runs InferenceX made of it, and where the file holds exactly two such measurements (a run
    filed in both sources counts once), the one with the lower TPOT is the MTP variant: so in
    every pair of one configuration and concurrency whose speculation the configuration tells
    apart (counted and returned as text). Sets `spec_decoding` and `draft_tokens` of those rows in
    `rows`. Returns (rows set, the check on the known pairs)."""
    paired = 0
    for group in pair_candidates.values():
        by_measure = {}
        for idx, r, variants in group:
            by_measure.setdefault((r.silicon_ttft_ms, r.silicon_tpot_ms), []).append((idx, variants))
        if len(by_measure) != 2:
            continue
        (fast, slow) = sorted(by_measure, key=lambda m: m[1])
        if fast[1] == slow[1]:
            continue
        for m, mtp in ((fast, True), (slow, False)):
            for idx, variants in by_measure[m]:
                spec, depth = next(v for v in variants if (v[0] == "mtp") == mtp)
                rows[idx]["spec_decoding"] = spec
                rows[idx]["draft_tokens"] = depth if spec == "mtp" else ""
                rows[idx]["source"] += ("; speculation from the pair: of the two runs of this configuration and "
                                        "concurrency (an MTP and a non-MTP variant), the lower TPOT is the MTP one "
                                        f"({'this' if mtp else 'the other'}; speculation_pairs)")
                paired += 1
    # The check: pairs of runs of one layout and concurrency, one matched to an MTP entry alone,
    # the other to a non-MTP entry alone (told apart by image or date).
    known = {}
    spec_of = {r["id"]: r.get("spec_decoding") for r in rows if r.get("spec_decoding") and "speculation_pairs" not in r["source"]}
    for _, r in runs.iterrows():
        if r.id in spec_of:
            k = (r.conc,) + tuple(str(r[c]) for c in PAIR_LAYOUT)  # images may differ: that told them apart
            known.setdefault(k, {}).setdefault(spec_of[r.id], set()).add(r.silicon_tpot_ms)
    pairs = [(min(v["mtp"]), min(v["none"])) for v in known.values()
             if set(v) == {"mtp", "none"} and len(v["mtp"]) == 1 and len(v["none"]) == 1]
    faster = sum(m < n for m, n in pairs)
    ratios = sorted(m / n for m, n in pairs)
    return paired, (f"known pairs (one configuration and concurrency, MTP and non-MTP runs): the MTP run has the "
                    f"lower TPOT in {faster} of {len(pairs)}"
                    + (f" ({ratios[0]:.2f}-{ratios[-1]:.2f}x the other's)" if ratios else ""))


def pool(tp, ep, dpa):
    """aiconfigurator's columns of a pool: attention TP of one DP rank, attention DP, MoE TP x EP."""
    tp, ep = int(tp), int(ep or 1)
    return (1, tp, tp // ep, ep) if dpa else (tp, 1, tp // ep, ep)


def attention_dp(r):
    """The row's attention DP: its attention_dp_size, 1 where empty or 0 ("not used")."""
    return r.attention_dp_size if r.attention_dp_size > 0 else 1


def garbled_agg_layout(r):
    """aiconfigurator's layout columns for an aggregated InferenceX run whose file layout is
    garbled, else None. The run's id names InferenceX's own `tp{G}_ep{E}` (G: the instance's GPUs,
    E: MoE EP; the benchmark's tp is the GPU count, with or without DP attention); 1,806 of the
    2,040 aggregated InferenceX rows agree, tp_size x attention_dp_size = G. The other 234 write
    G x E GPUs there (tp_size 64 for a tp8_ep8 run on an 8-GPU H200 node; moe_tp_size x
    moe_ep_size as garbled): read so, an 8-GPU run was priced as 64 GPUs over eight nodes. Their
    layout is G GPUs with MoE EP E, DP attention where the row has attention_dp_size > 1."""
    m = re.search(r"_tp(\d+)(?:_\d+)?_ep(\d+)", str(r.id))
    if not m or r["mode"] != "agg":
        return None
    g, e = int(m.group(1)), int(m.group(2))
    if e <= 1 or r.tp_size * attention_dp(r) != g * e:
        return None
    return pool(g, e, attention_dp(r) > 1)


def db_dump_agg_layouts(runs):
    """Facts for the aggregated rows of the file's `db-dump/...` sources (InferenceX runs under
    its `dsr1_b200_sglang_fp4_agg_1024x1024_c4_cfg201` names) whose MoE EP is above 1. Each of
    them writes G x E GPUs where the run had G (tp_size x attention_dp_size = E^2, with EP E = G):
    the 96 of them that repeat an InferenceX row's TTFT and TPOT exactly all do (tp_size 64 with
    MoE TP 8 x EP 8 where the InferenceX row says TP8 EP8; tp 2 x DP 2 with EP 4 where it says DP2
    EP2), and no db-dump row with EP above 1 reads otherwise. Their layout: G = sqrt(tp_size x
    attention_dp_size) GPUs, MoE EP G, DP attention where the row has attention_dp_size > 1.
    Returns (facts rows, how many of them repeat an InferenceX row, how many of those the rule
    reproduces)."""
    src = runs.silicon_data_source.str.split(";").str[0].str.replace("source_file=", "")
    db = runs[src.str.startswith("db-dump") & (runs["mode"] == "agg") & (runs.moe_ep_size > 1)]
    ix = runs[src.isin(INFERENCEX_SOURCES) & (runs["mode"] == "agg")]
    twin = {}
    for _, t in ix.iterrows():  # an InferenceX row's layout as read (the id's where the file's is garbled)
        layout = garbled_agg_layout(t) or (int(t.tp_size), int(attention_dp(t)), int(t.moe_tp_size), int(t.moe_ep_size))
        twin[(t.silicon_ttft_ms, t.silicon_tpot_ms)] = layout
    rows, repeats, reproduced = [], 0, 0
    for _, r in db.iterrows():
        n = int(r.tp_size * attention_dp(r))
        g = int(round(n ** 0.5))
        if g * g != n:
            continue
        a_tp, a_dp, m_tp, m_ep = pool(g, g, attention_dp(r) > 1)
        if (t := twin.get((r.silicon_ttft_ms, r.silicon_tpot_ms))) is not None:
            repeats += 1
            reproduced += t == (a_tp, a_dp, m_tp, m_ep)
        rows.append({"id": r.id, "tp_size": a_tp, "attention_dp_size": a_dp, "moe_tp_size": m_tp, "moe_ep_size": m_ep,
                     "source": f"db-dump row with MoE EP {int(r.moe_ep_size)}: the file's tp_size x attention_dp_size {n} "
                               f"is G x E for G = EP = {g} GPUs (db_dump_agg_layouts)"})
    return rows, repeats, reproduced


TWIN_FACTS = ["mode", "isl", "osl", "tp_size", "attention_dp_size", "moe_tp_size", "moe_ep_size", "prefill_num_workers",
              "prefill_tp_size", "prefill_attention_dp_size", "prefill_moe_tp_size", "prefill_moe_ep_size",
              "decode_num_workers", "decode_tp_size", "decode_attention_dp_size", "decode_moe_tp_size",
              "decode_moe_ep_size", "spec_decoding", "draft_tokens"]


def db_dump_twins(runs, facts, layout_rows):
    """Facts for the `db-dump/...` rows that repeat an InferenceX run: the same GPU, backend, mode,
    nominal ISL/OSL and measured TTFT and TPOT to the last digit (485 rows; a float of 15 digits
    twice by chance is not a coincidence, it is one measurement filed twice). Each gets its twins'
    facts (`facts`: the InferenceX rows' facts, strings, keyed by id; a run filed in both
    InferenceX sources has two twins), where those twins agree on every fact they give; where they
    disagree, none. Laid over `layout_rows` (db_dump_agg_layouts' rows, by id): a twin's fact
    replaces the rule's. Returns (rows, db-dump rows with a twin, rows given facts, rows whose twins
    disagree)."""
    src = runs.silicon_data_source.str.split(";").str[0].str.replace("source_file=", "")
    key = ["system", "backend", "mode", "isl", "osl", "silicon_ttft_ms", "silicon_tpot_ms"]
    db = runs[src.str.startswith("db-dump")]
    ix = runs[src.isin(INFERENCEX_SOURCES)][key + ["id"]]
    pairs = db[key + ["id"]].merge(ix, on=key, suffixes=("", "_twin"))
    rows = {r["id"]: dict(r) for r in layout_rows}
    with_twin, given, disagree = 0, 0, 0
    for db_id, group in pairs.groupby("id", sort=True):
        with_twin += 1
        twins = [facts[t] for t in group.id_twin if t in facts]
        cells = [{c: t.get(c, "") for c in TWIN_FACTS if t.get(c, "") != ""} for t in twins]
        if not cells or any(c != cells[0] for c in cells[1:]):
            disagree += bool(cells)
            continue
        if not cells[0]:
            continue
        given += 1
        row = rows.setdefault(db_id, {"id": db_id, "source": ""})
        row.update(cells[0])
        names = ", ".join(sorted(group.id_twin))
        row["source"] = ((row["source"] + "; ") if row["source"] else "") + (
            f"db-dump twin of {names} (same GPU, backend, lengths, TTFT and TPOT to the digit): "
            "that run's facts (db_dump_twins)")
    return list(rows.values()), with_twin, given, disagree


def main():
    silicon, repo, srt, out = sys.argv[1:5]
    cache = sys.argv[5] if len(sys.argv) > 5 else None
    runs = pd.read_csv(silicon)
    src = runs.silicon_data_source.str.split(";").str[0].str.replace("source_file=", "")
    runs = runs[src.isin(INFERENCEX_SOURCES)].copy()
    runs["measured"] = runs.silicon_data_source.str.extract(r"measured=([0-9-]+)")[0].fillna("")
    runs["image"] = runs.silicon_data_source.str.extract(r"image=([^;]+)")[0].fillna("").str.replace("#", "/").str.strip()
    runs["conc"] = runs.silicon_data_source.str.extract(r"silicon_concurrency=(\d+)")[0].astype(float)
    try:
        entries = pd.read_pickle(cache) if cache else config_entries(repo)
    except FileNotFoundError:
        entries = config_entries(repo)
        entries.to_pickle(cache)
    rows, outcome, recipe_cache, pair_candidates = [], {}, {}, {}
    mean = (1 + RANGE_RATIO) / 2
    lengths = "mean lengths 0.9 L (InferenceX RANDOM_RANGE_RATIO 0.8)"
    for _, r in runs.iterrows():
        base = {"id": r.id, "isl": round(r.isl * mean, 1), "osl": round(r.osl * mean, 1), "source": lengths}
        c = entries[entries.prefix.isin(PREFIX.get(r.model_path, set())) & (entries.runner == r.system.replace("_sxm", ""))
                    & entries.framework.isin(FRAMEWORKS[r.backend]) & (entries.disagg == (r["mode"] == "disagg"))
                    & (entries.precision == r.precision) & (entries.isl == r.isl) & (entries.osl == r.osl)
                    & (entries.conc == r.conc)]
        relabeled = False
        garbled = garbled_agg_layout(r)
        if garbled:
            # The file's layout is wrong; the id's is kept as a fact, and the run is matched to
            # the configuration entries by that layout (the others by the file's).
            a_tp, a_dp, m_tp, m_ep = garbled
            base.update({"tp_size": a_tp, "attention_dp_size": a_dp, "moe_tp_size": m_tp, "moe_ep_size": m_ep})
            lengths_here = (lengths + f"; layout from the id's tp and ep (the file's tp_size x attention_dp_size "
                            f"{int(r.tp_size * attention_dp(r))} is the id's tp x ep)")
            base["source"] = lengths_here + "; not matched to a configuration entry"
            outcome["layout from the id (garbled in the file)"] = outcome.get("layout from the id (garbled in the file)", 0) + 1
        else:
            lengths_here = lengths
        if garbled:
            c = c[(c.tp == a_tp * a_dp) & (c.ep == m_ep) & (c.dpa == (a_dp > 1))]
        elif r["mode"] == "agg":
            dp = attention_dp(r)
            c = c[(c.tp == r.tp_size * dp) & (c.ep == r.moe_ep_size) & (c.dpa == (dp > 1))]
            if not len(c) and r.system in ("gb200", "gb300"):
                # Labeled aggregated with "TP" the deployment's GPU count: InferenceX runs these
                # racks disaggregated only; match a disaggregated entry of that many GPUs.
                d = entries[entries.prefix.isin(PREFIX.get(r.model_path, set())) & (entries.runner == r.system)
                            & entries.framework.isin(FRAMEWORKS[r.backend]) & entries.disagg
                            & (entries.precision == r.precision) & (entries.isl == r.isl) & (entries.osl == r.osl)
                            & (entries.conc == r.conc)]
                c = d[d.p_workers * d.p_tp + d.d_workers * d.d_tp == r.tp_size * dp]
                relabeled = len(c) > 0
        else:
            c = c[(c.d_tp == r.decode_tp_size) & (c.p_tp == r.prefill_tp_size)]
        if len(c) and r.image and (c.image == r.image).any():
            c = c[c.image == r.image]
        if not len(c):
            outcome["no entry matches"] = outcome.get("no entry matches", 0) + 1
            rows.append(base)
            continue
        before = c[c.date <= r.measured]
        c = before[before.date == before.date.max()] if len(before) else c[c.date == c.date.min()]
        distinct = c[[f for f in FACTS if f in c]].drop_duplicates()
        pools_only = False
        if len(distinct) > 1:
            # Candidates that disagree on speculation alone (an MTP and a non-MTP variant of one
            # layout) still agree on the pools: keep those, leave speculation unknown (unless the
            # pair rule below tells which variant the run was).
            pool_facts = [f for f in POOL_FACTS if f in c]
            variants = {speculation(repo, srt, e)[:2] for _, e in c.iterrows()}
            spec_pair = (len(variants) == 2 and ("none", None) in variants
                         and any(v[0] == "mtp" and v[1] for v in variants))
            if (r["mode"] == "disagg" or relabeled) and len(c[pool_facts].drop_duplicates()) == 1:
                pools_only = True
                outcome["ambiguous speculation, pools kept"] = outcome.get("ambiguous speculation, pools kept", 0) + 1
            else:
                outcome["ambiguous"] = outcome.get("ambiguous", 0) + 1
                if garbled:
                    base["source"] = lengths_here + "; matched configuration entries that disagree (left out)"
                if spec_pair and r["mode"] == "agg" and not relabeled:  # the layout matched: only speculation differs
                    pair_candidates.setdefault(pair_key(r, c), []).append((len(rows), r, variants))
                rows.append(base)
                continue
            if spec_pair:
                pair_candidates.setdefault(pair_key(r, c), []).append((len(rows), r, variants))
        f = c.iloc[0]
        fact = dict(base)
        if relabeled:
            fact["mode"] = "disagg"
        placeholder = ""
        if r["mode"] == "disagg" or relabeled:
            pools, why = placeholder_pools(srt, f, recipe_cache) if not relabeled else (None, "")
            if why and not pools:
                # tp 1 / ep 1 placeholders and no recipe to read the layout from: no pools.
                outcome["placeholder layout, left out"] = outcome.get("placeholder layout, left out", 0) + 1
                base["source"] = (lengths_here + f"; nvidia-master.yaml@{f.commit} ({f.date}) {f.key}: tp 1 / ep 1 "
                                  f"placeholders with PREFILL_NODES/DECODE_NODES, {why} (pools left out)")
                rows.append(base)
                continue
            if pools:
                placeholder = (f"; pools of {int(f.p_nodes)}/{int(f.d_nodes)} nodes x {GPUS_PER_NODE[f.runner]} GPUs "
                               f"over {int(f.p_workers)}/{int(f.d_workers)} workers (the entry's tp 1 / ep 1 are "
                               f"placeholders), styled as srt-slurm {why}")
                outcome["placeholder layout from nodes and recipe"] = outcome.get("placeholder layout from nodes and recipe", 0) + 1
            for i, (name, (tp, ep, dpa, w)) in enumerate((("prefill_", (f.p_tp, f.p_ep, f.p_dpa, f.p_workers)),
                                                          ("decode_", (f.d_tp, f.d_ep, f.d_dpa, f.d_workers)))):
                a_tp, a_dp, m_tp, m_ep = pools[i] if pools else pool(tp, ep, dpa)
                fact.update({name + "num_workers": int(w), name + "tp_size": a_tp, name + "attention_dp_size": a_dp,
                             name + "moe_tp_size": m_tp, name + "moe_ep_size": m_ep})
        if relabeled:
            outcome["relabeled disaggregated"] = outcome.get("relabeled disaggregated", 0) + 1
        if pools_only:
            fact["source"] = (lengths_here + f"; nvidia-master.yaml@{f.commit} ({f.date}): pools agreed by {len(distinct)} "
                              "entries that disagree on speculation (left unknown): "
                              + ", ".join(sorted(str(k) for k in c.key.unique()))) + placeholder
            rows.append(fact)
            continue
        spec, depth, where, cfg = speculation(repo, srt, f)
        fact["spec_decoding"] = spec  # "none" recorded too: the run is known not to speculate
        fact["draft_tokens"] = depth if spec != "none" and depth else ""
        fact["source"] = (lengths_here + f"; nvidia-master.yaml@{f.commit} ({f.date}) {f.key}" + (f" {cfg}" if cfg else "")
                          + placeholder
                          + ("; labeled agg with TP the deployment's GPUs: a disaggregated entry of as many GPUs" if relabeled else "")
                          + (f"; draft tokens from the {where}" if fact["draft_tokens"] else ""))
        rows.append(fact)
        outcome["matched"] = outcome.get("matched", 0) + 1
        if garbled:
            outcome["of which matched by the id's layout"] = outcome.get("of which matched by the id's layout", 0) + 1
    cols = ["id", "mode", "isl", "osl", "tp_size", "attention_dp_size", "moe_tp_size", "moe_ep_size", "prefill_num_workers", "prefill_tp_size", "prefill_attention_dp_size", "prefill_moe_tp_size",
            "prefill_moe_ep_size", "decode_num_workers", "decode_tp_size", "decode_attention_dp_size",
            "decode_moe_tp_size", "decode_moe_ep_size", "spec_decoding", "draft_tokens", "source"]
    paired, checked = speculation_pairs(pair_candidates, rows, runs)
    outcome["speculation from the pair"] = paired
    ix_facts = pd.DataFrame(rows, columns=cols)
    write_facts(ix_facts, out)  # written, then read back as text: the twins copy cells as the file has them
    ix_facts = pd.read_csv(out, dtype=str, keep_default_na=False)
    db_rows, summary = db_dump_rows(pd.read_csv(silicon), ix_facts)
    write_facts(pd.concat([ix_facts, pd.DataFrame(db_rows, columns=cols).fillna("")], ignore_index=True), out)
    print(f"{len(runs)} InferenceX runs, each with its mean lengths; configuration: "
          + ", ".join(f"{v} {k}" for k, v in sorted(outcome.items())) + "; " + checked + "; " + summary)


INT_COLUMNS = ["tp_size", "attention_dp_size", "moe_tp_size", "moe_ep_size", "prefill_num_workers", "prefill_tp_size",
               "prefill_attention_dp_size", "prefill_moe_tp_size", "prefill_moe_ep_size", "decode_num_workers",
               "decode_tp_size", "decode_attention_dp_size", "decode_moe_tp_size", "decode_moe_ep_size", "draft_tokens"]


def write_facts(df, out):
    """The facts CSV, counts written as integers ("8", not "8.0"), empty cells empty."""
    df = df.copy()
    for c in INT_COLUMNS:
        if c in df:
            v = pd.to_numeric(df[c], errors="coerce")
            if ((v.dropna() % 1) != 0).any():
                raise ValueError(f"facts column {c} holds a non-integer count: {v[(v % 1) != 0].iloc[0]}")
            df[c] = v.astype("Int64")
    df.to_csv(out, index=False)


def db_dump_rows(runs, ix_facts):
    """The facts rows of the runs file's db-dump rows: db_dump_agg_layouts' layouts, then their
    InferenceX twins' facts (db_dump_twins), from `ix_facts` (the InferenceX rows' facts as text).
    Returns (rows, a one-line summary)."""
    layout_rows, repeats, reproduced = db_dump_agg_layouts(runs)
    for r in layout_rows:
        for k, v in r.items():
            r[k] = str(v)
    by_id = {r["id"]: r for r in ix_facts.to_dict("records")}
    rows, with_twin, given, disagree = db_dump_twins(runs, by_id, layout_rows)
    return rows, (f"{len(layout_rows)} db-dump aggregated rows with their layout from G x E ({repeats} repeat an "
                  f"InferenceX run, {reproduced} of those get its layout); {with_twin} db-dump rows repeat an "
                  f"InferenceX run, {given} given its facts, {disagree} whose twins disagree")


def db_dump_only(silicon, facts):
    """Rewrites FACTS_CSV's db-dump rows (`db_dump_rows`) without the two repositories, from its
    InferenceX rows."""
    f = pd.read_csv(facts, dtype=str, keep_default_na=False)
    runs = pd.read_csv(silicon)
    src = runs.silicon_data_source.str.split(";").str[0].str.replace("source_file=", "")
    f = f[~f.id.isin(set(runs.id[src.str.startswith("db-dump")]))]
    rows, summary = db_dump_rows(runs, f)
    f = pd.concat([f, pd.DataFrame(rows, columns=f.columns)], ignore_index=True).fillna("")
    write_facts(f, facts)
    print(f"{summary}; {len(f)} rows in {facts}")


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--db-dump-only":
        if len(sys.argv) != 4:
            sys.exit("usage: inferencex_run_facts.py --db-dump-only SILICON_CSV FACTS_CSV")
        db_dump_only(sys.argv[2], sys.argv[3])
    elif len(sys.argv) not in (5, 6):
        sys.exit("usage: inferencex_run_facts.py SILICON_CSV INFERENCEX_GIT_DIR SRT_SLURM_GIT_DIR OUT_CSV [CACHE.pkl]")
    else:
        main()
