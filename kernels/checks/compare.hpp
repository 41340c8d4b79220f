// Comparison of a kernel's output with its CPU reference by a declared metric. A failing result
// names the worst element, its index, and the first few (gpu, ref) pairs, so a broken kernel is
// diagnosable from the test log alone.
#pragma once

#include <string>
#include <vector>

namespace sparksim::kernels {

struct CheckResult {
  std::string name;
  std::string metric;  // "max_rel" or "nmse" (kernel_tolerances.hpp defines both)
  double error = 0.0;
  double tolerance = 0.0;
  bool passed = false;
  std::string detail;           // worst element and first pairs; why it failed
  std::string summary() const;  // one line: name, metric, error vs tolerance, PASS/FAIL, detail
};

// max |gpu - ref| / max |ref|; sizes must match (a mismatch fails with that reason).
CheckResult compare_max_rel(const std::string& name, const std::vector<float>& gpu,
                            const std::vector<double>& ref, double tolerance);
// sum (gpu - ref)^2 / sum ref^2.
CheckResult compare_nmse(const std::string& name, const std::vector<float>& gpu,
                         const std::vector<double>& ref, double tolerance);

}  // namespace sparksim::kernels
