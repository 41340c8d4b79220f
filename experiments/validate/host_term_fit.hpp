// The per-step host cost of a serving engine (scheduling, input preparation, launch gaps outside
// CUDA graphs, the sampler's synchronisation): time every step pays on top of its kernels, one
// value per engine preset (`vllm@0.12`), fitted to the mean TPOT of real-silicon calibration
// cases by bounded least squares in relative error. TPOT moves with it almost one for one (every
// decode token is one step), so each case is replayed twice, at 0 and at a probe value, and the
// fit is closed form on that linearisation. An engine with fewer than `min_cases` calibration
// cases gets the pooled estimate over every engine's cases (a prior for an engine nothing
// measured), or none when the pool is short too.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace sparksim {

// Bounds of the physical term: a host gap is never negative; above 3 ms a step would be slower
// than vLLM V1's whole decode step of an 8B model at batch 1 (~7 ms) by half again, which no
// scheduler does.
struct HostTermBounds {
  double min_us = 0;
  double max_us = 3000;
  std::size_t min_cases = 3;  // no term from fewer cases (issue 32)
};

// One calibration case as the fit sees it: its engine preset and mean TPOT measured, simulated
// with no host cost, and simulated with `probe_us` per step.
struct HostFitCase {
  std::string engine;  // preset name, "vllm@0.12"
  double measured_tpot_ms = 0;
  double tpot_at_zero_ms = 0;
  double tpot_at_probe_ms = 0;
  double probe_us = 0;
};

struct HostTermEstimate {
  double per_step_us = 0;   // what replays use (clamped to the bounds)
  double unclamped_us = 0;  // the least-squares value before the bounds
  std::int64_t cases = 0;   // cases it was fitted on
  std::string basis;        // "fitted" | "pooled over N cases of all engines" | "not identified"
};

struct HostTermFit {
  std::map<std::string, HostTermEstimate> by_engine;  // engines with >= min_cases cases
  HostTermEstimate pooled;                            // every case, whatever its engine
  HostTermBounds bounds;
  // The estimate a replay on `engine` uses: its own, else the pooled one, else none (0).
  HostTermEstimate for_engine(const std::string& engine) const;
};

// Least squares of sum_i ((T0_i + d_i h - m_i) / m_i)^2 with d_i = (T_probe_i - T0_i) / probe,
// per engine and pooled, each clamped to the bounds. Deterministic (no iteration order from
// pointers; engines by name).
HostTermFit fit_host_terms(const std::vector<HostFitCase>& cases,
                           const HostTermBounds& bounds = {});

}  // namespace sparksim
