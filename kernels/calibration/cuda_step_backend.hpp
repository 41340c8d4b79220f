// The CUDA backend of the calibration pipeline: the project's kernels (VerifyModel, DsparkModel,
// ArDrafterModel for MTP-1 and EAGLE-3)
// on weights drawn on the device, timed by CUDA events, every buffer resident on the device
// between calls (no per-call upload of weights or caches, no download of logits). Built in every
// configuration, because it reaches CUDA only through gpu_kernels.hpp: without nvcc the stub
// makes its constructor throw, and without a device it throws NoCudaDevice, which callers report
// as "not run" (sparksim_calibrate_kernels exits 77).
#pragma once

#include <map>
#include <memory>
#include <stdexcept>
#include <string>

#include "kernels/ar_drafter_gpu.hpp"
#include "kernels/calibration/step_backend.hpp"
#include "kernels/gpu_kernels.hpp"
#include "kernels/model_shape.hpp"

namespace sparksim::kernels {

struct NoCudaDevice : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The drafter the backend times for a target: DSpark's published shape for a Qwen3 target; for
// another (the tiny calibration shape) 1 layer of rank 16 over every target layer, as the CPU
// backend's. block_size is replaced by each round's gamma.
DraftShape calibration_draft_shape(const TransformerShape& target);

class CudaStepBackend : public StepBackend {
 public:
  // max_requests KV slots of max_slot_tokens for the target and each drafter. graph_max_bucket:
  // CUDA graphs for verify batches up to that many tokens (0: eager). Throws NoCudaDevice.
  CudaStepBackend(const TransformerShape& target, int max_requests, int max_slot_tokens,
                  std::uint64_t seed, int graph_max_bucket);
  std::string device() const override;
  double verify_us(const VerifyBatch& batch) override;
  double draft_us(const DraftBatch& batch) override;
  double weights_bytes() const override;       // bf16
  double kv_bytes_per_token() const override;  // bf16
  // One engine step on the device (gpu::GreedyStepRunner: draft -> verify -> accept -> commit ->
  // context update) for the requests of `batch` (its gamma and contexts, DSpark), each verifying
  // min(verify_len, gamma) drafts: greedy verification, or with sampled_temperature > 0
  // rejection sampling (lossless) at that temperature, its uniforms drawn from the backend's
  // seed (counter_uniform, a fresh counter range per call). One sample of the step's device time
  // in microseconds. The target stores the drafter's layers only during the call.
  double engine_step_us(const DraftBatch& batch, int verify_len, double sampled_temperature = 0);

 private:
  gpu::DsparkModel& drafter(int gamma);
  gpu::ArDrafterModel& ar_drafter(gpu::ArFamily family);
  TransformerShape shape_;
  std::uint64_t seed_;
  std::uint64_t uniform_counter_ = 0;
  std::unique_ptr<gpu::VerifyModel> target_;
  std::map<int, std::unique_ptr<gpu::DsparkModel>> drafters_;  // by gamma (the block size)
  std::map<gpu::ArFamily, std::unique_ptr<gpu::ArDrafterModel>> ar_drafters_;  // built at first use
};

}  // namespace sparksim::kernels
