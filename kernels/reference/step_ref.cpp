// The engine-step reference (step_ref.hpp).
#include "kernels/reference/step_ref.hpp"

#include <algorithm>
#include <stdexcept>

#include "kernels/reference/dspark_ref.hpp"
#include "kernels/reference/ops_ref.hpp"
#include "kernels/reference/rejection_ref.hpp"
#include "kernels/reference/verify_forward_ref.hpp"

namespace sparksim::kernels {

std::vector<StepOutcome> verify_step_ref(const TargetWeights& target, HostKvCache& cache,
                                         std::vector<SpecRequest>& requests,
                                         const std::vector<std::vector<int>>& drafts,
                                         const std::vector<std::vector<double>>& p_draft,
                                         const VerifyStepOptions& o) {
  const int r_count = static_cast<int>(requests.size());
  const int vocab = target.shape.vocab;
  const auto v = static_cast<std::size_t>(vocab);
  if (static_cast<int>(drafts.size()) != r_count || static_cast<int>(p_draft.size()) != r_count) {
    throw std::invalid_argument("verify step: one draft list and p_draft per request");
  }
  RaggedBatch batch;
  batch.cu_seqlens = {0};
  for (int r = 0; r < r_count; ++r) {
    batch.tokens.push_back(requests[r].anchor);
    batch.tokens.insert(batch.tokens.end(), drafts[r].begin(), drafts[r].end());
    batch.cu_seqlens.push_back(batch.cu_seqlens.back() + 1 + static_cast<int>(drafts[r].size()));
    batch.context_lens.push_back(requests[r].context_len);
    batch.slots.push_back(requests[r].slot);
  }
  ForwardCapture capture{o.capture_layers, {}};
  const std::vector<double> logits = verify_forward_ref(target, batch, cache, &capture);

  RejectionBatch rb;
  rb.vocab = vocab;
  rb.cu_seqlens = batch.cu_seqlens;
  rb.p_target.resize(logits.size());
  for (int t = 0; t < batch.total_tokens(); ++t) {
    const double* row = logits.data() + t * v;
    float* p = rb.p_target.data() + t * v;
    if (o.temperature > 0) {
      std::vector<double> probs(v);
      softmax_ref(row, vocab, o.temperature, probs.data());
      std::copy(probs.begin(), probs.end(), p);
    } else {
      std::fill(p, p + v, 0.0f);
      p[std::max_element(row, row + v) - row] = 1.0f;
    }
  }
  for (int r = 0; r < r_count; ++r) {
    const auto d = drafts[r].size();
    if (!p_draft[r].empty() && p_draft[r].size() != d * v) {
      throw std::invalid_argument("verify step: p_draft must be drafts x vocab");
    }
    for (std::size_t i = 0; i < d; ++i) {
      rb.draft_tokens.push_back(drafts[r][i]);
      if (p_draft[r].empty()) {
        std::vector<float> one_hot(v, 0.0f);
        one_hot[static_cast<std::size_t>(drafts[r][i])] = 1.0f;
        rb.p_draft.insert(rb.p_draft.end(), one_hot.begin(), one_hot.end());
      } else {
        rb.p_draft.insert(rb.p_draft.end(), p_draft[r].begin() + i * v,
                          p_draft[r].begin() + (i + 1) * v);
      }
    }
  }
  // Greedy verification needs no randomness: any u in [0, 1) gives the same decisions.
  rb.accept_uniforms =
      o.temperature > 0 ? o.accept_uniforms : std::vector<double>(rb.draft_tokens.size(), 0.5);
  rb.sample_uniforms =
      o.temperature > 0 ? o.sample_uniforms : std::vector<double>(requests.size(), 0.5);
  const RejectionResult rr = rejection_verify_ref(rb);

  const std::size_t state_row = o.capture_layers.size() * target.shape.hidden;
  std::vector<StepOutcome> out(requests.size());
  for (int r = 0; r < r_count; ++r) {
    StepOutcome& s = out[r];
    s.accepted = rr.accepted[r];
    s.committed.assign(drafts[r].begin(), drafts[r].begin() + s.accepted);
    s.committed.push_back(rr.committed[r]);
    const auto first = static_cast<std::size_t>(batch.cu_seqlens[r]) * state_row;
    s.states.assign(capture.states.begin() + first,
                    capture.states.begin() + first + (1 + s.accepted) * state_row);
    requests[r].context_len += 1 + s.accepted;
    requests[r].anchor = rr.committed[r];
  }
  return out;
}

void StepSampling::validate(int requests, int gamma) const {
  const auto rg = static_cast<std::size_t>(requests) * static_cast<std::size_t>(gamma);
  if (!(temperature > 0) || draft_uniforms.size() != rg || accept_uniforms.size() != rg ||
      sample_uniforms.size() != static_cast<std::size_t>(requests)) {
    throw std::invalid_argument(
        "step sampling: temperature > 0, draft and accept uniforms R x gamma, sample uniforms R");
  }
  for (const auto* u : {&draft_uniforms, &accept_uniforms, &sample_uniforms}) {
    for (double value : *u) {
      if (!(value >= 0.0 && value < 1.0)) {
        throw std::invalid_argument("step sampling: a uniform is outside [0, 1)");
      }
    }
  }
}

namespace {

// Greedy (sampling == nullptr) or sampled DSpark step.
std::vector<StepOutcome> dspark_step_ref(const TargetWeights& target, const DraftWeights& drafter,
                                         HostKvCache& target_cache, HostKvCache& draft_cache,
                                         std::vector<SpecRequest>& requests,
                                         const std::vector<int>& verify_lengths,
                                         const StepSampling* sampling) {
  const int gamma = drafter.shape.block_size;
  const int r_count = static_cast<int>(requests.size());
  if (sampling != nullptr) sampling->validate(r_count, gamma);
  const auto v = static_cast<std::size_t>(target.shape.vocab);
  std::vector<std::vector<int>> drafts;
  std::vector<std::vector<double>> p_draft(requests.size());
  VerifyStepOptions o;
  o.capture_layers = drafter.shape.target_layer_ids;
  for (int r = 0; r < r_count; ++r) {
    DraftOptions draft_options;
    const auto first = static_cast<std::ptrdiff_t>(r) * gamma;
    if (sampling != nullptr) {
      draft_options.temperature = sampling->temperature;
      draft_options.uniforms.assign(sampling->draft_uniforms.begin() + first,
                                    sampling->draft_uniforms.begin() + first + gamma);
    }
    const DraftResult d =
        dspark_draft_ref(drafter, target, draft_cache, requests[r].slot, requests[r].context_len,
                         requests[r].anchor, draft_options);
    const int l = std::clamp(verify_lengths.at(r), 0, gamma);
    drafts.emplace_back(d.tokens.begin(), d.tokens.begin() + l);
    if (sampling == nullptr) continue;
    p_draft[r].assign(d.p_draft.begin(), d.p_draft.begin() + static_cast<std::ptrdiff_t>(l * v));
    o.accept_uniforms.insert(o.accept_uniforms.end(), sampling->accept_uniforms.begin() + first,
                             sampling->accept_uniforms.begin() + first + l);
  }
  if (sampling != nullptr) {
    o.temperature = sampling->temperature;
    o.sample_uniforms = sampling->sample_uniforms;
  }
  const std::vector<SpecRequest> before = requests;
  std::vector<StepOutcome> out =
      verify_step_ref(target, target_cache, requests, drafts, p_draft, o);
  for (std::size_t r = 0; r < requests.size(); ++r) {
    dspark_context_update_ref(drafter, target.shape, out[r].states.data(), 1 + out[r].accepted,
                              before[r].context_len, before[r].slot, draft_cache);
  }
  return out;
}

}  // namespace

std::vector<StepOutcome> dspark_greedy_step_ref(const TargetWeights& target,
                                                const DraftWeights& drafter,
                                                HostKvCache& target_cache, HostKvCache& draft_cache,
                                                std::vector<SpecRequest>& requests,
                                                const std::vector<int>& verify_lengths) {
  return dspark_step_ref(target, drafter, target_cache, draft_cache, requests, verify_lengths,
                         nullptr);
}

std::vector<StepOutcome> dspark_sampled_step_ref(
    const TargetWeights& target, const DraftWeights& drafter, HostKvCache& target_cache,
    HostKvCache& draft_cache, std::vector<SpecRequest>& requests,
    const std::vector<int>& verify_lengths, const StepSampling& sampling) {
  return dspark_step_ref(target, drafter, target_cache, draft_cache, requests, verify_lengths,
                         &sampling);
}

}  // namespace sparksim::kernels
