// One-at-a-time sensitivity: every input moved alone to its low and then its high value, the
// others held at nominal; per output the change (high - low), and the tornado order (largest
// |change| first). The model is any function from input values to output values, so the same code
// serves simulations and the closed-form test models.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace sparksim {

// Input values (one per input, in declaration order) -> output values (one per output).
using SensitivityModel = std::function<std::vector<double>(const std::vector<double>&)>;

struct InputRange {
  std::string name;
  double nominal = 0;
  double low = 0;
  double high = 0;
};

struct OneAtATimeRow {
  std::size_t input = 0;
  std::vector<double> at_low;   // one per output
  std::vector<double> at_high;  // one per output
};

struct OneAtATimeResult {
  std::vector<double> at_nominal;
  std::vector<OneAtATimeRow> rows;  // one per input, in declaration order
};

// 1 + 2 × inputs model evaluations.
OneAtATimeResult one_at_a_time(const std::vector<InputRange>& inputs,
                               const SensitivityModel& model);

// The inputs ordered for output `output`'s tornado: by |at_high - at_low| descending, ties in
// declaration order.
std::vector<std::size_t> tornado_order(const OneAtATimeResult& result, std::size_t output);

}  // namespace sparksim
