// Host interface of the CUDA kernels. One header, two implementations chosen at configure time:
// kernels/cuda/*.cu where nvcc exists, kernels/cuda/gpu_stub.cpp otherwise (device_count() == 0,
// everything else throws), so callers need no #ifdef. Nothing here touches the GPU before it is
// called: no static initialisers, no cuBLAS handle before device_count() says a device exists.
//
// The per-kernel functions take and return host arrays of bf16-exact floats (upload, one launch,
// download): they exist for the comparisons in kernels/checks/, not for speed. VerifyModel keeps
// weights and KV cache on the device for the full forward. Every function validates shapes first
// (std::invalid_argument) and turns any CUDA or cuBLAS error into std::runtime_error.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kernels/attention_plan.hpp"
#include "kernels/draft_request.hpp"
#include "kernels/ragged_batch.hpp"
#include "kernels/random_weights.hpp"
#include "kernels/reference/rejection_ref.hpp"
#include "kernels/reference/step_ref.hpp"
#include "kernels/timing/stable_sampling.hpp"

namespace sparksim::kernels::gpu {

bool built_with_cuda();
// Usable CUDA devices: 0 without a driver, without a device, or in a build without CUDA. Never
// throws, and clears the CUDA error it may leave.
int device_count();
// Device 0's name, SM count, clocks, driver, runtime and cuBLAS versions; "" without a device.
std::string device_summary();

// Rows of n bf16 values: x / rms(x) * gain, fp32 statistics, bf16 out.
std::vector<float> rms_norm(const std::vector<float>& x, const std::vector<float>& gain, int rows,
                            int n, double eps);
// x [T x heads x head_dim] rotated in place at positions[T] (NeoX pairs), fp32 math, bf16 out.
std::vector<float> rope(const std::vector<float>& x, const std::vector<int>& positions, int heads,
                        int head_dim, double theta);
// Writes new K/V rows [T x kv_width] of `layer` at each token's (slot, position); returns the
// cache after the append (bf16 storage: exact for bf16-exact input).
void kv_append(const std::vector<float>& k_new, const std::vector<float>& v_new,
               const RaggedBatch& batch, int layer, HostKvCache& cache);
// The fused attention input (cuda/fused_qk_norm_rope_kv.cu): qkv [T x (q_heads + 2 kv_heads) x
// head_dim] (bf16-exact); each query and key head RMSNorm'd with its gain (q_norm, k_norm:
// head_dim values) and rotated at its token's position (qk_norm_rope_ref), the keys and values
// appended to `layer` of the cache at each token's (slot, position). Returns the query heads
// [T x q_heads x head_dim]; `cache` is the cache after the append.
std::vector<float> qk_norm_rope_kv_append(const std::vector<float>& qkv,
                                          const std::vector<float>& q_norm,
                                          const std::vector<float>& k_norm,
                                          const RaggedBatch& batch, int layer, int q_heads,
                                          double eps, double theta, HostKvCache& cache);
// q [T x q_heads x head_dim]: each token attends to its request's cache positions 0..its own
// position (causal, the new tokens already appended); online softmax in fp32, bf16 out.
std::vector<float> ragged_attention(const std::vector<float>& q, const HostKvCache& cache,
                                    int layer, const RaggedBatch& batch, int q_heads);
// The verify forward's attention (attention_plan.hpp) on the inputs and semantics of
// ragged_attention: split-K decode attention for narrow requests, tensor-core tiles for prefill
// chunks, planned for sm_count SMs (0: the device's). plan_summary (optional) gets
// describe_attention_plan of the plan. Needs planned_attention_supported(head_dim).
std::vector<float> planned_attention(const std::vector<float>& q, const HostKvCache& cache,
                                     int layer, const RaggedBatch& batch, int q_heads,
                                     const AttentionPlanConfig& config, int sm_count = 0,
                                     std::string* plan_summary = nullptr);
// A device of compute capability >= 8.0 and head_dim 32, 64 or 128 (false without a device).
bool planned_attention_supported(int head_dim);
// gate_up [T x 2 ffn] (gate first) -> [T x ffn].
std::vector<float> swiglu(const std::vector<float>& gate_up, int tokens, int ffn);
// C [m x n] = A [m x k] W [n x k]^T through cuBLAS: bf16 inputs, fp32 accumulation, fp32 out.
std::vector<float> gemm_bf16(const std::vector<float>& a, const std::vector<float>& w, int m, int n,
                             int k);
// Row-wise softmax(logits / temperature), fp32.
std::vector<float> softmax(const std::vector<float>& logits, int rows, int n, double temperature);
// The rejection rule of rejection_ref.hpp, one thread block per request, double running sums.
RejectionResult rejection_verify(const RejectionBatch& batch);

// The target's verify forward on the device: bf16 weights and KV cache, fp32 residual stream,
// cuBLAS GEMMs with fp32 accumulation, the kernels above in between. Graph-capturable: index
// buffers of a fixed capacity (grown only by set_batch beyond it, which drops captured graphs),
// a preallocated cuBLAS workspace, padding rows pointed at a spare KV slot no request owns, and no
// host synchronisation inside set_batch (double-buffered pinned staging, stream-ordered copies).
class VerifyModel {
 public:
  // Weights uploaded from the host (small shapes, the comparisons).
  VerifyModel(const TargetWeights& weights, const KvCacheShape& cache);
  // Weights drawn on the device, equal to make_random_target_weights(shape, seed, matrix_std):
  // real shapes, whose host copy would not fit comfortably (qwen3-8b: 16 GB of bf16).
  VerifyModel(const TransformerShape& shape, std::uint64_t seed, double matrix_std,
              const KvCacheShape& cache);
  ~VerifyModel();
  VerifyModel(const VerifyModel&) = delete;
  VerifyModel& operator=(const VerifyModel&) = delete;

  const TransformerShape& shape() const;
  std::size_t weight_bytes() const;
  void upload_kv(const HostKvCache& cache);
  HostKvCache download_kv() const;
  // A new KV cache (zeroed) of another slot count or capacity, same weights: the sweep changes
  // contexts without redrawing weights. Layers and heads must match the model.
  void resize_kv(const KvCacheShape& cache);
  // Token capacity of the index buffers and workspaces, allocated now (0 < tokens).
  void reserve_tokens(int tokens);
  // Logits [T x vocab] (fp32) of every row; appends the batch's K/V to the device cache.
  std::vector<float> forward(const RaggedBatch& batch);

  // The same in three parts, for timing: set_batch validates and stages the indices (host work,
  // no synchronisation with the device); run enqueues the forward on the model's stream; logits
  // waits and downloads. prefill[r] (empty: none) marks request r a prefill chunk: only its last
  // row gets logits (logit_rows of verify_rows.hpp); the LM head runs on those rows alone.
  // Repeated runs rewrite the same cache positions.
  void set_batch(const RaggedBatch& batch, const std::vector<bool>& prefill = {});
  void run();
  int logit_row_count() const;
  std::vector<float> logits() const;  // [logit rows x vocab]
  // CUDA graphs per token bucket (graph_buckets(max_bucket) of verify_rows.hpp, the time model's
  // padding rule): a batch of at most max_bucket tokens is padded to its bucket and its decoder
  // layers replay the graph captured for that bucket at first use; the gather and the LM head
  // run after it, on the real rows. 0 (the default): eager. SPARKSIM_CUDA_SYNC=1 forces eager.
  void use_graphs(int max_bucket);
  // One sample of run() in microseconds between CUDA events, L2 flushed first (a memset of
  // l2_flush_bytes outside the timed region; 0: no flush).
  double run_timed_us(std::size_t l2_flush_bytes);
  // Times run() of the current batch until the noise target of `options` (or its cap).
  TimingStats time_run(const SamplingOptions& options, std::size_t l2_flush_bytes);

  // Attention through the plan of attention_plan.hpp (split-K for decode rows, tensor-core tiles
  // for prefill chunks; the default where planned_attention_supported, unless
  // SPARKSIM_ATTENTION=ragged) or, false, the ragged kernel of one block per (token, head).
  // Drops captured graphs; set the batch again.
  void use_planned_attention(bool planned);
  // The current batch's attention paths: describe_attention_plan, or "ragged" (the fallback).
  std::string attention_paths() const;

  // Target layers whose hidden states (after the layer's MLP residual) every run stores, bf16,
  // as rows [T x ids * hidden] on the device: the drafter's context input. Empty: none.
  void set_capture_layers(const std::vector<int>& layer_ids);
  // Raw device handles for a step runner (greedy_step.cu): the model's stream (a cudaStream_t),
  // the current batch's token ids (set_batch's copy is ordered on that stream, so a kernel
  // enqueued there after set_batch may rewrite them before run), the logits of the logit rows,
  // the captured states. Valid until the next set_batch, reserve_tokens or set_capture_layers.
  struct DeviceView {
    void* stream = nullptr;
    int* tokens = nullptr;
    const float* logits = nullptr;
    const void* states = nullptr;
  };
  DeviceView device_view() const;

  // The embedding and LM head on the device (bf16), which the drafter borrows.
  struct DeviceHeads {
    const void* embed = nullptr;
    const void* lm_head = nullptr;
  };
  DeviceHeads heads() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Device-to-device copy bandwidth, read plus write, in GB/s (the bandwidth floor's denominator).
struct CopyBandwidth {
  double gb_s = 0.0;
  TimingStats stats;
};
CopyBandwidth measure_copy_bandwidth(std::size_t bytes, const SamplingOptions& options);

struct GpuDraftResult {
  std::vector<int> tokens;         // [R x gamma]
  std::vector<float> p_draft;      // [R x gamma x vocab]
  std::vector<float> confidence;   // [R x gamma]; empty for dflash
  std::vector<float> base_logits;  // [R x gamma x vocab], before the Markov bias
};

// The DSpark drafter (dflash without its heads) on the device; semantics of dspark_ref.hpp for
// R requests at once. The block's own K/V are written to the draft cache at positions
// L..L+gamma-1 as scratch (the next context update overwrites them), so every slot needs room
// for its context plus gamma.
class DsparkModel {
 public:
  // Weights uploaded from the host (small shapes, the comparisons).
  DsparkModel(const TargetWeights& target, const DraftWeights& draft, const KvCacheShape& cache);
  // Weights drawn on the device, equal to make_random_draft_weights(target.shape(), draft, seed,
  // matrix_std); the embedding and LM head are the target's device tensors, borrowed (`target`
  // must outlive this model): no host copy of any weight, as real shapes need.
  DsparkModel(const VerifyModel& target, const DraftShape& draft, std::uint64_t seed,
              double matrix_std, const KvCacheShape& cache);
  ~DsparkModel();
  DsparkModel(const DsparkModel&) = delete;
  DsparkModel& operator=(const DsparkModel&) = delete;

  void upload_kv(const HostKvCache& cache);
  HostKvCache download_kv() const;
  // A new draft cache (zeroed) of another slot count or capacity, same weights.
  void resize_kv(const KvCacheShape& cache);
  // states [n x ids * hidden] (bf16-exact): request r's rows cu_seqlens[r].. of `rows` are its
  // positions context_lens[r].. in slot slots[r]; rows.tokens only sizes the batch.
  void context_update(const std::vector<float>& states, const RaggedBatch& rows);
  // The same from states already on the device (bf16 [n x ids * hidden], e.g. VerifyModel's
  // captured states of the same rows), enqueued on this model's stream after the work already
  // enqueued on `after` (a cudaStream_t; nullptr: none); no synchronisation.
  void context_update_device(const void* states, const RaggedBatch& rows, void* after);
  // The model's stream (a cudaStream_t), the drafted tokens of the last run [R x gamma], the
  // distributions they were drawn from [R x gamma x vocab], gamma.
  struct DeviceView {
    void* stream = nullptr;
    const int* tokens = nullptr;
    const float* p_draft = nullptr;
    int gamma = 0;
  };
  DeviceView device_view() const;

  // One round in three parts: set_draft validates (DraftRequest::validate: a repeated slot is
  // refused) and enqueues the index uploads; run enqueues the round on the model's stream;
  // results waits and downloads (tokens, p_draft, base logits, confidence: R x gamma x vocab
  // floats twice, so a timing loop never calls it).
  void set_draft(const DraftRequest& request);
  void run();
  GpuDraftResult results() const;
  // One sample of run() in microseconds between CUDA events.
  double run_timed_us();
  // The Markov-head loop of the last run (gamma steps of gather, bias GEMM, confidence, softmax
  // and draw), microseconds between CUDA events recorded around it; waits for the run.
  double last_markov_loop_us() const;
  // set_draft + run + results. temperature <= 0: greedy; else uniforms [R x gamma].
  // markov_and_confidence false: dflash.
  GpuDraftResult draft(const std::vector<int>& anchors, const std::vector<int>& context_lens,
                       const std::vector<int>& slots, double temperature,
                       const std::vector<double>& uniforms, bool markov_and_confidence);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// One DSpark engine step on the device, the semantics of dspark_greedy_step_ref, or with sampling
// of dspark_sampled_step_ref (target and drafter caches share slot numbers): draft -> verify
// [anchor, x_1..x_l] over ragged widths -> greedy acceptance, or rejection sampling against
// softmax(logits / temperature) with the drafts' p_draft (lossless) -> commit -> the drafter's
// context update. The data stay on the device
// between stages: the drafted tokens enter the verify batch by a device copy, the captured target
// states feed the context update directly; only the R accepted counts and committed tokens and
// the drafted ids come back, as a scheduler needs them. The context update takes every verified
// row (1 + l per request, shapes known before the step); rows past the committed ones are
// overwritten by the next round, as the target's rejected K/V are.
class GreedyStepRunner {
 public:
  // Sets the target's capture layers to the drafter's target_layer_ids. Both models must outlive
  // the runner.
  GreedyStepRunner(VerifyModel& target, DsparkModel& drafter, const DraftShape& drafter_shape);
  ~GreedyStepRunner();
  GreedyStepRunner(const GreedyStepRunner&) = delete;
  GreedyStepRunner& operator=(const GreedyStepRunner&) = delete;
  // Advances `requests` (context_len += 1 + accepted, anchor = the final committed token);
  // outcome.states stays empty (the states never leave the device). verify_lengths[r] is clamped
  // to [0, gamma].
  std::vector<StepOutcome> step(std::vector<SpecRequest>& requests,
                                const std::vector<int>& verify_lengths);
  // The sampled step (StepSampling of step_ref.hpp, validated before any work): the drafter draws
  // at the temperature with the draft uniforms, the target's softmax(logits / temperature) and
  // the drafts' p_draft go through the rejection kernel with the accept and sample uniforms.
  std::vector<StepOutcome> step(std::vector<SpecRequest>& requests,
                                const std::vector<int>& verify_lengths,
                                const StepSampling& sampling);
  // What the last sampled step decided on, downloaded for the comparisons: the target's
  // distributions of every verify row [T x vocab] (T = sum of 1 + l_r), the drafts'
  // [R x gamma x vocab] and the drafted tokens [R x gamma].
  struct SampledInputs {
    std::vector<float> p_target;
    std::vector<float> p_draft;
    std::vector<int> drafts;
  };
  SampledInputs last_sampled_inputs() const;
  // The last step's device time between CUDA events, draft to context update, microseconds.
  double last_step_us() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace sparksim::kernels::gpu
