// V4KernelTables: loading (filters, provenance columns, duplicates) and lookups.
#include "profiles/kernel_db/v4_kernel_tables.hpp"

#include <set>

#include "common/input_error.hpp"
#include "profiles/kernel_db/grid_interpolation.hpp"

namespace sparksim {

namespace {

constexpr std::int64_t kMax = std::int64_t{1} << 40;

std::string list(const std::set<std::string>& items) {
  std::string out;
  for (const std::string& s : items) out += (out.empty() ? "" : "; ") + s;
  return out;
}

std::vector<std::int64_t> keys(const std::map<std::int64_t, double>& m) {
  std::vector<std::int64_t> out;
  for (const auto& [k, v] : m) out.push_back(k);
  return out;
}

}  // namespace

void MeasuredSeries::add(const CsvTable& table, std::size_t row, std::int64_t x, double ms) {
  if (!(ms > 0)) table.fail(row, "latency is " + std::to_string(ms) + "; must be > 0");
  const auto [it, fresh] = lines_.emplace(x, table.line_of(row));
  if (!fresh) {
    table.fail(row, axis_ + " " + std::to_string(x) + " of " + where_ +
                        " is measured twice (also on line " + std::to_string(it->second) + ")");
  }
  points_[x] = ms;
}

KernelLatency MeasuredSeries::at(std::int64_t x) const {
  return interpolate_on_grid(
      keys(points_), x,
      [&](std::int64_t p) {
        return KernelLatency{points_.at(p), {}};
      },
      axis_, where_);
}

V4KernelTables V4KernelTables::load(const std::string& dir, const std::string& gpu,
                                    const V4KernelShape& shape, int expert_parallel,
                                    const std::string& distribution) {
  V4KernelTables t;
  std::string folder;
  t.identity_ = KernelDatabase::load_identity(dir, gpu, &folder, &t.all_to_all_framework_);
  t.distribution_ = distribution;
  t.expert_parallel_ = expert_parallel;
  const DatabaseIdentity& id = t.identity_;
  const std::string h = std::to_string(shape.hidden);

  // Attention modules: this model's rows at tp_size 1 (all heads on the GPU), one query each.
  const char* files[2] = {"dsv4_csa_generation_module.csv", "dsv4_hca_generation_module.csv"};
  for (int kind = 0; kind < 2; ++kind) {
    const CsvTable csv = CsvTable::load(folder + "/" + files[kind]);
    check_provenance_columns(csv, id.framework, id.device);
    const std::size_t c_model = csv.column("model"), c_heads = csv.column("num_heads"),
                      c_tp = csv.column("tp_size"), c_batch = csv.column("batch_size"),
                      c_isl = csv.column("isl"), c_step = csv.column("step"),
                      c_ms = csv.column("latency_ms");
    t.attention_where_[kind] = std::string(files[kind]) + " (" + shape.model_tag + ", " +
                               std::to_string(shape.q_heads) + " heads, tp_size 1)";
    for (std::size_t r = 0; r < csv.rows(); ++r) {
      if (csv.cell(r, c_model).find(shape.model_tag + "-") == std::string::npos) continue;
      if (csv.integer_in(r, c_tp, 1, kMax) != 1) continue;
      if (csv.integer_in(r, c_heads, 1, kMax) != shape.q_heads) {
        csv.fail(r, "tp_size 1 row of " + shape.model_tag + " with " + csv.cell(r, c_heads) +
                        " heads; the model has " + std::to_string(shape.q_heads));
      }
      if (csv.integer_in(r, c_isl, 1, kMax) != 1) csv.fail(r, "generation row with isl != 1");
      const std::int64_t step = csv.integer_in(r, c_step, 0, kMax);
      auto [it, fresh] = t.attention_[kind].try_emplace(
          step, t.attention_where_[kind] + " at step " + std::to_string(step), "batch");
      it->second.add(csv, r, csv.integer_in(r, c_batch, 1, kMax), csv.number(r, c_ms));
    }
    if (t.attention_[kind].empty()) {
      throw InputError(csv.path(), 1, "no tp_size 1 rows of model " + shape.model_tag);
    }
  }

  // Routed experts: this shape, pure EP at the topology's size, one routing distribution.
  {
    const CsvTable csv = CsvTable::load(folder + "/moe.csv");
    check_provenance_columns(csv, id.framework, id.device);
    const std::size_t c_tokens = csv.column("num_tokens"), c_h = csv.column("hidden_size"),
                      c_i = csv.column("inter_size"), c_k = csv.column("topk"),
                      c_e = csv.column("num_experts"), c_tp = csv.column("moe_tp_size"),
                      c_ep = csv.column("moe_ep_size"), c_d = csv.column("distribution"),
                      c_dtype = csv.column("moe_dtype"), c_ms = csv.column("latency_ms");
    t.moe_ = MeasuredSeries("moe.csv (hidden " + h + ", inter " + std::to_string(shape.expert_ffn) +
                                ", E " + std::to_string(shape.routed_experts) + ", top-" +
                                std::to_string(shape.top_k) + ", EP " +
                                std::to_string(expert_parallel) + ", " + distribution + ")",
                            "num_tokens");
    std::set<std::string> present;
    for (std::size_t r = 0; r < csv.rows(); ++r) {
      if (csv.integer_in(r, c_h, 1, kMax) != shape.hidden ||
          csv.integer_in(r, c_i, 1, kMax) != shape.expert_ffn ||
          csv.integer_in(r, c_k, 1, kMax) != shape.top_k ||
          csv.integer_in(r, c_e, 1, kMax) != shape.routed_experts ||
          csv.integer_in(r, c_tp, 1, kMax) != 1) {
        continue;
      }
      present.insert("EP " + csv.cell(r, c_ep) + " " + csv.cell(r, c_d));
      if (csv.integer_in(r, c_ep, 1, kMax) != expert_parallel || csv.cell(r, c_d) != distribution) {
        continue;
      }
      if (csv.cell(r, c_dtype) != "fp8_block") {
        csv.fail(r, "moe_dtype " + csv.cell(r, c_dtype) + "; only fp8_block is read");
      }
      t.moe_.add(csv, r, csv.integer_in(r, c_tokens, 1, kMax), csv.number(r, c_ms));
    }
    if (t.moe_.empty()) {
      throw InputError(
          csv.path(), 1,
          "no rows for " + t.moe_.where() + "; measured for this shape: " + list(present));
    }
  }

  // DeepEP low latency, one node (EP 8): microsecond columns.
  {
    const CsvTable csv = CsvTable::load(folder + "/comm_deepep_ll.csv");
    check_provenance_columns(csv, t.all_to_all_framework_, id.device);
    const std::size_t c_tokens = csv.column("num_token"), c_h = csv.column("hidden_size"),
                      c_k = csv.column("num_topk"), c_e = csv.column("num_experts"),
                      c_nodes = csv.column("node_num"), c_d = csv.column("dispatch_avg_t_us"),
                      c_c = csv.column("combine_avg_t_us");
    const std::string where = "comm_deepep_ll.csv (hidden " + h + ", top-" +
                              std::to_string(shape.top_k) + ", E " +
                              std::to_string(shape.routed_experts) + ", one node of 8)";
    t.dispatch_ = MeasuredSeries(where + " dispatch", "num_token");
    t.combine_ = MeasuredSeries(where + " combine", "num_token");
    for (std::size_t r = 0; r < csv.rows(); ++r) {
      if (csv.integer_in(r, c_h, 1, kMax) != shape.hidden ||
          csv.integer_in(r, c_k, 1, kMax) != shape.top_k ||
          csv.integer_in(r, c_e, 1, kMax) != shape.routed_experts ||
          csv.integer_in(r, c_nodes, 1, kMax) != 1) {
        continue;
      }
      const std::int64_t tokens = csv.integer_in(r, c_tokens, 1, kMax);
      t.dispatch_.add(csv, r, tokens, csv.number(r, c_d) * 1e-3);
      t.combine_.add(csv, r, tokens, csv.number(r, c_c) * 1e-3);
    }
    if (t.dispatch_.empty()) throw InputError(csv.path(), 1, "no rows for " + where);
  }

  // mHC pre and post (TileLang kernels), this hidden size.
  {
    const CsvTable csv = CsvTable::load(folder + "/mhc_module.csv");
    check_provenance_columns(csv, id.framework, id.device);
    const std::size_t c_op = csv.column("op_name"), c_tokens = csv.column("num_tokens"),
                      c_h = csv.column("hidden_size"), c_ms = csv.column("latency_ms");
    t.mhc_pre_ = MeasuredSeries("mhc_module.csv (pre, hidden " + h + ")", "num_tokens");
    t.mhc_post_ = MeasuredSeries("mhc_module.csv (post, hidden " + h + ")", "num_tokens");
    for (std::size_t r = 0; r < csv.rows(); ++r) {
      if (csv.integer_in(r, c_h, 1, kMax) != shape.hidden) continue;
      const std::string& op = csv.cell(r, c_op);
      if (op != "pre" && op != "post") csv.fail(r, "op_name '" + op + "'; expected pre or post");
      (op == "pre" ? t.mhc_pre_ : t.mhc_post_)
          .add(csv, r, csv.integer_in(r, c_tokens, 1, kMax), csv.number(r, c_ms));
    }
    if (t.mhc_pre_.empty() || t.mhc_post_.empty()) {
      throw InputError(csv.path(), 1, "no pre/post rows at hidden " + h);
    }
  }

  const CsvTable gemm = CsvTable::load(folder + "/gemm.csv");
  check_provenance_columns(gemm, id.framework, id.device);
  t.fp8_block_.emplace(gemm, "fp8_block");
  t.bf16_.emplace(gemm, "bfloat16");
  return t;
}

KernelLatency V4KernelTables::attention(V4AttentionKind kind, std::int64_t batch,
                                        std::int64_t cached) const {
  const auto& grid = attention_[kind == V4AttentionKind::kCsa ? 0 : 1];
  std::vector<std::int64_t> lengths;
  for (const auto& [length, series] : grid) lengths.push_back(length);
  return interpolate_on_grid(
      lengths, cached, [&](std::int64_t length) { return grid.at(length).at(batch); }, "step",
      attention_where_[kind == V4AttentionKind::kCsa ? 0 : 1]);
}

KernelLatency V4KernelTables::mhc(std::int64_t tokens) const {
  KernelLatency k = mhc_pre_.at(tokens);
  k += mhc_post_.at(tokens);
  return k;
}

}  // namespace sparksim
