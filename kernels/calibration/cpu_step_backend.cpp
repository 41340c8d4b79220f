// CPU backend: ragged verify forwards and drafter rounds on the reference loops, host-timed.
#include "kernels/calibration/cpu_step_backend.hpp"

#include <ctime>
#include <fstream>
#include <stdexcept>
#include <thread>

#include "kernels/reference/dspark_ref.hpp"
#include "kernels/reference/verify_forward_ref.hpp"

namespace sparksim::kernels {

TransformerShape calibration_cpu_shape() {
  // 2 layers, hidden 192 (4 query heads over 2 KV heads of 48), ffn 384, vocab 512: a drafted
  // token costs about 0.5 ms on the reference loops, inside the profile schema's 1 ms-per-token
  // bound with room for a loaded machine (hidden 256 crossed it).
  return {"calib-cpu-tiny", 2, 192, 4, 2, 48, 384, 512, 1e4, 1e-6, false};
}

namespace {

KvCacheShape cache_shape(const TransformerShape& s, int layers, int slots, int tokens) {
  return {layers, slots, tokens, s.kv_heads, s.head_dim};
}

// The calling thread's CPU time: the reference loops run on this thread alone, and on a shared
// machine wall time would also count the other tenants' time slices (25% IQR/median on the
// 2-core CI machine with wall time).
double thread_cpu_us() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) * 1e6 + static_cast<double>(t.tv_nsec) * 1e-3;
}

std::string cpu_model_name() {
  std::ifstream f("/proc/cpuinfo");
  std::string line;
  while (std::getline(f, line)) {
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos && colon + 2 <= line.size()) return line.substr(colon + 2);
    }
  }
  return "unknown CPU";
}

}  // namespace

CpuStepBackend::CpuStepBackend(const TransformerShape& target, int draft_layers, int max_requests,
                               int max_slot_tokens, std::uint64_t seed)
    : StepBackend(max_requests, max_slot_tokens),
      shape_(target),
      draft_layers_(draft_layers),
      seed_(seed),
      target_(make_random_target_weights(target, seed)),
      target_cache_(cache_shape(target, target.layers, max_requests, max_slot_tokens)),
      draft_cache_(cache_shape(target, draft_layers, max_requests, max_slot_tokens)),
      mtp1_(make_random_mtp1_weights(target, seed + 101)),
      eagle3_(make_random_eagle3_weights(target, eagle3_shape(target), seed + 102)),
      ar_cache_(cache_shape(target, 1, max_requests, max_slot_tokens)) {
  // Residual-stream magnitudes of a few units; the contents do not change the time.
  for (int i = 0; i < 3 * target.hidden; ++i) last_states_.push_back(((i * 37) % 17 - 8) * 0.25);
}

std::string CpuStepBackend::device() const {
  return "cpu: " + cpu_model_name() +
         " (CPU reference loops, 1 thread, timed in thread CPU time; " +
         std::to_string(std::thread::hardware_concurrency()) + " hardware threads)";
}

double CpuStepBackend::kv_bytes_per_token() const {
  return 2.0 * 4.0 * shape_.layers * shape_.kv_heads * shape_.head_dim;
}

double CpuStepBackend::weights_bytes() const {
  double weights = 4.0 * static_cast<double>(target_.embed.size() + target_.lm_head.size());
  for (const LayerWeights& l : target_.layers) {
    weights += 4.0 * static_cast<double>(l.wqkv.size() + l.wo.size() + l.w_gate_up.size() +
                                         l.w_down.size());
  }
  return weights;
}

const DraftWeights& CpuStepBackend::drafter(int gamma) {
  auto it = drafters_.find(gamma);
  if (it == drafters_.end()) {
    std::vector<int> ids;
    for (int l = 0; l < shape_.layers; ++l) ids.push_back(l);
    const DraftShape d{draft_layers_, gamma, 16, ids};
    it = drafters_
             .emplace(gamma, std::make_unique<DraftWeights>(make_random_draft_weights(
                                 shape_, d, seed_ + static_cast<std::uint64_t>(gamma))))
             .first;
  }
  return *it->second;
}

double CpuStepBackend::verify_us(const VerifyBatch& batch) {
  check_capacity(batch);
  const RaggedBatch ragged = ragged_batch_of(batch, shape_.vocab);
  ragged.validate(target_cache_.shape, shape_.vocab);
  const double start = thread_cpu_us();
  const std::vector<double> logits = verify_forward_ref(target_, ragged, target_cache_);
  const double us = thread_cpu_us() - start;
  if (logits.empty()) throw std::logic_error("verify forward returned no logits");
  return us;
}

double CpuStepBackend::draft_us(const DraftBatch& batch) {
  check_capacity(batch);
  const bool block = batch.family == DraftFamily::kDspark || batch.family == DraftFamily::kDflash;
  const DraftWeights* w = block ? &drafter(batch.gamma) : nullptr;
  DraftOptions options;
  options.markov_and_confidence = batch.family == DraftFamily::kDspark;
  const double start = thread_cpu_us();
  std::size_t drafted = 0;
  for (std::size_t r = 0; r < batch.contexts.size(); ++r) {
    const int slot = static_cast<int>(r);
    const int ctx = batch.contexts[r];
    if (block) {
      drafted += dspark_draft_ref(*w, target_, draft_cache_, slot, ctx, 1, options).tokens.size();
    } else if (batch.family == DraftFamily::kMtp1) {
      drafted +=
          mtp1_draft_ref(mtp1_, target_, ar_cache_, slot, ctx, last_states_.data(), 1, batch.gamma)
              .tokens.size();
    } else {
      drafted += eagle3_draft_ref(eagle3_, target_, ar_cache_, slot, ctx, last_states_.data(), 1,
                                  batch.gamma)
                     .tokens.size();
    }
  }
  const double us = thread_cpu_us() - start;
  if (drafted != batch.contexts.size() * static_cast<std::size_t>(batch.gamma)) {
    throw std::logic_error("drafter returned the wrong number of tokens");
  }
  return us;
}

}  // namespace sparksim::kernels
