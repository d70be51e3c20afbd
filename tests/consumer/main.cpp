// A consumer of the installed (or added) library: prices a 4096^3 bf16 GEMM on an H200.
#include <cstdio>

#include <roofline/roofline.hpp>

int main() {
    const auto catalog = roofline::gpu_catalog::builtin();
    const auto& gpu = catalog.at("h200-sxm");
    roofline::workload w;
    w.flops_at(roofline::peak_key::bf16) = 2.0 * 4096.0 * 4096.0 * 4096.0;
    w.bytes_at(roofline::memory_level::dram) = 3.0 * 4096.0 * 4096.0 * 2.0;
    const auto t = roofline::time_lower_bound(w, roofline::datasheet_ceilings(gpu));
    std::printf("%s: %.1f us, %s-bound\n", gpu.id.c_str(), t.lower_bound_s * 1e6,
                std::string(roofline::to_string(t.predicted)).c_str());
    return t.predicted == roofline::bound::compute ? 0 : 1;
}
