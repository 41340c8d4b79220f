// CUDA backend: verify forwards and drafter rounds on the device models, event-timed.
#include "kernels/calibration/cuda_step_backend.hpp"

#include <algorithm>

#include "common/random_bits.hpp"

namespace sparksim::kernels {

namespace {

// Qwen3's initializer range: realistic magnitudes, so no kernel takes a degenerate fast path.
constexpr double kMatrixStd = 0.02;

bool is_qwen3(const std::string& name) {
  for (const std::string& n : qwen3_shape_names()) {
    if (n == name) return true;
  }
  return false;
}

}  // namespace

DraftShape calibration_draft_shape(const TransformerShape& target) {
  if (is_qwen3(target.name)) return dspark_shape(target.name);
  std::vector<int> ids;
  for (int l = 0; l < target.layers; ++l) ids.push_back(l);
  return {1, 4, 16, ids};
}

CudaStepBackend::CudaStepBackend(const TransformerShape& target, int max_requests,
                                 int max_slot_tokens, std::uint64_t seed, int graph_max_bucket)
    : StepBackend(max_requests, max_slot_tokens), shape_(target), seed_(seed) {
  if (gpu::device_count() == 0) {
    throw NoCudaDevice(std::string("no CUDA device (built with CUDA: ") +
                       (gpu::built_with_cuda() ? "yes" : "no") + ")");
  }
  const KvCacheShape cache{target.layers, max_requests, max_slot_tokens, target.kv_heads,
                           target.head_dim};
  target_ = std::make_unique<gpu::VerifyModel>(target, seed, kMatrixStd, cache);
  target_->use_graphs(graph_max_bucket);
}

std::string CudaStepBackend::device() const {
  return "cuda: " + gpu::device_summary() + " (sparksim kernels, bf16 weights, CUDA events)";
}

double CudaStepBackend::weights_bytes() const {
  return static_cast<double>(target_->weight_bytes());
}

double CudaStepBackend::kv_bytes_per_token() const {
  return 2.0 * 2.0 * shape_.layers * shape_.kv_heads * shape_.head_dim;
}

gpu::DsparkModel& CudaStepBackend::drafter(int gamma) {
  auto it = drafters_.find(gamma);
  if (it == drafters_.end()) {
    DraftShape d = calibration_draft_shape(shape_);
    d.block_size = gamma;
    const KvCacheShape cache{d.layers, max_requests(), max_slot_tokens(), shape_.kv_heads,
                             shape_.head_dim};
    it = drafters_
             .emplace(gamma, std::make_unique<gpu::DsparkModel>(
                                 *target_, d, seed_ + static_cast<std::uint64_t>(gamma), kMatrixStd,
                                 cache))
             .first;
  }
  return *it->second;
}

double CudaStepBackend::verify_us(const VerifyBatch& batch) {
  check_capacity(batch);
  target_->set_batch(ragged_batch_of(batch, shape_.vocab), prefill_flags_of(batch));
  // No L2 flush: consecutive serving steps do not flush either, and a real target's weights
  // exceed L2 many times over.
  return target_->run_timed_us(0);
}

gpu::ArDrafterModel& CudaStepBackend::ar_drafter(gpu::ArFamily family) {
  auto it = ar_drafters_.find(family);
  if (it == ar_drafters_.end()) {
    // One layer of the target's width; MTP-1 borrows the target's LM head, EAGLE-3 draws its own
    // over eagle3_shape's draft vocabulary (32000 for the Qwen3 targets).
    const KvCacheShape cache{1, max_requests(), max_slot_tokens(), shape_.kv_heads,
                             shape_.head_dim};
    const std::uint64_t seed = seed_ + (family == gpu::ArFamily::kMtp1 ? 101 : 102);
    it = ar_drafters_
             .emplace(family, std::make_unique<gpu::ArDrafterModel>(*target_, family, seed,
                                                                    kMatrixStd, cache))
             .first;
  }
  return *it->second;
}

double CudaStepBackend::draft_us(const DraftBatch& batch) {
  check_capacity(batch);
  if (batch.family == DraftFamily::kMtp1 || batch.family == DraftFamily::kEagle3) {
    gpu::ArDrafterModel& model = ar_drafter(
        batch.family == DraftFamily::kMtp1 ? gpu::ArFamily::kMtp1 : gpu::ArFamily::kEagle3);
    gpu::ArDraftRequest request;
    request.gamma = batch.gamma;
    for (std::size_t r = 0; r < batch.contexts.size(); ++r) {
      request.round.anchors.push_back(batch.contexts[r] * 7919 % shape_.vocab);
      request.round.context_lens.push_back(batch.contexts[r]);
      request.round.slots.push_back(static_cast<int>(r));
    }
    // Target states of a residual stream's scale; contents do not change the time.
    request.last_states.assign(batch.contexts.size() * model.state_width(), 0.5f);
    model.set_draft(request);
    return model.run_timed_us();
  }
  DraftRequest request;
  for (std::size_t r = 0; r < batch.contexts.size(); ++r) {
    request.anchors.push_back(batch.contexts[r] * 7919 % shape_.vocab);
    request.context_lens.push_back(batch.contexts[r]);
    request.slots.push_back(static_cast<int>(r));
  }
  request.markov_and_confidence = batch.family == DraftFamily::kDspark;
  gpu::DsparkModel& model = drafter(batch.gamma);
  model.set_draft(request);
  return model.run_timed_us();
}

double CudaStepBackend::engine_step_us(const DraftBatch& batch, int verify_len,
                                       double sampled_temperature) {
  check_capacity(batch);
  const int r_count = static_cast<int>(batch.contexts.size());
  if (r_count < 1 || batch.family != DraftFamily::kDspark) {
    throw std::invalid_argument("engine step: at least one request, DSpark (markov) drafts");
  }
  for (int c : batch.contexts) {
    if (c + batch.gamma + 1 > max_slot_tokens()) {
      throw std::invalid_argument("engine step: context + gamma + 1 overflows a slot");
    }
  }
  std::vector<SpecRequest> requests;
  for (int r = 0; r < r_count; ++r) {
    requests.push_back({r, batch.contexts[r], batch.contexts[r] * 7919 % shape_.vocab});
  }
  const std::vector<int> lengths(requests.size(), std::clamp(verify_len, 0, batch.gamma));
  DraftShape d = calibration_draft_shape(shape_);
  d.block_size = batch.gamma;
  gpu::GreedyStepRunner runner(*target_, drafter(batch.gamma), d);
  if (sampled_temperature > 0) {
    StepSampling sampling;
    sampling.temperature = sampled_temperature;
    const std::uint64_t key = derive_seed(seed_, 0x5a3d);
    const auto draw = [&] { return counter_uniform(key, uniform_counter_++); };
    for (int i = 0; i < r_count * batch.gamma; ++i) {
      sampling.draft_uniforms.push_back(draw());
      sampling.accept_uniforms.push_back(draw());
    }
    for (int r = 0; r < r_count; ++r) sampling.sample_uniforms.push_back(draw());
    runner.step(requests, lengths, sampling);
  } else {
    runner.step(requests, lengths);
  }
  target_->set_capture_layers({});  // verify_us measures the forward alone again
  return runner.last_step_us();
}

}  // namespace sparksim::kernels
