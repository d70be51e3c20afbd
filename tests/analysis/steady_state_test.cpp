// Tests of analysis/steady_state.hpp: the shared steady-state formulas, by hand.
#include <doctest/doctest.h>

#include "approx.hpp"

#include "roofline/analysis/steady_state.hpp"

using namespace roofline;

TEST_CASE("mean decode context and the steady-state prefill chunk") {
    CHECK(mean_decode_context_tokens(1024, 512) == 1280);
    CHECK(mean_decode_context_tokens(0, 1) == 1);  // at least one token
    // 256 requests of 1,024 tokens: the 8,192-token chunk holds 8 prompts.
    auto p = steady_prefill_chunk(1024, 256);
    CHECK(p.group.count == 8);
    CHECK(p.group.new_tokens == 1024);
    CHECK(p.tokens == 8192);
    CHECK(p.chunks_per_prompt == 1);
    // 4 requests: all four prompts in one step of 4,096 tokens.
    p = steady_prefill_chunk(1024, 4);
    CHECK(p.tokens == 4096);
    CHECK(p.batch().tokens() == 4096);
    // A 20,000-token prompt: chunks of 8,192 on a mean cached prefix of 10,000; 3 chunks.
    p = steady_prefill_chunk(20000, 64);
    CHECK(p.group.count == 1);
    CHECK(p.group.context_tokens == 10000);
    CHECK(p.tokens == 8192);
    CHECK(p.chunks_per_prompt == 3);
}

TEST_CASE("steady-state rates, TPOT and TTFT, by hand") {
    // Decode step 30 ms for 64 sequences, prefill 0.1 ms per prompt token, ISL / OSL = 2:
    // per output token 30 / 64 = 0.46875 ms + 2 x 0.1 = 0.66875 ms -> 1,495.33 tok/s out,
    // x 3 = 4,485.98 total; decode share 0.46875 / 0.66875 = 0.70093; TPOT = 64 / r_out =
    // 42.8 ms = 30 ms + 64 x 2 x 0.1 ms.
    const auto r = steady_state(0.030, 64, 64, 1e-4, 2.0);
    CHECK(r.output_tokens_per_s == approx(1495.327).epsilon(1e-6));
    CHECK(r.total_tokens_per_s == approx(3 * 1495.327).epsilon(1e-6));
    CHECK(r.decode_share == approx(0.700935).epsilon(1e-5));
    CHECK(r.tpot_s == approx(0.0428));
    // Two pipeline stages: 64 requests as two micro-batches of 32, 20 ms per stage step:
    // 1,600 tok/s; each request gets a token every 2 x 20 ms.
    const auto pp = steady_state(0.020, 32, 64, std::nullopt, 0.0);
    CHECK(pp.output_tokens_per_s == approx(1600));
    CHECK(pp.tpot_s == approx(0.040));
    CHECK(pp.decode_share == 1.0);
    CHECK(steady_ttft_s(0.1, 1, 1) == approx(0.1));
    CHECK(steady_ttft_s(0.1, 3, 2) == approx(0.4));  // 3 chunks + 1 more stage
    // Three prompts share one 0.1 s chunk: the queue counts the one ahead on average, the own
    // step the prompt and the one behind: 0.1 x (1 + 1/3) / 2 = 0.0667 s.
    CHECK(steady_ttft_s(0.1, 1, 1, 3) == approx(0.1 * 4.0 / 3.0 / 2.0));
    CHECK(steady_ttft_s(0.1, 1, 2, 4) == approx(0.1 * (5.0 / 8.0 + 1.0)));  // + one more stage
    CHECK(steady_ttft_s(0.1, 1, 1, 0.5) == approx(0.1));  // fewer than one prompt: the step
    CHECK(steady_ttft_s(0.1, 3, 1, 5) == approx(0.3));    // a prompt over several chunks holds them
}

TEST_CASE("TPOT between a request's tokens: its decode steps and the other requests' prefill") {
    // t_dec 10 ms, t_pre 0.1 ms per token, ISL 1,000, OSL 100: one request's decode 1 s and
    // prefill 0.1 s. At C = 1 nothing lands between its tokens: 10 ms.
    CHECK(inter_token_s(0.010, 1, 1000, 100, 1e-4) == approx(0.010));
    // C = 11: cycle Z = 1 s + 11 x 0.1 s = 2.1 s; TPOT = 10 ms x 2.1 / 1.1 = 19.09 ms, where
    // C / r_out = t_dec + C (ISL / OSL) t_pre = 21 ms spreads the request's own prompt too.
    CHECK(inter_token_s(0.010, 11, 1000, 100, 1e-4) == approx(0.010 * 2.1 / 1.1));
    CHECK(steady_state(0.010, 11, 11, 1e-4, 10.0).tpot_s == approx(0.021));
    // Fixed point: TPOT = t_dec + (C - 1) ISL t_pre x TPOT / Z.
    const double t = inter_token_s(0.010, 11, 1000, 100, 1e-4);
    CHECK(t == approx(0.010 + 10 * 1000 * 1e-4 * t / 2.1));
    // No prefill modeled: the decode step.
    CHECK(inter_token_s(0.010, 64, 1000, 100, std::nullopt) == approx(0.010));
}
