// Pareto extraction by one sort and one sweep from the fastest per-user speed down.
#include "experiments/sweep/pareto_frontier.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace sparksim {

std::vector<std::size_t> pareto_frontier(std::span<const ParetoPoint> points) {
  std::vector<std::size_t> order;
  order.reserve(points.size());
  for (std::size_t i = 0; i < points.size(); ++i) {
    if (std::isfinite(points[i].x) && std::isfinite(points[i].y)) order.push_back(i);
  }
  // x descending, then y descending, then index ascending: within a run of equal x the best y
  // comes first, and among exact duplicates the lowest index.
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    if (points[a].x != points[b].x) return points[a].x > points[b].x;
    if (points[a].y != points[b].y) return points[a].y > points[b].y;
    return a < b;
  });
  // Sweeping from high x to low x, a point survives only if it beats every y seen so far
  // (strictly: an equal y at a lower or equal x is dominated or a duplicate).
  std::vector<std::size_t> frontier;
  double best_y = -std::numeric_limits<double>::infinity();
  for (std::size_t i : order) {
    if (points[i].y > best_y) {
      frontier.push_back(i);
      best_y = points[i].y;
    }
  }
  std::reverse(frontier.begin(), frontier.end());
  return frontier;
}

}  // namespace sparksim
