// Plain-loop double-precision implementations of ops_ref.hpp.
#include "kernels/reference/ops_ref.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace sparksim::kernels {

void rms_norm_ref(const double* x, const float* gain, int n, double eps, double* out) {
  double sum_sq = 0.0;
  for (int i = 0; i < n; ++i) sum_sq += x[i] * x[i];
  const double inv = 1.0 / std::sqrt(sum_sq / n + eps);
  for (int i = 0; i < n; ++i) out[i] = x[i] * inv * static_cast<double>(gain[i]);
}

void matvec_ref(const float* w, const double* x, int rows, int cols, double* y) {
  for (int i = 0; i < rows; ++i) {
    const float* row = w + static_cast<long long>(i) * cols;
    double acc = 0.0;
    for (int j = 0; j < cols; ++j) acc += static_cast<double>(row[j]) * x[j];
    y[i] = acc;
  }
}

void qk_norm_rope_ref(double* qkv, const float* q_norm, const float* k_norm, int q_heads,
                      int kv_heads, int head_dim, int position, double eps, double theta) {
  for (int head = 0; head < q_heads + kv_heads; ++head) {
    double* h = qkv + static_cast<long long>(head) * head_dim;
    rms_norm_ref(h, head < q_heads ? q_norm : k_norm, head_dim, eps, h);
    rope_ref(h, head_dim, position, theta);
  }
}

void rope_ref(double* head, int head_dim, int position, double theta) {
  const int half = head_dim / 2;
  for (int i = 0; i < half; ++i) {
    const double inv_freq = std::pow(theta, -2.0 * i / head_dim);
    const double angle = position * inv_freq;
    const double c = std::cos(angle);
    const double s = std::sin(angle);
    const double a = head[i];
    const double b = head[i + half];
    head[i] = a * c - b * s;
    head[i + half] = b * c + a * s;
  }
}

void swiglu_ref(const double* gate, const double* up, int n, double* out) {
  for (int i = 0; i < n; ++i) out[i] = gate[i] / (1.0 + std::exp(-gate[i])) * up[i];
}

void softmax_ref(const double* logits, int n, double temperature, double* out) {
  double max_logit = logits[0];
  for (int i = 1; i < n; ++i) max_logit = std::max(max_logit, logits[i]);
  double sum = 0.0;
  for (int i = 0; i < n; ++i) {
    out[i] = std::exp((logits[i] - max_logit) / temperature);
    sum += out[i];
  }
  for (int i = 0; i < n; ++i) out[i] /= sum;
}

void attention_ref(const double* q, const float* k, const float* v, int count, long long stride,
                   int head_dim, double* out) {
  std::vector<double> scores(static_cast<std::size_t>(count));
  const double scale = 1.0 / std::sqrt(static_cast<double>(head_dim));
  double max_score = -INFINITY;
  for (int j = 0; j < count; ++j) {
    const float* key = k + j * stride;
    double dot = 0.0;
    for (int d = 0; d < head_dim; ++d) dot += q[d] * static_cast<double>(key[d]);
    scores[j] = dot * scale;
    max_score = std::max(max_score, scores[j]);
  }
  double sum = 0.0;
  for (int j = 0; j < count; ++j) {
    scores[j] = std::exp(scores[j] - max_score);
    sum += scores[j];
  }
  for (int d = 0; d < head_dim; ++d) out[d] = 0.0;
  for (int j = 0; j < count; ++j) {
    const float* value = v + j * stride;
    const double p = scores[j] / sum;
    for (int d = 0; d < head_dim; ++d) out[d] += p * static_cast<double>(value[d]);
  }
}

}  // namespace sparksim::kernels
