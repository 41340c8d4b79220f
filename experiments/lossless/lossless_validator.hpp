// The losslessness validator (`sparksim lossless`): does a verification policy preserve the target
// model's output distribution? It runs the exact token-level mode (sim/acceptance/token_level/)
// through the real engine with the policy from the registry, at several concurrency levels on a
// staircase step-time curve (where schedulers' decisions change with load and where a search
// without early stop can jump a step), counts the committed tokens, and G-tests them against the
// toy target's exact conditionals: (a) every committed transition, (b) the first committed token
// of each step given its anchor. Verdict `distorted` when either p-value is below α/2
// (Bonferroni, so the false-alarm rate is at most α), else `lossless`.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace sparksim {

// The load scenario: a list of levels, each run by its own engine with max_running = concurrency R
// and all of its requests queued at t = 0, so exactly R requests decode together until the queue
// drains. Each level has a step-time curve (SPS(B) = 1 / step time, exact, is what schedulers see):
//  - kCliff, the paper's Appendix A curve generalised to R requests: the first draft beyond the R
//    anchor tokens opens a new bucket (a CUDA-graph size or a second wave) and costs `cliff` base
//    steps, later drafts `cliff_slope / R` each:
//      t(B) = base_us · (1 + cliff · [B > R] + cliff_slope · max(0, B − R − 1) / R).
//    With R = 1, cliff = 1, cliff_slope = 0.22 this is SPS(1) = 1, SPS(2) = 0.5, SPS(3) = 0.45
//    (in units of 1/base). An early-stopping search never crosses the cliff; a search without
//    early stop crosses it exactly when the drafts' later confidences pay for it, which is where
//    an anticipating policy distorts the output.
//  - kSaturating, the worked example of Algorithm 1: SPS(B) = 8000 / (96 + B), where an
//    early-stopping scheduler's lengths fall as R grows (5, 3, 1 at R = 4, 32, 256 there).
enum class StepCurve { kCliff, kSaturating };

struct LosslessLevel {
  int concurrency = 1;
  StepCurve curve = StepCurve::kCliff;
};

struct LosslessScenario {
  std::string model = "token-level:vocab=16,support=4,dim=6,noise=0.7";  // --acceptance-style
  int gamma = 4;
  std::vector<LosslessLevel> levels = {{1, StepCurve::kCliff},       {2, StepCurve::kCliff},
                                       {4, StepCurve::kCliff},       {8, StepCurve::kCliff},
                                       {4, StepCurve::kSaturating},  {32, StepCurve::kSaturating},
                                       {128, StepCurve::kSaturating}};
  std::int64_t output_tokens = 48;  // per request
  double base_us = 10000;
  double cliff = 1.0;
  double cliff_slope = 0.22;
};

// Step time in µs of `tokens` verify tokens at `level` (exposed for tests).
double lossless_step_us(const LosslessScenario& scenario, const LosslessLevel& level,
                        std::int64_t tokens);

struct LosslessOptions {
  std::string policy;              // registry spec, e.g. "greedy" or "static:k=3"
  std::string drafter = "markov";  // parallel | markov | autoregressive | adversarial
  std::int64_t requests = 10000;   // spread evenly over the levels
  std::uint64_t seed = 1;
  double alpha = 0.01;  // the test's significance (false-alarm rate bound)
  LosslessScenario scenario;
  std::string out_dir;  // "" = write nothing
};

struct LosslessReport {
  nlohmann::ordered_json result;  // what DIR/result.json holds
  bool distorted = false;
};

// Validates every option (InputError listing all problems) before any work.
void validate_lossless_options(const LosslessOptions& options);

// Runs the validator. Deterministic for given options.
LosslessReport run_lossless(const LosslessOptions& options);

// run_lossless (or the Appendix A reproduction when `appendix_a`), writes DIR/result.json through
// a staged directory when out_dir is set, prints a summary to `out`. Returns the exit code: 0 no
// distortion detected, 3 distortion detected.
int lossless_command(const LosslessOptions& options, bool appendix_a,
                     std::int64_t appendix_a_trials, std::ostream& out);

}  // namespace sparksim
