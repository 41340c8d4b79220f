// GemmTable: loading (with row validation) and the three-axis lookup.
#include "profiles/kernel_db/gemm_table.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>

#include "common/input_error.hpp"
#include "profiles/kernel_db/grid_interpolation.hpp"

namespace sparksim {

namespace {

constexpr std::int64_t kMaxDim = std::int64_t{1} << 32;

std::string shape_text(std::int64_t n, std::int64_t k) {
  return "(n=" + std::to_string(n) + ", k=" + std::to_string(k) + ")";
}

}  // namespace

GemmTable::GemmTable(const CsvTable& table, const std::string& dtype)
    : GemmTable(std::vector<const CsvTable*>{&table}, dtype) {}

GemmTable::GemmTable(const std::vector<const CsvTable*>& tables, const std::string& dtype)
    : path_(tables.at(0)->path()),
      dtype_(dtype),
      file_(std::filesystem::path(tables.at(0)->path()).filename().string()) {
  std::map<std::tuple<std::int64_t, std::int64_t, std::int64_t>, std::string> seen;
  for (const CsvTable* t : tables) {
    const CsvTable& table = *t;
    const std::size_t c_dtype = table.column("gemm_dtype");
    const std::size_t c_m = table.column("m");
    const std::size_t c_n = table.column("n");
    const std::size_t c_k = table.column("k");
    const std::size_t c_latency = table.column("latency_ms");
    for (std::size_t r = 0; r < table.rows(); ++r) {
      if (table.cell(r, c_dtype) != dtype) continue;
      const std::int64_t m = table.integer_in(r, c_m, 1, kMaxDim);
      const std::int64_t n = table.integer_in(r, c_n, 1, kMaxDim);
      const std::int64_t k = table.integer_in(r, c_k, 1, kMaxDim);
      const double ms = table.number(r, c_latency);
      if (!(ms > 0)) table.fail(r, "latency_ms is " + table.cell(r, c_latency) + "; must be > 0");
      const std::string where = table.path() + ":" + std::to_string(table.line_of(r));
      const auto [it, fresh] = seen.emplace(std::make_tuple(m, n, k), where);
      if (!fresh) {
        table.fail(r, dtype + " GEMM m=" + std::to_string(m) + " " + shape_text(n, k) +
                          " is measured twice (also at " + it->second + ")");
      }
      rows_[{n, k}].emplace_back(m, ms);
    }
  }
  if (rows_.empty()) throw InputError(path_, 1, "no GEMM rows with gemm_dtype '" + dtype + "'");
  for (auto& [shape, points] : rows_) std::sort(points.begin(), points.end());
}

std::vector<std::pair<std::int64_t, std::int64_t>> GemmTable::shapes() const {
  std::vector<std::pair<std::int64_t, std::int64_t>> out;
  for (const auto& [shape, points] : rows_) out.push_back(shape);
  return out;
}

std::vector<std::pair<std::int64_t, std::int64_t>> GemmTable::nearest_shapes(
    std::int64_t n, std::int64_t k, std::size_t count) const {
  std::vector<std::pair<std::int64_t, std::int64_t>> out = shapes();
  const auto distance = [&](const std::pair<std::int64_t, std::int64_t>& s) {
    return std::hypot(std::log(static_cast<double>(s.first) / static_cast<double>(n)),
                      std::log(static_cast<double>(s.second) / static_cast<double>(k)));
  };
  std::stable_sort(out.begin(), out.end(),
                   [&](const auto& a, const auto& b) { return distance(a) < distance(b); });
  if (out.size() > count) out.resize(count);
  return out;
}

std::vector<std::int64_t> GemmTable::ns_at_k(std::int64_t k) const {
  std::vector<std::int64_t> ns;
  for (const auto& [shape, points] : rows_) {
    if (shape.second == k) ns.push_back(shape.first);
  }
  return ns;  // ascending: the map orders by n first
}

std::vector<std::int64_t> GemmTable::ks_at_n(std::int64_t n) const {
  std::vector<std::int64_t> ks;
  for (const auto& [shape, points] : rows_) {
    if (shape.first == n) ks.push_back(shape.second);
  }
  return ks;
}

KernelLatency GemmTable::along_m(std::int64_t m, std::int64_t n, std::int64_t k) const {
  const auto& points = rows_.at({n, k});
  std::vector<std::int64_t> ms;
  for (const auto& p : points) ms.push_back(p.first);
  return interpolate_on_grid(
      ms, m,
      [&](std::int64_t x) {
        const auto it = std::lower_bound(points.begin(), points.end(), std::make_pair(x, 0.0));
        return KernelLatency{it->second, {}};
      },
      "m", file_ + " " + dtype_ + " " + shape_text(n, k));
}

KernelLatency GemmTable::along_n(std::int64_t m, std::int64_t n, std::int64_t k) const {
  return interpolate_on_grid(
      ns_at_k(k), n, [&](std::int64_t x) { return along_m(m, x, k); }, "n",
      file_ + " " + dtype_ + " at k=" + std::to_string(k), BelowGrid::kScale);
}

KernelLatency GemmTable::latency(std::int64_t m, std::int64_t n, std::int64_t k,
                                 bool allow_outside_grid) const {
  if (m < 1 || n < 1 || k < 1) throw InputError("GEMM sizes must be >= 1");
  KernelLatency result;
  if (rows_.count({n, k})) {
    result = along_m(m, n, k);
  } else if (!ns_at_k(k).empty()) {
    result = along_n(m, n, k);  // k measured: interpolate (or scale) in n at that k
  } else if (!ks_at_n(n).empty()) {
    result = interpolate_on_grid(
        ks_at_n(n), k, [&](std::int64_t x) { return along_m(m, n, x); }, "k",
        file_ + " " + dtype_ + " at n=" + std::to_string(n), BelowGrid::kScale);
  } else {
    // Neither size measured: along k over every measured k, each resolved along n.
    std::set<std::int64_t> all_ks;
    for (const auto& [shape, points] : rows_) all_ks.insert(shape.second);
    result = interpolate_on_grid(
        {all_ks.begin(), all_ks.end()}, k, [&](std::int64_t x) { return along_n(m, n, x); }, "k",
        file_ + " " + dtype_ + " at n=" + std::to_string(n), BelowGrid::kScale);
  }
  if (result.extrapolated() && !allow_outside_grid) {
    std::string nearest;
    for (const auto& [nn, kk] : nearest_shapes(n, k)) {
      nearest += (nearest.empty() ? "" : ", ") + shape_text(nn, kk);
    }
    throw InputError(path_, 0,
                     "no measured " + dtype_ + " GEMM covers m=" + std::to_string(m) + " " +
                         shape_text(n, k) + " without extrapolation (" +
                         *result.outside_grid.begin() + "); nearest shapes measured: " + nearest);
  }
  return result;
}

}  // namespace sparksim
