// In-memory profiles for engine, cluster and plan tests: a constant or linear step time makes
// every timestamp and rate hand-computable.
#pragma once

#include <string>

#include "profiles/profile.hpp"

namespace sparksim::testing {

// What every in-memory test profile shares: analytic provenance naming the test, one GPU's memory
// (80 GB at 90%, 16 GB of weights, 100 kB of KV per token), no host overhead and a zero draft cost
// for every family. The caller sets the step times.
inline Profile hand_worked_profile(const std::string& notes) {
  Profile p;
  p.provenance.source = "analytic";
  p.provenance.gpu = "test-gpu";
  p.provenance.date = "2026-11-22";
  p.provenance.tool = "unit test";
  p.provenance.git_sha = "none";
  p.provenance.notes = notes;
  p.target = "test-model";
  p.gpus = 1;
  p.hbm_bytes = 80e9;
  p.weights_bytes = 16e9;
  p.memory_utilization = 0.9;
  p.kv_bytes_per_token = 1e5;
  p.host_overhead_us = 0;
  // Drafting is free in every family: the step times the caller sets are the whole step.
  for (auto& draft : p.draft) draft = DraftTimeModel{};
  return p;
}

// Every step (verify + draft + overhead) lasts exactly `step_us`, whatever the batch.
inline Profile constant_step_profile(double step_us) {
  Profile p = hand_worked_profile("constant step time");
  p.verify.fixed_us = step_us;
  p.verify.dense_tokens = {1, 1'000'000};
  p.verify.dense_us = {0, 0};
  p.sps.tokens = {1, 1'000'000};
  p.sps.steps_per_s = {1e6 / step_us, 1e6 / step_us};
  p.sps.reference = "constant";
  return p;
}

// Step time a + b·B for B batch tokens (dense table linear through two points, no padding, no
// context or per-request terms, no host overhead) on `gpus` GPUs of 80 GB: R requests decoding
// without drafts in lockstep each get exactly 1 / (a + b·R) tokens per second.
inline Profile linear_step_profile(double a_us, double b_us, int gpus) {
  Profile p = hand_worked_profile("linear step time for a hand-worked plan");
  p.gpus = gpus;
  p.hbm_bytes = 80e9 * gpus;
  p.verify.dense_tokens = {1, 1000};
  p.verify.dense_us = {a_us + b_us, a_us + 1000 * b_us};
  p.sps.tokens = {1, 1000};
  p.sps.steps_per_s = {1e6 / (a_us + b_us), 1e6 / (a_us + 1000 * b_us)};
  p.sps.reference = "linear";
  return p;
}

}  // namespace sparksim::testing
