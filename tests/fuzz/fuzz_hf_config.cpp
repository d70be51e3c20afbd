// Fuzz target: Hugging Face config.json (io/hf_config.hpp), followed by what `roofline model`
// computes from it (parameter count, KV cache per token and per GPU): a config the reader
// accepts must not make the models misbehave.
#include <cstddef>
#include <cstdint>

#include "fuzz_support.hpp"
#include "roofline/io/hf_config.hpp"
#include "roofline/models/kv_cache.hpp"
#include "roofline/models/parameters.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace roofline;
    const std::string* input = fuzz::input_path_for(data, size);
    if (!input) return -1;
    const std::string& path = *input;
    fuzz::expect_only_roofline_errors([&] {
        const model_config c = read_hf_config(path);
        const auto pc = count_parameters(c);
        (void)pc;
        (void)kv_bytes_per_token(c, c.quant.kv_cache);
        (void)kv_bytes_per_token_full_layers(c, c.quant.kv_cache);
        (void)kv_per_gpu(c, c.quant.kv_cache, 8);
    }, path);
    return 0;
}
