// Host interface of the autoregressive drafters on the device (kernels/cuda/ar_drafter_model.cu;
// stubs in cuda/gpu_stub.cpp where nvcc is missing): MTP-1 and EAGLE-3, the semantics of
// mtp1_ref.hpp and eagle3_ref.hpp for R requests at once, each pass batched over requests. The
// layer reuses the verify kernels (RMSNorm, RoPE, KV append, ragged attention, SwiGLU, cuBLAS
// GEMMs); a round is set / run / results apart with CUDA-event timing, like DsparkModel.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "kernels/draft_request.hpp"
#include "kernels/gpu_kernels.hpp"
#include "kernels/reference/eagle3_ref.hpp"
#include "kernels/reference/mtp1_ref.hpp"
#include "kernels/reference/step_ref.hpp"

namespace sparksim::kernels::gpu {

enum class ArFamily { kMtp1, kEagle3 };

struct GpuArDraftResult {
  std::vector<int> tokens;     // [R x gamma] target token ids
  std::vector<float> logits;   // [R x gamma x head vocab] (EAGLE-3: the draft vocabulary)
  std::vector<float> p_draft;  // [R x gamma x head vocab], softmax of the logits
  std::vector<float> hidden;   // [R x gamma x hidden], each pass's output before the head norm
};

// One round: per request the anchor, the cached positions (the passes sit at context_lens[r] +
// k and write their K/V there as scratch, so a slot needs room for context + gamma), the slot,
// and the target states at position context_lens[r] (hidden wide for MTP-1, 3 hidden for
// EAGLE-3), bf16-exact floats [R x state width]. Sampling as DraftRequest (uniforms [R x gamma]).
struct ArDraftRequest {
  DraftRequest round;  // anchors, context_lens, slots, temperature, uniforms
  std::vector<float> last_states;
  int gamma = 1;
};

class ArDrafterModel {
 public:
  // Weights uploaded from the host (small shapes, the comparisons); the target's embedding and
  // LM head are copied from `target`.
  ArDrafterModel(const TargetWeights& target, const Mtp1Weights& w, const KvCacheShape& cache);
  ArDrafterModel(const TargetWeights& target, const Eagle3Weights& w, const KvCacheShape& cache);
  // Weights drawn on the device, equal to make_random_mtp1_weights / make_random_eagle3_weights
  // (eagle3_shape of the target) for `seed`; the embedding and LM head are the target's device
  // tensors, borrowed (`target` must outlive this model).
  ArDrafterModel(const VerifyModel& target, ArFamily family, std::uint64_t seed, double matrix_std,
                 const KvCacheShape& cache);
  ~ArDrafterModel();
  ArDrafterModel(const ArDrafterModel&) = delete;
  ArDrafterModel& operator=(const ArDrafterModel&) = delete;

  ArFamily family() const;
  int state_width() const;           // hidden (MTP-1) or 3 hidden (EAGLE-3)
  int head_vocab() const;            // the target's vocabulary (MTP-1) or the draft vocabulary
  std::size_t weight_bytes() const;  // the drafter's own weights (bf16), heads borrowed excluded
  void upload_kv(const HostKvCache& cache);
  HostKvCache download_kv() const;
  void resize_kv(const KvCacheShape& cache);
  // states [n x state width] (bf16-exact): row i of request r's rows is position
  // rows.context_lens[r] + i of slot rows.slots[r]; rows.tokens[i] is the token that followed it.
  // Synchronous; a round set before it must be set again (the update reuses its buffers).
  void context_update(const std::vector<float>& states, const RaggedBatch& rows);

  void set_draft(const ArDraftRequest& request);  // validates, enqueues the uploads
  // The device-resident step (ArStepRunner): the same round with its pass-0 states already on
  // the device (bf16 [R x state width]), copied on this model's stream.
  void set_draft_device(const DraftRequest& round, int gamma, const void* last_states);
  // context_update from device states (bf16 [n x state width]) and device next tokens [n]; rows
  // give the slots and positions (their tokens are not read). Enqueued on this model's stream
  // after the work already enqueued on `after` (a cudaStream_t; nullptr: none); no
  // synchronisation. A round set before it must be set again.
  void context_update_device(const void* states, const int* next_tokens, const RaggedBatch& rows,
                             void* after);
  // The model's stream (a cudaStream_t) and the drafted target tokens of the last run [R x gamma].
  struct DeviceView {
    void* stream = nullptr;
    const int* tokens = nullptr;
    int gamma = 0;
  };
  DeviceView device_view() const;
  void run();                        // enqueues the round
  GpuArDraftResult results() const;  // waits and downloads
  double run_timed_us();             // one sample of run() between CUDA events

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// One greedy engine step with an autoregressive drafter on the device, the semantics of
// ar_greedy_step_ref (target and drafter caches share slot numbers; cuda/ar_step.cu): draft γ
// from the requests' pass-0 states -> verify [anchor, x_1..x_l] -> greedy acceptance -> commit ->
// the drafter's context update, with the data on the device between stages. The update takes
// every verified row (positions C-1..C+l-1 from [pass-0 state, verify states] and the verify
// tokens, shapes known before the step; rows past the committed ones are overwritten by the next
// round), and each request's next pass-0 state is gathered on the device from the verify row at
// its acceptance point. Only R counts, R tokens and R x gamma drafts come back.
class ArStepRunner {
 public:
  // capture_layers: the target layers the drafter consumes (ArDrafterRef::capture_layers), their
  // count times hidden equal to the drafter's state width; sets them on the target. Both models
  // must outlive the runner.
  ArStepRunner(VerifyModel& target, ArDrafterModel& drafter, const std::vector<int>& capture_layers,
               int gamma);
  ~ArStepRunner();
  ArStepRunner(const ArStepRunner&) = delete;
  ArStepRunner& operator=(const ArStepRunner&) = delete;
  // The pass-0 states of the requests in the order step() takes them, [R x state width]
  // (bf16-exact floats: ArSpecRequest::last_states rounded), and their current device values.
  void set_last_states(const std::vector<float>& states);
  std::vector<float> last_states() const;
  // Advances `requests` (context_len >= 1; += 1 + accepted, anchor = the final committed token)
  // and their pass-0 states; outcome.states stays empty. verify_lengths[r] clamped to [0, gamma].
  std::vector<StepOutcome> step(std::vector<SpecRequest>& requests,
                                const std::vector<int>& verify_lengths);
  // The last step's device time between CUDA events, draft to context update, microseconds.
  double last_step_us() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace sparksim::kernels::gpu
