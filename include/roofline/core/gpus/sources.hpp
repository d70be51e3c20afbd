#pragma once
// The sources behind the built-in GPU catalog. Every `spec_value::source` in `core/gpus/`
// is a string of these ids ("[S5][S22]"). [S1]..[S29] are the sources of the project's
// hardware notes (HARDWARE.md §9), summarised here in one line each; [S30]..[S47] cover the
// Volta, Ampere, Ada, other Hopper and Blackwell SKUs and Jetson Thor; [O1]-[O3] are device
// reports from public traces; [C09] and [C10] are the field cases (CASES.md) whose numbers the catalog
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
        {"[S30]",
         "ai-dynamo/aiconfigurator @095f58a aic-core/src/aiconfigurator_core/systems/*.yaml: "
         "per-GPU mem_bw, mem_capacity, dense bfloat16/fp8/int8 tc_flops and power of a100_sxm, "
         "a100_pcie, a30, h100_sxm, h100_pcie, h200_sxm, l4, l40s, b200_sxm, b300_sxm, gb200, "
         "gb300, rtx_pro_6000_server. https://github.com/ai-dynamo/aiconfigurator"},
        {"[S31]",
         "NVIDIA A100 Tensor Core GPU datasheet: FP64 9.7 (tensor 19.5), FP32 19.5, TF32 156|312, "
         "BF16/FP16 312|624, INT8 624|1248 TOPS (dense|sparse); 40 GB HBM2 1555 GB/s, 80 GB HBM2e "
         "1935 (PCIe) / 2039 GB/s (SXM); 250/300 W PCIe, 400 W SXM; NVLink 600 GB/s; PCIe Gen4 "
         "64 GB/s. https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/pdf/"
         "nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf"},
        {"[S32]",
         "NVIDIA A100 Tensor Core GPU Architecture whitepaper (GA100): 108 SMs, boost 1410 MHz, "
         "1024 dense FP16 FMA/clk/SM, 40 MB L2, 164 KB shared memory per SM. "
         "https://images.nvidia.com/aem-dam/en-zz/Solutions/data-center/"
         "nvidia-ampere-architecture-whitepaper.pdf"},
        {"[S33]",
         "NVIDIA A800 Tensor Core GPU datasheet (export variant of A100): A100 compute and memory, "
         "NVLink 400 GB/s. https://www.nvidia.cn/data-center/a800/"},
        {"[S34]",
         "NVIDIA A30 Tensor Core GPU datasheet: 24 GB HBM2 933 GB/s, BF16 165|330, TF32 82|165, "
         "INT8 330|661, FP32 10.3, FP64 5.2 TF, 165 W, NVLink bridge 200 GB/s. "
         "https://www.nvidia.com/en-us/data-center/products/a30-gpu/"},
        {"[S35]",
         "NVIDIA V100 Tensor Core GPU datasheet: SXM2 FP64 7.8, FP32 15.7, tensor 125 TF, 300 W, "
         "NVLink 300 GB/s; PCIe FP64 7, FP32 14, tensor 112 TF, 250 W, PCIe Gen3 32 GB/s; "
         "16/32 GB HBM2 900 GB/s. https://images.nvidia.com/content/technologies/volta/pdf/"
         "volta-v100-datasheet-update-us-1165301-r5.pdf"},
        {"[S36]",
         "NVIDIA Tesla V100 GPU Architecture whitepaper (GV100): 80 SMs, 8 tensor cores per SM x "
         "64 FMA/clk, boost 1530 MHz (SXM2) / 1380 MHz (PCIe), 6 MB L2, 96 KB shared memory per "
         "SM. https://images.nvidia.com/content/volta-architecture/pdf/"
         "volta-architecture-whitepaper.pdf"},
        {"[S37]",
         "NVIDIA Ada GPU Architecture whitepaper v2.1, appendix A (RTX 4090: 128 SMs, boost "
         "2520 MHz, 72 MB L2, 24 GB GDDR6X 1008 GB/s, 450 W; FP8 660.6/330.3, FP16 330.3/165.2, "
         "BF16 165.2, TF32 82.6 TF with FP16/FP32 accumulate, INT8 660.6 TOPS, FP32 82.6). "
         "https://images.nvidia.com/aem-dam/Solutions/geforce/ada/"
         "nvidia-ada-gpu-architecture.pdf"},
        {"[S38]",
         "NVIDIA L4 Tensor Core GPU datasheet: FP32 30.3, TF32 120*, BF16/FP16 242*, FP8 485*, "
         "INT8 485* (* sparse), 24 GB GDDR6 300 GB/s, 72 W, PCIe Gen4 x16; 7424 CUDA cores (58 "
         "SMs), boost 2040 MHz, 48 MB L2. https://www.nvidia.com/en-us/data-center/l4/"},
        {"[S39]",
         "NVIDIA L40S datasheet: FP32 91.6, TF32 183|366, BF16/FP16 362.05|733, FP8 733|1466, "
         "INT8 733|1466; 48 GB GDDR6 864 GB/s; 350 W; PCIe Gen4 x16; 18176 CUDA cores (142 SMs), "
         "boost 2520 MHz, 96 MB L2. https://www.nvidia.com/en-us/data-center/l40s/"},
        {"[S40]",
         "NVIDIA H100 Tensor Core GPU datasheet, SXM / PCIe / NVL columns (sparse tensor "
         "figures): PCIe 80 GB 2 TB/s, 300-350 W, FP8 3026, BF16 1513, FP32 51, FP64 26; NVL "
         "94 GB 3.9 TB/s, 350-400 W, FP8 3341, BF16 1671, FP32 60, FP64 30, NVLink 600 GB/s. "
         "https://resources.nvidia.com/en-us-tensor-core/nvidia-tensor-core-gpu-datasheet"},
        {"[S41]",
         "H800: deepseek-ai/FlashMLA issue #75 (H800 SXM5: 3.35 TB/s, 989 TF dense BF16) and "
         "philisun.com, NVIDIA H800 vs H100 (same die; NVLink 400 GB/s bidirectional instead of "
         "900; FP64 1 TF). https://github.com/deepseek-ai/FlashMLA/issues/75"},
        {"[S42]",
         "H20 (export Hopper), third-party summaries: willitrunai.com/gpus/h20-96gb (96 GB HBM3, "
         "4.0 TB/s, 148 TF FP16, 296 INT8, NVLink 900 GB/s, 400 W) and zangshuxian.com (Geekbench: "
         "78 SMs; FP8 296, TF32 74, FP32 44, FP64 1 TF); 60 MB L2 per ke60.top."},
        {"[S43]",
         "NVIDIA H200 Tensor Core GPU datasheet, H200 SXM and H200 NVL columns (sparse tensor "
         "figures): NVL 141 GB 4.8 TB/s, up to 600 W, FP8 3341, BF16 1671, TF32 835, FP32 60, "
         "FP64 30, NVLink bridge 900 GB/s. https://www.nvidia.com/en-us/data-center/h200/"},
        {"[S44]",
         "NVIDIA GH200 Grace Hopper Superchip datasheet: H100 compute (FP8 3958*, BF16 1979*); "
         "96 GB HBM3 4 TB/s or 144 GB HBM3e 4.9 TB/s; module power 450-1000 W programmable (CPU, "
         "GPU, memory); NVLink-C2C 900 GB/s. https://resources.nvidia.com/en-us-grace-cpu/"
         "grace-hopper-superchip"},
        {"[S45]",
         "Jetson AGX Thor (T5000): NVIDIA developer forum thread 356355 (device query: name "
         "\"NVIDIA Thor\", 20 SMs, 32 MiB L2, 228 KiB shared memory per SM); RidgeRun wiki (2560 "
         "CUDA cores, 96 tensor cores); NVIDIA Jetson Thor page (2070 FP4 TFLOPS sparse, 128 GB "
         "LPDDR5X, 273 GB/s, 40-130 W). https://www.nvidia.com/en-us/autonomous-machines/"
         "embedded-systems/jetson-thor/"},
        {"[S46]",
         "RTX PRO 5000 / 4500 Blackwell, NVIDIA launch figures as summarised by purepc.pl (PRO "
         "5000: GB202, 110 SMs, 14080 cores, 48 GB GDDR7 384-bit 1344 GB/s, 300 W), grokipedia "
         "(72 GB edition, 2064 AI TOPS) and technical.city (PRO 4500: GB203, 10496 cores, 32 GB "
         "256-bit 896 GB/s, 200 W, boost 2617 MHz, 64 MB L2; PRO 5000: boost 2377 MHz, 96 MB L2)."},
        {"[S47]",
         "GeForce RTX 5080 (GB203): biggo.com review summary (10752 CUDA cores = 84 SMs, 16 GB "
         "GDDR7 30 Gbps, 960 GB/s, 360 W TGP) and zzw4257 blog quoting NVIDIA (1801 AI TOPS, "
         "56.3 TF FP32); 2617 MHz boost and 64 MB L2 per technical.city."},
        {"[O2]",
         "cudaGetDeviceProperties in the HolisticTraceAnalysis test traces (facebookresearch/"
         "HolisticTraceAnalysis @f4d0062, tests/data): \"NVIDIA A100-PG509-200\" (42297524224 B, "
         "108 SMs, CC 8.0), \"NVIDIA A100-SXM4-80GB\" (84990623744 B), \"Tesla V100-SXM2-32GB\" "
         "(34089730048 B, 80 SMs, CC 7.0), \"Tesla V100-SXM2-16GB\" (16945512448 B)."},
        {"[O1]",
         "cudaGetDeviceProperties of 8 B200s as recorded in a Kineto trace "
         "(AMD-AGI/TraceLens @171dd74, tests/traces/b200/eager_trace.json.gz): name "
         "\"NVIDIA B200\", CC 10.0, 148 SMs, 191503138816 B, smem 233472/232448 B."},
        {"[O3]",
         "cudaGetDeviceProperties of 8 H800s as recorded in DeepSeek's Kineto training trace "
         "(deepseek-ai/profile-data @4496024, train.json, deviceProperties): name \"NVIDIA H800\", "
         "84943110144 B."},
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
