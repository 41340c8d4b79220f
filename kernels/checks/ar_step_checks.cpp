// The autoregressive-drafter engine step comparison (ar_step_checks.hpp). Tiny target, weights of
// std 0.1, random bf16 caches; three requests in slots {2, 0, 1} with contexts {5, 17, 30},
// verify lengths {γ, 2, 0}, γ = 3.
#include "kernels/checks/ar_step_checks.hpp"

#include <algorithm>
#include <functional>
#include <memory>
#include <random>
#include <string>

#include "kernels/ar_drafter_gpu.hpp"
#include "kernels/bf16.hpp"
#include "kernels/checks/check_support.hpp"
#include "kernels/kernel_tolerances.hpp"
#include "kernels/reference/ar_step_ref.hpp"
#include "kernels/reference/verify_forward_ref.hpp"

namespace sparksim::kernels {

namespace {

namespace tol = tolerance;

constexpr int kGamma = 3;

using checks::bf16_normal;
using checks::random_cache;
using checks::slot_prefix;
using checks::top_two_gap;
using checks::widen;

// The smallest decision margin of the reference's next step for request r: its drafter's logits
// over the verified passes and the target's logits up to the acceptance point.
double decision_gap(const TargetWeights& tw, const ArDrafterRef& d, const HostKvCache& target_cache,
                    const HostKvCache& draft_cache, const ArSpecRequest& q, int length,
                    int accepted) {
  const SpecRequest& s = q.spec;
  const ArDraftResult round =
      d.mtp1 != nullptr ? mtp1_draft_ref(*d.mtp1, tw, draft_cache, s.slot, s.context_len - 1,
                                         q.last_states.data(), s.anchor, kGamma)
                        : eagle3_draft_ref(*d.eagle3, tw, draft_cache, s.slot, s.context_len - 1,
                                           q.last_states.data(), s.anchor, kGamma);
  const int head = static_cast<int>(round.logits.size() / kGamma);
  double gap = 1e300;
  for (int k = 0; k < length; ++k) {
    gap =
        std::min(gap, top_two_gap(round.logits.data() + static_cast<std::size_t>(k) * head, head));
  }
  std::vector<int> tokens = {s.anchor};
  tokens.insert(tokens.end(), round.tokens.begin(), round.tokens.begin() + length);
  HostKvCache scratch = target_cache;
  const std::vector<double> logits = verify_forward_ref(
      tw, {tokens, {0, static_cast<int>(tokens.size())}, {s.context_len}, {s.slot}}, scratch);
  const auto v = static_cast<std::size_t>(tw.shape.vocab);
  for (int row = 0; row <= accepted; ++row) {
    gap = std::min(gap, top_two_gap(logits.data() + row * v, tw.shape.vocab));
  }
  return gap;
}

std::string outcome_text(const std::string& family, int step, std::size_t r, const StepOutcome& got,
                         const StepOutcome& want) {
  return family + " step " + std::to_string(step) + " request " + std::to_string(r) +
         ": accepted " + std::to_string(got.accepted) + " (ref " + std::to_string(want.accepted) +
         "), last token " + std::to_string(got.committed.back()) + " (ref " +
         std::to_string(want.committed.back()) + "); ";
}

}  // namespace

CheckResult check_ar_greedy_step(std::uint64_t seed) {
  const TransformerShape shape = tiny_qwen3_shape();
  const TargetWeights tw = make_random_target_weights(shape, seed, 0.1);
  const Mtp1Weights mtp1 = make_random_mtp1_weights(shape, seed + 1, 0.1);
  const Eagle3Weights eagle3 =
      make_random_eagle3_weights(shape, eagle3_shape(shape), seed + 1, 0.1);
  const std::vector<int> lengths = {kGamma, 2, 0};
  std::string problem;
  std::string exempt;
  std::vector<float> got_kv, got_ctx, got_last;
  std::vector<double> want_kv, want_ctx, want_last;
  for (const bool is_mtp1 : {true, false}) {
    const std::string family = is_mtp1 ? "mtp1" : "eagle3";
    const ArDrafterRef ref =
        is_mtp1 ? ArDrafterRef{&mtp1, nullptr} : ArDrafterRef{nullptr, &eagle3};
    const std::vector<int> layers = ref.capture_layers(shape);
    const int width = static_cast<int>(layers.size()) * shape.hidden;
    std::mt19937_64 rng(seed ^ (is_mtp1 ? 0xA5ULL : 0x5AULL));
    HostKvCache want_target =
        random_cache(rng, {shape.layers, 3, 64, shape.kv_heads, shape.head_dim});
    HostKvCache want_draft = random_cache(rng, {1, 3, 64, shape.kv_heads, shape.head_dim});
    std::vector<ArSpecRequest> want_requests;
    std::vector<float> last;
    for (const auto& [slot, context] : {std::pair{2, 5}, std::pair{0, 17}, std::pair{1, 30}}) {
      const std::vector<float> states = bf16_normal(rng, static_cast<std::size_t>(width), 2.0);
      want_requests.push_back(
          {{slot, context, checks::uniform_int(rng, 0, shape.vocab - 1)}, widen(states)});
      last.insert(last.end(), states.begin(), states.end());
    }
    gpu::VerifyModel target(tw, want_target.shape);
    const auto drafter = is_mtp1
                             ? std::make_unique<gpu::ArDrafterModel>(tw, mtp1, want_draft.shape)
                             : std::make_unique<gpu::ArDrafterModel>(tw, eagle3, want_draft.shape);
    target.upload_kv(want_target);
    drafter->upload_kv(want_draft);
    gpu::ArStepRunner runner(target, *drafter, layers, kGamma);
    runner.set_last_states(last);
    std::vector<SpecRequest> got_requests;
    for (const ArSpecRequest& q : want_requests) got_requests.push_back(q.spec);
    std::vector<bool> compared(want_requests.size(), true);
    for (int step = 0; step < 2; ++step) {
      const HostKvCache target_before = want_target;
      const HostKvCache draft_before = want_draft;
      const std::vector<ArSpecRequest> requests_before = want_requests;
      const std::vector<StepOutcome> got = runner.step(got_requests, lengths);
      const std::vector<StepOutcome> want =
          ar_greedy_step_ref(tw, ref, want_target, want_draft, want_requests, lengths, kGamma);
      const HostKvCache got_target = target.download_kv();
      const HostKvCache got_draft = drafter->download_kv();
      const std::vector<float> got_states = runner.last_states();
      for (std::size_t r = 0; r < want.size(); ++r) {
        if (!compared[r]) continue;
        if (got[r].accepted != want[r].accepted || got[r].committed != want[r].committed) {
          compared[r] = false;  // its caches follow other tokens from here on
          const double gap = decision_gap(tw, ref, target_before, draft_before, requests_before[r],
                                          lengths[r], want[r].accepted);
          (gap >= tol::kDraftTieMargin ? problem : exempt) +=
              outcome_text(family, step, r, got[r], want[r]);
          continue;
        }
        const SpecRequest& q = want_requests[r].spec;
        const auto take = [&](const HostKvCache& got_cache, const HostKvCache& want_cache, int len,
                              std::vector<float>& got_out, std::vector<double>& want_out) {
          const std::vector<float> g = slot_prefix(got_cache, q.slot, len);
          const std::vector<float> w = slot_prefix(want_cache, q.slot, len);
          got_out.insert(got_out.end(), g.begin(), g.end());
          want_out.insert(want_out.end(), w.begin(), w.end());
        };
        take(got_target, want_target, q.context_len, got_kv, want_kv);
        take(got_draft, want_draft, q.context_len - 1, got_ctx, want_ctx);
        got_last.insert(got_last.end(), got_states.begin() + r * width,
                        got_states.begin() + (r + 1) * width);
        want_last.insert(want_last.end(), want_requests[r].last_states.begin(),
                         want_requests[r].last_states.end());
      }
    }
  }
  CheckResult r = compare_nmse("ar_greedy_step", got_kv, want_kv, tol::kVerifyForwardNmse);
  r.detail = "target cache: " + r.detail;
  const CheckResult ctx = compare_nmse("ar_greedy_step", got_ctx, want_ctx, tol::kArStepNmse);
  if (!ctx.passed) checks::add_failure(r, "draft context: " + ctx.detail);
  const CheckResult states = compare_nmse("ar_greedy_step", got_last, want_last, tol::kArStepNmse);
  if (!states.passed) checks::add_failure(r, "pass-0 states: " + states.detail);
  if (!problem.empty()) checks::add_failure(r, problem);
  if (!exempt.empty()) r.detail += "; near ties, not compared: " + exempt;
  return r;
}

}  // namespace sparksim::kernels
