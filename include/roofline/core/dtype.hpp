#pragma once
// Data types and what they cost in bytes and in tensor-core rate.
//
// Two different questions are answered here:
//  * storage: how many bits one element occupies in memory, including its share of the block
//    scale factors. Block-scaled formats (OCP MX and NVIDIA NVFP4) store one scale per block:
//      NVFP4 = 4-bit E2M1 + one FP8 E4M3 scale per 16 values   -> 4 + 8/16 = 4.5   bits
//      MXFP4 = 4-bit E2M1 + one E8M0 scale per 32 values       -> 4 + 8/32 = 4.25  bits
//      MXFP6 = 6-bit E2M3/E3M2 + one E8M0 scale per 32 values  -> 6 + 8/32 = 6.25  bits
//      MXFP8 = 8-bit E4M3/E5M2 + one E8M0 scale per 32 values  -> 8 + 8/32 = 8.25  bits
//    Sources: OCP Microscaling Formats (MX) v1.0 spec (block 32, E8M0 scale); NVIDIA NVFP4
//    (E2M1, E4M3 scale per 16 values, plus one FP32 per-tensor scale, negligible per element):
//    CUTLASS block-scaled GEMM docs and ModelOpt `hf_quant_config.json` `group_size: 16`.
//  * rate: which tensor-core peak a dtype runs at (`peak_key`), the key used by the GPU
//    catalog's `dense_flops_per_s`. TF32 is stored as FP32 but runs at the TF32 rate.

#include <array>        // std::array
#include <cstddef>      // std::size_t
#include <cstdint>      // std::uint8_t
#include <optional>     // std::optional
#include <string>       // std::string
#include <string_view>  // std::string_view

#include "roofline/core/error.hpp"

namespace roofline {

/// The rate classes of a GPU's arithmetic units, as datasheets list them. The first seven are
/// tensor-core (matrix) rates; fp32 and fp64 are the vector (CUDA-core) rates.
enum class peak_key : std::uint8_t { fp4, fp6, fp8, fp16, bf16, tf32, int8, fp32, fp64 };

inline constexpr std::size_t peak_key_count = 9;

/// All peak keys in catalog order.
inline constexpr std::array<peak_key, peak_key_count> all_peak_keys = {
    peak_key::fp4,  peak_key::fp6,  peak_key::fp8,  peak_key::fp16, peak_key::bf16,
    peak_key::tf32, peak_key::int8, peak_key::fp32, peak_key::fp64};

/// JSON / CLI name of a peak key: "fp4", "fp6", ..., "fp64".
constexpr std::string_view to_string(peak_key k) {
    constexpr std::array<std::string_view, peak_key_count> names = {
        "fp4", "fp6", "fp8", "fp16", "bf16", "tf32", "int8", "fp32", "fp64"};
    return names[static_cast<std::size_t>(k)];
}

/// True for the tensor-core (matrix) rates, false for the vector fp32/fp64 rates.
constexpr bool is_tensor(peak_key k) { return k != peak_key::fp32 && k != peak_key::fp64; }

/// Element types of tensors in memory.
enum class dtype : std::uint8_t {
    fp64,
    fp32,
    tf32,
    bf16,
    fp16,
    fp8_e4m3,
    fp8_e5m2,
    mxfp8,
    fp6,
    nvfp4,
    mxfp4,
    int8,
    int4,  ///< W4A16 integer weights (compressed-tensors pack-quantized, GPTQ, AWQ): group scales
};

inline constexpr std::size_t dtype_count = 13;

/// Static facts about one dtype.
struct dtype_traits {
    dtype id;
    std::string_view name;   ///< canonical CLI name, e.g. "nvfp4"
    int element_bits;        ///< bits of one value, without scales
    int block_size;          ///< values sharing one scale; 0 when not block-scaled
    int scale_bits;          ///< bits of one block scale; 0 when not block-scaled
    peak_key peak;           ///< which catalog peak this dtype's matrix math runs at

    /// Storage bits per element including the block-scale share: b + s / block.
    constexpr double bits_per_element() const {
        return block_size == 0 ? static_cast<double>(element_bits)
                               : element_bits + static_cast<double>(scale_bits) / block_size;
    }
    /// Storage bytes per element including the block-scale share.
    constexpr double bytes_per_element() const { return bits_per_element() / 8.0; }
    constexpr bool block_scaled() const { return block_size != 0; }
};

inline constexpr std::array<dtype_traits, dtype_count> dtype_table = {{
    {dtype::fp64, "fp64", 64, 0, 0, peak_key::fp64},
    {dtype::fp32, "fp32", 32, 0, 0, peak_key::fp32},
    // TF32 operands live in memory as FP32 words; only the tensor core truncates them.
    {dtype::tf32, "tf32", 32, 0, 0, peak_key::tf32},
    {dtype::bf16, "bf16", 16, 0, 0, peak_key::bf16},
    {dtype::fp16, "fp16", 16, 0, 0, peak_key::fp16},
    {dtype::fp8_e4m3, "fp8_e4m3", 8, 0, 0, peak_key::fp8},
    {dtype::fp8_e5m2, "fp8_e5m2", 8, 0, 0, peak_key::fp8},
    {dtype::mxfp8, "mxfp8", 8, 32, 8, peak_key::fp8},
    {dtype::fp6, "fp6", 6, 32, 8, peak_key::fp6},
    {dtype::nvfp4, "nvfp4", 4, 16, 8, peak_key::fp4},
    {dtype::mxfp4, "mxfp4", 4, 32, 8, peak_key::fp4},
    {dtype::int8, "int8", 8, 0, 0, peak_key::int8},
    // Integer 4-bit weights with one BF16 scale per group of 32 (compressed-tensors "int" 4-bit,
    // group strategy, symmetric: Kimi-K2.5's experts): 4 + 16 / 32 = 4.5 bits. No tensor core
    // multiplies them: kernels dequantise to 16 bits (Marlin W4A16), so their math is BF16.
    {dtype::int4, "int4", 4, 32, 16, peak_key::bf16},
}};

/// Traits of a dtype.
constexpr const dtype_traits& traits(dtype d) { return dtype_table[static_cast<std::size_t>(d)]; }

/// Canonical name of a dtype ("bf16", "nvfp4", ...).
constexpr std::string_view to_string(dtype d) { return traits(d).name; }

/// Storage bytes per element including block scales (NVFP4: 0.5625, MXFP4: 0.53125).
constexpr double bytes_per_element(dtype d) { return traits(d).bytes_per_element(); }

/// Which catalog peak this dtype runs at.
constexpr peak_key peak_of(dtype d) { return traits(d).peak; }

namespace detail {
constexpr char ascii_lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c; }
constexpr bool iequals(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (ascii_lower(a[i]) != ascii_lower(b[i])) return false;
    return true;
}
}  // namespace detail

/// Parses a dtype name, case-insensitively. Accepts the canonical names and the spellings that
/// appear in the wild: "fp8"/"e4m3"/"float8_e4m3fn" -> fp8_e4m3, "e5m2" -> fp8_e5m2,
/// "fp4"/"nvfp4" -> nvfp4, "bfloat16"/"c10::BFloat16" -> bf16, "half"/"float16" -> fp16,
/// "float"/"float32" -> fp32, "double"/"float64" -> fp64, "mxfp6"/"fp6" -> fp6, "w4a16" -> int4.
/// Returns nullopt for anything else.
constexpr std::optional<dtype> parse_dtype(std::string_view s) {
    struct alias {
        std::string_view name;
        dtype id;
    };
    constexpr std::array<alias, 30> aliases = {{
        {"fp64", dtype::fp64},         {"float64", dtype::fp64},      {"double", dtype::fp64},
        {"fp32", dtype::fp32},         {"float32", dtype::fp32},      {"float", dtype::fp32},
        {"tf32", dtype::tf32},         {"bf16", dtype::bf16},         {"bfloat16", dtype::bf16},
        {"c10::BFloat16", dtype::bf16}, {"fp16", dtype::fp16},        {"float16", dtype::fp16},
        {"half", dtype::fp16},         {"c10::Half", dtype::fp16},    {"fp8", dtype::fp8_e4m3},
        {"fp8_e4m3", dtype::fp8_e4m3}, {"e4m3", dtype::fp8_e4m3},     {"float8_e4m3fn", dtype::fp8_e4m3},
        {"fp8_e5m2", dtype::fp8_e5m2}, {"e5m2", dtype::fp8_e5m2},     {"mxfp8", dtype::mxfp8},
        {"fp6", dtype::fp6},           {"mxfp6", dtype::fp6},         {"fp4", dtype::nvfp4},
        {"nvfp4", dtype::nvfp4},       {"mxfp4", dtype::mxfp4},       {"int8", dtype::int8},
        {"float8_e5m2", dtype::fp8_e5m2}, {"int4", dtype::int4},      {"w4a16", dtype::int4},
    }};
    for (const auto& a : aliases)
        if (detail::iequals(a.name, s)) return a.id;
    return std::nullopt;
}

/// Like `parse_dtype` but throws `usage_error` naming the value and the accepted names.
inline dtype parse_dtype_or_throw(std::string_view s) {
    if (auto d = parse_dtype(s)) return *d;
    std::string accepted;
    for (const auto& t : dtype_table) {
        if (!accepted.empty()) accepted += ", ";
        accepted += t.name;
    }
    throw usage_error("unknown dtype \"" + std::string(s) + "\" (accepted: " + accepted + ")");
}

/// Parses a peak key name ("fp4" ... "fp64"); nullopt when unknown.
constexpr std::optional<peak_key> parse_peak_key(std::string_view s) {
    for (auto k : all_peak_keys)
        if (detail::iequals(to_string(k), s)) return k;
    return std::nullopt;
}

}  // namespace roofline
