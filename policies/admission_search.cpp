// Early-stop (Algorithm 1) and global searches over the admission path.
#include "policies/admission_search.hpp"

#include <algorithm>

namespace sparksim {

std::int64_t early_stop_search(CandidateMerge& merge, std::int64_t requests, const SpsTable& sps,
                               std::span<int> lengths) {
  std::fill(lengths.begin(), lengths.begin() + requests, 0);
  std::int64_t batch = requests;
  double tau = static_cast<double>(requests);
  double best = tau * sps.steps_per_s(batch);
  std::int64_t admitted = 0;
  while (!merge.empty()) {
    const Candidate c = merge.top();
    const double theta = (tau + c.survival) * sps.steps_per_s(batch + 1);
    if (!(theta > best)) break;  // the causal barrier: c is not admitted, nothing after it is
    best = theta;
    tau += c.survival;
    ++batch;
    ++admitted;
    // Candidates of one request arrive in position order, so this always extends a prefix.
    lengths[c.request] = static_cast<int>(c.position);
    merge.advance();
  }
  return admitted;
}

std::int64_t global_search(CandidateMerge& merge, std::int64_t requests, const SpsTable& sps,
                           std::vector<std::uint32_t>* path) {
  GlobalSearchWalk walk(requests, sps);
  while (!merge.empty()) {
    const Candidate c = merge.top();
    walk.add(c.survival);
    if (path != nullptr) path->push_back(c.request);
    merge.advance();
  }
  return walk.best_count();
}

std::int64_t global_search(std::span<const float> ordered_survivals, std::int64_t requests,
                           const SpsTable& sps) {
  GlobalSearchWalk walk(requests, sps);
  for (const float survival : ordered_survivals) walk.add(survival);
  return walk.best_count();
}

bool whole_path_wins(const PathSummary& path, std::int64_t requests, const SpsTable& sps) {
  if (path.candidates == 0) return false;
  const auto r = static_cast<double>(requests);
  const auto n = path.candidates;
  // The relative margin absorbs rounding: the searches sum in sorted order, this in any order.
  const double whole = (r + path.survival_sum) * sps.steps_per_s(requests + n) * (1.0 - 1e-9);
  for (std::int64_t m = 0; m < n; ++m) {
    const double md = static_cast<double>(m);
    const double top_m = std::min(
        md * path.max_survival, path.survival_sum - static_cast<double>(n - m) * path.min_survival);
    if ((r + top_m) * sps.steps_per_s(requests + m) >= whole) return false;
  }
  return true;
}

}  // namespace sparksim
