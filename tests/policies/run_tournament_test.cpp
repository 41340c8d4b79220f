// The tournament yields every value of its runs, largest first, exactly as sorting them all does
// (std::sort descending, the oracle), then 0: runs of any count (powers of two or not, empty
// ones, one alone), lengths and ties across and within runs.
#include "policies/run_tournament.hpp"

#include <algorithm>
#include <functional>
#include <random>
#include <vector>

#include <catch2/catch.hpp>

using namespace sparksim;

namespace {

// Takes every value from a tournament over `runs` (each non-increasing and positive), laid out
// as RunTournament wants them: back to back, each followed by a 0.
std::vector<float> take_all(RunTournament& tournament, const std::vector<std::vector<float>>& runs,
                            std::vector<float>& values) {
  values.clear();
  std::vector<std::uint32_t> starts;
  for (const std::vector<float>& run : runs) {
    starts.push_back(static_cast<std::uint32_t>(values.size()));
    values.insert(values.end(), run.begin(), run.end());
    values.push_back(0.0f);
  }
  tournament.reset(values.data(), starts);
  std::vector<float> taken;
  while (tournament.top() > 0.0f) {
    taken.push_back(tournament.top());
    tournament.pop();
  }
  CHECK(tournament.top() == 0.0f);
  return taken;
}

}  // namespace

TEST_CASE("tournament: hand-worked runs come out merged, largest first") {
  RunTournament tournament;
  std::vector<float> values;
  CHECK(take_all(tournament, {{0.9f, 0.5f}, {}, {0.7f, 0.5f, 0.1f}}, values) ==
        std::vector<float>{0.9f, 0.7f, 0.5f, 0.5f, 0.1f});
  CHECK(take_all(tournament, {{0.3f}}, values) == std::vector<float>{0.3f});
  CHECK(take_all(tournament, {{}, {}}, values).empty());
}

TEST_CASE("tournament equals std::sort of all the runs' values on random runs with ties") {
  std::mt19937_64 rng(35);
  RunTournament tournament;  // reused across trials, as greedy reuses it across steps
  std::vector<float> values;
  for (int trial = 0; trial < 500; ++trial) {
    const int run_count = 1 + static_cast<int>(rng() % 70);
    std::vector<std::vector<float>> runs(static_cast<std::size_t>(run_count));
    std::vector<float> expected;
    for (std::vector<float>& run : runs) {
      const int length = static_cast<int>(rng() % 9);  // 0: an empty run
      for (int k = 0; k < length; ++k) {
        // A coarse grid on odd trials: many ties across and within runs.
        run.push_back(trial % 2 ? static_cast<float>(1 + rng() % 4) / 4.0f
                                : static_cast<float>(1 + rng() % 100000) / 100000.0f);
      }
      std::sort(run.begin(), run.end(), std::greater<float>());
      expected.insert(expected.end(), run.begin(), run.end());
    }
    std::sort(expected.begin(), expected.end(), std::greater<float>());
    INFO("trial " << trial << ", " << run_count << " runs");
    REQUIRE(take_all(tournament, runs, values) == expected);
  }
}
