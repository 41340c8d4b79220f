// DesignMatrix bookkeeping.
#include "profiles/fit/design_matrix.hpp"

#include <cmath>
#include <stdexcept>

namespace sparksim {

void DesignMatrix::add(std::vector<double> point_features, double observed_value,
                       std::string region, double known_part, std::string label) {
  if (point_features.size() != terms.size()) {
    throw std::invalid_argument("DesignMatrix::add: " + std::to_string(point_features.size()) +
                                " features for " + std::to_string(terms.size()) + " terms");
  }
  if (!(std::isfinite(observed_value) && observed_value > 0) || !std::isfinite(known_part)) {
    throw std::invalid_argument("DesignMatrix::add: observation must be finite and > 0");
  }
  features.push_back(std::move(point_features));
  observed.push_back(observed_value);
  known.push_back(known_part);
  regions.push_back(std::move(region));
  labels.push_back(std::move(label));
}

std::pair<DesignMatrix, DesignMatrix> DesignMatrix::split_held_out(std::size_t every,
                                                                   std::size_t offset) const {
  if (every < 2) throw std::invalid_argument("split_held_out: every must be >= 2");
  std::pair<DesignMatrix, DesignMatrix> out{DesignMatrix(terms), DesignMatrix(terms)};
  for (std::size_t i = 0; i < size(); ++i) {
    DesignMatrix& to = i % every == offset ? out.second : out.first;
    to.add(features[i], observed[i], regions[i], known[i], labels[i]);
  }
  return out;
}

}  // namespace sparksim
