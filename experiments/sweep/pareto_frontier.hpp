// Pareto extraction for throughput-interactivity trade-offs: which of a set of operating points
// (per-user speed, aggregate throughput) no other point beats on both axes. A pure function with
// explicit rules for ties, duplicates and non-finite values, so frontiers are reproducible.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

namespace sparksim {

// One operating point; both coordinates are maximised (x = tok/s/user, y = tok/s per GPU).
struct ParetoPoint {
  double x = 0;
  double y = 0;
};

// Indices of the non-dominated points, ordered by x ascending (so y descends along the result).
// p dominates q when p.x >= q.x and p.y >= q.y with at least one strict. Rules:
//  - ties on one axis: of two points with equal x the higher y wins (equal y: the higher x);
//  - exact duplicates (equal x and y): only the lowest index is kept, so the frontier never
//    lists one operating point twice;
//  - points with a NaN or infinite coordinate are never on the frontier and dominate nothing;
//  - an empty input gives an empty frontier; a single finite point is its own frontier.
// O(n log n); the result depends only on the values and their order in `points`.
std::vector<std::size_t> pareto_frontier(std::span<const ParetoPoint> points);

}  // namespace sparksim
