// The autoregressive-drafter engine step reference (MTP-1, EAGLE-3): with greedy verification the
// committed tokens must be the target's own greedy decoding whatever the drafter proposes (an
// oracle independent of the drafter); a drafter built to propose the target's argmax has every
// draft accepted (γ + 1 tokens a step); and the drafter's cache and last states, kept step by
// step, equal those built in one go from the committed sequence.
#include "kernels/reference/ar_step_ref.hpp"

#include <algorithm>
#include <cmath>

#include <catch2/catch.hpp>

#include "kernels/reference/verify_forward_ref.hpp"
#include "tests/kernels/tiny_model_fixture.hpp"

namespace sparksim::kernels {
namespace {

const TransformerShape kShape = tiny_qwen3_shape();  // 2 layers, hidden 64, vocab 128
constexpr int kSlots = 3;
constexpr int kCapacity = 64;

const TargetWeights& target() {
  return test::tiny_target(22);
}
const Mtp1Weights& mtp1() {
  static const Mtp1Weights w = make_random_mtp1_weights(kShape, 22, 0.1);
  return w;
}
const Eagle3Weights& eagle3() {
  static const Eagle3Weights w = make_random_eagle3_weights(kShape, eagle3_shape(kShape), 22, 0.1);
  return w;
}

KvCacheShape target_cache_shape() {
  return {kShape.layers, kSlots, kCapacity, kShape.kv_heads, kShape.head_dim};
}
KvCacheShape draft_cache_shape() {
  return {1, kSlots, kCapacity, kShape.kv_heads, kShape.head_dim};
}

int argmax_row(const std::vector<double>& logits, int row) {
  const auto v = static_cast<std::size_t>(kShape.vocab);
  const auto begin = logits.begin() + row * v;
  return static_cast<int>(std::max_element(begin, begin + v) - begin);
}

// The target alone, one token at a time after the prompt.
std::vector<int> greedy_decode(const TargetWeights& t, const std::vector<int>& prompt, int n) {
  HostKvCache cache(target_cache_shape());
  std::vector<double> logits = verify_forward_ref(t, test::single_request(prompt, 0, 0), cache);
  std::vector<int> out = {argmax_row(logits, static_cast<int>(prompt.size()) - 1)};
  while (static_cast<int>(out.size()) < n) {
    const int ctx = static_cast<int>(prompt.size() + out.size()) - 1;
    logits = verify_forward_ref(t, test::single_request({out.back()}, ctx, 0), cache);
    out.push_back(argmax_row(logits, 0));
  }
  return out;
}

ArDrafterRef family(bool is_mtp1) {
  return is_mtp1 ? ArDrafterRef{&mtp1(), nullptr} : ArDrafterRef{nullptr, &eagle3()};
}

// Silent target layers, embedding row t = 3 e_{(t+1) mod 64}, LM head rows e_j (j < 64): the
// target's greedy successor of t is (t + 1) mod 64. MTP-1 with eh_proj = [I | small noise] and a
// layer whose attention and MLP add nothing maps t to the same successor (ar_drafter_ref_test's
// counter; the noise, ~1e-3 per entry against the embedding's ~8, moves no argmax), so it always
// agrees with the target, while its K/V still depend on the target's states.
struct CounterModels {
  TargetWeights target;
  Mtp1Weights mtp1;
};

const CounterModels& counter_models() {
  static const CounterModels m = [] {
    CounterModels out{target(), mtp1()};
    TargetWeights& t = out.target;
    const int h = kShape.hidden;
    for (LayerWeights& l : t.layers) {
      std::fill(l.wo.begin(), l.wo.end(), 0.0f);
      std::fill(l.w_down.begin(), l.w_down.end(), 0.0f);
    }
    std::fill(t.embed.begin(), t.embed.end(), 0.0f);
    std::fill(t.lm_head.begin(), t.lm_head.end(), 0.0f);
    for (int tok = 0; tok < kShape.vocab; ++tok) t.embed[tok * h + (tok + 1) % h] = 3.0f;
    for (int j = 0; j < h; ++j) t.lm_head[j * h + j] = 1.0f;
    Mtp1Weights& w = out.mtp1;
    for (int i = 0; i < h; ++i) {
      for (int j = 0; j < h; ++j) {
        w.eh_proj[i * 2 * h + j] = i == j ? 1.0f : 0.0f;
        w.eh_proj[i * 2 * h + h + j] *= 0.01f;
      }
    }
    std::fill(w.layer.wo.begin(), w.layer.wo.end(), 0.0f);
    std::fill(w.layer.w_down.begin(), w.layer.w_down.end(), 0.0f);
    return out;
  }();
  return m;
}

TEST_CASE("MTP-1 proposing the target's argmax has every draft accepted",
          "[kernels][ar_step_ref]") {
  const TargetWeights& t = counter_models().target;
  const int h = kShape.hidden;
  const ArDrafterRef drafter{&counter_models().mtp1, nullptr};

  HostKvCache target_cache(target_cache_shape());
  HostKvCache draft_cache = test::noisy_cache(draft_cache_shape(), 3);
  std::vector<ArSpecRequest> requests = {
      ar_prefill_ref(t, drafter, target_cache, draft_cache, {5, 6, 7, 8}, 1),
      ar_prefill_ref(t, drafter, target_cache, draft_cache, {90, 40, 61}, 2)};
  int expect[2] = {8, 61};  // each request's anchor, then counting up mod 64
  for (int step = 0; step < 4; ++step) {
    const std::vector<int> lengths = {3, step % 4};
    const auto out =
        ar_greedy_step_ref(t, drafter, target_cache, draft_cache, requests, lengths, 3);
    for (int r = 0; r < 2; ++r) {
      INFO("step " << step << " request " << r);
      CHECK(out[r].accepted == lengths[r]);
      REQUIRE(static_cast<int>(out[r].committed.size()) == lengths[r] + 1);
      for (int token : out[r].committed) {
        expect[r] = (expect[r] + 1) % h;
        CHECK(token == expect[r]);
      }
    }
  }
  CHECK(requests[0].spec.context_len == 3 + 4 * 4);
  CHECK(requests[1].spec.context_len == 2 + (1 + 2 + 3 + 4));
}

TEST_CASE("greedy MTP-1 and EAGLE-3 steps on a ragged batch equal greedy decoding",
          "[kernels][ar_step_ref]") {
  const bool is_mtp1 = GENERATE(true, false);
  INFO((is_mtp1 ? "mtp1" : "eagle3"));
  const ArDrafterRef drafter = family(is_mtp1);
  const std::vector<std::vector<int>> prompts = {{8, 8, 100, 4}, {61, 2, 33, 9, 120, 17, 5}};
  HostKvCache target_cache(target_cache_shape());
  HostKvCache draft_cache = test::noisy_cache(draft_cache_shape(), 4);
  std::vector<ArSpecRequest> requests = {
      ar_prefill_ref(target(), drafter, target_cache, draft_cache, prompts[0], 2),
      ar_prefill_ref(target(), drafter, target_cache, draft_cache, prompts[1], 0)};
  std::vector<std::vector<int>> produced(2);
  for (int step = 0; step < 8; ++step) {
    const auto out = ar_greedy_step_ref(target(), drafter, target_cache, draft_cache, requests,
                                        {step % 4, 3}, 3);
    for (int r = 0; r < 2; ++r) {
      CHECK(out[r].accepted <= (r == 0 ? step % 4 : 3));
      produced[r].insert(produced[r].end(), out[r].committed.begin(), out[r].committed.end());
    }
  }
  for (int r = 0; r < 2; ++r) {
    const std::vector<int> truth =
        greedy_decode(target(), prompts[r], static_cast<int>(produced[r].size()));
    CHECK(produced[r] == truth);
    CHECK(requests[r].spec.context_len ==
          static_cast<int>(prompts[r].size() + produced[r].size()) - 1);
    CHECK(requests[r].spec.anchor == produced[r].back());
  }
}

// Runs steps of gamma 2 on one request, then checks the drafter's cache (positions 0..C-2) and
// last states against a prefill of the whole committed sequence. Returns the drafts accepted.
int check_cache_against_prefill(const TargetWeights& t, const ArDrafterRef& drafter) {
  const std::vector<int> prompt = {14, 3, 3, 97, 50};
  const int slot = 1;
  HostKvCache target_cache(target_cache_shape());
  HostKvCache draft_cache = test::noisy_cache(draft_cache_shape(), 5);
  std::vector<ArSpecRequest> requests = {
      ar_prefill_ref(t, drafter, target_cache, draft_cache, prompt, slot)};
  std::vector<int> sequence = prompt;
  int accepted = 0;
  for (int step = 0; step < 6; ++step) {
    const auto out =
        ar_greedy_step_ref(t, drafter, target_cache, draft_cache, requests, {(step + 1) % 3}, 2);
    accepted += out[0].accepted;
    sequence.insert(sequence.end(), out[0].committed.begin(), out[0].committed.end());
  }
  HostKvCache fresh_target(target_cache_shape());
  HostKvCache fresh_draft = test::noisy_cache(draft_cache_shape(), 6);
  const ArSpecRequest fresh = ar_prefill_ref(t, drafter, fresh_target, fresh_draft, sequence, slot);
  REQUIRE(fresh.spec.context_len == requests[0].spec.context_len);
  CHECK(fresh.spec.anchor == requests[0].spec.anchor);
  REQUIRE(fresh.last_states.size() == requests[0].last_states.size());
  double worst_state = 0.0;
  for (std::size_t i = 0; i < fresh.last_states.size(); ++i) {
    worst_state =
        std::max(worst_state, std::abs(requests[0].last_states[i] - fresh.last_states[i]));
  }
  CHECK(worst_state < 1e-9);
  // Float storage of double sums taken in other batchings: equal to float rounding.
  const long long begin = draft_cache.shape.offset(0, slot, 0);
  const long long end = draft_cache.shape.offset(0, slot, fresh.spec.context_len - 1);
  double worst = 0.0;
  for (long long i = begin; i < end; ++i) {
    worst = std::max(worst, std::abs(double{draft_cache.k[i]} - fresh_draft.k[i]));
    worst = std::max(worst, std::abs(double{draft_cache.v[i]} - fresh_draft.v[i]));
  }
  CHECK(worst < 1e-4);
  // The coming pass 0's position is not written by the steps: still the initial noise.
  const HostKvCache noise = test::noisy_cache(draft_cache_shape(), 5);
  CHECK(draft_cache.k[end] == noise.k[end]);
  return accepted;
}

TEST_CASE("the drafter's cache kept step by step equals one built from the committed sequence",
          "[kernels][ar_step_ref]") {
  SECTION("random MTP-1") {
    check_cache_against_prefill(target(), family(true));
  }
  SECTION("random EAGLE-3") {
    check_cache_against_prefill(target(), family(false));
  }
  SECTION("MTP-1 whose drafts are accepted") {
    // Verify lengths 1, 2, 0, 1, 2, 0, all accepted: the update spans several positions.
    const ArDrafterRef drafter{&counter_models().mtp1, nullptr};
    CHECK(check_cache_against_prefill(counter_models().target, drafter) == 6);
  }
}

TEST_CASE("the autoregressive step rejects bad requests", "[kernels][ar_step_ref]") {
  HostKvCache target_cache(target_cache_shape());
  HostKvCache draft_cache(draft_cache_shape());
  const ArDrafterRef both{&mtp1(), &eagle3()};
  CHECK_THROWS_AS(both.capture_layers(kShape), std::invalid_argument);
  const ArDrafterRef drafter = family(true);
  CHECK_THROWS_AS(ar_prefill_ref(target(), drafter, target_cache, draft_cache, {7}, 0),
                  std::invalid_argument);
  std::vector<ArSpecRequest> requests = {
      ar_prefill_ref(target(), drafter, target_cache, draft_cache, {7, 8, 9}, 0)};
  CHECK_THROWS_AS(
      ar_greedy_step_ref(target(), drafter, target_cache, draft_cache, requests, {1, 1}, 2),
      std::invalid_argument);
  requests[0].last_states.pop_back();
  CHECK_THROWS_AS(
      ar_greedy_step_ref(target(), drafter, target_cache, draft_cache, requests, {1}, 2),
      std::invalid_argument);
}

}  // namespace
}  // namespace sparksim::kernels
