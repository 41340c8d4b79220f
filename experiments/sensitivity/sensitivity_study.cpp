// Running a study: a cached model, then the one-at-a-time sweep, break-evens and Sobol indices.
#include "experiments/sensitivity/sensitivity_study.hpp"

#include <cmath>
#include <cstring>
#include <map>

namespace sparksim {

namespace {

// Bit patterns, so NaN (nominal) compares equal to itself as a key.
std::string cache_key(const std::vector<double>& x) {
  std::string key(x.size() * sizeof(double), '\0');
  for (std::size_t i = 0; i < x.size(); ++i) std::memcpy(&key[i * sizeof(double)], &x[i], 8);
  return key;
}

std::vector<BreakEvenRow> break_evens(const std::vector<SensitivityInput>& inputs,
                                      const std::vector<StudyOutput>& outputs,
                                      const SensitivityModel& model) {
  std::vector<BreakEvenRow> rows;
  const auto ranges = input_ranges(inputs);
  for (std::size_t k = 0; k < outputs.size(); ++k) {
    if (!outputs[k].comparison) continue;
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      if (inputs[i].kind->categorical) continue;
      const auto margin = [&](double x) {
        std::vector<double> v;
        for (const auto& r : ranges) v.push_back(r.nominal);
        v[i] = x;
        return model(v)[k] - 1.0;
      };
      if (auto b = find_break_even(margin, inputs[i].low, inputs[i].high)) {
        rows.push_back({k, i, *b});
      }
    }
  }
  return rows;
}

std::vector<SobolRow> sobol_rows(const std::vector<SensitivityInput>& inputs,
                                 const std::vector<StudyOutput>& outputs,
                                 const SensitivityModel& model, const JointDesign& joint) {
  const auto ranges = input_ranges(inputs);
  std::vector<std::size_t> sampled;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    if (!inputs[i].kind->categorical) sampled.push_back(i);
  }
  std::vector<SobolRow> rows;
  for (std::size_t k = 0; k < outputs.size(); ++k) {
    bool undefined = false;
    const auto one_output = [&](const std::vector<double>& unit) {
      std::vector<double> v;
      for (const auto& r : ranges) v.push_back(r.nominal);
      for (std::size_t j = 0; j < sampled.size(); ++j) {
        const auto& in = inputs[sampled[j]];
        v[sampled[j]] = in.low + unit[j] * (in.high - in.low);
      }
      const double y = model(v)[k];
      undefined = undefined || !std::isfinite(y);
      return y;
    };
    SobolRow row{k, sampled, {}};
    SobolResult r = sobol_indices(sampled.size(), joint.samples, joint.seed, one_output);
    if (!undefined) row.result = r;
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace

std::vector<InputRange> input_ranges(const std::vector<SensitivityInput>& inputs) {
  std::vector<InputRange> ranges;
  for (const auto& in : inputs) {
    if (in.kind->categorical) {
      ranges.push_back({in.label(), nominal_value(), kAtLow, kAtHigh});
    } else {
      ranges.push_back({in.label(), in.kind->nominal, in.low, in.high});
    }
  }
  return ranges;
}

StudyResult run_study(const std::vector<SensitivityInput>& inputs,
                      const std::vector<StudyOutput>& outputs, const SensitivityModel& model,
                      bool break_even, const std::optional<JointDesign>& joint) {
  std::map<std::string, std::vector<double>> cache;
  StudyResult result;
  const SensitivityModel cached = [&](const std::vector<double>& x) {
    const std::string key = cache_key(x);
    auto it = cache.find(key);
    if (it == cache.end()) {
      it = cache.emplace(key, model(x)).first;
      ++result.evaluations;
    }
    return it->second;
  };
  result.one_at_a_time = one_at_a_time(input_ranges(inputs), cached);
  if (break_even) result.break_even = break_evens(inputs, outputs, cached);
  if (joint) result.sobol = sobol_rows(inputs, outputs, cached, *joint);
  return result;
}

}  // namespace sparksim
