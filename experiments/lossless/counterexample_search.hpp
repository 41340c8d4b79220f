// The counterexample search of `sparksim lossless --search`: looks for a small instance on which a
// policy distorts the output, by random restarts (a fresh random instance each) followed by local
// search that keeps a mutation when the exact TV distance does not fall. Each restart that ends
// distorted is shrunk to the simplest instance that still distorts (fewest requests, earlier
// steps, positions and tokens; calibrated confidences; numbers on the coarsest grid), and after a
// few such finds (or when the budget runs out) the simplest of them is the counterexample. Every
// candidate is decided by the exact check, so a found counterexample is proof; a search that finds
// none within its budget is evidence, not proof.
#pragma once

#include <cstdint>
#include <string>

#include "experiments/lossless/exact_instance.hpp"

namespace sparksim {

struct SearchOptions {
  std::string policy;
  double budget_s = 10;           // wall-clock budget of the restarts (the shrink comes after)
  std::int64_t max_restarts = 0;  // 0: as many as the budget allows
  int local_steps = 40;           // mutations tried per restart
  std::uint64_t seed = 1;
};

struct SearchResult {
  bool found = false;
  ExactInstance worst;  // the most distorting instance the restarts found (before shrinking)
  double worst_tv = 0;
  ExactInstance shrunk;  // the simplest of the shrunk finds
  double shrunk_tv = 0;
  std::int64_t restarts = 0;
  int distorting_restarts = 0;        // restarts whose local search ended distorted (each shrunk)
  std::int64_t evaluations = 0;       // exact checks run (restarts, mutations and the shrink)
  double search_s = 0, shrink_s = 0;  // restarts and local search; shrinking
};

// The instance space searched, in words (for reports).
std::string search_space_description();

// Throws InputError for an unknown policy or an out-of-range option.
SearchResult search_counterexample(const SearchOptions& options);

// The shrink alone (exposed for tests): the simplest instance derived from `instance` on which the
// policy's exact TV distance stays above `threshold`; `instance` itself must distort.
ExactInstance shrink_counterexample(const ExactInstance& instance, const std::string& policy,
                                    double threshold, std::int64_t* evaluations = nullptr);

}  // namespace sparksim
