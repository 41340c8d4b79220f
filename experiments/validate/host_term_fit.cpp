// The closed-form bounded least squares of host_term_fit.hpp.
#include "experiments/validate/host_term_fit.hpp"

#include <algorithm>

namespace sparksim {

namespace {

// Sums of the normal equation of one set of cases: h = sum(d r / m^2) / sum(d^2 / m^2).
struct NormalSums {
  double dr = 0, dd = 0;
  std::int64_t cases = 0;
  void add(const HostFitCase& c) {
    const double d = (c.tpot_at_probe_ms - c.tpot_at_zero_ms) / (c.probe_us * 1e-3);  // ms per ms
    const double r = c.measured_tpot_ms - c.tpot_at_zero_ms;
    const double w = 1.0 / (c.measured_tpot_ms * c.measured_tpot_ms);
    dr += w * d * r;
    dd += w * d * d;
    cases += 1;
  }
};

HostTermEstimate estimate(const NormalSums& s, const HostTermBounds& b, std::string basis) {
  HostTermEstimate e;
  e.cases = s.cases;
  if (s.cases < static_cast<std::int64_t>(b.min_cases) || !(s.dd > 0)) {
    e.basis = "not identified";
    return e;
  }
  e.unclamped_us = s.dr / s.dd * 1e3;
  e.per_step_us = std::clamp(e.unclamped_us, b.min_us, b.max_us);
  e.basis = std::move(basis);
  return e;
}

}  // namespace

HostTermEstimate HostTermFit::for_engine(const std::string& engine) const {
  if (const auto it = by_engine.find(engine); it != by_engine.end()) return it->second;
  if (pooled.basis == "not identified") return pooled;
  HostTermEstimate e = pooled;
  e.basis = "pooled over " + std::to_string(pooled.cases) + " cases of all engines";
  return e;
}

HostTermFit fit_host_terms(const std::vector<HostFitCase>& cases, const HostTermBounds& bounds) {
  HostTermFit fit;
  fit.bounds = bounds;
  std::map<std::string, NormalSums> sums;
  NormalSums all;
  for (const HostFitCase& c : cases) {
    sums[c.engine].add(c);
    all.add(c);
  }
  for (const auto& [engine, s] : sums) {
    HostTermEstimate e = estimate(s, bounds, "fitted");
    if (e.basis == "fitted") fit.by_engine.emplace(engine, e);
  }
  fit.pooled = estimate(all, bounds, "pooled");
  return fit;
}

}  // namespace sparksim
