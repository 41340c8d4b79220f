// KernelLatency: one latency read from a measured database, with the record of every rule that
// took it outside the measured grid. Interpolation between measured points is not recorded (it
// stays inside the grid); extrapolation always is, so a profile can name each term it took from
// outside the database's measurements (profiles/kernel_db/README.md lists the rules).
#pragma once

#include <set>
#include <string>

namespace sparksim {

struct KernelLatency {
  double ms = 0;
  // One line per rule applied outside the grid, e.g. "gemm.csv: n=151936 above the grid's
  // largest n=65536 at k=4096: scaled linearly in n". A set: the same rule is named once.
  std::set<std::string> outside_grid;

  bool extrapolated() const { return !outside_grid.empty(); }
  KernelLatency& operator+=(const KernelLatency& o) {
    ms += o.ms;
    outside_grid.insert(o.outside_grid.begin(), o.outside_grid.end());
    return *this;
  }
  KernelLatency scaled(double factor) const {
    KernelLatency k = *this;
    k.ms *= factor;
    return k;
  }
};

}  // namespace sparksim
