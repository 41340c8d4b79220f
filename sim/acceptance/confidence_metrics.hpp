// How good a drafter's confidences are, measured the way the DSpark paper does: per position k,
// the cumulative product a_k = Π_{i<=k} c_i (the predicted probability that the first k drafts
// are all accepted) against the accepted-prefix outcome y_k = [accepted >= k], over every
// request-step at full block depth. Metrics: ECE (15 equal-width bins, Guo et al. 2017),
// ROC-AUC (Mann-Whitney with mid-ranks for ties) and the Brier score.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace sparksim {

// Request-steps at full block depth: row r holds confidences[r*γ .. r*γ+γ) and accepted[r].
struct ConfidenceSample {
  int gamma = 0;
  std::vector<float> confidences;
  std::vector<int> accepted;
  std::vector<std::uint64_t> request_ids;  // optional (held-out splits); empty or one per row

  std::size_t rows() const { return accepted.size(); }
  void add(std::uint64_t request_id, std::span<const float> c, int accepted_drafts);
};

struct PositionMetrics {
  double ece = 0, auc = 0.5, brier = 0;
  double mean_predicted = 0, mean_observed = 0;
  std::int64_t count = 0, positives = 0;
};

inline constexpr int kEceBins = 15;

// ECE with `bins` equal-width bins on [0, 1]: Σ_b (n_b / n) |mean(pred_b) - mean(y_b)|.
double expected_calibration_error(std::span<const double> predicted,
                                  std::span<const std::uint8_t> outcome, int bins = kEceBins);
// ROC-AUC; 0.5 when either class is empty.
double roc_auc(std::span<const double> predicted, std::span<const std::uint8_t> outcome);
double brier_score(std::span<const double> predicted, std::span<const std::uint8_t> outcome);

// Per-position metrics of the sample. `temperatures` (empty, or one per position) rescales each
// confidence's logit first: c -> σ(logit(c) / T_k) (Sequential Temperature Scaling applied).
// Without `ranking`, AUC (the only metric that sorts) is left at 0.5.
std::vector<PositionMetrics> evaluate_confidences(const ConfidenceSample& sample,
                                                  std::span<const double> temperatures = {},
                                                  bool ranking = true);

// Mean over positions of one metric (positions with no positive or no negative outcome are
// skipped for AUC, which is undefined there).
double mean_ece(const std::vector<PositionMetrics>& m);
double mean_auc(const std::vector<PositionMetrics>& m);

}  // namespace sparksim
