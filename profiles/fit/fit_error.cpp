// Error reports by region.
#include "profiles/fit/fit_error.hpp"

#include <cmath>
#include <stdexcept>

namespace sparksim {

namespace {

void accumulate(RegionError& e, double signed_pct, const std::string& label) {
  ++e.points;
  e.mean_abs_pct += std::fabs(signed_pct);  // a sum until finish()
  if (std::fabs(signed_pct) >= e.worst_abs_pct) {
    e.worst_abs_pct = std::fabs(signed_pct);
    e.worst_signed_pct = signed_pct;
    e.worst_label = label;
  }
}

void finish(RegionError& e) {
  if (e.points > 0) e.mean_abs_pct /= static_cast<double>(e.points);
}

}  // namespace

FitErrorReport error_report(const std::vector<double>& predicted, const DesignMatrix& data) {
  if (predicted.size() != data.size()) {
    throw std::invalid_argument("error_report: one prediction per point");
  }
  FitErrorReport r;
  r.overall.region = "all";
  for (std::size_t i = 0; i < data.size(); ++i) {
    const double pct = 100.0 * (predicted[i] - data.observed[i]) / data.observed[i];
    accumulate(r.overall, pct, data.labels[i]);
    RegionError* region = nullptr;
    for (RegionError& e : r.regions) {
      if (e.region == data.regions[i]) region = &e;
    }
    if (!region) {
      RegionError fresh;
      fresh.region = data.regions[i];
      r.regions.push_back(fresh);
      region = &r.regions.back();
    }
    accumulate(*region, pct, data.labels[i]);
  }
  finish(r.overall);
  for (RegionError& e : r.regions) finish(e);
  return r;
}

FitErrorReport error_report(const LinearFit& fit, const DesignMatrix& data) {
  std::vector<double> predicted;
  for (std::size_t i = 0; i < data.size(); ++i) {
    predicted.push_back(fit.predict(data.features[i], data.known[i]));
  }
  return error_report(predicted, data);
}

}  // namespace sparksim
