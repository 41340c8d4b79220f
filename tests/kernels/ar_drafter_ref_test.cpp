// The autoregressive drafter references (MTP-1, EAGLE-3): hand-computable rounds with identity-like
// weights (a token counter through the embedding path, the fc's column layout and the d2t map),
// γ = 2 equal to two chained γ = 1 rounds with a context update between them, causality within a
// round, and the cache as the only context.
#include <algorithm>
#include <cmath>
#include <random>

#include <catch2/catch.hpp>

#include "kernels/reference/eagle3_ref.hpp"
#include "kernels/reference/mtp1_ref.hpp"

namespace sparksim::kernels {
namespace {

const TransformerShape kTarget = tiny_qwen3_shape();  // hidden 64, vocab 128
constexpr int kSlots = 3;
constexpr int kCapacity = 40;

const TargetWeights& target() {
  static const TargetWeights w = make_random_target_weights(kTarget, 5, 0.1);
  return w;
}

HostKvCache noisy(std::uint64_t seed) {
  HostKvCache c({1, kSlots, kCapacity, kTarget.kv_heads, kTarget.head_dim});
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> d(0.0f, 3.0f);
  for (float& v : c.k) v = d(rng);
  for (float& v : c.v) v = d(rng);
  return c;
}

std::vector<double> states(int n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> d(0.0, 2.0);
  std::vector<double> out(static_cast<std::size_t>(n));
  for (double& v : out) v = d(rng);
  return out;
}

double max_diff(const double* a, const double* b, std::size_t n) {
  double m = 0.0;
  for (std::size_t i = 0; i < n; ++i) m = std::max(m, std::abs(a[i] - b[i]));
  return m;
}

// A layer whose attention and MLP add nothing: the residual stream passes through unchanged.
void silence(LayerWeights& l) {
  std::fill(l.wo.begin(), l.wo.end(), 0.0f);
  std::fill(l.w_down.begin(), l.w_down.end(), 0.0f);
}

// Gains of 1, so that RMSNorm of c * e_i is sqrt(n) e_i (up to eps).
void unit(std::vector<float>& gain) {
  std::fill(gain.begin(), gain.end(), 1.0f);
}

// RMSNorm of c e_i over the tiny hidden (64), gain 1, eps 1e-6: about 8 = sqrt(64).
double normed(double c) {
  return c / std::sqrt(c * c / 64.0 + kTarget.rms_eps);
}

// Embedding row t = 3 e_{(t+1) mod hidden}; LM head row j = e_j for j < hidden, else 0.
TargetWeights counter_target() {
  TargetWeights t = target();
  const int h = kTarget.hidden;
  std::fill(t.embed.begin(), t.embed.end(), 0.0f);
  std::fill(t.lm_head.begin(), t.lm_head.end(), 0.0f);
  for (int tok = 0; tok < kTarget.vocab; ++tok) t.embed[tok * h + (tok + 1) % h] = 3.0f;
  for (int j = 0; j < h; ++j) t.lm_head[j * h + j] = 1.0f;
  return t;
}

TEST_CASE("mtp1 with eh_proj = [I | 0] and a silent layer counts tokens up",
          "[kernels][mtp1_ref]") {
  const TargetWeights t = counter_target();
  const int h = kTarget.hidden;
  Mtp1Weights w = make_random_mtp1_weights(kTarget, 5, 0.1);
  std::fill(w.eh_proj.begin(), w.eh_proj.end(), 0.0f);
  for (int i = 0; i < h; ++i) w.eh_proj[i * 2 * h + i] = 1.0f;  // x = enorm(Emb t)
  unit(w.enorm);
  unit(w.head_norm);
  silence(w.layer);
  const HostKvCache cache = noisy(1);
  const std::vector<double> last = states(h, 2);
  // Emb(anchor 10) = 3 e_11 -> x = normed(3) e_11 -> logit normed(normed(3)) at 11, then 12, 13.
  const ArDraftResult r = mtp1_draft_ref(w, t, cache, 0, 7, last.data(), 10, 3);
  CHECK(r.tokens == std::vector<int>{11, 12, 13});
  const auto v = static_cast<std::size_t>(kTarget.vocab);
  for (int k = 0; k < 3; ++k) {
    CHECK(r.logits[k * v + 11 + k] == Approx(normed(normed(3.0))).epsilon(1e-12));
    CHECK(r.hidden[static_cast<std::size_t>(k) * h + 11 + k] == Approx(normed(3.0)).epsilon(1e-12));
  }
}

TEST_CASE("mtp1 with eh_proj = [0 | I] drafts from the hidden state", "[kernels][mtp1_ref]") {
  const TargetWeights t = counter_target();
  const int h = kTarget.hidden;
  Mtp1Weights w = make_random_mtp1_weights(kTarget, 5, 0.1);
  std::fill(w.eh_proj.begin(), w.eh_proj.end(), 0.0f);
  for (int i = 0; i < h; ++i) w.eh_proj[i * 2 * h + h + i] = 1.0f;  // x = hnorm(h)
  unit(w.hnorm);
  unit(w.head_norm);
  silence(w.layer);
  std::vector<double> last(static_cast<std::size_t>(h), 0.0);
  last[40] = -0.5;
  last[23] = 5.0;
  const ArDraftResult r = mtp1_draft_ref(w, t, noisy(1), 1, 5, last.data(), 10, 2);
  // Pass 1 sees its own output (still argmax 23), not the anchor's embedding.
  CHECK(r.tokens == std::vector<int>{23, 23});
}

TEST_CASE("mtp1 gamma = 2 equals two chained gamma = 1 rounds", "[kernels][mtp1_ref]") {
  const Mtp1Weights w = make_random_mtp1_weights(kTarget, 5, 0.1);
  const std::vector<double> last = states(kTarget.hidden, 3);
  HostKvCache cache = noisy(4);
  const int ctx = 9;
  const int anchor = 77;
  const ArDraftResult two = mtp1_draft_ref(w, target(), cache, 2, ctx, last.data(), anchor, 2);
  const ArDraftResult first = mtp1_draft_ref(w, target(), cache, 2, ctx, last.data(), anchor, 1);
  // Pass 0's position becomes context: the target state there and the anchor after it.
  mtp1_context_update_ref(w, target(), last.data(), &anchor, 1, ctx, 2, cache);
  const ArDraftResult second =
      mtp1_draft_ref(w, target(), cache, 2, ctx + 1, first.hidden.data(), first.tokens[0], 1);
  const auto v = static_cast<std::size_t>(kTarget.vocab);
  CHECK(two.tokens == std::vector<int>{first.tokens[0], second.tokens[0]});
  CHECK(max_diff(two.logits.data(), first.logits.data(), v) == 0.0);
  CHECK(max_diff(two.logits.data() + v, second.logits.data(), v) < 1e-12);
  CHECK(max_diff(two.logits.data() + v, first.logits.data(), v) > 1e-3);  // not a copy
}

TEST_CASE("mtp1 attends to its cache below context_len only", "[kernels][mtp1_ref]") {
  const Mtp1Weights w = make_random_mtp1_weights(kTarget, 5, 0.1);
  const std::vector<double> last = states(kTarget.hidden, 3);
  const HostKvCache cache = noisy(4);
  const ArDraftResult base = mtp1_draft_ref(w, target(), cache, 0, 6, last.data(), 5, 2);
  HostKvCache beyond = cache;
  beyond.k[beyond.shape.offset(0, 0, 6)] += 50.0f;  // position 6: not context
  HostKvCache inside = cache;
  inside.v[inside.shape.offset(0, 0, 0)] += 50.0f;  // position 0: context
  const std::size_t n = base.logits.size();
  CHECK(max_diff(base.logits.data(),
                 mtp1_draft_ref(w, target(), beyond, 0, 6, last.data(), 5, 2).logits.data(),
                 n) == 0.0);
  CHECK(max_diff(base.logits.data(),
                 mtp1_draft_ref(w, target(), inside, 0, 6, last.data(), 5, 2).logits.data(),
                 n) > 1e-6);
}

TEST_CASE("eagle3 shape, d2t and weights", "[kernels][eagle3_ref]") {
  const Eagle3Shape s = eagle3_shape(kTarget);
  CHECK(s.draft_vocab == 32);
  CHECK(s.target_layer_ids == std::vector<int>{0, 1, 1});
  CHECK(eagle3_shape(qwen3_shape("qwen3-8b")).target_layer_ids == std::vector<int>{2, 18, 33});
  CHECK(eagle3_shape(qwen3_shape("qwen3-8b")).draft_vocab == 32000);
  const Eagle3Weights w = make_random_eagle3_weights(kTarget, s, 5, 0.1);
  REQUIRE(w.d2t.size() == 32u);
  for (int i = 0; i < 32; ++i) {
    CHECK(w.d2t[i] >= i * 4);  // one id per stride of 128 / 32
    CHECK(w.d2t[i] < (i + 1) * 4);
  }
  CHECK(w.layer.wqkv.size() == static_cast<std::size_t>(kTarget.qkv_width()) * 2 * 64);
  CHECK(w.lm_head.size() == 32u * 64u);
  Eagle3Shape bad = s;
  bad.target_layer_ids = {0, 1};
  CHECK_THROWS_AS(make_random_eagle3_weights(kTarget, bad, 5), std::invalid_argument);
}

TEST_CASE("eagle3 with fc picking one state and a silent layer maps through d2t",
          "[kernels][eagle3_ref]") {
  const int h = kTarget.hidden;
  Eagle3Weights w = make_random_eagle3_weights(kTarget, eagle3_shape(kTarget), 5, 0.1);
  silence(w.layer);
  unit(w.final_norm);
  std::fill(w.lm_head.begin(), w.lm_head.end(), 0.0f);
  for (int j = 0; j < w.shape.draft_vocab; ++j) w.lm_head[j * h + j] = 1.0f;
  std::vector<double> last(3 * static_cast<std::size_t>(h), 0.0);
  last[0 * h + 3] = 5.0;   // low
  last[1 * h + 17] = 5.0;  // mid
  last[2 * h + 29] = 5.0;  // high
  const auto pick = [&](int which) {
    std::fill(w.fc.begin(), w.fc.end(), 0.0f);
    for (int i = 0; i < h; ++i) w.fc[i * 3 * h + which * h + i] = 1.0f;
    return eagle3_draft_ref(w, target(), noisy(1), 0, 4, last.data(), 9, 2);
  };
  const ArDraftResult high = pick(2);
  // g = 5 e_29 passes the silent layer; final norm normed(5) e_29: draft id 29 in both passes.
  CHECK(high.tokens == std::vector<int>{w.d2t[29], w.d2t[29]});
  CHECK(high.logits[29] == Approx(normed(5.0)).epsilon(1e-12));
  CHECK(pick(1).tokens[0] == w.d2t[17]);
  CHECK(pick(0).tokens[0] == w.d2t[3]);
  // p_draft lives on d2t's image and sums to 1.
  const auto v = static_cast<std::size_t>(kTarget.vocab);
  double on_image = 0.0, total = 0.0;
  for (std::size_t j = 0; j < v; ++j) {
    total += high.p_draft[j];
    if (std::find(w.d2t.begin(), w.d2t.end(), static_cast<int>(j)) != w.d2t.end()) {
      on_image += high.p_draft[j];
    }
  }
  CHECK(total == Approx(1.0).epsilon(1e-12));
  CHECK(on_image == Approx(1.0).epsilon(1e-12));
}

TEST_CASE("eagle3 rounds are causal and read their cache", "[kernels][eagle3_ref]") {
  const Eagle3Weights w = make_random_eagle3_weights(kTarget, eagle3_shape(kTarget), 5, 0.1);
  const std::vector<double> last = states(3 * kTarget.hidden, 3);
  HostKvCache cache = noisy(4);
  const ArDraftResult three = eagle3_draft_ref(w, target(), cache, 1, 8, last.data(), 44, 3);
  const ArDraftResult two = eagle3_draft_ref(w, target(), cache, 1, 8, last.data(), 44, 2);
  const std::size_t dv = 32;
  CHECK(max_diff(three.logits.data(), two.logits.data(), 2 * dv) == 0.0);
  CHECK(max_diff(three.logits.data() + dv, three.logits.data(), dv) > 1e-6);
  // A context update at positions 0..7 rewrites the cache the round reads.
  std::vector<int> next(8, 3);
  const std::vector<double> ctx_states = states(8 * 3 * kTarget.hidden, 6);
  eagle3_context_update_ref(w, target(), ctx_states.data(), next.data(), 8, 0, 1, cache);
  const ArDraftResult after = eagle3_draft_ref(w, target(), cache, 1, 8, last.data(), 44, 2);
  CHECK(max_diff(after.logits.data(), two.logits.data(), dv) > 1e-6);
  CHECK_THROWS_AS(eagle3_draft_ref(w, target(), cache, 1, 8, last.data(), 128, 2),
                  std::invalid_argument);
  CHECK_THROWS_AS(
      eagle3_context_update_ref(w, target(), ctx_states.data(), next.data(), 8, 35, 1, cache),
      std::invalid_argument);
  // A next token outside the vocabulary stops the update before any position is written.
  const std::vector<double> other_states = states(8 * 3 * kTarget.hidden, 7);
  next[5] = kTarget.vocab;
  const std::vector<float> k_before = cache.k;
  const std::vector<float> v_before = cache.v;
  CHECK_THROWS_WITH(
      eagle3_context_update_ref(w, target(), other_states.data(), next.data(), 8, 0, 1, cache),
      Catch::Contains("eagle3: next token out of range"));
  CHECK(cache.k == k_before);
  CHECK(cache.v == v_before);
}

}  // namespace
}  // namespace sparksim::kernels
