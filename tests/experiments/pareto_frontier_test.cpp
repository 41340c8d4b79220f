// pareto_frontier: ties, duplicates, single points, dominated curves, non-finite values, and
// independence from input order.
#include "experiments/sweep/pareto_frontier.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include <catch2/catch.hpp>

using namespace sparksim;

namespace {
std::vector<std::size_t> frontier_of(const std::vector<ParetoPoint>& p) {
  return pareto_frontier(p);
}
}  // namespace

TEST_CASE("an empty set has an empty frontier and a single point is its own frontier") {
  CHECK(frontier_of({}).empty());
  CHECK(frontier_of({{3.0, 4.0}}) == std::vector<std::size_t>{0});
}

TEST_CASE("a monotone trade-off curve is entirely on the frontier, ordered by x ascending") {
  // Throughput falls as per-user speed rises: nobody dominates anybody.
  const std::vector<ParetoPoint> curve = {{300, 1000}, {100, 3000}, {200, 2000}, {50, 3500}};
  CHECK(frontier_of(curve) == std::vector<std::size_t>{3, 1, 2, 0});
}

TEST_CASE("interior points of a curve are dropped") {
  // (150, 1500) is below the segment's end points on both axes of (200, 2000).
  const std::vector<ParetoPoint> p = {
      {100, 3000}, {150, 1500}, {200, 2000}, {250, 900}, {300, 1000}};
  CHECK(frontier_of(p) == std::vector<std::size_t>{0, 2, 4});
}

TEST_CASE("ties on one axis keep only the point that is better on the other") {
  SECTION("equal x: the higher y wins") {
    CHECK(frontier_of({{100, 2000}, {100, 2500}, {50, 2400}}) == std::vector<std::size_t>{1});
  }
  SECTION("equal y: the higher x wins") {
    CHECK(frontier_of({{100, 2000}, {120, 2000}, {150, 1000}}) == std::vector<std::size_t>{1, 2});
  }
}

TEST_CASE("exact duplicates appear once, under their lowest index") {
  CHECK(frontier_of({{100, 2000}, {100, 2000}, {50, 3000}, {100, 2000}}) ==
        std::vector<std::size_t>{2, 0});
  CHECK(frontier_of({{7, 7}, {7, 7}}) == std::vector<std::size_t>{0});
}

TEST_CASE("a curve dominated everywhere by another contributes nothing") {
  std::vector<ParetoPoint> points;
  const std::vector<ParetoPoint> good = {{100, 3000}, {200, 2500}, {300, 1500}};
  for (const auto& p : good) points.push_back(p);
  // The same shape at 90% on both axes, and one point equal to a good one on x but lower on y.
  for (const auto& p : good) points.push_back({p.x * 0.9, p.y * 0.9});
  points.push_back({200, 2400});
  CHECK(frontier_of(points) == std::vector<std::size_t>{0, 1, 2});
}

TEST_CASE("two crossing curves each keep the part where they lead") {
  // A leads at the slowest point (most throughput); B is ahead from 60 tok/s/user on, and A's
  // other points sit below B's.
  const std::vector<ParetoPoint> points = {{50, 4000}, {150, 2500}, {250, 800},    // A
                                           {60, 3000}, {160, 2600}, {260, 1200}};  // B
  CHECK(frontier_of(points) == std::vector<std::size_t>{0, 3, 4, 5});
}

TEST_CASE("non-finite points are never on the frontier and dominate nothing") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  CHECK(frontier_of({{nan, 5000}, {100, 1000}, {inf, inf}, {50, nan}}) ==
        std::vector<std::size_t>{1});
  CHECK(frontier_of({{nan, nan}}).empty());
}

TEST_CASE("the frontier's points do not depend on the input order") {
  const std::vector<ParetoPoint> base = {{100, 3000}, {150, 1500}, {200, 2000}, {250, 900},
                                         {300, 1000}, {200, 2000}, {100, 2900}};
  std::vector<std::size_t> order(base.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  const auto expected = [&] {
    std::vector<std::pair<double, double>> v;
    for (auto i : frontier_of(base)) v.emplace_back(base[i].x, base[i].y);
    return v;
  }();
  int permutations = 0;
  do {
    std::vector<ParetoPoint> shuffled;
    for (auto i : order) shuffled.push_back(base[i]);
    std::vector<std::pair<double, double>> got;
    for (auto i : frontier_of(shuffled)) got.emplace_back(shuffled[i].x, shuffled[i].y);
    CHECK(got == expected);
    ++permutations;
  } while (std::next_permutation(order.begin(), order.end()) && permutations < 720);
  CHECK(expected == std::vector<std::pair<double, double>>{{100, 3000}, {200, 2000}, {300, 1000}});
}
