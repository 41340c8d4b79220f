// Real-silicon serving samples (aiconfigurator's silicon_sample.csv format): one deployment at one
// load point per row, with its measured TTFT and TPOT in ms. Each row maps to a sparksim
// configuration (a measured-db profile + an engine preset) or is skipped with the reason, and is
// replayed as the client this project assumes (docs/silicon-validation.md): closed
// loop at `batch_size` requests in flight, every request `isl` prompt and exactly `osl` output
// tokens, `requests_per_row` x `batch_size` requests in all.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "experiments/validate/benchmark_case.hpp"

namespace sparksim {

struct SiliconRow {
  std::string origin;  // path:line
  std::string id, backend, backend_version, model_path, system, precision, gemm_quant_mode, mode;
  std::int64_t isl = 0, osl = 0, batch_size = 0, tp = 0, pp = 0;
  double ttft_ms = 0, tpot_ms = 0;
};

// Reads every row; a missing column, a malformed or non-positive number (in the columns used) is
// `path:line: what` (InputError, exit 2). Disaggregated rows (mode != agg) are read without
// batch/parallelism and skipped later.
std::vector<SiliconRow> read_silicon_sample(const std::string& path);

struct SiliconConfig {
  bool replayable = false;
  std::string skip_reason;              // when not replayable
  std::string target;                   // "qwen3-32b"
  std::string gpu;                      // "h100-sxm"
  std::string precision;                // "bf16" | "fp8"
  std::string kv_cache_dtype = "bf16";  // "bf16" | "fp8": the KV cache the replay assumes
  std::string engine;        // its engine version's preset: "vllm@0.12" | "sglang@0.5" | ...
  std::string profile_path;  // <profiles_dir>/<gpu>/<target>-tp<N>[-fp8][-kvfp8].json
  std::string group;         // "vllm 0.12.0 / qwen3-32b / bf16": engine version x model x precision
                             // (" / kv fp8" appended when the row's KV cache is fp8)
};

// The KV-cache scenario a replay declares (docs/silicon-kv-cache.md; the rows do not record the
// KV dtype): "bf16" every row's cache bf16 (the default); "fp8" an fp8 cache for every row with
// fp8 weights; "checkpoint" an fp8 cache only for rows whose checkpoint (model_path) declares an
// FP8 KV cache in its published quantization config. InputError naming the valid ones otherwise.
enum class SiliconKvCache { kBf16, kFp8, kCheckpoint };
SiliconKvCache silicon_kv_cache(const std::string& name);
std::string silicon_kv_cache_description(SiliconKvCache scenario);

// Whether the published checkpoint `model_path` declares an FP8 KV cache (its ModelOpt
// hf_quant_config.json's kv_cache_quant_algo), from the sources kept with the table in
// silicon_sample.cpp; std::logic_error for a checkpoint the table does not name.
bool checkpoint_declares_fp8_kv_cache(const std::string& model_path);

// The configuration that replays `row` from the profiles under `profiles_dir`, or why none does.
// A row that maps to a model, GPU, precision and profile but whose engine version has no preset
// (sim/engine_preset.hpp) is refused: InputError `path:line: what`.
SiliconConfig map_silicon_row(const SiliconRow& row, const std::string& profiles_dir,
                              SiliconKvCache kv_cache = SiliconKvCache::kBf16);

// The group key a split file names roles by: "<backend> <version> / <target>" (engine version x
// model; precision and TP are not part of it, so a held-out group holds out all of them).
std::string silicon_split_key(const SiliconRow& row, const SiliconConfig& config);

// A split file (sparksim.silicon-split/1): group key -> "check" | "calibration". Every problem
// (schema, unknown role, a group named twice) is `path:line: what`.
std::map<std::string, std::string> read_silicon_split(const std::string& path);

// The client a row is replayed as (docs/silicon-validation.md, "The client we assume"): closed loop
// at batch_size with fixed lengths either way. "lockstep" (the default) sends requests_per_user x
// batch_size requests and counts every one; "aiperf-template" is upstream's generated benchmark
// script (aiperf, 50 x batch_size profiling requests after 2 x batch_size warm-up requests that
// drain before profiling starts and are excluded). A drained warm-up leaves no state in the
// simulator, so only the profiling requests are simulated.
struct SiliconClient {
  std::string name;                     // "lockstep" | "aiperf-template"
  std::int64_t requests_per_user = 10;  // counted requests = this x batch_size
  std::int64_t warmup_per_user = 0;     // declared warm-up requests per user (excluded)
  std::string description;              // one line, for the report and the JSON
};

// `name` with `requests_per_user` (lockstep's; the aiperf template fixes its own, so a value set
// with it is an input error, as is an unknown name): InputError naming the valid ones.
SiliconClient silicon_client(const std::string& name, std::int64_t requests_per_user,
                             bool requests_per_user_set);

// The benchmark the assumed client ran for `row`: closed loop at batch_size, fixed lengths,
// requests_per_row x batch_size requests; measured TTFT and TPOT as means, and the output
// throughput a closed loop of fixed lengths implies: batch_size x osl / (TTFT + (osl - 1) TPOT).
BenchmarkCase silicon_case(const SiliconRow& row, const SiliconConfig& config,
                           std::int64_t requests_per_row);

}  // namespace sparksim
