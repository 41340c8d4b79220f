// The declared tolerance of every CUDA kernel against its CPU reference, with the metric and the
// reason for the value. Metrics: max_rel = max |gpu - ref| / max |ref| over the output (an error
// relative to the output's scale, robust to near-zero elements); nmse = sum (gpu - ref)^2 /
// sum ref^2 (for reductions and whole-model outputs, where single elements legitimately drift).
// The comparisons live in kernels/checks/kernel_checks.cpp.
#pragma once

namespace sparksim::kernels::tolerance {

// bf16 output: one rounding of 2^-9 relative, plus the bf16-rounded input; fp32 statistics.
inline constexpr double kRmsNormMaxRel = 1e-2;
// bf16 in and out, angles in double: one rounding per element.
inline constexpr double kRopeMaxRel = 1e-2;
// A bf16 copy of bf16-exact values: must be exact.
inline constexpr double kKvAppendMaxRel = 0.0;
// Fused q/k norm + RoPE + KV append (queries and appended keys): two bf16 roundings of 2^-9 each
// (the normalised value, as the unfused path stores it, then the rotated one), fp32 statistics,
// double angles. The appended values are a copy: exact, kKvAppendMaxRel.
inline constexpr double kFusedQkNormRopeMaxRel = 1e-2;
// fp32 online softmax and accumulation over <= 8192 positions, one bf16 rounding of the output.
inline constexpr double kAttentionMaxRel = 1e-2;
// Split-K decode and tensor-core prefill attention: Q K^T on bf16 tensor cores with fp32
// accumulation (exact products, fp32 sums, as the ragged kernel), probabilities rounded to bf16
// before P V (each weight off by <= 2^-9 relative, as in FlashAttention; the denominator sums the
// rounded weights, so they stay convex), the splits' log-sum-exp combine in fp32, one bf16
// rounding of the output. The weights' errors have random signs and shrink with the keys' count,
// so the error sits near the ragged kernel's; twice its bound leaves room for short contexts.
inline constexpr double kAttentionSplitKMaxRel = 2e-2;
inline constexpr double kAttentionPrefillTcMaxRel = 2e-2;
// fp32 silu and product, one bf16 rounding.
inline constexpr double kSwigluMaxRel = 1e-2;
// bf16-exact inputs, fp32 accumulation over k <= 17408: ~sqrt(k) * 2^-24 relative, far below.
inline constexpr double kGemmMaxRel = 1e-3;
// fp32 exp and sums against double over a vocabulary: ~1e-7 relative per element.
inline constexpr double kSoftmaxNmse = 1e-9;
// Whole verify forward (tiny shape): bf16 activations at ~10 roundings per layer, each ~2^-9.
inline constexpr double kVerifyForwardNmse = 2e-3;
// DSpark drafter (tiny shape): context K/V, base logits and draft distributions through bf16
// activations, like the verify forward.
inline constexpr double kDraftNmse = 2e-3;
// A greedy draft token may differ from the reference only where the reference's top two logits
// are closer than this (bf16 forwards move logits by a few 1e-2); the comparison of that request
// stops there, since every later position depends on the token.
inline constexpr double kDraftTieMargin = 0.1;
// The target's distributions of a sampled step on the device, softmax(logits / T) of a verify
// forward within kVerifyForwardNmse: a logit error moves p by about p times it, as kDraftNmse.
inline constexpr double kTargetProbabilityNmse = 2e-3;
// Confidence (a sigmoid in (0, 1)) up to the first token difference: absolute error.
inline constexpr double kConfidenceMaxAbs = 2e-2;
// MTP-1 and EAGLE-3 (tiny shape): context K/V, each pass's logits, distribution and output hidden
// state. One layer per pass, but γ passes chained through bf16 activations (the hidden state fed
// back is fp32, its norms and GEMM inputs bf16): the DSpark drafter's bound.
inline constexpr double kArDraftNmse = 2e-3;
// The autoregressive engine step (ar_greedy_step): the drafter's cache after the device's context
// update and the next pass-0 states (captured target states), both one verify forward and one
// drafter layer from bf16-exact inputs: the verify forward's and the drafter's bound. Tokens as
// dspark_draft (exact unless a reference top-two gap < kDraftTieMargin); the target cache by
// kVerifyForwardNmse.
inline constexpr double kArStepNmse = 2e-3;
// Weights drawn on the device against the host generator: the same bits, so the same logits.
inline constexpr double kDeviceWeightsMaxRel = 0.0;
// Rejection verify: accepted counts exact; a committed token may differ only where u * total lies
// within this fraction of the total from a CDF boundary (double sums in another order).
inline constexpr double kRejectionBoundaryMargin = 1e-9;

}  // namespace sparksim::kernels::tolerance
