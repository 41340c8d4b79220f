// DesignMatrix: measurement points for a linear time model with named terms. Each point has one
// value per term (the term's feature: tokens, context tokens, requests, 1 for a constant...),
// an optional known part not fitted (e.g. a tabulated GEMM time), the observed time, and the
// region it belongs to ("decode small B", "prefill chunks"...) for error reports by region.
// Kernel-measurement pipelines, database compositions and telemetry fits all fill this one type.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace sparksim {

struct DesignMatrix {
  std::vector<std::string> terms;
  std::vector<std::vector<double>> features;  // features[i][j]: point i, term j
  std::vector<double> known;                  // per point: the model's fixed part, not fitted
  std::vector<double> observed;               // per point: what was measured (or composed)
  std::vector<std::string> regions;           // per point
  std::vector<std::string> labels;            // per point: a readable name of the shape

  explicit DesignMatrix(std::vector<std::string> term_names = {}) : terms(std::move(term_names)) {}
  std::size_t size() const { return observed.size(); }
  // Throws std::invalid_argument when the feature count differs from the term count or the
  // observation is not finite and positive.
  void add(std::vector<double> point_features, double observed_value, std::string region,
           double known_part = 0, std::string label = "");
  // The points whose index i satisfies i % every == offset go to .second (held out), the rest to
  // .first: deterministic, spread evenly over however the points were generated.
  std::pair<DesignMatrix, DesignMatrix> split_held_out(std::size_t every,
                                                       std::size_t offset = 0) const;
};

}  // namespace sparksim
