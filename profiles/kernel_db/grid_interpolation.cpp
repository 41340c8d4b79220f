// The grid rule of grid_interpolation.hpp.
#include "profiles/kernel_db/grid_interpolation.hpp"

#include <algorithm>
#include <stdexcept>

namespace sparksim {

KernelLatency interpolate_on_grid(const std::vector<std::int64_t>& xs, std::int64_t x,
                                  const std::function<KernelLatency(std::int64_t)>& at,
                                  const std::string& axis, const std::string& where,
                                  BelowGrid below) {
  if (xs.empty()) throw std::logic_error("interpolate_on_grid: no measured points");
  const auto it = std::lower_bound(xs.begin(), xs.end(), x);
  if (it != xs.end() && *it == x) return at(x);
  if (it == xs.end()) {
    const std::int64_t last = xs.back();
    KernelLatency k = at(last).scaled(static_cast<double>(x) / static_cast<double>(last));
    k.outside_grid.insert(where + ": " + axis + " above the largest measured " + axis + "=" +
                          std::to_string(last) + ": scaled linearly in " + axis);
    return k;
  }
  if (it == xs.begin()) {
    const std::int64_t first = xs.front();
    if (below == BelowGrid::kScale) {
      KernelLatency k = at(first).scaled(static_cast<double>(x) / static_cast<double>(first));
      k.outside_grid.insert(where + ": " + axis + " below the smallest measured " + axis + "=" +
                            std::to_string(first) + ": scaled linearly in " + axis);
      return k;
    }
    KernelLatency k = at(first);
    k.outside_grid.insert(where + ": " + axis + " below the smallest measured " + axis + "=" +
                          std::to_string(first) + ": held at its value");
    return k;
  }
  const std::int64_t hi = *it;
  const std::int64_t lo = *(it - 1);
  const double f = static_cast<double>(x - lo) / static_cast<double>(hi - lo);
  KernelLatency a = at(lo);
  const KernelLatency b = at(hi);
  a.ms += f * (b.ms - a.ms);
  a.outside_grid.insert(b.outside_grid.begin(), b.outside_grid.end());
  return a;
}

}  // namespace sparksim
