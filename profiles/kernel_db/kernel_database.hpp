// KernelDatabase: the measured kernel-latency tables of one GPU from a public database folder
// (profiles/data/aic/ by default): its identity (name, repository, commit, framework), the GEMM
// table of one dtype (bf16, or fp8 for an FP8 deployment), the decode and prefill attention
// tables for one head configuration (one tensor-parallel shard's heads), and the tensor-parallel
// all-reduce table where the folder has one. Everything is validated at load: a malformed row
// stops with `path:line: what`.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "profiles/kernel_db/all_reduce_table.hpp"
#include "profiles/kernel_db/attention_table.hpp"
#include "profiles/kernel_db/gemm_table.hpp"

namespace sparksim {

struct DatabaseIdentity {
  std::string name;        // "aiconfigurator"
  std::string repository;  // "ai-dynamo/aiconfigurator"
  std::string commit;      // full 40-hex commit of the data
  std::string framework;   // "vLLM 0.24.0"
  std::string gpu;         // sparksim's GPU name, "h100-sxm"
  std::string device;      // the device string the rows were measured on

  // "aiconfigurator ai-dynamo/aiconfigurator@095f58a51c4c, vLLM 0.24.0, NVIDIA H100 80GB HBM3"
  std::string describe() const;
};

// Every row's framework/version/device columns must match `framework` ("vLLM 0.24.0",
// case-insensitive name) and `device`; otherwise `path:line: what` (a table from another
// framework or GPU must not pass for this one).
void check_provenance_columns(const CsvTable& table, const std::string& framework,
                              const std::string& device);

class KernelDatabase {
 public:
  // database.json's identity for `gpu` and the GPU's folder (dir/<folder>); the same checks and
  // errors as load(). `all_to_all_framework` is the framework the DeepEP tables were measured
  // with (database.json's "all_to_all_framework", "" when absent).
  static DatabaseIdentity load_identity(const std::string& dir, const std::string& gpu,
                                        std::string* folder,
                                        std::string* all_to_all_framework = nullptr);
  // Loads `dir`/database.json and the GPU's folder. `gpu` is "h100-sxm" or "h200-sxm" (or what
  // database.json lists; InputError names them otherwise). Also checks that every row's
  // framework/version/device columns match the identity (a table from another framework or GPU
  // must not pass for this one). `gemm_dtype` is the gemm.csv dtype read ("bfloat16", "fp8").
  // A `target` database.json's "added_gemm" names also reads that file's GEMM rows (one grid).
  static KernelDatabase load(const std::string& dir, const std::string& gpu,
                             const AttentionHeads& heads,
                             const std::string& gemm_dtype = "bfloat16",
                             const std::string& target = "");
  // The added GEMM file `target` reads ("" for none).
  static std::string added_gemm_file(const std::string& dir, const std::string& target);
  static std::vector<std::string> gpu_names(const std::string& dir);

  const DatabaseIdentity& identity() const { return identity_; }
  // The layers' GEMM table (load's gemm_dtype) and the bf16 one (the LM head stays bf16 in FP8
  // checkpoints); the same table when gemm_dtype is bfloat16.
  const GemmTable& gemm() const { return *gemm_; }
  const GemmTable& bf16_gemm() const { return bf16_gemm_ ? *bf16_gemm_ : *gemm_; }
  const AttentionTable& decode_attention() const { return *decode_; }
  const AttentionTable& prefill_attention() const { return *prefill_; }
  // The kv_cache_dtype both attention tables were read with ("bfloat16" or "fp8").
  const std::string& kv_cache_dtype() const { return kv_cache_dtype_; }
  // comm_custom_allreduce.csv's table; nullptr when the GPU's folder has none.
  const AllReduceTable* all_reduce() const { return all_reduce_ ? &*all_reduce_ : nullptr; }

 private:
  DatabaseIdentity identity_;
  std::optional<GemmTable> gemm_;
  std::optional<GemmTable> bf16_gemm_;  // only when gemm_ is another dtype
  std::optional<AttentionTable> decode_;
  std::optional<AttentionTable> prefill_;
  std::string kv_cache_dtype_;
  std::optional<AllReduceTable> all_reduce_;
};

}  // namespace sparksim
