// The drivers of `sparksim lossless --exact` / `--instance FILE` (decide one small instance by
// enumeration, and re-check it by sampling) and `sparksim lossless --search` (look for a
// counterexample, shrink it, print it the way Appendix A reads, write it as an instance file).
// Exit codes as the rest of `sparksim lossless`: 0 lossless (or none found), 3 distorted.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>

namespace sparksim {

struct ExactCommandOptions {
  std::string policy;              // registry spec; may come from the instance file instead
  std::string instance_path;       // "" = the paper's Appendix A
  double budget_s = 10;            // --search: wall-clock budget of the restarts
  std::int64_t restarts = 0;       // --search: at most this many restarts (0 = budget only)
  std::int64_t samples = 100'000;  // sampling re-check trials (0 = none)
  std::uint64_t seed = 1;
  double alpha = 0.01;
  std::string out_dir;              // "" = write no result.json
  std::string counterexample_path;  // --search: "" = DIR/counterexample.json or
                                    // ./counterexample_<policy>.json
};

// Validates options (InputError) and the instance before any work; returns the exit code.
int exact_command(const ExactCommandOptions& options, std::ostream& out);
int search_command(const ExactCommandOptions& options, std::ostream& out);

}  // namespace sparksim
