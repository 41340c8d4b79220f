// CPU reference of speculative-decoding verification by rejection sampling (Leviathan et al.
// 2023; Chen et al. 2023): per request, walk the drafts left to right, accepting draft x_i with
// probability min(1, p_t(x_i) / p_d(x_i)) against a supplied uniform; at the first rejection draw
// the committed token from the normalised residual max(0, p_t - p_d); if every draft is accepted,
// draw the bonus token from the next target distribution. The committed tokens then follow the
// target's distribution exactly, whatever the drafter.
#pragma once

#include <vector>

namespace sparksim::kernels {

// Flattened like a verify batch: request r owns target rows [cu_seqlens[r], cu_seqlens[r+1]),
// i.e. 1 + d_r rows for its d_r drafts (d_r may be 0). Its draft i (0-based) sits at draft row
// cu_seqlens[r] - r + i of p_draft, draft_tokens and accept_uniforms.
struct RejectionBatch {
  int vocab = 0;
  std::vector<int> cu_seqlens;          // [R + 1]
  std::vector<float> p_target;          // [T x vocab], rows sum to 1
  std::vector<float> p_draft;           // [(T - R) x vocab]
  std::vector<int> draft_tokens;        // [T - R]
  std::vector<double> accept_uniforms;  // [T - R], each in [0, 1)
  std::vector<double> sample_uniforms;  // [R], each in [0, 1): the residual or bonus draw
  int requests() const { return static_cast<int>(cu_seqlens.size()) - 1; }
  // Throws std::invalid_argument naming the first size, offset, token or uniform out of range.
  void validate() const;
};

struct RejectionResult {
  std::vector<int> accepted;   // [R] drafts accepted, 0..d_r
  std::vector<int> committed;  // [R] the residual draw (a rejection) or the bonus draw
};

RejectionResult rejection_verify_ref(const RejectionBatch& batch);

// Inverse-CDF draw from n non-negative, unnormalised weights: the smallest j whose running sum
// exceeds u * total (double accumulation), skipping zero weights; -1 when the total is 0.
int sample_inverse_cdf_ref(const double* weights, int n, double u);

// Distance, in units of the total, from u to the nearest boundary of the running sum: below a
// kernel's accumulation error the GPU may legitimately draw the neighbouring token.
double inverse_cdf_margin_ref(const double* weights, int n, double u);

}  // namespace sparksim::kernels
