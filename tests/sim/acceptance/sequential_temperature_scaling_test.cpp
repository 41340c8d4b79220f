// Confidence metrics on hand-computed cases, and Sequential Temperature Scaling on synthetic
// over-confident scores: held-out ECE before and after, and ranking preservation.
#include "sim/acceptance/sequential_temperature_scaling.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

#include <catch2/catch.hpp>

#include "acceptance_test_support.hpp"
#include "common/input_error.hpp"

using namespace sparksim;

TEST_CASE("ECE, ROC-AUC and Brier on hand-computed samples") {
  const std::vector<double> p = {0.1, 0.4, 0.35, 0.8};
  const std::vector<std::uint8_t> y = {0, 0, 1, 1};
  // AUC: pairs (positive, negative): (0.35, 0.1) right, (0.35, 0.4) wrong, (0.8, *) right: 3/4.
  CHECK(roc_auc(p, y) == Approx(0.75));
  // Brier: (0.01 + 0.16 + 0.4225 + 0.04) / 4.
  CHECK(brier_score(p, y) == Approx(0.158125));
  // 15 bins: 0.1 -> bin 1, 0.4 -> bin 6, 0.35 -> bin 5, 0.8 -> bin 12, each alone:
  // ECE = (0.1 + 0.4 + 0.65 + 0.2) / 4.
  CHECK(expected_calibration_error(p, y) == Approx(0.3375));
  // Ties count half.
  CHECK(roc_auc(std::vector<double>{0.5, 0.5}, std::vector<std::uint8_t>{0, 1}) == Approx(0.5));
}

TEST_CASE("metrics use the cumulative product against the accepted prefix") {
  ConfidenceSample s;
  s.gamma = 2;
  s.add(0, std::vector<float>{0.5f, 0.5f}, 2);  // a_1 = 0.5, a_2 = 0.25; y = 1, 1
  s.add(1, std::vector<float>{1.0f, 0.5f}, 0);  // a_1 = 1, a_2 = 0.5; y = 0, 0
  const auto m = evaluate_confidences(s);
  CHECK(m[0].mean_predicted == Approx(0.75));
  CHECK(m[0].mean_observed == Approx(0.5));
  CHECK(m[1].mean_predicted == Approx(0.375));
  CHECK(m[1].auc == Approx(0.0));  // the accepted row has the lower product
}

namespace {

// Request-steps at full depth with true conditional probabilities p_k drawn per position
// (Beta(6, 2)-like through a logistic-normal), outcomes by sequential Bernoulli draws, and raw
// confidences σ(β_k · logit p_k): over-confident for β_k > 1.
ConfidenceSample synthetic(int rows, int gamma, const std::vector<double>& sharpness,
                           std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> logit(1.3, 1.2);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  ConfidenceSample s;
  s.gamma = gamma;
  std::vector<float> c(static_cast<std::size_t>(gamma));
  for (int r = 0; r < rows; ++r) {
    int accepted = 0;
    bool alive = true;
    for (int k = 0; k < gamma; ++k) {
      const double z = logit(rng);
      const double p = 1 / (1 + std::exp(-z));
      c[static_cast<std::size_t>(k)] = static_cast<float>(1 / (1 + std::exp(-sharpness[k] * z)));
      if (alive && u(rng) < p) {
        ++accepted;
      } else {
        alive = false;
      }
    }
    s.add(static_cast<std::uint64_t>(r / 10), c, accepted);  // 10 steps per request
  }
  return s;
}

}  // namespace

TEST_CASE("STS fitted on synthetic over-confident scores calibrates held-out data") {
  // 60k rows, half held out by request. A calibrated score's ECE from sampling noise alone is
  // < 0.006 here, so the 0.015 bound has a false-alarm probability far below 1e-6; the raw ECE
  // is > 0.05 by construction.
  const std::vector<double> sharpness = {1.8, 2.2, 1.5, 2.6, 1.3};
  const ConfidenceSample all = synthetic(60'000, 5, sharpness, 11);
  const auto [fit, held] = split_by_request(all, 0.5, 3);
  REQUIRE(held.rows() > 25'000);
  REQUIRE(fit.rows() > 25'000);
  const auto temperatures = fit_sts_temperatures(fit);
  const auto before = evaluate_confidences(held);
  const auto after = evaluate_confidences(held, temperatures);
  INFO("ECE before " << mean_ece(before) << ", after " << mean_ece(after));
  CHECK(mean_ece(before) > 0.03);
  CHECK(mean_ece(after) <= 0.015);
  for (std::size_t k = 0; k < temperatures.size(); ++k) {
    // Position 1's temperature undoes its sharpness exactly; later ones absorb the products.
    if (k == 0) CHECK(temperatures[0] == Approx(sharpness[0]).epsilon(0.05));
    CHECK(after[k].ece < before[k].ece);
    CHECK(after[k].brier <= before[k].brier + 1e-9);
    // Ranking of the cumulative product: unchanged at position 1 (a monotone map), and within
    // 0.01 of the raw AUC further on (one temperature per position can reorder products only
    // where two requests' scores cross).
    if (k == 0) CHECK(after[k].auc == Approx(before[k].auc).margin(1e-12));
    CHECK(after[k].auc == Approx(before[k].auc).margin(0.01));
  }
  // Per position the map c -> σ(logit(c) / T) is strictly increasing: the order of the
  // confidences at every position is unchanged.
  for (std::size_t k = 0; k < 5; ++k) {
    std::vector<std::size_t> order(held.rows());
    std::iota(order.begin(), order.end(), std::size_t{0});
    const auto conf = [&](std::size_t r) { return held.confidences[r * 5 + k]; };
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return conf(a) < conf(b); });
    const auto scaled = [&](std::size_t r) {
      const double c = conf(r);
      return 1 / (1 + std::exp(-std::log(c / (1 - c)) / temperatures[k]));
    };
    for (std::size_t i = 1; i < order.size(); ++i) {
      CHECK(scaled(order[i - 1]) <= scaled(order[i]));
      if (scaled(order[i - 1]) > scaled(order[i])) break;
    }
  }
}

TEST_CASE("the split keeps every step of a request on one side") {
  const ConfidenceSample all = synthetic(2000, 3, {1.5, 1.5, 1.5}, 5);
  const auto [fit, held] = split_by_request(all, 0.3, 9);
  CHECK(fit.rows() + held.rows() == all.rows());
  for (std::uint64_t id : held.request_ids) {
    CHECK(std::find(fit.request_ids.begin(), fit.request_ids.end(), id) == fit.request_ids.end());
  }
}

TEST_CASE("temperatures file round trip and its bad input") {
  sparksim::testing::ScratchDir dir;
  const std::string path = (dir.path() / "sts.json").string();
  write_sts_file(path, {1.25, 0.8, 3.0}, nlohmann::ordered_json{{"source", "test"}});
  CHECK(load_sts_temperatures(path, 3) == std::vector<double>{1.25, 0.8, 3.0});
  CHECK_THROWS_WITH(load_sts_temperatures(path, 7),
                    Catch::Contains(path + ":4:") && Catch::Contains("γ = 7"));
  const auto negative = dir.write("negative.json", R"({
  "format": "sparksim-sts",
  "version": 1,
  "gamma": 2,
  "temperatures": [1.0,
                   -2.0]
})");
  CHECK_THROWS_WITH(load_sts_temperatures(negative, 2), Catch::Contains(negative + ":6:"));
  const auto foreign = dir.write("foreign.json", R"({"format": "other", "gamma": 2})");
  CHECK_THROWS_WITH(load_sts_temperatures(foreign, 2), Catch::Contains(foreign + ":1:"));
  CHECK_THROWS_AS(load_sts_temperatures((dir.path() / "missing.json").string(), 2), InputError);
}
