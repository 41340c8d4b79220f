// The DSpark / dflash drafter reference: context bookkeeping, isolation between requests, the
// Markov head as the only difference between dspark and dflash, and the STS temperature.
#include "kernels/reference/dspark_ref.hpp"

#include <algorithm>
#include <cmath>
#include <random>

#include <catch2/catch.hpp>

#include "tests/kernels/tiny_model_fixture.hpp"

namespace sparksim::kernels {
namespace {

const TransformerShape kTarget = tiny_qwen3_shape();
const DraftShape kDraft = tiny_dspark_shape();

const TargetWeights& target() {
  return test::tiny_target(3);
}
const DraftWeights& drafter() {
  return test::tiny_drafter(3);
}

KvCacheShape draft_cache_shape() {
  return {kDraft.layers, 3, 40, kTarget.kv_heads, kTarget.head_dim};
}

// Target states [n x ids * hidden] of a plausible scale (residual streams of a few units).
std::vector<double> states(int n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> d(0.0, 2.0);
  std::vector<double> out(static_cast<std::size_t>(n) * kDraft.target_layer_ids.size() *
                          kTarget.hidden);
  for (double& v : out) v = d(rng);
  return out;
}

HostKvCache noisy(std::uint64_t seed) {
  return test::noisy_cache(draft_cache_shape(), seed);
}

double max_diff(const std::vector<double>& a, const std::vector<double>& b) {
  double m = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) m = std::max(m, std::abs(a[i] - b[i]));
  return m;
}

TEST_CASE("draft context update in two chunks equals one", "[kernels][dspark_ref]") {
  const std::vector<double> s = states(9, 1);
  HostKvCache one = noisy(2);
  HostKvCache two = one;
  dspark_context_update_ref(drafter(), kTarget, s.data(), 9, 0, 1, one);
  const std::size_t row = kDraft.target_layer_ids.size() * kTarget.hidden;
  dspark_context_update_ref(drafter(), kTarget, s.data(), 4, 0, 1, two);
  dspark_context_update_ref(drafter(), kTarget, s.data() + 4 * row, 5, 4, 1, two);
  CHECK(one.k == two.k);
  CHECK(one.v == two.v);
  CHECK_THROWS_AS(dspark_context_update_ref(drafter(), kTarget, s.data(), 9, 35, 1, one),
                  std::invalid_argument);
}

TEST_CASE("a draft reads only its own slot and its own context", "[kernels][dspark_ref]") {
  const std::vector<double> s = states(12, 3);
  HostKvCache a = noisy(4);
  HostKvCache b = noisy(5);  // other slots and positions past the context differ
  dspark_context_update_ref(drafter(), kTarget, s.data(), 12, 0, 2, a);
  dspark_context_update_ref(drafter(), kTarget, s.data(), 12, 0, 2, b);
  const DraftResult ra = dspark_draft_ref(drafter(), target(), a, 2, 12, 17, {});
  const DraftResult rb = dspark_draft_ref(drafter(), target(), b, 2, 12, 17, {});
  CHECK(ra.base_logits == rb.base_logits);
  CHECK(ra.tokens == rb.tokens);
  REQUIRE(ra.tokens.size() == static_cast<std::size_t>(kDraft.block_size));
  // Power: a different context (or anchor) changes the logits.
  const std::vector<double> s2 = states(12, 6);
  dspark_context_update_ref(drafter(), kTarget, s2.data(), 12, 0, 2, b);
  CHECK(max_diff(ra.base_logits,
                 dspark_draft_ref(drafter(), target(), b, 2, 12, 17, {}).base_logits) > 1e-3);
  CHECK(max_diff(ra.base_logits,
                 dspark_draft_ref(drafter(), target(), a, 2, 12, 18, {}).base_logits) > 1e-3);
}

TEST_CASE("dspark with a zero Markov head drafts exactly as dflash", "[kernels][dspark_ref]") {
  const std::vector<double> s = states(6, 7);
  HostKvCache cache = noisy(8);
  dspark_context_update_ref(drafter(), kTarget, s.data(), 6, 0, 0, cache);
  DraftOptions dflash;
  dflash.markov_and_confidence = false;
  const DraftResult plain = dspark_draft_ref(drafter(), target(), cache, 0, 6, 3, dflash);
  CHECK(plain.confidence.empty());
  DraftWeights zero = drafter();
  std::fill(zero.markov_w1.begin(), zero.markov_w1.end(), 0.0f);
  const DraftResult zeroed = dspark_draft_ref(zero, target(), cache, 0, 6, 3, {});
  CHECK(zeroed.tokens == plain.tokens);
  CHECK(max_diff(zeroed.p_draft, plain.p_draft) == 0.0);
  // With its trained-scale head the Markov bias changes the distributions (the test has power).
  const DraftResult markov = dspark_draft_ref(drafter(), target(), cache, 0, 6, 3, {});
  CHECK(markov.base_logits == plain.base_logits);
  CHECK(max_diff(markov.p_draft, plain.p_draft) > 1e-6);
}

TEST_CASE("confidence logits scale with the inverse STS temperature", "[kernels][dspark_ref]") {
  const std::vector<double> s = states(5, 9);
  HostKvCache cache = noisy(10);
  dspark_context_update_ref(drafter(), kTarget, s.data(), 5, 0, 1, cache);
  DraftWeights hot = drafter();
  for (float& t : hot.sts_temperature) t *= 2.0f;
  const DraftResult base = dspark_draft_ref(drafter(), target(), cache, 1, 5, 9, {});
  const DraftResult scaled = dspark_draft_ref(hot, target(), cache, 1, 5, 9, {});
  const auto logit = [](double c) { return std::log(c / (1.0 - c)); };
  REQUIRE(base.confidence.size() == static_cast<std::size_t>(kDraft.block_size));
  for (std::size_t k = 0; k < base.confidence.size(); ++k) {
    CHECK((base.confidence[k] > 0.0 && base.confidence[k] < 1.0));
    CHECK(logit(scaled.confidence[k]) == Approx(logit(base.confidence[k]) / 2).margin(1e-9));
  }
}

TEST_CASE("sampled drafts follow the supplied uniforms", "[kernels][dspark_ref]") {
  const std::vector<double> s = states(5, 11);
  HostKvCache cache = noisy(12);
  dspark_context_update_ref(drafter(), kTarget, s.data(), 5, 0, 1, cache);
  DraftOptions low;
  low.temperature = 1.0;
  low.uniforms.assign(static_cast<std::size_t>(kDraft.block_size), 0.0);
  DraftOptions high = low;
  high.uniforms.assign(static_cast<std::size_t>(kDraft.block_size), 0.999999);
  const DraftResult a = dspark_draft_ref(drafter(), target(), cache, 1, 5, 9, low);
  const DraftResult b = dspark_draft_ref(drafter(), target(), cache, 1, 5, 9, high);
  // u = 0 draws the first token with weight; u -> 1 the last: the same first-position
  // distribution, opposite ends of the vocabulary.
  CHECK(a.p_draft[0] == b.p_draft[0]);
  CHECK(a.tokens[0] < b.tokens[0]);
  DraftOptions missing;
  missing.temperature = 1.0;
  CHECK_THROWS_AS(dspark_draft_ref(drafter(), target(), cache, 1, 5, 9, missing),
                  std::invalid_argument);
}

}  // namespace
}  // namespace sparksim::kernels
