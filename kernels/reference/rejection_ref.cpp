// The rejection-sampling reference (rejection_ref.hpp).
#include "kernels/reference/rejection_ref.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace sparksim::kernels {

void RejectionBatch::validate() const {
  const auto fail = [](const std::string& what) {
    throw std::invalid_argument("rejection batch: " + what);
  };
  if (vocab < 1) fail("vocab must be positive");
  if (cu_seqlens.size() < 2 || cu_seqlens[0] != 0) fail("cu_seqlens must start at 0, R >= 1");
  const int r_count = requests();
  for (int r = 0; r < r_count; ++r) {
    if (cu_seqlens[r + 1] <= cu_seqlens[r]) fail("request " + std::to_string(r) + " has no rows");
  }
  const auto t = static_cast<std::size_t>(cu_seqlens[r_count]);
  const std::size_t drafts = t - static_cast<std::size_t>(r_count);
  const auto v = static_cast<std::size_t>(vocab);
  if (p_target.size() != t * v || p_draft.size() != drafts * v || draft_tokens.size() != drafts ||
      accept_uniforms.size() != drafts ||
      sample_uniforms.size() != static_cast<std::size_t>(r_count)) {
    fail("array sizes do not match cu_seqlens and vocab");
  }
  for (int x : draft_tokens) {
    if (x < 0 || x >= vocab) fail("draft token " + std::to_string(x) + " outside the vocabulary");
  }
  for (const auto* u : {&accept_uniforms, &sample_uniforms}) {
    for (double value : *u) {
      if (!(value >= 0.0 && value < 1.0)) fail("a uniform is outside [0, 1)");
    }
  }
}

int sample_inverse_cdf_ref(const double* weights, int n, double u) {
  double total = 0.0;
  for (int j = 0; j < n; ++j) total += weights[j];
  if (!(total > 0.0)) return -1;
  const double target = u * total;
  double running = 0.0;
  int last_positive = -1;
  for (int j = 0; j < n; ++j) {
    if (weights[j] <= 0.0) continue;
    running += weights[j];
    last_positive = j;
    if (running > target) return j;
  }
  return last_positive;  // u * total rounded up to the total: the last token with weight
}

double inverse_cdf_margin_ref(const double* weights, int n, double u) {
  double total = 0.0;
  for (int j = 0; j < n; ++j) total += weights[j];
  if (!(total > 0.0)) return 0.0;
  double running = 0.0;
  double margin = u;
  for (int j = 0; j < n; ++j) {
    running += weights[j];
    margin = std::min(margin, std::abs(running / total - u));
  }
  return margin;
}

RejectionResult rejection_verify_ref(const RejectionBatch& b) {
  b.validate();
  const int r_count = b.requests();
  const int v = b.vocab;
  RejectionResult out;
  out.accepted.assign(static_cast<std::size_t>(r_count), 0);
  out.committed.assign(static_cast<std::size_t>(r_count), -1);
  std::vector<double> weights(static_cast<std::size_t>(v));
  for (int r = 0; r < r_count; ++r) {
    const int drafts = b.cu_seqlens[r + 1] - b.cu_seqlens[r] - 1;
    const int first_draft = b.cu_seqlens[r] - r;
    int i = 0;
    for (; i < drafts; ++i) {
      const int row = first_draft + i;
      const int x = b.draft_tokens[row];
      const double pt = b.p_target[(static_cast<long long>(b.cu_seqlens[r]) + i) * v + x];
      const double pd = b.p_draft[static_cast<long long>(row) * v + x];
      // u < min(1, pt/pd) without dividing; pd = 0 (never drafted in practice) accepts iff pt > 0.
      if (!(b.accept_uniforms[row] * pd < pt)) break;
    }
    out.accepted[r] = i;
    const float* pt_row = b.p_target.data() + (static_cast<long long>(b.cu_seqlens[r]) + i) * v;
    if (i < drafts) {
      const float* pd_row = b.p_draft.data() + static_cast<long long>(first_draft + i) * v;
      for (int j = 0; j < v; ++j) {
        weights[j] = std::max(0.0, static_cast<double>(pt_row[j]) - static_cast<double>(pd_row[j]));
      }
    } else {
      for (int j = 0; j < v; ++j) weights[j] = pt_row[j];
    }
    int token = sample_inverse_cdf_ref(weights.data(), v, b.sample_uniforms[r]);
    if (token < 0) {
      // An empty residual means p_t == p_d, where rejection has probability 0; sample p_t.
      for (int j = 0; j < v; ++j) weights[j] = pt_row[j];
      token = sample_inverse_cdf_ref(weights.data(), v, b.sample_uniforms[r]);
    }
    out.committed[r] = token;
  }
  return out;
}

}  // namespace sparksim::kernels
