// The report of a real-silicon replay (`sparksim validate --silicon`): per case the measured and
// predicted mean TTFT, mean TPOT and output throughput (measured: implied by the closed loop, see
// silicon_sample.hpp) with signed relative errors; per group (engine version x model x precision)
// the mean |error| of each; each row's physical consistency with its profile
// (silicon_consistency.hpp) and per group how many rows imply more prefill than the profile can do;
// and every row no configuration replays, with the reason.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "experiments/validate/benchmark_replay.hpp"
#include "experiments/validate/silicon_consistency.hpp"
#include "experiments/validate/silicon_sample.hpp"

namespace sparksim {

struct SiliconResult {
  SiliconRow row;
  SiliconConfig config;
  std::optional<SimulatedMetrics> simulated;      // empty when skipped
  std::string role;                               // the split's "check" | "calibration"; "" = none
  std::optional<SiliconConsistency> consistency;  // set for replayable rows (a diagnostic)
};

struct SiliconGroupError {
  std::string group;
  std::string role;
  std::int64_t cases = 0;
  double ttft_mean_abs = 0, tpot_mean_abs = 0, throughput_mean_abs = 0;
  double tpot_signed_mean = 0;  // the bias: + = predicted slower
  // Cases whose implied prefill rate exceeds the profile's pure full-chunk prefill rate.
  std::int64_t prefill_over_profile = 0;
  // Cases whose implied output rate exceeds the profile's pure decode rate at their concurrency.
  std::int64_t decode_over_profile = 0;
};

// (predicted - measured) / measured.
double relative_error(double predicted, double measured);

// Groups in order of first appearance.
std::vector<SiliconGroupError> silicon_group_errors(const std::vector<SiliconResult>& results);
// Every case of the given role pooled ("check": the out-of-sample figure); cases 0 when none.
SiliconGroupError silicon_role_error(const std::vector<SiliconResult>& results,
                                     const std::string& role);

// Issue 32's targets for the check groups (docs/validation.md): pooled TPOT mean |error| <= 5%
// with no check group above 10%, pooled output throughput <= 5%, pooled TTFT <= 15%.
struct SiliconTargets {
  double tpot_mean = 0.05;
  double tpot_worst_group = 0.10;
  double throughput_mean = 0.05;
  double ttft_mean = 0.15;
};

// Every target the check cases miss, as "TPOT 10.8% > 5%" (the worst group named); empty when
// all are met or when no case has the check role (no split: nothing to judge).
std::vector<std::string> silicon_targets_missed(const std::vector<SiliconResult>& results,
                                                const SiliconTargets& targets = {});

std::string format_silicon_report(const std::vector<SiliconResult>& results);
nlohmann::ordered_json silicon_report_json(const std::vector<SiliconResult>& results);

}  // namespace sparksim
