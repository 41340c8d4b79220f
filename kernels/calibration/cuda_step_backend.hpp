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
  int max_requests() const override { return max_requests_; }
  int max_slot_tokens() const override { return max_slot_tokens_; }
  double verify_us(const VerifyBatch& batch) override;
  double draft_us(const DraftBatch& batch) override;
  // The target's weights in bytes (bf16), and its K/V bytes per cached token (bf16).
  double weights_bytes() const;
  double kv_bytes_per_token() const;

 private:
  gpu::DsparkModel& drafter(int gamma);
  gpu::ArDrafterModel& ar_drafter(gpu::ArFamily family);
  TransformerShape shape_;
  int max_requests_;
  int max_slot_tokens_;
  std::uint64_t seed_;
  std::unique_ptr<gpu::VerifyModel> target_;
  std::map<int, std::unique_ptr<gpu::DsparkModel>> drafters_;  // by gamma (the block size)
  std::map<gpu::ArFamily, std::unique_ptr<gpu::ArDrafterModel>> ar_drafters_;  // built at first use
};

}  // namespace sparksim::kernels
