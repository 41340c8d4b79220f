// The verify forward's CPU reference: the properties a ragged, KV-cached, causal forward must
// have, each of which a plausible bug breaks (reading another request's slot, attending past the
// token's own position, appending K/V at the wrong place, mixing up chunk offsets).
#include "kernels/reference/verify_forward_ref.hpp"

#include <algorithm>
#include <cmath>
#include <random>

#include <catch2/catch.hpp>

#include "kernels/reference/ops_ref.hpp"
#include "tests/kernels/tiny_model_fixture.hpp"

namespace sparksim::kernels {
namespace {

const TransformerShape kShape = tiny_qwen3_shape();
const TargetWeights& weights() {
  return test::tiny_target(7);
}

KvCacheShape cache_shape() {
  return {kShape.layers, 4, 48, kShape.kv_heads, kShape.head_dim};
}

HostKvCache noisy_cache(std::uint64_t seed) {
  return test::noisy_cache(cache_shape(), seed);
}

std::vector<int> tokens(int n, int salt) {
  std::vector<int> out;
  for (int i = 0; i < n; ++i) out.push_back((i * 37 + salt * 11 + 5) % kShape.vocab);
  return out;
}

using test::single_request;

double max_abs(const std::vector<double>& v) {
  double m = 0.0;
  for (double x : v) m = std::max(m, std::abs(x));
  return m;
}

double max_diff(const std::vector<double>& a, const std::vector<double>& b, std::size_t a_off,
                std::size_t b_off, std::size_t n) {
  double m = 0.0;
  for (std::size_t i = 0; i < n; ++i) m = std::max(m, std::abs(a[a_off + i] - b[b_off + i]));
  return m;
}

TEST_CASE("ragged batch logits equal each request run alone", "[kernels][verify_ref]") {
  // Three requests with different histories (prefilled through the same forward), then one
  // verify step of 1 + 3, 1 + 0 and 1 + 6 tokens in a single ragged batch.
  const std::vector<int> contexts = {5, 0, 17};
  const std::vector<int> slots = {2, 0, 3};
  const std::vector<int> lengths = {4, 1, 7};
  HostKvCache batched = noisy_cache(1);
  for (int r = 0; r < 3; ++r) {
    if (contexts[r] > 0)
      verify_forward_ref(weights(), single_request(tokens(contexts[r], r), 0, slots[r]), batched);
  }
  HostKvCache alone = batched;
  RaggedBatch batch;
  batch.cu_seqlens = {0};
  batch.context_lens = contexts;
  batch.slots = slots;
  for (int r = 0; r < 3; ++r) {
    const auto t = tokens(lengths[r], 10 + r);
    batch.tokens.insert(batch.tokens.end(), t.begin(), t.end());
    batch.cu_seqlens.push_back(batch.cu_seqlens.back() + lengths[r]);
  }
  const std::vector<double> together = verify_forward_ref(weights(), batch, batched);
  const auto v = static_cast<std::size_t>(kShape.vocab);
  const double scale = max_abs(together);
  REQUIRE(scale > 0.1);
  for (int r = 0; r < 3; ++r) {
    const std::vector<double> own = verify_forward_ref(
        weights(), single_request(tokens(lengths[r], 10 + r), contexts[r], slots[r]), alone);
    INFO("request " << r);
    CHECK(max_diff(together, own, batch.cu_seqlens[r] * v, 0, lengths[r] * v) <= 1e-12 * scale);
  }
  // Same K/V appended either way.
  CHECK(batched.k == alone.k);
  CHECK(batched.v == alone.v);
}

TEST_CASE("later tokens do not change earlier logits", "[kernels][verify_ref]") {
  HostKvCache short_cache = noisy_cache(2);
  verify_forward_ref(weights(), single_request(tokens(9, 3), 0, 1), short_cache);
  HostKvCache long_cache = short_cache;
  std::vector<int> toks = tokens(6, 4);
  const std::vector<double> short_logits = verify_forward_ref(
      weights(), single_request({toks.begin(), toks.begin() + 3}, 9, 1), short_cache);
  const std::vector<double> long_logits =
      verify_forward_ref(weights(), single_request(toks, 9, 1), long_cache);
  const auto v = static_cast<std::size_t>(kShape.vocab);
  CHECK(max_diff(short_logits, long_logits, 0, 0, 3 * v) <= 1e-12 * max_abs(short_logits));
  // ... while the later positions' logits do depend on the tokens (the test has power).
  CHECK(max_diff(long_logits, long_logits, 3 * v, 4 * v, v) > 1e-3);
}

TEST_CASE("two prefill chunks equal one pass", "[kernels][verify_ref]") {
  const std::vector<int> toks = tokens(12, 5);
  HostKvCache one = noisy_cache(3);
  HostKvCache two = one;
  const std::vector<double> whole = verify_forward_ref(weights(), single_request(toks, 0, 0), one);
  verify_forward_ref(weights(), single_request({toks.begin(), toks.begin() + 7}, 0, 0), two);
  const std::vector<double> tail =
      verify_forward_ref(weights(), single_request({toks.begin() + 7, toks.end()}, 7, 0), two);
  const auto v = static_cast<std::size_t>(kShape.vocab);
  CHECK(max_diff(whole, tail, 7 * v, 0, 5 * v) <= 1e-12 * max_abs(whole));
  CHECK(one.k == two.k);
}

TEST_CASE("captured last-layer state reproduces the logits", "[kernels][verify_ref]") {
  HostKvCache cache = noisy_cache(4);
  ForwardCapture capture{{kShape.layers - 1, 0}, {}};
  const std::vector<double> logits =
      verify_forward_ref(weights(), single_request(tokens(3, 6), 0, 2), cache, &capture);
  const auto h = static_cast<std::size_t>(kShape.hidden);
  REQUIRE(capture.states.size() == 3 * 2 * h);
  std::vector<double> normed(h);
  std::vector<double> again(static_cast<std::size_t>(kShape.vocab));
  for (int t = 0; t < 3; ++t) {
    rms_norm_ref(capture.states.data() + t * 2 * h, weights().final_norm.data(), kShape.hidden,
                 kShape.rms_eps, normed.data());
    matvec_ref(weights().lm_head.data(), normed.data(), kShape.vocab, kShape.hidden, again.data());
    CHECK(max_diff(logits, again, t * again.size(), 0, again.size()) <= 1e-12 * max_abs(logits));
  }
  // Layer 0's state is a different vector (the capture order follows layer_ids).
  CHECK(max_diff(capture.states, capture.states, 0, h, h) > 1e-6);
}

TEST_CASE("bad batches are rejected before any work", "[kernels][verify_ref]") {
  HostKvCache cache = noisy_cache(5);
  const HostKvCache before = cache;
  // Overflows its slot (48 tokens), repeats a slot, a token outside the vocabulary.
  CHECK_THROWS_AS(verify_forward_ref(weights(), single_request(tokens(3, 0), 46, 0), cache),
                  std::invalid_argument);
  CHECK_THROWS_AS(
      verify_forward_ref(weights(), RaggedBatch{{1, 2}, {0, 1, 2}, {0, 0}, {1, 1}}, cache),
      std::invalid_argument);
  CHECK_THROWS_AS(verify_forward_ref(weights(), single_request({kShape.vocab}, 0, 0), cache),
                  std::invalid_argument);
  CHECK(cache.k == before.k);
}

}  // namespace
}  // namespace sparksim::kernels
