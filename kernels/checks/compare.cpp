// The two comparison metrics of kernel_tolerances.hpp and their diagnostics.
#include "kernels/checks/compare.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace sparksim::kernels {

namespace {

std::string pairs_detail(const std::vector<float>& gpu, const std::vector<double>& ref,
                         std::size_t worst) {
  char buffer[160];
  std::snprintf(buffer, sizeof buffer, "worst at [%zu]: gpu %.6g ref %.6g; first pairs:", worst,
                static_cast<double>(gpu[worst]), ref[worst]);
  std::string out = buffer;
  for (std::size_t i = 0; i < std::min<std::size_t>(4, gpu.size()); ++i) {
    std::snprintf(buffer, sizeof buffer, " (%.6g, %.6g)", static_cast<double>(gpu[i]), ref[i]);
    out += buffer;
  }
  return out;
}

bool sizes_match(CheckResult& r, const std::vector<float>& gpu, const std::vector<double>& ref) {
  if (gpu.size() == ref.size() && !ref.empty()) return true;
  r.error = INFINITY;
  r.detail =
      "size mismatch: gpu " + std::to_string(gpu.size()) + ", ref " + std::to_string(ref.size());
  return false;
}

}  // namespace

std::string CheckResult::summary() const {
  char buffer[200];
  std::snprintf(buffer, sizeof buffer, "%-16s %-7s error %.3e tolerance %.1e %s", name.c_str(),
                metric.c_str(), error, tolerance, passed ? "PASS" : "FAIL");
  return passed ? std::string(buffer) : std::string(buffer) + " " + detail;
}

CheckResult compare_max_rel(const std::string& name, const std::vector<float>& gpu,
                            const std::vector<double>& ref, double tolerance) {
  CheckResult r{name, "max_rel", 0.0, tolerance, false, ""};
  if (!sizes_match(r, gpu, ref)) return r;
  double scale = 0.0;
  for (double v : ref) scale = std::max(scale, std::abs(v));
  double worst_abs = -1.0;
  std::size_t worst = 0;
  for (std::size_t i = 0; i < ref.size(); ++i) {
    const double d = std::abs(static_cast<double>(gpu[i]) - ref[i]);
    if (!(d <= worst_abs)) {  // NaN counts as the worst
      worst_abs = std::isnan(d) ? INFINITY : d;
      worst = i;
    }
  }
  r.error = scale > 0.0 ? worst_abs / scale : worst_abs;
  r.passed = r.error <= tolerance;
  r.detail = pairs_detail(gpu, ref, worst);
  return r;
}

CheckResult compare_nmse(const std::string& name, const std::vector<float>& gpu,
                         const std::vector<double>& ref, double tolerance) {
  CheckResult r{name, "nmse", 0.0, tolerance, false, ""};
  if (!sizes_match(r, gpu, ref)) return r;
  double num = 0.0;
  double den = 0.0;
  double worst_abs = -1.0;
  std::size_t worst = 0;
  for (std::size_t i = 0; i < ref.size(); ++i) {
    const double d = static_cast<double>(gpu[i]) - ref[i];
    num += d * d;
    den += ref[i] * ref[i];
    if (!(std::abs(d) <= worst_abs)) {
      worst_abs = std::isnan(d) ? INFINITY : std::abs(d);
      worst = i;
    }
  }
  r.error = den > 0.0 ? num / den : num;
  if (std::isnan(r.error)) r.error = INFINITY;
  r.passed = r.error <= tolerance;
  r.detail = pairs_detail(gpu, ref, worst);
  return r;
}

}  // namespace sparksim::kernels
