// The CPU backend of the calibration pipeline: the project's CPU references (verify_forward_ref,
// dspark_draft_ref, mtp1_draft_ref, eagle3_draft_ref) on seeded random weights, timed by the host
// clock. It is the proof that the sweep -> fit -> profile -> simulate -> replay chain works end to
// end without a GPU; its times describe these reference loops on this CPU, nothing else.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "kernels/calibration/step_backend.hpp"
#include "kernels/model_shape.hpp"
#include "kernels/ragged_batch.hpp"
#include "kernels/random_weights.hpp"
#include "kernels/reference/eagle3_ref.hpp"
#include "kernels/reference/mtp1_ref.hpp"

namespace sparksim::kernels {

// A few layers, hidden a few hundred, a small vocabulary: big enough that the step time has a
// dense, a per-context and a per-pair part, small enough that a sweep runs in seconds.
TransformerShape calibration_cpu_shape();

class CpuStepBackend : public StepBackend {
 public:
  // Holds max_requests KV slots of max_slot_tokens each for the target and each drafter (the
  // DSpark/dflash one of draft_layers layers; MTP-1 and EAGLE-3 one layer each).
  CpuStepBackend(const TransformerShape& target, int draft_layers, int max_requests,
                 int max_slot_tokens, std::uint64_t seed);
  std::string device() const override;
  double verify_us(const VerifyBatch& batch) override;
  double draft_us(const DraftBatch& batch) override;
  double weights_bytes() const override;       // float storage
  double kv_bytes_per_token() const override;  // float storage

 private:
  const DraftWeights& drafter(int gamma);
  TransformerShape shape_;
  int draft_layers_;
  std::uint64_t seed_;
  TargetWeights target_;
  HostKvCache target_cache_;
  HostKvCache draft_cache_;
  Mtp1Weights mtp1_;
  Eagle3Weights eagle3_;
  HostKvCache ar_cache_;             // MTP-1's and EAGLE-3's (one layer; timing only)
  std::vector<double> last_states_;  // [3 hidden]: the target states a round starts from
  std::map<int, std::unique_ptr<DraftWeights>> drafters_;  // by gamma (the block size)
};

}  // namespace sparksim::kernels
