#pragma once
// What kind of input a file is, told from its first 4 KiB (gzip inflated), for the error a reader
// gives when handed a file of another kind: "an nvidia-smi --query-gpu log (pass it with --power)"
// where a benchmark result was expected, "a SGLang/vLLM benchmark result (`roofline analyze` reads
// it)" where a trace was. Heuristics on well-known headers and keys; an empty string means "not
// recognised" (the caller's own message then stands).

#include <cstdio>
#include <string>

#include "roofline/io/input.hpp"

namespace roofline::io::detail {

/// The first `bytes` bytes of `path` after gzip inflation, and whether the file itself is gzip.
/// Throws what `io::input_file` throws for an unreadable file.
inline std::string input_head(const std::string& path, bool& gzip, std::size_t bytes = 4096) {
    gzip = false;  // `io::input_file` inflates transparently: look at the raw first bytes
    const std::string m = raw_head(path, 2);  // a pipe: its kept content, not consumed
    gzip = m.size() == 2 && static_cast<unsigned char>(m[0]) == 0x1f && static_cast<unsigned char>(m[1]) == 0x8b;
    std::string head(bytes, '\0');
    io::input_file in(path);
    head.resize(in.read(head.data(), head.size()));
    return head;
}

/// Names the kind of a text input from its head (see `input_head`): the JSON kinds roofline reads
/// (Kineto trace, rank summary, calibration, benchmark result, Hugging Face config, nccl-tests JSON)
/// and the text ones (ncu CSV, nccl-tests output, nvidia-smi logs). Each names the command or flag
/// that reads it. `wrapped` is appended to the kind ("" or " (inside gzip)"). Empty when unknown.
inline std::string describe_input_kind(const std::string& head, const std::string& wrapped = "") {
    const auto has = [&](const char* s) { return head.find(s) != std::string::npos; };
    const std::size_t i = head.find_first_not_of(" \t\r\n");
    if (i == std::string::npos) return {};
    if (head[i] == '{' || head[i] == '[') {
        if (has("\"roofline.rank_summary\"")) return "a roofline rank summary" + wrapped + " (`roofline merge` reads it)";
        if (has("\"roofline.calibration")) return "a roofline calibration" + wrapped + " (pass it with --calibration)";
        if (has("\"traceEvents\"")) return "a Kineto/Chrome trace" + wrapped + " (`roofline trace` reads it)";
        if (has("\"backend\"") && (has("throughput") || has("\"completed\"") || has("_ms\"")))
            return "a SGLang/vLLM benchmark result" + wrapped + " (`roofline analyze` reads it)";
        if (has("\"tput_per_gpu\"")) return "an InferenceX benchmark result" + wrapped + " (`roofline analyze` reads it)";
        if (has("\"architectures\"") || has("\"model_type\"") || has("\"num_hidden_layers\""))
            return "a Hugging Face model config" + wrapped + " (pass it with --model)";
        if (has("\"quantization\"") && has("\"quant_algo\""))
            return "a Hugging Face quantisation config" + wrapped + " (pass it with --quant)";
        return {};
    }
    if (has("\"ID\",\"Process ID\"") || has("==PROF=="))
        return "an ncu --csv report" + wrapped + " (`roofline inspect --format ncu` reads it)";
    if (has("out-of-place") && has("busbw")) return "nccl-tests output" + wrapped + " (`roofline calibrate` reads it)";
    if (head[i] == '#' && head.find("gpu", i) != std::string::npos && has("pwr"))
        return "an nvidia-smi dmon log" + wrapped + " (pass it with --power)";
    const std::string first = head.substr(i, head.find('\n', i) - i);
    if (first.find("power.draw") != std::string::npos ||
        (first.find("timestamp") != std::string::npos && first.find("index") != std::string::npos))
        return "an nvidia-smi --query-gpu log" + wrapped + " (pass it with --power)";
    return {};
}

/// `describe_input_kind` of a file; empty when the file cannot be read or is not recognised.
inline std::string describe_input_file(const std::string& path) {
    try {
        bool gzip = false;
        const std::string head = input_head(path, gzip);
        return describe_input_kind(head, gzip ? " (inside gzip)" : "");
    } catch (...) {
        return {};
    }
}

}  // namespace roofline::io::detail
