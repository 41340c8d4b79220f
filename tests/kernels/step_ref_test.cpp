// The engine-step reference end to end: with greedy verification, speculative decoding must
// commit exactly the target's own greedy continuation, however good or bad the drafts are (this
// checks KV-cache bookkeeping across steps, rejected positions being overwritten, positions,
// ragged batching and the drafter's context update together); with sampling, a drafter whose
// distributions equal the target's is never rejected.
#include "kernels/reference/step_ref.hpp"

#include <algorithm>

#include <catch2/catch.hpp>

#include "common/rng.hpp"
#include "kernels/reference/dspark_ref.hpp"
#include "kernels/reference/ops_ref.hpp"
#include "kernels/reference/rejection_ref.hpp"
#include "kernels/reference/verify_forward_ref.hpp"
#include "tests/kernels/tiny_model_fixture.hpp"

namespace sparksim::kernels {
namespace {

const TransformerShape kShape = tiny_qwen3_shape();

const TargetWeights& target() {
  return test::tiny_target(21);
}
const DraftWeights& drafter() {
  return test::tiny_drafter(21);
}

KvCacheShape target_cache_shape() {
  return {kShape.layers, 3, 64, kShape.kv_heads, kShape.head_dim};
}
KvCacheShape draft_cache_shape() {
  return {tiny_dspark_shape().layers, 3, 64, kShape.kv_heads, kShape.head_dim};
}

int argmax_row(const std::vector<double>& logits, int row) {
  const auto v = static_cast<std::size_t>(kShape.vocab);
  const auto begin = logits.begin() + row * v;
  return static_cast<int>(std::max_element(begin, begin + v) - begin);
}

using test::single_request;

// The target alone, one token at a time after the prompt.
std::vector<int> greedy_decode(const std::vector<int>& prompt, int n) {
  HostKvCache cache(target_cache_shape());
  std::vector<double> logits = verify_forward_ref(target(), single_request(prompt, 0, 0), cache);
  std::vector<int> out = {argmax_row(logits, static_cast<int>(prompt.size()) - 1)};
  while (static_cast<int>(out.size()) < n) {
    const int ctx = static_cast<int>(prompt.size() + out.size()) - 1;
    logits = verify_forward_ref(target(), single_request({out.back()}, ctx, 0), cache);
    out.push_back(argmax_row(logits, 0));
  }
  return out;
}

// Prefill all but the last prompt token (target and drafter), leaving it as the anchor.
SpecRequest prefill(const std::vector<int>& prompt, int slot, HostKvCache& target_cache,
                    HostKvCache* draft_cache) {
  const std::vector<int> head(prompt.begin(), prompt.end() - 1);
  ForwardCapture capture{tiny_dspark_shape().target_layer_ids, {}};
  verify_forward_ref(target(), single_request(head, 0, slot), target_cache, &capture);
  if (draft_cache != nullptr) {
    dspark_context_update_ref(drafter(), kShape, capture.states.data(),
                              static_cast<int>(head.size()), 0, slot, *draft_cache);
  }
  return {slot, static_cast<int>(head.size()), prompt.back()};
}

TEST_CASE("greedy speculation with partly wrong drafts equals greedy decoding",
          "[kernels][step_ref]") {
  const std::vector<int> prompt = {3, 77, 12, 90, 5};
  const std::vector<int> truth = greedy_decode(prompt, 24);
  HostKvCache cache(target_cache_shape());
  std::vector<SpecRequest> requests = {prefill(prompt, 1, cache, nullptr)};
  std::vector<int> produced;
  // Draft lengths 0..4; the first `right` drafts are the true continuation, then a wrong one.
  for (int step = 0; produced.size() < truth.size() - 5; ++step) {
    const int length = step % 5;
    const int right = (step * 7) % (length + 1);
    std::vector<int> drafts;
    for (int i = 0; i < length; ++i) {
      const int t = truth[produced.size() + i];
      drafts.push_back(i < right ? t : (t + 1) % kShape.vocab);
    }
    const auto out = verify_step_ref(target(), cache, requests, {drafts}, {{}}, {});
    INFO("step " << step << " length " << length << " right " << right);
    CHECK(out[0].accepted == std::min(right, length));
    produced.insert(produced.end(), out[0].committed.begin(), out[0].committed.end());
  }
  CHECK(std::equal(produced.begin(), produced.end(), truth.begin()));
  CHECK(requests[0].context_len == static_cast<int>(prompt.size() + produced.size()) - 1);
}

TEST_CASE("greedy DSpark steps on a ragged batch equal greedy decoding", "[kernels][step_ref]") {
  const std::vector<std::vector<int>> prompts = {{8, 8, 100, 4}, {61, 2, 33, 9, 120, 17, 5}};
  HostKvCache target_cache(target_cache_shape());
  HostKvCache draft_cache(draft_cache_shape());
  std::vector<SpecRequest> requests = {prefill(prompts[0], 2, target_cache, &draft_cache),
                                       prefill(prompts[1], 0, target_cache, &draft_cache)};
  std::vector<std::vector<int>> produced(2);
  for (int step = 0; step < 8; ++step) {
    const auto out = dspark_greedy_step_ref(target(), drafter(), target_cache, draft_cache,
                                            requests, {step % 4, 3});
    for (int r = 0; r < 2; ++r) {
      produced[r].insert(produced[r].end(), out[r].committed.begin(), out[r].committed.end());
    }
  }
  for (int r = 0; r < 2; ++r) {
    const std::vector<int> truth = greedy_decode(prompts[r], static_cast<int>(produced[r].size()));
    CHECK(produced[r] == truth);
    CHECK(requests[r].context_len == static_cast<int>(prompts[r].size() + produced[r].size()) - 1);
  }
}

TEST_CASE("drafts drawn from the target's own distribution are always accepted",
          "[kernels][step_ref]") {
  const std::vector<int> prompt = {10, 20, 30};
  HostKvCache cache(target_cache_shape());
  std::vector<SpecRequest> requests = {prefill(prompt, 0, cache, nullptr)};
  const auto v = static_cast<std::size_t>(kShape.vocab);
  const std::uint64_t key = derive_seed(5, 1);
  std::uint64_t counter = 0;
  for (int step = 0; step < 4; ++step) {
    // Build 3 drafts left to right from the target's distributions at temperature 0.8, on a
    // scratch copy of the cache.
    std::vector<int> drafts;
    std::vector<double> p_draft;
    for (int k = 0; k < 3; ++k) {
      HostKvCache scratch = cache;
      std::vector<int> toks = {requests[0].anchor};
      toks.insert(toks.end(), drafts.begin(), drafts.end());
      const std::vector<double> logits =
          verify_forward_ref(target(), single_request(toks, requests[0].context_len, 0), scratch);
      std::vector<double> p(v);
      softmax_ref(logits.data() + k * v, kShape.vocab, 0.8, p.data());
      drafts.push_back(
          sample_inverse_cdf_ref(p.data(), kShape.vocab, counter_uniform(key, counter++)));
      p_draft.insert(p_draft.end(), p.begin(), p.end());
    }
    VerifyStepOptions o;
    o.temperature = 0.8;
    for (int k = 0; k < 3; ++k) o.accept_uniforms.push_back(counter_uniform(key, counter++));
    o.sample_uniforms = {counter_uniform(key, counter++)};
    const int before = requests[0].context_len;
    const auto out = verify_step_ref(target(), cache, requests, {drafts}, {p_draft}, o);
    // p_d = p_t up to float rounding of p_t: acceptance u * p_d < p_t fails only if u is within
    // ~1e-7 of 1.
    CHECK(out[0].accepted == 3);
    CHECK(requests[0].context_len == before + 4);
  }
}

TEST_CASE("sampled DSpark step: drafts are the drafter's draws, bonus the target's draw",
          "[kernels][step_ref]") {
  // Accept uniforms 0 accept every draft (u * p_d < p_t, p_t > 0 under softmax), so the
  // committed tokens are the drafter's own draws at the draft uniforms, then the bonus token
  // drawn from the target's distribution after them: each computed here by the references alone.
  const std::vector<std::vector<int>> prompts = {{8, 8, 100, 4}, {61, 2, 33, 9, 120}};
  HostKvCache target_cache(target_cache_shape());
  HostKvCache draft_cache(draft_cache_shape());
  std::vector<SpecRequest> requests = {prefill(prompts[0], 2, target_cache, &draft_cache),
                                       prefill(prompts[1], 0, target_cache, &draft_cache)};
  const int gamma = tiny_dspark_shape().block_size;
  const std::vector<int> lengths = {3, 0};
  const std::uint64_t key = derive_seed(9, 2);
  std::uint64_t counter = 0;
  StepSampling sampling;
  sampling.temperature = 0.7;
  for (int i = 0; i < 2 * gamma; ++i) {
    sampling.draft_uniforms.push_back(counter_uniform(key, counter++));
    sampling.accept_uniforms.push_back(0.0);
  }
  sampling.sample_uniforms = {counter_uniform(key, counter++), counter_uniform(key, counter++)};
  const auto v = static_cast<std::size_t>(kShape.vocab);
  std::vector<std::vector<int>> want(2);
  for (int r = 0; r < 2; ++r) {
    DraftOptions o;
    o.temperature = sampling.temperature;
    o.uniforms.assign(sampling.draft_uniforms.begin() + r * gamma,
                      sampling.draft_uniforms.begin() + (r + 1) * gamma);
    const DraftResult d = dspark_draft_ref(drafter(), target(), draft_cache, requests[r].slot,
                                           requests[r].context_len, requests[r].anchor, o);
    want[r].assign(d.tokens.begin(), d.tokens.begin() + lengths[r]);
    std::vector<int> toks = {requests[r].anchor};
    toks.insert(toks.end(), want[r].begin(), want[r].end());
    HostKvCache scratch = target_cache;
    const std::vector<double> logits = verify_forward_ref(
        target(), single_request(toks, requests[r].context_len, requests[r].slot), scratch);
    std::vector<double> p(v);
    softmax_ref(logits.data() + lengths[r] * v, kShape.vocab, sampling.temperature, p.data());
    want[r].push_back(sample_inverse_cdf_ref(p.data(), kShape.vocab, sampling.sample_uniforms[r]));
  }
  const std::vector<SpecRequest> before = requests;
  const auto out = dspark_sampled_step_ref(target(), drafter(), target_cache, draft_cache, requests,
                                           lengths, sampling);
  for (int r = 0; r < 2; ++r) {
    CHECK(out[r].accepted == lengths[r]);
    CHECK(out[r].committed == want[r]);
    CHECK(requests[r].context_len == before[r].context_len + 1 + lengths[r]);
    CHECK(requests[r].anchor == want[r].back());
  }
  sampling.sample_uniforms.pop_back();
  CHECK_THROWS_AS(dspark_sampled_step_ref(target(), drafter(), target_cache, draft_cache, requests,
                                          lengths, sampling),
                  std::invalid_argument);
}

}  // namespace
}  // namespace sparksim::kernels
