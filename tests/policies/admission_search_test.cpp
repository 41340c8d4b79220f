// The admission-path searches against plain full-sort references, and the whole-path shortcut:
// whenever it answers "the whole path wins", the global search must return N (never a wrong
// answer), and on an engine with slack it must actually fire.
#include "policies/admission_search.hpp"

#include <random>

#include <catch2/catch.hpp>

#include "policy_test_util.hpp"

using namespace sparksim;
using namespace sparksim::testing;

namespace {

PathSummary summarise(const std::vector<RefCandidate>& order) {
  PathSummary p;
  p.candidates = static_cast<std::int64_t>(order.size());
  p.max_survival = 0;
  p.min_survival = 1;
  for (const auto& c : order) {
    p.survival_sum += c.survival;
    p.max_survival = std::max<double>(p.max_survival, c.survival);
    p.min_survival = std::min<double>(p.min_survival, c.survival);
  }
  return p;
}

}  // namespace

TEST_CASE("whole_path_wins never claims a path the global search would cut short") {
  std::mt19937_64 rng(41);
  int fired = 0;
  int whole_best = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    const int gamma = 1 + static_cast<int>(rng() % 7);
    const int requests = 1 + static_cast<int>(rng() % 24);
    OwnedBatch b;
    b.gamma = gamma;
    for (int r = 0; r < requests; ++r) b.ids.push_back(static_cast<std::uint64_t>(r));
    for (int i = 0; i < requests * gamma; ++i) {
      b.confidences.push_back(trial % 3 == 0 ? 1.0f : static_cast<float>(rng() % 1000) / 999.0f);
    }
    b.contexts.assign(requests, 1);
    // Curves from nearly flat (slack) to steep, some with cliffs, one rising.
    std::vector<double> sps_values(256);
    const double slope = static_cast<double>(rng() % 200);
    for (std::size_t i = 0; i < sps_values.size(); ++i) {
      const double b_tokens = static_cast<double>(i + 1);
      sps_values[i] = 8000.0 / (slope + b_tokens);
      if (trial % 5 == 1 && i % 8 == 7) sps_values[i] *= 0.8;
      if (trial % 97 == 0) sps_values[i] = 10.0 + b_tokens;
    }
    const SpsTable sps(sps_values);
    const auto order = reference_order(b.view());
    const auto best = reference_global_count(order, requests, sps);
    if (best == order.size() && !order.empty()) ++whole_best;
    if (whole_path_wins(summarise(order), requests, sps)) {
      ++fired;
      INFO("trial " << trial);
      REQUIRE(best == order.size());
    }
  }
  // Not vacuous: the shortcut fires on a good share of the cases where the whole path wins.
  CHECK(fired > 300);
  CHECK(fired <= whole_best);
}

TEST_CASE("whole_path_wins: Appendix A and the staircase, by hand") {
  // One request, SPS 1, 0.5, 0.45: survivals {1, 1} give Θ = 1, 1, 1.35. Bounds for m = 0, 1:
  // 1 * 1 and (1 + min(1, 2 - 1)) * 0.5 = 1, both below 1.35: fires.
  const SpsTable appendix(std::vector<double>{1.0, 0.5, 0.45});
  CHECK(whole_path_wins(PathSummary{2, 2.0, 1.0, 1.0}, 1, appendix));
  // Survivals {0.8, 0.72}: Θ2 = 1.134, bound at m = 1 is (1 + 0.8) * 0.5 = 0.9, at m = 0 it is 1.
  CHECK(whole_path_wins(PathSummary{2, 1.52, 0.8, 0.72}, 1, appendix));
  // Survivals {0.8} only: Θ1 = 0.9 < Θ0 = 1: the whole path does not win.
  CHECK_FALSE(whole_path_wins(PathSummary{1, 0.8, 0.8, 0.8}, 1, appendix));
  CHECK_FALSE(whole_path_wins(PathSummary{}, 3, appendix));  // no candidates
}
