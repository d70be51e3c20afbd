#pragma once
// The sources behind the built-in GPU catalog. Every `spec_value::source` in `core/gpus/`
// is a string of these ids ("[S5][S22]"). [S1]..[S28] are the sources of the project's
// hardware notes (HARDWARE.md §9), summarised here in one line each; [O1] is a device report
// from a public trace; [C09] and [C10] are the field cases (CASES.md) whose numbers the catalog
// tests reproduce.

#include <string_view>  // std::string_view
#include <vector>       // std::vector

namespace roofline::gpus {

/// One source: its id as cited ("[S5]") and a line saying what it is and where to find it.
struct citation {
    std::string_view id;
    std::string_view text;
};

/// Every source the catalog cites, in id order.
inline const std::vector<citation>& catalog_sources() {
    static const std::vector<citation> sources = {
        {"[S1]",
         "NVIDIA CCCL libcudacxx cuda/__device/arch_traits.h (commit efee2cf): per-arch "
         "shared memory per SM and per block, threads, blocks and registers per SM. "
         "https://github.com/NVIDIA/cccl"},
        {"[S2]",
         "NVIDIA CUTLASS (commit 7107b05): arch/arch.h smem capacities (sm100 232448 B, "
         "sm120 101376 B), README compute-capability table, blackwell_functionality.md "
         "tcgen05 rates (f8f6f4 = 2x Hopper FP8, mxf4/nvf4 = 4x). "
         "https://github.com/NVIDIA/cutlass"},
        {"[S3]",
         "NVIDIA Blackwell Tuning Guide 13.3 (as quoted in cudnn-frontend PR #1164 and "
         "modular PR #5352). https://docs.nvidia.com/cuda/blackwell-tuning-guide/index.html"},
        {"[S4]",
         "CUDA C++ Programming Guide, compute capability tables (12.x column). "
         "https://docs.nvidia.com/cuda/cuda-programming-guide/05-appendices/"
         "compute-capabilities.html"},
        {"[S5]",
         "NVIDIA Blackwell datasheet (HGX B200 180 GB, 7.7 TB/s, up to 1000 W; GB200 "
         "186 GB, 8 TB/s, up to 1200 W; tensor figures are sparse) and DGX B200 datasheet. "
         "https://resources.nvidia.com/en-us-dgx-systems/dgx-b200-datasheet"},
        {"[S6]",
         "NVIDIA GB200 NVL72 specifications, per-GPU GB200 and HGX B200 columns. "
         "https://www.nvidia.com/en-us/data-center/gb200-nvl72/"},
        {"[S7]",
         "NVIDIA Technical Blog, Inside NVIDIA Blackwell Ultra (160 SMs full chip, 15 PF "
         "dense NVFP4, 288 GB, 8 TB/s, 256 KB TMEM per SM). https://developer.nvidia.com/"
         "blog/inside-nvidia-blackwell-ultra-the-chip-powering-the-ai-factory-era"},
        {"[S8]",
         "NVIDIA HGX platform page, HGX B300 figures for 8 GPUs (FP4 144|108 PF, FP8 72 "
         "PF sparse, INT8 2 POPS sparse, FP64 10 TF, FP32 600 TF). "
         "https://www.nvidia.com/en-us/data-center/hgx/"},
        {"[S9]",
         "ademeure/QuickRunCUDA b300_clean notes: B300 SXM6 AC microbenchmarks (SMs, "
         "clocks, power limits, HBM, NVLink, FFMA/DFMA/INT8 rates). "
         "https://github.com/ademeure/QuickRunCUDA"},
        {"[S10]",
         "stas00/ml-engineering compute/accelerator/README.md (commit 744d01e): peak "
         "table, MAMF measurements, device clocks, power specs. "
         "https://github.com/stas00/ml-engineering"},
        {"[S11]",
         "Chips and Cheese, Nvidia's B200: Keeping the CUDA Juggernaut Rolling (148 SMs, "
         "126 MB L2). https://chipsandcheese.com/p/nvidias-b200-keeping-the-cuda-juggernaut"},
        {"[S12]",
         "NVIDIA RTX Blackwell GPU Architecture whitepaper, appendix A (RTX 5090 rates by "
         "accumulator). https://images.nvidia.com/aem-dam/Solutions/geforce/blackwell/"
         "nvidia-rtx-blackwell-gpu-architecture.pdf"},
        {"[S13]",
         "NVIDIA/nccl issue #1637: RTX 5090 deviceQuery (170 SMs, 2550 MHz, L2, smem, "
         "threads). https://github.com/NVIDIA/nccl/issues/1637"},
        {"[S14]",
         "RTX 5090 review specification box (Tom's Hardware, via Linux Format May 2025): "
         "SMs, boost clock, memory, L2, FP32, 575 W; base clock per pcspecchart.com."},
        {"[S15]",
         "NVIDIA RTX PRO 6000 Blackwell datasheets (Workstation, Max-Q, Server; Server "
         "product brief SP-12355-001_v02) and RTX Blackwell PRO whitepaper v1.1. "
         "https://www.nvidia.com/en-us/data-center/rtx-pro-6000-blackwell-server-edition/"},
        {"[S16]",
         "RTX Blackwell PRO whitepaper text quoted in NVIDIA/cudnn-frontend PR #1164 "
         "(GB202: 192 SMs, 128 MB L2; Workstation: 188 SMs, 24064 cores). "
         "https://github.com/NVIDIA/cudnn-frontend"},
        {"[S17]",
         "zzc0721/torch-performance-test-data issues #96, #124, #160, #161, #200: torch "
         "matmul rates on RTX PRO 6000 and RTX 5090. "
         "https://github.com/zzc0721/torch-performance-test-data"},
        {"[S18]",
         "tinygrad/open-gpu-kernel-modules issue #29 and related threads: RTX 5090 P2P "
         "needs a patched driver; RTX PRO P2P with the stock driver; PCIe H2D/D2H. "
         "https://github.com/tinygrad/open-gpu-kernel-modules/issues/29"},
        {"[S19]",
         "NVIDIA DGX Spark page and coverage (1 PFLOP FP4 sparse, 6144 cores, 273 GB/s, "
         "~140 W, 600 GB/s C2C, ~31 TF FP32, no tcgen05/TMEM). "
         "https://www.nvidia.com/en-us/products/workstations/dgx-spark/"},
        {"[S20]",
         "MLCommons inference v6.0 Nebius B200 system description (B200-SXM-180GB, TGP "
         "1000 W, 18x NVLink5). https://github.com/mlcommons/inference_results_v6.0"},
        {"[S21]",
         "NVIDIA H100 and H200 product pages (memory, NVLink 900 GB/s, FP64). "
         "https://www.nvidia.com/en-us/data-center/h200/"},
        {"[S22]",
         "pytorch/ao torchao/testing/training/roofline_utils.py: H100, B200, RTX 5090 "
         "peaks. https://github.com/pytorch/ao"},
        {"[S23]",
         "Glenn Klockwood, B300 notes (PCIe Gen6, 1400 W). "
         "https://glennklockwood.com/garden/processors/B300"},
        {"[S24]",
         "Third-party RTX PRO 6000 measurement notes in public repositories: 1024 BF16 "
         "FLOP/clk/SM, device clocks, sustained clocks at 600 W, DRAM roofs, L2 size."},
        {"[S25]",
         "B300 visible memory ~275 GB: TensorRT-LLM test report in a public repository; "
         "LottoLottoLotto/localmaxxing-cli issue #24."},
        {"[S26]",
         "flashinfer-ai/flashinfer PR #2835 and sgl-project/sglang PR #17908: the SM120 "
         "per-block shared-memory limit of 101376 B."},
        {"[S27]",
         "Public note citing RTX Blackwell PRO whitepaper v1.1 table 4: dense FP8 is 2048 "
         "FLOP per SM per clock on GB202."},
        {"[S28]",
         "newmind.ai journal 18: B200 via TogetherAI, >6000 GB/s device copy, ~178.4 GiB "
         "per GPU (low confidence). https://www.newmind.ai/journal/18"},
        {"[S29]",
         "voipmonitor/rtx6kpro @29f3863 hardware/blackwell-power-limit-sweep.md: power-limit "
         "sweeps (gpu_burn -tc) of RTX PRO 6000 Workstation (150-600 W), Server (300-600 W) "
         "and Max-Q (~250-325 W) cards, with SM clock and throughput per step."},
        {"[O1]",
         "cudaGetDeviceProperties of 8 B200s as recorded in a Kineto trace "
         "(AMD-AGI/TraceLens @171dd74, tests/traces/b200/eager_trace.json.gz): name "
         "\"NVIDIA B200\", CC 10.0, 148 SMs, 191503138816 B, smem 233472/232448 B."},
        {"[M1]",
         "Measured by this project on one NVIDIA H200 SXM, driver 580, CUDA 13.0, 2026-11-30: "
         "cudaGetDeviceProperties and microbenchmarks (data/measurements/h200/, "
         "examples/measure/README.md)."},
        {"[C09]",
         "Field case C09: kekzl/imp#606 and karpathy/nanochat#60, RTX 5090 and RTX PRO "
         "6000 dense, accumulate-aware peaks (5090 BF16 209.5 TF; PRO 503.8, Max-Q 438.9)."},
        {"[C10]",
         "Field case C10: pytorch/ao#4002 (B200 driver bus 7680 bit x 3996 MHz = 7.67 "
         "TB/s, 126.5 MB L2) and marin-community/marin#7334 (B200 vs GB200 peaks)."},
    };
    return sources;
}

/// The text of a citation id ("[S5]"), or an empty view when the id is not in the list.
inline std::string_view citation_text(std::string_view id) {
    for (const auto& c : catalog_sources())
        if (c.id == id) return c.text;
    return {};
}

}  // namespace roofline::gpus
