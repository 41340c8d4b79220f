// Helpers for policy tests: a batch that owns its arrays, and plain reference implementations
// (full stable sort of every candidate) that the fast policies are checked against.
#pragma once

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <vector>

#include "policies/candidate_merge.hpp"
#include "policies/verification_policy.hpp"

namespace sparksim::testing {

struct OwnedBatch {
  int gamma = 1;
  std::vector<std::uint64_t> ids;
  std::vector<float> confidences;  // R × γ
  std::vector<std::int64_t> contexts;
  std::vector<int> hidden;

  std::int64_t requests() const { return static_cast<std::int64_t>(ids.size()); }
  BatchView view(bool with_hidden = false) const {
    BatchView v{gamma, requests(), ids, confidences, contexts, {}};
    if (with_hidden) v.hidden_accepted = hidden;
    return v;
  }
};

// Every request gets the same confidence row; ids 0..R-1.
inline OwnedBatch uniform_batch(int requests, const std::vector<float>& row) {
  OwnedBatch b;
  b.gamma = static_cast<int>(row.size());
  for (int r = 0; r < requests; ++r) {
    b.ids.push_back(static_cast<std::uint64_t>(r));
    b.confidences.insert(b.confidences.end(), row.begin(), row.end());
    b.contexts.push_back(100);
    b.hidden.push_back(0);
  }
  return b;
}

// A random non-increasing staircase SPS over `points` batch sizes, from 200 steps/s: flat runs,
// and at each point with probability 1/cliff_one_in a cliff multiplying the level by
// floor + spread·u, u drawn from {0, 0.01, ..., 0.99}.
inline std::vector<double> random_staircase_sps(std::mt19937_64& rng, std::size_t points,
                                                std::uint64_t cliff_one_in, double floor,
                                                double spread) {
  std::vector<double> values(points);
  double level = 200.0;
  for (auto& v : values) {
    if (rng() % cliff_one_in == 0)
      level *= floor + spread * static_cast<double>(rng() % 100) / 100.0;
    v = level;
  }
  return values;
}

struct RefCandidate {
  float survival;
  std::uint32_t position;
  std::uint64_t id;
  std::uint32_t request;
};

// All candidates with positive survival, fully sorted by the admission order.
inline std::vector<RefCandidate> reference_order(const BatchView& v) {
  std::vector<RefCandidate> all;
  for (std::int64_t r = 0; r < v.requests; ++r) {
    std::vector<float> s(static_cast<std::size_t>(v.gamma));
    const int positive = compute_survivals(&v.confidences[r * v.gamma], v.gamma, s.data());
    for (int j = 0; j < positive; ++j) {
      all.push_back({s[j], static_cast<std::uint32_t>(j + 1), v.request_ids[r],
                     static_cast<std::uint32_t>(r)});
    }
  }
  std::stable_sort(all.begin(), all.end(), [](const RefCandidate& a, const RefCandidate& b) {
    return ranks_before(a.survival, a.position, a.id, b.survival, b.position, b.id);
  });
  return all;
}

// Θ after admitting the first m candidates of `order`.
inline double reference_theta(const std::vector<RefCandidate>& order, std::int64_t requests,
                              std::size_t m, const SpsTable& sps) {
  double tau = static_cast<double>(requests);
  for (std::size_t i = 0; i < m; ++i) tau += order[i].survival;
  return tau * sps.steps_per_s(requests + static_cast<std::int64_t>(m));
}

// Lengths from admitting the first m candidates of `order`.
inline std::vector<int> lengths_of_prefix(const std::vector<RefCandidate>& order,
                                          std::int64_t requests, std::size_t m) {
  std::vector<int> lengths(static_cast<std::size_t>(requests), 0);
  for (std::size_t i = 0; i < m; ++i) {
    lengths[order[i].request] = std::max<int>(lengths[order[i].request], order[i].position);
  }
  return lengths;
}

// Algorithm 1 as the paper states it: admit in order, stop at the first non-improvement.
inline std::vector<int> reference_greedy(const BatchView& v, const SpsTable& sps) {
  const auto order = reference_order(v);
  double best = reference_theta(order, v.requests, 0, sps);
  std::size_t m = 0;
  while (m < order.size()) {
    const double theta = reference_theta(order, v.requests, m + 1, sps);
    if (!(theta > best)) break;
    best = theta;
    ++m;
  }
  return lengths_of_prefix(order, v.requests, m);
}

// The global search: the earliest m maximising Θ over the whole path.
inline std::size_t reference_global_count(const std::vector<RefCandidate>& order,
                                          std::int64_t requests, const SpsTable& sps) {
  double best = reference_theta(order, requests, 0, sps);
  std::size_t best_m = 0;
  for (std::size_t m = 1; m <= order.size(); ++m) {
    const double theta = reference_theta(order, requests, m, sps);
    if (theta > best) {
      best = theta;
      best_m = m;
    }
  }
  return best_m;
}

}  // namespace sparksim::testing
