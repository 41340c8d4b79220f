// KernelDatabase: the measured kernel-latency tables of one GPU from a public database folder
// (profiles/data/aic/ by default): its identity (name, repository, commit, framework), the bf16
// GEMM table and the decode and prefill attention tables for one head configuration. Everything
// is validated at load: a malformed row stops with `path:line: what`.
#pragma once

#include <optional>
#include <string>
#include <vector>

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
  // must not pass for this one).
  static KernelDatabase load(const std::string& dir, const std::string& gpu,
                             const AttentionHeads& heads);
  static std::vector<std::string> gpu_names(const std::string& dir);

  const DatabaseIdentity& identity() const { return identity_; }
  const GemmTable& gemm() const { return *gemm_; }
  const AttentionTable& decode_attention() const { return *decode_; }
  const AttentionTable& prefill_attention() const { return *prefill_; }

 private:
  DatabaseIdentity identity_;
  std::optional<GemmTable> gemm_;
  std::optional<AttentionTable> decode_;
  std::optional<AttentionTable> prefill_;
};

}  // namespace sparksim
