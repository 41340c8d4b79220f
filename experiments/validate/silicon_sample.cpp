// Real-silicon samples: reading, mapping to a configuration, and the assumed client's case.
#include "experiments/validate/silicon_sample.hpp"

#include <filesystem>
#include <stdexcept>

#include "common/csv_table.hpp"
#include "common/input_error.hpp"
#include "common/json_file.hpp"
#include "sim/engine_preset.hpp"

namespace sparksim {

namespace {

constexpr std::int64_t kMaxLength = 1'000'000;

std::string target_of(const std::string& model_path) {
  if (model_path == "Qwen/Qwen3-32B") return "qwen3-32b";
  if (model_path == "meta-llama/Llama-3.1-8B-Instruct" ||
      model_path == "nvidia/Llama-3.1-8B-Instruct-FP8") {
    return "llama-3.1-8b";
  }
  return "";
}

std::string gpu_of(const std::string& system) {
  if (system == "h100_sxm") return "h100-sxm";
  if (system == "h200_sxm") return "h200-sxm";
  return "";
}

// The checkpoints the bundled rows name, and what each declares about its KV cache.
struct CheckpointKvCache {
  const char* model_path;
  bool fp8_kv_cache;
  const char* source;
};
constexpr CheckpointKvCache kCheckpointKvCache[] = {
    {"Qwen/Qwen3-32B", false, "bf16 checkpoint, no quantization config"},
    {"meta-llama/Llama-3.1-8B-Instruct", false, "bf16 checkpoint, no quantization config"},
    // NVIDIA/TensorRT-LLM docs/source/performance/perf-benchmarking.md (commit ac643b66) quotes
    // this checkpoint family's hf_quant_config.json: quant_algo FP8, kv_cache_quant_algo null.
    {"nvidia/Llama-3.1-8B-Instruct-FP8", false, "ModelOpt FP8, kv_cache_quant_algo null"},
};

SiliconConfig skip(std::string reason) {
  SiliconConfig c;
  c.skip_reason = std::move(reason);
  return c;
}

}  // namespace

std::vector<SiliconRow> read_silicon_sample(const std::string& path) {
  const CsvTable t = CsvTable::load(path);
  const auto col = [&](const char* name) { return t.column(name); };
  const std::size_t c_id = col("id"), c_backend = col("backend"),
                    c_version = col("backend_version"), c_model = col("model_path"),
                    c_system = col("system"), c_precision = col("precision"),
                    c_gemm = col("gemm_quant_mode"), c_mode = col("mode"), c_isl = col("isl"),
                    c_osl = col("osl"), c_batch = col("batch_size"), c_tp = col("tp_size"),
                    c_pp = col("pp_size"), c_ttft = col("silicon_ttft_ms"),
                    c_tpot = col("silicon_tpot_ms");
  std::vector<SiliconRow> rows;
  for (std::size_t r = 0; r < t.rows(); ++r) {
    SiliconRow s;
    s.origin = path + ":" + std::to_string(t.line_of(r));
    s.id = t.cell(r, c_id);
    s.backend = t.cell(r, c_backend);
    s.backend_version = t.cell(r, c_version);
    s.model_path = t.cell(r, c_model);
    s.system = t.cell(r, c_system);
    s.precision = t.cell(r, c_precision);
    s.gemm_quant_mode = t.cell(r, c_gemm);
    s.mode = t.cell(r, c_mode);
    s.isl = t.integer_in(r, c_isl, 1, kMaxLength);
    s.osl = t.integer_in(r, c_osl, 1, kMaxLength);
    if (s.mode == "agg") {
      s.batch_size = t.integer_in(r, c_batch, 1, kMaxLength);
      s.tp = t.integer_in(r, c_tp, 1, 1024);
      s.pp = t.integer_in(r, c_pp, 1, 1024);
    }
    s.ttft_ms = t.number(r, c_ttft);
    s.tpot_ms = t.number(r, c_tpot);
    if (!(s.ttft_ms > 0)) t.fail(r, "silicon_ttft_ms is " + t.cell(r, c_ttft) + "; must be > 0");
    if (!(s.tpot_ms > 0)) t.fail(r, "silicon_tpot_ms is " + t.cell(r, c_tpot) + "; must be > 0");
    rows.push_back(std::move(s));
  }
  return rows;
}

SiliconKvCache silicon_kv_cache(const std::string& name) {
  if (name == "bf16") return SiliconKvCache::kBf16;
  if (name == "fp8") return SiliconKvCache::kFp8;
  if (name == "checkpoint") return SiliconKvCache::kCheckpoint;
  throw InputError("--silicon-kv-cache-dtype: '" + name + "'; valid: bf16, fp8, checkpoint");
}

std::string silicon_kv_cache_description(SiliconKvCache scenario) {
  switch (scenario) {
    case SiliconKvCache::kBf16:
      return "bf16 (every row's KV cache bf16)";
    case SiliconKvCache::kFp8:
      return "fp8 (an fp8 KV cache for every fp8-weight row; bf16 rows keep bf16)";
    case SiliconKvCache::kCheckpoint:
      return "checkpoint (fp8 only where the row's checkpoint declares an FP8 KV cache)";
  }
  return "";
}

bool checkpoint_declares_fp8_kv_cache(const std::string& model_path) {
  for (const CheckpointKvCache& c : kCheckpointKvCache) {
    if (model_path == c.model_path) return c.fp8_kv_cache;
  }
  throw std::logic_error("no KV-cache declaration known for checkpoint " + model_path);
}

SiliconConfig map_silicon_row(const SiliconRow& row, const std::string& profiles_dir,
                              SiliconKvCache kv_cache) {
  if (row.mode != "agg") return skip("mode " + row.mode + ": only aggregated engines replay");
  SiliconConfig c;
  c.target = target_of(row.model_path);
  if (c.target.empty()) return skip("model " + row.model_path + " has no dense target shape");
  c.gpu = gpu_of(row.system);
  if (c.gpu.empty()) return skip("system " + row.system + " is not in the kernel database");
  if (row.pp != 1) return skip("pipeline parallel " + std::to_string(row.pp));
  if (row.tp != 1 && row.tp != 2 && row.tp != 4 && row.tp != 8) {
    return skip("tensor parallel " + std::to_string(row.tp));
  }
  // An empty precision was not recorded; the checkpoints named ship in bf16.
  if (row.precision.empty() || row.precision == "bf16") {
    c.precision = "bf16";
  } else if (row.precision == "fp8" &&
             (row.gemm_quant_mode.empty() || row.gemm_quant_mode == "fp8")) {
    c.precision = "fp8";
  } else {
    return skip("precision " + row.precision + "/" + row.gemm_quant_mode +
                ": only bf16 and per-tensor fp8 GEMMs are composed");
  }
  const bool fp8_kv =
      (kv_cache == SiliconKvCache::kFp8 && c.precision == "fp8") ||
      (kv_cache == SiliconKvCache::kCheckpoint && checkpoint_declares_fp8_kv_cache(row.model_path));
  c.kv_cache_dtype = fp8_kv ? "fp8" : "bf16";
  const std::string file = c.target + "-tp" + std::to_string(row.tp) +
                           (c.precision == "fp8" ? "-fp8" : "") + (fp8_kv ? "-kvfp8" : "") +
                           ".json";
  c.profile_path = (std::filesystem::path(profiles_dir) / c.gpu / file).string();
  if (!std::filesystem::exists(c.profile_path)) return skip("no profile " + c.profile_path);
  // A row the composition can replay runs on its own engine version's preset, or not at all: a
  // version without one is an input problem, never replayed on another version's limits.
  const EnginePreset* preset = engine_preset_for_version(row.backend, row.backend_version);
  if (preset == nullptr) {
    throw InputError(row.origin + ": engine " + row.backend + " " +
                     (row.backend_version.empty() ? "(no version)" : row.backend_version) +
                     " has no engine preset; valid: " + engine_preset_names());
  }
  c.engine = std::string(preset->name);
  c.group = row.backend + " " +
            (row.backend_version.empty() ? "(no version)" : row.backend_version) + " / " +
            c.target + " / " + c.precision + (fp8_kv ? " / kv fp8" : "");
  c.replayable = true;
  return c;
}

std::string silicon_split_key(const SiliconRow& row, const SiliconConfig& config) {
  return row.backend + " " + row.backend_version + " / " + config.target;
}

std::map<std::string, std::string> read_silicon_split(const std::string& path) {
  using Pointer = JsonFile::Pointer;
  const JsonFile f = JsonFile::load(path);
  f.reject_unknown_keys(Pointer(""), {"_about", "schema", "groups"});
  if (f.get_string(Pointer("/schema")) != "sparksim.silicon-split/1") {
    f.fail(Pointer("/schema"), "schema must be \"sparksim.silicon-split/1\"");
  }
  std::map<std::string, std::string> roles;
  const std::size_t n = f.get_array(Pointer("/groups")).size();
  for (std::size_t i = 0; i < n; ++i) {
    const Pointer g = Pointer("/groups") / i;
    f.reject_unknown_keys(g, {"backend", "backend_version", "target", "role", "cases", "ids"});
    const std::string key = f.get_string(g / "backend") + " " +
                            f.get_string(g / "backend_version", true) + " / " +
                            f.get_string(g / "target");
    const std::string role = f.get_string(g / "role");
    if (role != "check" && role != "calibration") {
      f.fail(g / "role", "role is \"" + role + "\"; must be check or calibration");
    }
    if (!roles.emplace(key, role).second) f.fail(g, "group " + key + " is named twice");
  }
  return roles;
}

SiliconClient silicon_client(const std::string& name, std::int64_t requests_per_user,
                             bool requests_per_user_set) {
  if (requests_per_user < 1) {
    throw InputError("validate: --silicon-requests-per-user must be >= 1");
  }
  if (name == "lockstep") {
    return {
        name, requests_per_user, 0,
        "lockstep: closed loop at batch_size, fixed isl/osl, every output exactly osl tokens, " +
            std::to_string(requests_per_user) + " x batch_size requests, all counted"};
  }
  if (name == "aiperf-template") {
    if (requests_per_user_set) {
      throw InputError(
          "validate: --silicon-requests-per-user is lockstep's; --silicon-client aiperf-template "
          "fixes its own counts (50 x batch_size profiling, 2 x batch_size warm-up)");
    }
    return {
        name, 50, 2,
        "aiperf-template: upstream bench_run.sh.j2's aiperf profile, closed loop at batch_size, "
        "fixed isl/osl, every output exactly osl tokens, 2 x batch_size warm-up requests "
        "drained and excluded, 50 x batch_size profiling requests counted"};
  }
  throw InputError("validate: --silicon-client is '" + name +
                   "'; valid: lockstep, aiperf-template");
}

BenchmarkCase silicon_case(const SiliconRow& row, const SiliconConfig& config,
                           std::int64_t requests_per_row) {
  BenchmarkCase b;
  b.name = row.id;
  b.source = "aiconfigurator silicon_sample.csv (" + row.origin + ")";
  b.engine = config.engine;
  b.engine_version = row.backend + " " + row.backend_version;
  b.target = config.target;
  b.origin = row.origin;
  b.workload.max_concurrency = row.batch_size;
  b.workload.lengths = "fixed " + std::to_string(row.isl) + "/" + std::to_string(row.osl) +
                       ", closed loop at " + std::to_string(row.batch_size);
  const std::int64_t n = requests_per_row * row.batch_size;
  b.workload.requests.assign(static_cast<std::size_t>(n),
                             RequestSpec{0, row.isl, row.osl, Domain::kChat});
  b.measured.ttft_ms.mean = row.ttft_ms;
  b.measured.tpot_ms.mean = row.tpot_ms;
  const double e2e_ms = row.ttft_ms + static_cast<double>(row.osl - 1) * row.tpot_ms;
  b.measured.output_throughput = static_cast<double>(row.batch_size * row.osl) / (e2e_ms * 1e-3);
  return b;
}

}  // namespace sparksim
