// Greedy (Algorithm 1) on the DSpark paper's worked load-adaptivity example, read from the data
// file copied beside this test with its source (data/algorithm1_load_adaptivity_example.json):
// identical requests on the saturating curve SPS(B) = 8000 / (96 + B) verify shorter blocks as
// the batch grows, with the mean lengths the example gives.
#include <fstream>
#include <numeric>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "policies/greedy_policy.hpp"
#include "policy_test_util.hpp"

using namespace sparksim;
using namespace sparksim::testing;

TEST_CASE("greedy reproduces the paper's load-adaptivity example lengths") {
  const std::string path = std::string(SPARKSIM_SOURCE_DIR) +
                           "/tests/policies/data/algorithm1_load_adaptivity_example.json";
  std::ifstream in(path);
  REQUIRE(in.good());
  const nlohmann::json example = nlohmann::json::parse(in);
  const double numerator = example.at("sps_numerator").get<double>();
  const double half = example.at("sps_half_batch").get<double>();
  const auto row = example.at("confidences_per_request").get<std::vector<float>>();
  const auto& expected = example.at("expected_mean_verify_length");
  REQUIRE(expected.size() == 3);
  for (const auto& [requests_text, mean] : expected.items()) {
    const int requests = std::stoi(requests_text);
    INFO("R = " << requests);
    std::vector<double> sps(static_cast<std::size_t>(requests) * (row.size() + 1) + 1);
    for (std::size_t b = 1; b <= sps.size(); ++b) {
      sps[b - 1] = numerator / (half + static_cast<double>(b));
    }
    GreedyPolicy greedy(true);
    std::vector<int> lengths(static_cast<std::size_t>(requests), -1);
    greedy.schedule(uniform_batch(requests, row).view(), SpsTable(sps), lengths);
    const double got =
        static_cast<double>(std::accumulate(lengths.begin(), lengths.end(), 0)) / requests;
    CHECK(got == mean.get<double>());
  }
}
