// GemmTable: one dtype's rows of a measured GEMM table (Y[m,n] = X[m,k]·W[n,k]ᵀ, one layer's
// call, latency in ms). Lookups follow grid_interpolation.hpp's rule along m, then along n at a
// measured k, then along k: shapes between measured ones interpolate; shapes outside the grid
// scale linearly and say so in the result, or are refused with the nearest measured shapes.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "common/csv_table.hpp"
#include "profiles/kernel_db/kernel_latency.hpp"

namespace sparksim {

class GemmTable {
 public:
  // Reads the rows with gemm_dtype == dtype from a table with columns gemm_dtype, m, n, k,
  // latency_ms. Stops with `path:line: what` on a non-positive latency, a non-integer or
  // non-positive size, or a (m, n, k) measured twice; and at line 1 when no row has the dtype.
  GemmTable(const CsvTable& table, const std::string& dtype);
  // The rows of several tables of the same columns as one grid (gemm.csv and the rows added for
  // more targets, gemm_added_targets.csv); a shape measured in two of them is an error too.
  GemmTable(const std::vector<const CsvTable*>& tables, const std::string& dtype);

  // Latency of one call. With allow_outside_grid false, a shape that needs extrapolation
  // (any axis outside the measured range) throws InputError naming the nearest shapes measured.
  KernelLatency latency(std::int64_t m, std::int64_t n, std::int64_t k,
                        bool allow_outside_grid = true) const;

  // The measured (n, k) pairs, ascending.
  std::vector<std::pair<std::int64_t, std::int64_t>> shapes() const;
  // Up to `count` measured (n, k) pairs nearest (n, k) in log distance, nearest first.
  std::vector<std::pair<std::int64_t, std::int64_t>> nearest_shapes(std::int64_t n, std::int64_t k,
                                                                    std::size_t count = 4) const;
  const std::string& path() const { return path_; }
  const std::string& dtype() const { return dtype_; }

 private:
  KernelLatency along_m(std::int64_t m, std::int64_t n, std::int64_t k) const;
  KernelLatency along_n(std::int64_t m, std::int64_t n, std::int64_t k) const;
  std::vector<std::int64_t> ns_at_k(std::int64_t k) const;
  std::vector<std::int64_t> ks_at_n(std::int64_t n) const;

  std::string path_;
  std::string dtype_;
  std::string file_;  // the table's file name, for records ("gemm.csv")
  // (n, k) -> ascending m and the latency at each.
  std::map<std::pair<std::int64_t, std::int64_t>, std::vector<std::pair<std::int64_t, double>>>
      rows_;
};

}  // namespace sparksim
