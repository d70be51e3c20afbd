// A consumer built as an integrator would, with no CMake, no data directory and no -D:
//   g++ -std=c++20 -I include tests/consumer/plain_gxx/main.cpp -lfmt -lz
// It includes the umbrella (which must not need Eigen's include path), reads the Kineto trace of
// a 16384^3 bf16 GEMM on an H200 (data/samples/h200/gemm_power: the kernel rules are compiled
// in), prices that GEMM on the datasheet roofline and prints how close the measured kernels came.
// Exit 0 when it finds the 15 nvjet GEMM kernels the file holds and the price is compute-bound.
#include <cstdio>
#include <string>

#include <roofline/roofline.hpp>

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: consumer TRACE.json.gz\n");
        return 2;
    }
    try {
        const roofline::kernel_trace trace = roofline::read_kineto(argv[1]);
        std::size_t gemms = 0;
        double gemm_s = 0;
        for (const auto& e : trace.events)
            if (e.phase == roofline::kernel_phase::gemm) {
                ++gemms;
                gemm_s += e.duration_s;
            }
        const auto catalog = roofline::gpu_catalog::builtin();
        const auto& gpu = catalog.at("h200-sxm");
        const roofline::gemm_shape shape{16384, 16384, 16384};
        const auto w = roofline::gemm_workload(shape, roofline::dtype::bf16, roofline::dtype::bf16,
                                               roofline::dtype::bf16, gpu);
        const auto t = roofline::time_lower_bound(w, roofline::datasheet_ceilings(gpu));
        const double mean_s = gemms ? gemm_s / double(gemms) : 0.0;
        std::printf("%s\n%zu GEMM kernels, mean %.2f ms; %s SOL %.2f ms (%s-bound): %.0f%% of SOL\n",
                    roofline::version_line().c_str(), gemms, mean_s * 1e3, gpu.id.c_str(),
                    t.lower_bound_s * 1e3, std::string(roofline::to_string(t.predicted)).c_str(),
                    mean_s > 0 ? 100.0 * t.lower_bound_s / mean_s : 0.0);
        return gemms == 15 && t.predicted == roofline::bound::compute ? 0 : 1;
    } catch (const roofline::error& e) {
        std::fprintf(stderr, "consumer: error: %s\n", e.what());
        return 2;
    }
}
