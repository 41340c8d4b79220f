// ECE, ROC-AUC and Brier score of cumulative confidence products.
#include "sim/acceptance/confidence_metrics.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "sim/acceptance/fast_math.hpp"

namespace sparksim {

void ConfidenceSample::add(std::uint64_t request_id, std::span<const float> c,
                           int accepted_drafts) {
  confidences.insert(confidences.end(), c.begin(), c.end());
  accepted.push_back(accepted_drafts);
  request_ids.push_back(request_id);
}

double expected_calibration_error(std::span<const double> predicted,
                                  std::span<const std::uint8_t> outcome, int bins) {
  if (predicted.empty()) return 0.0;
  std::vector<double> sum_p(static_cast<std::size_t>(bins)), sum_y(static_cast<std::size_t>(bins));
  std::vector<std::int64_t> n(static_cast<std::size_t>(bins));
  for (std::size_t i = 0; i < predicted.size(); ++i) {
    const int b = std::min(bins - 1, std::max(0, static_cast<int>(predicted[i] * bins)));
    sum_p[static_cast<std::size_t>(b)] += predicted[i];
    sum_y[static_cast<std::size_t>(b)] += outcome[i];
    ++n[static_cast<std::size_t>(b)];
  }
  double ece = 0;
  for (std::size_t b = 0; b < sum_p.size(); ++b) ece += std::abs(sum_p[b] - sum_y[b]);
  return ece / static_cast<double>(predicted.size());
}

double roc_auc(std::span<const double> predicted, std::span<const std::uint8_t> outcome) {
  const std::size_t n = predicted.size();
  std::vector<std::uint32_t> order(n);
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return predicted[a] < predicted[b]; });
  // Sum of the positives' mid-ranks (1-based).
  double rank_sum = 0;
  std::int64_t positives = 0;
  for (std::size_t i = 0; i < n;) {
    std::size_t j = i;
    while (j < n && predicted[order[j]] == predicted[order[i]]) ++j;
    const double mid_rank = 0.5 * static_cast<double>(i + 1 + j);
    for (std::size_t k = i; k < j; ++k) {
      if (outcome[order[k]]) {
        rank_sum += mid_rank;
        ++positives;
      }
    }
    i = j;
  }
  const auto negatives = static_cast<std::int64_t>(n) - positives;
  if (positives == 0 || negatives == 0) return 0.5;
  const double p = static_cast<double>(positives);
  return (rank_sum - p * (p + 1) / 2) / (p * static_cast<double>(negatives));
}

double brier_score(std::span<const double> predicted, std::span<const std::uint8_t> outcome) {
  if (predicted.empty()) return 0.0;
  double s = 0;
  for (std::size_t i = 0; i < predicted.size(); ++i) {
    const double e = predicted[i] - outcome[i];
    s += e * e;
  }
  return s / static_cast<double>(predicted.size());
}

std::vector<PositionMetrics> evaluate_confidences(const ConfidenceSample& sample,
                                                  std::span<const double> temperatures,
                                                  bool ranking) {
  const auto g = static_cast<std::size_t>(sample.gamma);
  const std::size_t rows = sample.rows();
  std::vector<PositionMetrics> out(g);
  std::vector<double> product(rows, 1.0), predicted(rows);
  std::vector<std::uint8_t> y(rows);
  for (std::size_t k = 0; k < g; ++k) {
    const double t = temperatures.empty() ? 1.0 : temperatures[k];
    double sum_p = 0, sum_y = 0;
    for (std::size_t r = 0; r < rows; ++r) {
      double c = sample.confidences[r * g + k];
      if (t != 1.0) c = 1.0 / (1.0 + std::exp(-fast::logit(c) / t));
      product[r] *= c;
      predicted[r] = product[r];
      y[r] = sample.accepted[r] > static_cast<int>(k) ? 1 : 0;
      sum_p += predicted[r];
      sum_y += y[r];
    }
    PositionMetrics& m = out[k];
    m.count = static_cast<std::int64_t>(rows);
    m.positives = static_cast<std::int64_t>(sum_y);
    if (rows == 0) continue;
    m.mean_predicted = sum_p / static_cast<double>(rows);
    m.mean_observed = sum_y / static_cast<double>(rows);
    m.ece = expected_calibration_error(predicted, y);
    if (ranking) m.auc = roc_auc(predicted, y);
    m.brier = brier_score(predicted, y);
  }
  return out;
}

double mean_ece(const std::vector<PositionMetrics>& m) {
  if (m.empty()) return 0.0;
  double s = 0;
  for (const auto& x : m) s += x.ece;
  return s / static_cast<double>(m.size());
}

double mean_auc(const std::vector<PositionMetrics>& m) {
  double s = 0;
  int n = 0;
  for (const auto& x : m) {
    if (x.positives == 0 || x.positives == x.count) continue;
    s += x.auc;
    ++n;
  }
  return n ? s / n : 0.5;
}

}  // namespace sparksim
