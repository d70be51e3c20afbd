// `roofline roof`: ceilings and ridge points of one GPU. (Being completed: --svg.)
#include <fmt/format.h>

#include "cli.hpp"
#include "roofline/core/catalog.hpp"
#include "roofline/core/roofline.hpp"

namespace roofline::cli {

void add_roof_command(CLI::App& app, common_options& common) {
    auto* cmd = app.add_subcommand("roof", "Ceilings and ridge points of a GPU");
    static std::string gpu_id, dtype_name = "bf16";
    cmd->add_option("--gpu", gpu_id, "GPU id (see `roofline gpus`)")->required();
    cmd->add_option("--dtype", dtype_name, "dtype of the matrix math");
    cmd->callback([&common] {
        (void)common;
        const auto catalog = gpu_catalog::builtin();
        const auto& g = catalog.at(gpu_id);
        const auto d = parse_dtype_or_throw(dtype_name);
        const auto c = datasheet_ceilings(g);
        fmt::print("{}: {} peak {:.1f} TFLOP/s, DRAM {:.2f} TB/s, ridge {:.0f} FLOP/byte\n", g.id,
                   to_string(d), c.flops_at(peak_of(d)) / 1e12, c.bytes_at(memory_level::dram) / 1e12,
                   ridge_point(c, peak_of(d)));
    });
}

}  // namespace roofline::cli
