// One-at-a-time sweep and tornado ordering.
#include "experiments/sensitivity/one_at_a_time.hpp"

#include <algorithm>
#include <cmath>

namespace sparksim {

OneAtATimeResult one_at_a_time(const std::vector<InputRange>& inputs,
                               const SensitivityModel& model) {
  std::vector<double> nominal;
  for (const auto& in : inputs) nominal.push_back(in.nominal);
  OneAtATimeResult result;
  result.at_nominal = model(nominal);
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    OneAtATimeRow row;
    row.input = i;
    std::vector<double> x = nominal;
    x[i] = inputs[i].low;
    row.at_low = model(x);
    x[i] = inputs[i].high;
    row.at_high = model(x);
    result.rows.push_back(std::move(row));
  }
  return result;
}

std::vector<std::size_t> tornado_order(const OneAtATimeResult& result, std::size_t output) {
  std::vector<std::size_t> order(result.rows.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  const auto swing = [&](std::size_t i) {
    const double d = result.rows[i].at_high[output] - result.rows[i].at_low[output];
    return std::isfinite(d) ? std::abs(d) : 0.0;
  };
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return swing(a) > swing(b); });
  return order;
}

}  // namespace sparksim
