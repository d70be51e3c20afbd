#!/usr/bin/env python3
"""Does simulating the benchmark explain measured TTFT better than the closed-loop wave?

Reads the predictions `roofline estimate --from-csv ... --out PRED_CSV` writes (its `ttft_terms`
column, models/serving_terms.hpp: own prefill, closed-loop queue, half a decode step or the KV
transfer, a decode step, 1, ISL, layers x chunks, MoE layers x chunks, the balanced queue, layers x
the queue's chunk steps, the prefill pool's queue) and the silicon CSV (for the attention-DP size), and for every run
simulates the benchmark as a closed loop: C clients, N = n x C requests, each client sending its
next request when its last one ends, prompt and output lengths drawn from [0.8 L, L] (mean 0.9 L,
as InferenceX's benchmark_serving draws them); the engine runs steps of at most 8,192 tokens, either
mixing every running request's decode token with prefill chunks (vLLM, TensorRT-LLM) or running
prefill batches first (SGLang). A step costs the estimate's decode step (when any request decodes)
plus its prefill tokens at the queue's seconds per token; per rank with attention DP. The mean
simulated TTFT then replaces the queue term (the second), or joins the terms, in a Python replica of the C++
leave-one-model-out fit (non-negative, minimum summed |relative error|, by linear programming;
TTFT per mode/backend with fewer than 30 runs falling back to the mode), and the held-out TTFT
median is printed per group, against the replica without the simulation.

    ttft_queue_simulation.py PRED_CSV SILICON_CSV [REQUESTS_PER_CLIENT=10]

Runs with more than 2,048 clients per rank are not simulated (minutes each in Python): their
simulated queue is a tenth of the wave term, and the output says how many were simulated.
Needs numpy, pandas and scipy; about 2-3 minutes on two cores for 5,068 runs at n = 10. The
README ("Predicting measured serving", TTFT) reports what it printed.
"""
import sys
from multiprocessing import Pool

import numpy as np
import pandas as pd
from scipy.optimize import linprog
from scipy.sparse import csr_matrix, hstack, identity, vstack

BUDGET_TOKENS = 8192


def simulate(clients, isl, osl, s_per_token, decode_step_s, mixed, per_client, seed=0):
    """Mean TTFT (s) of a closed loop of `clients` sending `per_client` x clients requests."""
    rng = np.random.default_rng(seed)
    c = int(max(1, round(clients)))
    n = per_client * c
    prompt = np.maximum(1, np.round(rng.uniform(0.8, 1.0, n) * isl / 0.9))
    output = np.maximum(2, np.round(rng.uniform(0.8, 1.0, n) * osl / 0.9))
    left_prefill, left_decode = np.zeros(n), np.zeros(n)
    arrived, ttft = np.full(n, np.nan), np.full(n, np.nan)
    active, t = list(range(c)), 0.0
    left_prefill[:c], left_decode[:c], arrived[:c] = prompt[:c], output[:c], 0.0
    sent = c
    while active:
        a = np.array(active)
        waiting, decoding = a[left_prefill[a] > 0], a[left_prefill[a] == 0]
        if len(waiting) == 0:  # decode steps alone until the next request ends
            k = int(left_decode[decoding].min())
            t += k * decode_step_s
            left_decode[decoding] -= k
            done = decoding[left_decode[decoding] <= 0]
        else:
            budget = BUDGET_TOKENS - (len(decoding) if mixed else 0)
            tokens, finished_prefill = 0, []
            for j in waiting:
                if budget <= 0:
                    break
                take = min(budget, left_prefill[j])
                left_prefill[j] -= take
                budget -= take
                tokens += take
                if left_prefill[j] == 0:
                    finished_prefill.append(j)
            t += (decode_step_s if mixed and len(decoding) else 0.0) + tokens * s_per_token
            done = np.array([], dtype=int)
            if mixed and len(decoding):
                left_decode[decoding] -= 1
                done = decoding[left_decode[decoding] <= 0]
            for j in finished_prefill:
                ttft[j] = t - arrived[j]
                left_decode[j] -= 1
                if left_decode[j] <= 0:
                    done = np.append(done, j)
        if len(done):
            gone = set(done.tolist())
            active = [x for x in active if x not in gone]
            for _ in range(len(done)):
                if sent < n:
                    left_prefill[sent], left_decode[sent], arrived[sent] = prompt[sent], output[sent], t
                    active.append(sent)
                    sent += 1
    return float(np.nanmean(ttft))


def l1_fit(x, y):
    """Non-negative a minimising sum |x a / y - 1| (linear program)."""
    a = x / y[:, None]
    n, k = a.shape
    eye = identity(n, format="csr")
    lhs = vstack([hstack([csr_matrix(a), -eye]), hstack([csr_matrix(-a), -eye])])
    rhs = np.concatenate([np.ones(n), -np.ones(n)])
    cost = np.concatenate([np.zeros(k), np.ones(n)])
    return linprog(cost, A_ub=lhs, b_ub=rhs, bounds=[(0, None)] * (k + n), method="highs").x[:k]


def leave_one_model_out(x, runs, min_runs=30):
    y, models, groups, modes = runs.y.values, runs.model_path.values, runs.group.values, runs["mode"].values
    pred = np.zeros(len(runs))
    for m in np.unique(models):
        train, fits = models != m, {}
        for i in np.where(~train)[0]:
            key = groups[i] if (train & (groups == groups[i])).sum() >= min_runs else modes[i]
            if key not in fits:
                sel = train & ((groups == key) if "/" in key else (modes == key))
                fits[key] = l1_fit(x[sel], y[sel])
            pred[i] = x[i] @ fits[key]
    return pred


def report(label, pred, runs):
    err = np.abs(pred / runs.y.values - 1)
    parts = [f"{g} {100 * np.median(err[(runs.group == g).values]):.1f}%" for g in sorted(runs.group.unique())]
    agg = 100 * np.median(err[(runs["mode"] == "agg").values])
    print(f"{label}: agg {agg:.1f}% | " + ", ".join(parts))


def job(args):
    return simulate(*args)


def main():
    runs = pd.read_csv(sys.argv[1])
    runs = runs[runs.skipped.isna()].reset_index(drop=True)
    silicon = pd.read_csv(sys.argv[2]).set_index("id")
    per_client = int(sys.argv[3]) if len(sys.argv) > 3 else 10
    terms = np.array([[float(v) for v in s.split(";")] for s in runs.ttft_terms])
    runs["y"] = runs.measured_ttft_ms / 1e3
    runs["group"] = runs["mode"] + "/" + runs.backend
    dp = np.where(runs["mode"] == "agg", runs.id.map(silicon.attention_dp_size),
                  runs.id.map(silicon.prefill_attention_dp_size))
    dp = np.maximum(np.nan_to_num(dp.astype(float), nan=1.0), 1.0)
    c = runs.concurrency.values.astype(float)
    isl, osl = runs.isl.values, runs.osl.values
    # The queue term is (C - 1) / 2 x ISL x s_per_token: its seconds per token back out of it.
    s_per_token = np.where(c > 1, terms[:, 1] / np.maximum((c - 1) / 2 * isl, 1e-9), terms[:, 0] / isl)
    args = [(max(1.0, c[i] / dp[i]), isl[i], osl[i], s_per_token[i], terms[i, 3], runs.backend[i] != "sglang",
             per_client) for i in range(len(runs))]
    fits = [a[0] <= 2048 for a in args]  # wider loops take minutes each in Python: left at a tenth of the wave
    with Pool() as pool:
        sim = pool.map(job, [a for a, f in zip(args, fits) if f], chunksize=8)
    simulated = terms[:, 1] * 0.1
    simulated[np.array(fits)] = sim
    print(f"{len(runs)} runs, {sum(fits)} simulated at N = {per_client} x C")
    report("replica of the C++ fit", leave_one_model_out(terms, runs), runs)
    replaced = terms.copy()
    replaced[:, 1] = simulated
    report("simulated queue in place of the wave", leave_one_model_out(replaced, runs), runs)
    report("simulated queue as one more term", leave_one_model_out(np.column_stack([terms, simulated]), runs), runs)


if __name__ == "__main__":
    main()
