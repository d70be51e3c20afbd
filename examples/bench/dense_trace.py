#!/usr/bin/env python3
"""Writes a synthetic Kineto trace dense in kernels (about 1 KB per kernel: its cpu_op with shapes,
its cudaLaunchKernel, the kernel; no python_function events), for the bounded-memory benchmark of
`roofline trace` (examples/bench/trace_json_rss.sh): a 10 GB file holds about 10 million kernels.

    dense_trace.py OUT GB [--layout real|copies] [--step-kernels N]

A decode loop on one H200: steps of N kernels (default 1,000, a decode step of a 60-layer model;
GEMMs with recorded shapes, norms, elementwise ops, attention) on stream 7, an NCCL all-reduce
with its metadata every 10 kernels on stream 9, overlapping the compute; the GPU runs behind the
CPU's launches. Each step is a GPU annotation range ("execute_model"): the report has a row per
step, so its size (and the memory that holds it) grows with the steps. --layout real (the default) writes the file as the profiler writes a
long profile: every CPU op, then the GPU section (each kernel with its launch call), then the
annotations; --layout copies writes each step's ops, kernels and annotation together.
"""
import sys

OPS = [  # (op, kernel, phase-bearing name, dims template)
    ("aten::mm", "nvjet_sm90_tst_128x128_64x4_1x2_h_bz_coopB_NNT", '[[{m}, 4096], [4096, 4096]]'),
    ("vllm::rms_norm", "void vllm::rms_norm_kernel<c10::BFloat16, 8, 2>(c10::BFloat16*, c10::BFloat16 const*, long, long, "
     "long, long, long, c10::BFloat16 const*, float, int, int)", '[[{m}, 4096], [4096]]'),
    ("aten::mul", "void at::native::vectorized_elementwise_kernel<4, at::native::BinaryFunctor<c10::BFloat16, c10::BFloat16, "
     "c10::BFloat16, at::native::binary_internal::MulFunctor<float> >, std::array<char*, 3ul> >(int, at::native::"
     "BinaryFunctor<c10::BFloat16, c10::BFloat16, c10::BFloat16, at::native::binary_internal::MulFunctor<float> >, "
     "std::array<char*, 3ul>)", '[[{m}, 4096], [{m}, 4096]]'),
    ("aten::_flash_attention_forward", "void pytorch_flash::flash_fwd_splitkv_kernel<Flash_fwd_kernel_traits<128, 64, 128, 4, "
     "false, false, cutlass::bfloat16_t>, false, true, false, false, true, true, false, false>(Flash_fwd_params)",
     '[[{m}, 1, 32, 128], [{m}, 2048, 8, 128], [{m}, 2048, 8, 128]]'),
]
NCCL_KERNEL = "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)"
KERNELS_PER_STEP = 1000


def main():
    global KERNELS_PER_STEP
    args = sys.argv[1:]
    layout = "real"
    if "--step-kernels" in args:
        i = args.index("--step-kernels")
        KERNELS_PER_STEP = int(args[i + 1])
        del args[i:i + 2]
    if "--layout" in args:
        i = args.index("--layout")
        layout = args[i + 1]
        del args[i:i + 2]
    out, gb = args[0], float(args[1])
    target = int(gb * 1e9)
    head = ('{"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "NVIDIA H200", "totalGlobalMem": 150754820096, '
            '"computeMajor": 9, "computeMinor": 0, "numSms": 132}], "traceEvents": [\n')
    # Bytes per step, measured on one step written both ways.
    cpu_t, gpu_t = 0.0, 50.0  # us: the CPU launches, the GPU runs behind
    corr = ext = 0
    steps = []  # (cpu events, gpu events, annotation) of each step, as text

    def step(s):
        nonlocal cpu_t, gpu_t, corr, ext
        m = (8, 16, 32, 64)[s % 4]  # the decode batch varies from step to step
        ops, gpu = [], []
        step_start = None
        comm_end = 0.0
        for k in range(KERNELS_PER_STEP):
            nccl = k % 10 == 9
            ext += 1
            corr += 1
            name, kernel, dims = ("c10d::allreduce_", NCCL_KERNEL, '[[{m}, 4096]]') if nccl else OPS[k % len(OPS)]
            dims = dims.replace("{m}", str(m))
            op_dur = 6.0
            ops.append('{"ph": "X", "cat": "cpu_op", "name": "%s", "pid": 100, "tid": 100, "ts": %.3f, "dur": %.3f, '
                       '"args": {"External id": %d, "Record function id": 0, "Input Dims": %s, '
                       '"Input type": ["c10::BFloat16", "c10::BFloat16"], "Ev Idx": %d}}'
                       % (name, cpu_t, op_dur, ext, dims, ext))
            launch = cpu_t + 2.0
            dur = 4.0 + (k * 7 % 23) + m * 0.1
            if nccl:  # on its own stream, beside the compute
                start = max(comm_end, launch + 5.0, gpu_t - dur / 2)
                comm_end = start + 30.0
                args = ('"device": 0, "stream": 9, "correlation": %d, "External id": %d, "grid": [8, 1, 1], '
                        '"block": [512, 1, 1], "Collective name": "allreduce", "In msg nelems": %d, '
                        '"Out msg nelems": %d, "Group size": 8, "dtype": "BFloat16", "Process Group Name": "0"'
                        % (corr, ext, m * 4096, m * 4096))
                ts, d, tid = start, 30.0, 9
            else:
                start = max(gpu_t, launch + 5.0)
                gpu_t = start + dur
                args = ('"device": 0, "stream": 7, "correlation": %d, "External id": %d, "grid": [%d, 1, 1], '
                        '"block": [256, 1, 1], "registers per thread": 64, "shared memory": 0, '
                        '"est. achieved occupancy %%": 50' % (corr, ext, 132 if k % 4 == 0 else 64))
                ts, d, tid = start, dur, 7
            if step_start is None:
                step_start = ts
            gpu.append('{"ph": "X", "cat": "kernel", "name": "%s", "pid": 0, "tid": %d, "ts": %.3f, "dur": %.3f, '
                       '"args": {%s}}' % (kernel, tid, ts, d, args))
            gpu.append('{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 100, "tid": 100, '
                       '"ts": %.3f, "dur": 3.000, "args": {"External id": %d, "cbid": 211, "correlation": %d}}'
                       % (launch, ext, corr))
            cpu_t += 8.0
        end = max(gpu_t, comm_end)
        ann = ('{"ph": "X", "cat": "gpu_user_annotation", "name": "execute_model", "pid": 0, "tid": 7, '
               '"ts": %.3f, "dur": %.3f, "args": {"External id": %d}}' % (step_start, end - step_start, ext))
        gpu_t = end + 20.0
        cpu_t = max(cpu_t, gpu_t - 400.0)  # the CPU stays at most 400 us ahead
        return ",\n".join(ops), ",\n".join(gpu), ann

    one = step(0)
    per_step = sum(len(x) + 2 for x in one)
    n_steps = max(1, (target - len(head)) // per_step)
    cpu_t, gpu_t, corr, ext = 0.0, 50.0, 0, 0
    with open(out, "w") as f:
        f.write(head)
        first = True

        def put(text):
            nonlocal first
            if not first:
                f.write(",\n")
            f.write(text)
            first = False

        if layout == "copies":
            for s in range(n_steps):
                for part in step(s):
                    put(part)
        else:
            # The GPU sections and annotations of every step are generated again after the ops
            # (the same arithmetic from the same start, so the same numbers).
            for s in range(n_steps):
                put(step(s)[0])
            cpu_t, gpu_t, corr, ext = 0.0, 50.0, 0, 0
            anns = []
            for s in range(n_steps):
                _, gpu, ann = step(s)
                put(gpu)
                anns.append(ann)
            for a in anns:
                put(a)
        f.write("\n]}\n")
    print(f"{out}: {n_steps} steps, {n_steps * KERNELS_PER_STEP} kernels ({layout} layout)")


if __name__ == "__main__":
    main()
