#pragma once
// Helpers shared by the tests: where the real sample files are, and skipping when absent.

#include <filesystem>
#include <string>

#include <doctest/doctest.h>

#include "roofline/models/model_config.hpp"

namespace roofline::test {

/// Path of a file under ../shared/samples (real files by other people; never copied in).
inline std::filesystem::path shared_sample(const std::string& rel) {
    return std::filesystem::path(ROOFLINE_SHARED_SAMPLES) / rel;
}

/// Path of a file under the repository's data/ folder.
inline std::filesystem::path repo_data(const std::string& rel) {
    return std::filesystem::path(ROOFLINE_SOURCE_DIR) / "data" / rel;
}

/// True when the file exists; otherwise prints why the test is skipped.
inline bool have_sample(const std::filesystem::path& p) {
    if (std::filesystem::exists(p)) return true;
    MESSAGE("skipped: sample file absent: " << p.string());
    return false;
}

/// A dense GQA model small enough to count by hand (tests/models/parameters_test.cpp does):
/// h = 64, 2 layers, 4 heads of 16, 2 KV heads, MLP 128, vocab 100, bf16, untied.
inline model_config tiny_dense_model() {
    model_config c;
    c.name = "tiny";
    c.hidden_size = 64;
    c.num_layers = 2;
    c.num_attention_heads = 4;
    c.num_kv_heads = 2;
    c.head_dim = 16;
    c.intermediate_size = 128;
    c.vocab_size = 100;
    return c;
}

}  // namespace roofline::test
