// In-memory profiles for engine tests: a constant step time makes every timestamp hand-computable.
#pragma once

#include "profiles/profile.hpp"

namespace sparksim::testing {

// Every step (verify + draft + overhead) lasts exactly `step_us`, whatever the batch.
inline Profile constant_step_profile(double step_us) {
  Profile p;
  p.provenance.source = "analytic";
  p.provenance.gpu = "test-gpu";
  p.provenance.date = "2026-11-22";
  p.provenance.tool = "unit test";
  p.provenance.git_sha = "none";
  p.provenance.notes = "constant step time";
  p.target = "test-model";
  p.gpus = 1;
  p.hbm_bytes = 80e9;
  p.weights_bytes = 16e9;
  p.memory_utilization = 0.9;
  p.kv_bytes_per_token = 1e5;
  p.host_overhead_us = 0;
  p.verify.fixed_us = step_us;
  p.verify.dense_tokens = {1, 1'000'000};
  p.verify.dense_us = {0, 0};
  p.sps.tokens = {1, 1'000'000};
  p.sps.steps_per_s = {1e6 / step_us, 1e6 / step_us};
  p.sps.reference = "constant";
  return p;
}

}  // namespace sparksim::testing
