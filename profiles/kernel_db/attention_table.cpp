// AttentionTable: loading (row validation, head filter) and the (batch, length) lookup.
#include "profiles/kernel_db/attention_table.hpp"

#include <filesystem>
#include <set>
#include <stdexcept>

#include "common/input_error.hpp"
#include "profiles/kernel_db/grid_interpolation.hpp"

namespace sparksim {

double kv_cache_element_bytes(const std::string& kv_cache_dtype) {
  if (kv_cache_dtype == "bfloat16") return 2;
  if (kv_cache_dtype == "fp8") return 1;
  throw std::invalid_argument("kv_cache_dtype '" + kv_cache_dtype + "': bfloat16 or fp8");
}

AttentionTable::AttentionTable(const CsvTable& table, const AttentionHeads& heads,
                               AttentionPhase phase)
    : path_(table.path()),
      file_(std::filesystem::path(table.path()).filename().string()),
      phase_(phase) {
  const std::size_t c_heads = table.column("num_heads");
  const std::size_t c_kv = table.column("num_key_value_heads");
  const std::size_t c_dim = table.column("head_dim");
  const std::size_t c_attn_dtype = table.column("attn_dtype");
  const std::size_t c_kv_dtype = table.column("kv_cache_dtype");
  const std::size_t c_window = table.column("window_size");
  const std::size_t c_batch = table.column("batch_size");
  const std::size_t c_isl = table.column("isl");
  const std::size_t c_step = table.column("step");
  const std::size_t c_latency = table.column("latency_ms");
  constexpr std::int64_t kMax = std::int64_t{1} << 32;
  std::set<std::string> present;
  std::map<std::pair<std::int64_t, std::int64_t>, std::int64_t> seen;
  for (std::size_t r = 0; r < table.rows(); ++r) {
    const std::int64_t q = table.integer_in(r, c_heads, 1, kMax);
    const std::int64_t kv = table.integer_in(r, c_kv, 1, kMax);
    const std::int64_t dim = table.integer_in(r, c_dim, 1, kMax);
    present.insert(std::to_string(q) + "/" + std::to_string(kv) + "/" + std::to_string(dim) +
                   " kv " + table.cell(r, c_kv_dtype));
    if (q != heads.q_heads || kv != heads.kv_heads || dim != heads.head_dim ||
        table.cell(r, c_kv_dtype) != heads.kv_cache_dtype ||
        table.cell(r, c_attn_dtype) != "bfloat16" || table.integer_in(r, c_window, 0, kMax) != 0) {
      continue;
    }
    const std::int64_t batch = table.integer_in(r, c_batch, 1, kMax);
    const std::int64_t isl = table.integer_in(r, c_isl, 1, kMax);
    const std::int64_t step = table.integer_in(r, c_step, 0, kMax);
    if (phase == AttentionPhase::kDecode && isl != 1) {
      table.fail(r, "decode attention row with isl " + std::to_string(isl) + "; must be 1");
    }
    if (phase == AttentionPhase::kPrefill && step != 0) continue;  // cached-prefix rows: unused
    const double ms = table.number(r, c_latency);
    if (!(ms > 0)) table.fail(r, "latency_ms is " + table.cell(r, c_latency) + "; must be > 0");
    const std::int64_t length = phase == AttentionPhase::kDecode ? step : isl;
    const auto [it, fresh] = seen.emplace(std::make_pair(batch, length), table.line_of(r));
    if (!fresh) {
      table.fail(r, "batch " + std::to_string(batch) + " at length " + std::to_string(length) +
                        " is measured twice (also on line " + std::to_string(it->second) + ")");
    }
    grid_[length][batch] = ms;
  }
  if (grid_.empty()) {
    std::string list;
    for (const std::string& p : present) list += (list.empty() ? "" : "; ") + p;
    throw InputError(path_, 1,
                     "no rows for " + std::to_string(heads.q_heads) + "/" +
                         std::to_string(heads.kv_heads) + "/" + std::to_string(heads.head_dim) +
                         " (q heads/kv heads/head dim) kv " + heads.kv_cache_dtype +
                         "; measured: " + list);
  }
}

std::vector<std::int64_t> AttentionTable::lengths() const {
  std::vector<std::int64_t> out;
  for (const auto& [length, batches] : grid_) out.push_back(length);
  return out;
}

std::vector<std::int64_t> AttentionTable::batches_at(std::int64_t length) const {
  std::vector<std::int64_t> out;
  for (const auto& [batch, ms] : grid_.at(length)) out.push_back(batch);
  return out;
}

KernelLatency AttentionTable::latency(std::int64_t batch, std::int64_t length) const {
  if (batch < 1 || length < 0) throw InputError("attention lookup needs batch >= 1, length >= 0");
  const std::string axis = phase_ == AttentionPhase::kDecode ? "step" : "isl";
  return interpolate_on_grid(
      lengths(), length,
      [&](std::int64_t l) {
        const auto& batches = grid_.at(l);
        return interpolate_on_grid(
            batches_at(l), batch,
            [&](std::int64_t b) {
              return KernelLatency{batches.at(b), {}};
            },
            "batch", file_ + " at a measured " + axis);
      },
      axis, file_);
}

}  // namespace sparksim
