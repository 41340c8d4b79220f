// The autoregressive drafter comparisons (ar_drafter_checks.hpp). Tiny target, weights of std
// 0.1 (sharp logits), random bf16 caches; three requests in slots {2, 0, 1} with contexts
// {5, 0, 30}, γ = 3. A greedy token may differ only at a near-tie of the reference's top two
// logits (kDraftTieMargin); every later pass depends on the token, so a request's comparison
// stops after its first differing pass.
#include "kernels/checks/ar_drafter_checks.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>

#include "kernels/ar_drafter_gpu.hpp"
#include "kernels/bf16.hpp"
#include "kernels/checks/ar_step_checks.hpp"
#include "kernels/checks/check_support.hpp"
#include "kernels/kernel_tolerances.hpp"

namespace sparksim::kernels {

namespace {

namespace tol = tolerance;

constexpr int kGamma = 3;
const std::vector<int> kContexts = {5, 0, 30};
const std::vector<int> kSlots = {2, 0, 1};

using checks::bf16_normal;
using checks::random_cache;
using checks::widen;

// The two drafters behind one interface for the checks.
struct Drafter {
  int state_width = 0;
  int head_vocab = 0;
  std::function<void(const double*, const int*, int, int, int, HostKvCache&)> update;
  std::function<ArDraftResult(const HostKvCache&, int, int, const double*, int)> draft;
};

CheckResult compare_round(const std::string& name, const Drafter& d, std::uint64_t seed,
                          gpu::ArDrafterModel& model, const TargetWeights& tw) {
  std::mt19937_64 rng(seed ^ 0x5EEDULL);
  const KvCacheShape cs{1, 3, 48, tw.shape.kv_heads, tw.shape.head_dim};
  HostKvCache cache = random_cache(rng, cs);
  model.upload_kv(cache);
  // Context update: each request's context positions from random states and next tokens.
  RaggedBatch rows{{}, {0}, {}, {}};
  for (int r = 0; r < 3; ++r) {
    if (kContexts[r] == 0) continue;
    rows.context_lens.push_back(0);
    rows.slots.push_back(kSlots[r]);
    rows.cu_seqlens.push_back(rows.cu_seqlens.back() + kContexts[r]);
  }
  for (int t = 0; t < rows.cu_seqlens.back(); ++t)
    rows.tokens.push_back(checks::uniform_int(rng, 0, tw.shape.vocab - 1));
  const std::vector<float> states = bf16_normal(rng, rows.tokens.size() * d.state_width, 2.0);
  const std::vector<double> states_d = widen(states);
  model.context_update(states, rows);
  for (int q = 0; q < rows.requests(); ++q) {
    const int begin = rows.cu_seqlens[q];
    d.update(states_d.data() + static_cast<std::size_t>(begin) * d.state_width,
             rows.tokens.data() + begin, rows.cu_seqlens[q + 1] - begin, 0, rows.slots[q], cache);
  }
  const HostKvCache gpu_cache = model.download_kv();
  std::vector<float> got_kv = gpu_cache.k;
  got_kv.insert(got_kv.end(), gpu_cache.v.begin(), gpu_cache.v.end());
  std::vector<double> want_kv = widen(cache.k);
  want_kv.insert(want_kv.end(), cache.v.begin(), cache.v.end());
  CheckResult kv = compare_nmse(name, got_kv, want_kv, tol::kArDraftNmse);
  if (!kv.passed) {
    kv.detail = "context K/V: " + kv.detail;
    return kv;
  }
  // The round, from the reference's cache (bf16-exact, so both sides read the same K/V).
  for (float& x : cache.k) x = round_to_bf16(x);
  for (float& x : cache.v) x = round_to_bf16(x);
  model.upload_kv(cache);
  gpu::ArDraftRequest request;
  request.gamma = kGamma;
  request.round.context_lens = kContexts;
  request.round.slots = kSlots;
  for (int r = 0; r < 3; ++r)
    request.round.anchors.push_back(checks::uniform_int(rng, 0, tw.shape.vocab - 1));
  request.last_states = bf16_normal(rng, 3 * static_cast<std::size_t>(d.state_width), 2.0);
  const std::vector<double> last_d = widen(request.last_states);
  model.set_draft(request);
  model.run();
  const gpu::GpuArDraftResult got = model.results();
  const auto v = static_cast<std::size_t>(d.head_vocab);
  const auto h = static_cast<std::size_t>(tw.shape.hidden);
  std::vector<float> got_logits, got_p, got_hidden;
  std::vector<double> want_logits, want_p, want_hidden;
  std::string token_problem;
  for (int r = 0; r < 3; ++r) {
    const ArDraftResult ref = d.draft(cache, kSlots[r], kContexts[r],
                                      last_d.data() + static_cast<std::size_t>(r) * d.state_width,
                                      request.round.anchors[r]);
    for (int k = 0; k < kGamma; ++k) {
      const std::size_t g = static_cast<std::size_t>(r) * kGamma + k;
      got_logits.insert(got_logits.end(), got.logits.begin() + g * v,
                        got.logits.begin() + (g + 1) * v);
      want_logits.insert(want_logits.end(), ref.logits.begin() + k * v,
                         ref.logits.begin() + (k + 1) * v);
      // The reference's p_draft is over the target's vocabulary (EAGLE-3: scattered by d2t);
      // its softmax over the head's vocabulary is recomputed from the reference logits' order.
      std::vector<double> p(ref.logits.begin() + k * v, ref.logits.begin() + (k + 1) * v);
      const double top = *std::max_element(p.begin(), p.end());
      double sum = 0.0;
      for (double& x : p) sum += (x = std::exp(x - top));
      for (double& x : p) x /= sum;
      got_p.insert(got_p.end(), got.p_draft.begin() + g * v, got.p_draft.begin() + (g + 1) * v);
      want_p.insert(want_p.end(), p.begin(), p.end());
      got_hidden.insert(got_hidden.end(), got.hidden.begin() + g * h,
                        got.hidden.begin() + (g + 1) * h);
      want_hidden.insert(want_hidden.end(), ref.hidden.begin() + k * h,
                         ref.hidden.begin() + (k + 1) * h);
      if (got.tokens[g] == ref.tokens[k]) continue;
      std::vector<double> top2(ref.logits.begin() + k * v, ref.logits.begin() + (k + 1) * v);
      std::partial_sort(top2.begin(), top2.begin() + 2, top2.end(), std::greater<>());
      if (top2[0] - top2[1] >= tol::kDraftTieMargin) {
        token_problem += "request " + std::to_string(r) + " pass " + std::to_string(k) +
                         ": gpu token " + std::to_string(got.tokens[g]) + " ref " +
                         std::to_string(ref.tokens[k]) + "; ";
      }
      break;  // later passes depend on this token
    }
  }
  CheckResult worst = compare_nmse(name, got_logits, want_logits, tol::kArDraftNmse);
  worst.detail = "logits: " + worst.detail;
  CheckResult probs = compare_nmse(name, got_p, want_p, tol::kArDraftNmse);
  probs.detail = "p_draft: " + probs.detail;
  CheckResult hidden = compare_nmse(name, got_hidden, want_hidden, tol::kArDraftNmse);
  hidden.detail = "hidden: " + hidden.detail;
  for (const CheckResult* c : {&probs, &hidden}) {
    if (c->error > worst.error) worst = *c;
  }
  worst.passed = worst.passed && probs.passed && hidden.passed;
  if (!token_problem.empty()) {
    worst.passed = false;
    worst.detail += "; " + token_problem;
  }
  return worst;
}

// One family's greedy round (compare_round) with the weights uploaded: `update` and `draft` are
// its reference functions (mtp1_* or eagle3_*).
template <class Weights, class Update, class Draft>
CheckResult check_family(const std::string& name, std::uint64_t seed, const TargetWeights& tw,
                         const Weights& w, int state_width, int head_vocab, Update update,
                         Draft draft) {
  const TransformerShape& shape = tw.shape;
  gpu::ArDrafterModel model(tw, w, {1, 3, 48, shape.kv_heads, shape.head_dim});
  Drafter d;
  d.state_width = state_width;
  d.head_vocab = head_vocab;
  d.update = [&](const double* s, const int* next, int n, int start, int slot, HostKvCache& c) {
    update(w, tw, s, next, n, start, slot, c);
  };
  d.draft = [&](const HostKvCache& c, int slot, int ctx, const double* last, int anchor) {
    return draft(w, tw, c, slot, ctx, last, anchor, kGamma, ArDraftOptions{});
  };
  return compare_round(name, d, seed, model, tw);
}

CheckResult check_mtp1(std::uint64_t seed) {
  const TransformerShape shape = tiny_qwen3_shape();
  const TargetWeights tw = make_random_target_weights(shape, seed, 0.1);
  const Mtp1Weights w = make_random_mtp1_weights(shape, seed, 0.1);
  return check_family("mtp1_draft", seed, tw, w, shape.hidden, shape.vocab, mtp1_context_update_ref,
                      mtp1_draft_ref);
}

CheckResult check_eagle3(std::uint64_t seed) {
  const TransformerShape shape = tiny_qwen3_shape();
  const TargetWeights tw = make_random_target_weights(shape, seed, 0.1);
  const Eagle3Weights w = make_random_eagle3_weights(shape, eagle3_shape(shape), seed, 0.1);
  return check_family("eagle3_draft", seed, tw, w, 3 * shape.hidden, w.shape.draft_vocab,
                      eagle3_context_update_ref, eagle3_draft_ref);
}

// Both drafters drawn on the device (heads borrowed from a device-drawn target) against the host
// generator's weights uploaded: the same round gives the same logits, bit for bit.
CheckResult check_device_weights(std::uint64_t seed) {
  const TransformerShape shape = tiny_qwen3_shape();
  const KvCacheShape target_cache{shape.layers, 3, 48, shape.kv_heads, shape.head_dim};
  const KvCacheShape cs{1, 3, 48, shape.kv_heads, shape.head_dim};
  std::mt19937_64 rng(seed);
  const HostKvCache cache = random_cache(rng, cs);
  const gpu::VerifyModel target(shape, seed, 0.1, target_cache);
  const TargetWeights tw = make_random_target_weights(shape, seed, 0.1);
  CheckResult out;
  for (gpu::ArFamily f : {gpu::ArFamily::kMtp1, gpu::ArFamily::kEagle3}) {
    const bool mtp = f == gpu::ArFamily::kMtp1;
    gpu::ArDrafterModel drawn(target, f, seed + 1, 0.1, cs);
    const auto uploaded_model =
        mtp ? std::make_unique<gpu::ArDrafterModel>(
                  tw, make_random_mtp1_weights(shape, seed + 1, 0.1), cs)
            : std::make_unique<gpu::ArDrafterModel>(
                  tw, make_random_eagle3_weights(shape, eagle3_shape(shape), seed + 1, 0.1), cs);
    gpu::ArDrafterModel& uploaded = *uploaded_model;
    gpu::ArDraftRequest request;
    request.gamma = kGamma;
    request.round.context_lens = kContexts;
    request.round.slots = kSlots;
    request.round.anchors = {7, 11, 13};
    request.last_states = bf16_normal(rng, 3 * static_cast<std::size_t>(drawn.state_width()), 2.0);
    std::vector<gpu::GpuArDraftResult> results;
    for (gpu::ArDrafterModel* m : {&uploaded, &drawn}) {
      m->upload_kv(cache);
      m->set_draft(request);
      m->run();
      results.push_back(m->results());
    }
    CheckResult r = compare_max_rel("ar_device_weights", results[1].logits,
                                    widen(results[0].logits), tol::kDeviceWeightsMaxRel);
    r.detail = (mtp ? "mtp1: " : "eagle3: ") + r.detail;
    if (results[1].tokens != results[0].tokens) {
      r.passed = false;
      r.detail += "; drafted tokens differ";
    }
    if (mtp || !r.passed || r.error > out.error) out = r;
    if (!r.passed) break;
  }
  return out;
}

}  // namespace

const std::vector<std::string>& ar_drafter_check_names() {
  static const std::vector<std::string> names = {"mtp1_draft", "eagle3_draft", "ar_device_weights",
                                                 "ar_greedy_step"};
  return names;
}

CheckResult run_ar_drafter_check(const std::string& name, std::uint64_t seed) {
  if (name == "mtp1_draft") return check_mtp1(seed);
  if (name == "eagle3_draft") return check_eagle3(seed);
  if (name == "ar_device_weights") return check_device_weights(seed);
  if (name == "ar_greedy_step") return check_ar_greedy_step(seed);
  throw std::invalid_argument("unknown autoregressive drafter check '" + name + "'");
}

}  // namespace sparksim::kernels
