// A sensitivity study as data, model-agnostic: inputs with ranges, output names, a model (input
// values -> output values), and what to compute: the one-at-a-time sweep, break-even values of
// the comparison outputs (where margin = output - 1 changes sign between an input's low and high),
// and Sobol indices over a joint Latin-hypercube design of the numeric inputs. The simulator is
// one model (sensitivity_experiment.cpp); the closed-form test models are others.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "experiments/sensitivity/break_even.hpp"
#include "experiments/sensitivity/one_at_a_time.hpp"
#include "experiments/sensitivity/sensitivity_config.hpp"
#include "experiments/sensitivity/sobol_indices.hpp"

namespace sparksim {

struct StudyOutput {
  std::string name;
  bool comparison = false;  // a ratio whose conclusion flips where it crosses 1
};

struct BreakEvenRow {
  std::size_t output = 0, input = 0;
  BreakEven found;
};

struct SobolRow {
  std::size_t output = 0;
  std::vector<std::size_t> inputs;    // indices of the sampled (numeric) inputs
  std::optional<SobolResult> result;  // nullopt: some sample left the output undefined (NaN)
};

struct StudyResult {
  OneAtATimeResult one_at_a_time;
  std::vector<BreakEvenRow> break_even;
  std::vector<SobolRow> sobol;
  std::size_t evaluations = 0;  // distinct model evaluations (repeats are served from a cache)
};

// The nominal and range of each input for the one-at-a-time sweep (categorical: kAtLow/kAtHigh).
std::vector<InputRange> input_ranges(const std::vector<SensitivityInput>& inputs);

StudyResult run_study(const std::vector<SensitivityInput>& inputs,
                      const std::vector<StudyOutput>& outputs, const SensitivityModel& model,
                      bool break_even, const std::optional<JointDesign>& joint);

}  // namespace sparksim
