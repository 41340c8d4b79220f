// V4KernelTables: the measured rows a DeepSeek-V4 step is composed from, for one GPU, one V4
// shape and one expert-parallel size: the CSA and HCA attention modules (dsv4_*_generation_module,
// tp_size 1, by batch and cached length), the fused routed-expert op (moe.csv, fp8_block, by the
// tokens entering the rank's experts, one routing distribution), the DeepEP low-latency dispatch
// and combine (comm_deepep_ll.csv, by tokens per GPU), the mHC pre/post kernels (mhc_module.csv)
// and the fp8-block and bf16 GEMM tables. Every lookup follows grid_interpolation.hpp's rule and
// records what left the grid; loading checks every row's framework and device columns.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "profiles/kernel_db/gemm_table.hpp"
#include "profiles/kernel_db/kernel_database.hpp"
#include "profiles/kernel_db/kernel_latency.hpp"

namespace sparksim {

// A measured latency as a function of one size axis (tokens), one table's filtered rows.
class MeasuredSeries {
 public:
  MeasuredSeries() = default;
  MeasuredSeries(std::string where, std::string axis)
      : where_(std::move(where)), axis_(std::move(axis)) {}
  // Throws via table.fail() when x is measured twice.
  void add(const CsvTable& table, std::size_t row, std::int64_t x, double ms);
  KernelLatency at(std::int64_t x) const;
  bool empty() const { return points_.empty(); }
  const std::string& where() const { return where_; }

 private:
  std::string where_;  // "moe.csv (hidden 4096, inter 2048, E 256, top-6, EP 8, balanced)"
  std::string axis_;   // "num_tokens"
  std::map<std::int64_t, double> points_;
  std::map<std::int64_t, std::int64_t> lines_;
};

struct V4KernelShape {
  std::string model_tag;  // "V4-Flash" or "V4-Pro": the dsv4 tables' `model` contains it
  std::int64_t hidden = 0, expert_ffn = 0, routed_experts = 0, top_k = 0, q_heads = 0;
};

enum class V4AttentionKind { kCsa, kHca };

class V4KernelTables {
 public:
  // `dir` holds database.json (profiles/data/aic). `expert_parallel` selects moe.csv's
  // moe_ep_size rows (moe_tp_size 1); `distribution` its routing column ("balanced",
  // "power_law_1.01", "power_law_1.2"). InputError naming what is present when nothing matches.
  static V4KernelTables load(const std::string& dir, const std::string& gpu,
                             const V4KernelShape& shape, int expert_parallel,
                             const std::string& distribution);

  // One layer's attention module for `batch` one-token queries at `cached` cached tokens.
  KernelLatency attention(V4AttentionKind kind, std::int64_t batch, std::int64_t cached) const;
  // The routed-expert op when `tokens` tokens are routed over the EP group (the rank runs its
  // E / EP experts on the hits among them).
  KernelLatency routed_experts(std::int64_t tokens) const { return moe_.at(tokens); }
  // DeepEP low-latency dispatch / combine with `tokens` tokens per GPU, one node of 8.
  KernelLatency dispatch(std::int64_t tokens) const { return dispatch_.at(tokens); }
  KernelLatency combine(std::int64_t tokens) const { return combine_.at(tokens); }
  KernelLatency mhc(std::int64_t tokens) const;  // pre + post
  const GemmTable& fp8_block_gemm() const { return *fp8_block_; }
  const GemmTable& bf16_gemm() const { return *bf16_; }

  const DatabaseIdentity& identity() const { return identity_; }
  const std::string& all_to_all_framework() const { return all_to_all_framework_; }
  const std::string& distribution() const { return distribution_; }
  int expert_parallel() const { return expert_parallel_; }

 private:
  DatabaseIdentity identity_;
  std::string all_to_all_framework_;
  std::string distribution_;
  int expert_parallel_ = 0;
  // [kind] cached length -> series over batch
  std::map<std::int64_t, MeasuredSeries> attention_[2];
  std::string attention_where_[2];
  MeasuredSeries moe_, dispatch_, combine_, mhc_pre_, mhc_post_;
  std::optional<GemmTable> fp8_block_, bf16_;
};

}  // namespace sparksim
