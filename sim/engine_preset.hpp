// Engine presets: the scheduler limits of the serving engines people run, by engine and version
// (`--engine vllm@0.12`), so a simulated replica starts from the same max sequences, per-step
// token budget, prefill mode and KV memory share as the real one. Each preset names its version
// and where its figures come from; the bare engine names (`vllm`, `sglang`, `trtllm`) are aliases
// of the newest version with data. Presets hold the scheduler limits and the API server's costs
// (FrontEndCosts: intake and streaming, fitted, each preset naming the cases they came from; this
// table is the one place they live); the GPU-side step terms stay in calibrated profiles. Declared
// once here; every command that builds an engine applies them and records the resolved name,
// version and front end in config.json.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "sim/engine.hpp"
#include "sim/front_end_costs.hpp"

namespace sparksim {

// What the memory share is a share of.
enum class MemoryShareOf : std::uint8_t {
  kTotal,  // of the GPU's HBM, weights included (vLLM gpu_memory_utilization, SGLang
           // mem_fraction_static)
  kFree,   // of the memory left after the weights (TensorRT-LLM kv_cache_free_gpu_memory_fraction)
};

struct EnginePreset {
  std::string_view name;          // what --engine accepts: "<engine>@<version>"
  std::string_view engine;        // "vllm" | "sglang" | "trtllm" (a silicon row's backend)
  std::string_view version;       // "0.12": matches the engine versions 0.12 and 0.12.*
  std::string_view description;   // one line for help and reports
  std::int64_t max_running;       // vLLM max_num_seqs / SGLang max_running_requests / TRT-LLM
                                  // max_batch_size
  std::int64_t max_batch_tokens;  // vLLM max_num_batched_tokens / SGLang chunked_prefill_size /
                                  // TRT-LLM max_num_tokens
  PrefillMode prefill;
  double memory_share;  // gpu_memory_utilization, mem_fraction_static or the KV free fraction
  MemoryShareOf memory_share_of;
  std::string_view source;  // where the figures come from, and how versions differ
  FrontEndCosts front_end;  // the API server's costs; zero = none identified for this version
  std::string_view front_end_source;  // the cases and fit they came from, or why they are zero
};

struct EngineAlias {
  std::string_view alias;   // "vllm"
  std::string_view preset;  // "vllm@0.12"
};

std::span<const EnginePreset> engine_presets();
std::span<const EngineAlias> engine_aliases();
// The preset called `name` (a versioned name or an alias); throws InputError("--engine: ...")
// listing the valid names.
const EnginePreset& find_engine_preset(const std::string& name);
// The same lookup without throwing: nullptr when `name` is neither a preset nor an alias.
const EnginePreset* lookup_engine_preset(const std::string& name);
// The preset for an engine version as a benchmark records it ("vllm", "0.12.0"): the one whose
// version equals it or is a dotted prefix of it; nullptr when none.
const EnginePreset* engine_preset_for_version(const std::string& engine,
                                              const std::string& version);
// "vllm@0.11, vllm@0.12, sglang@0.5, trtllm@1.0, trtllm@1.2 (aliases: vllm = vllm@0.12, ...)"
std::string engine_preset_names();
// The share of HBM (weights + KV) the preset leaves the engine on a replica with these bytes:
// a kTotal share as it is; a kFree share f of what the weights and reserved bytes leave gives
// (weights + reserved + f x (hbm - weights - reserved)) / hbm.
double preset_memory_utilization(const EnginePreset& preset, double hbm_bytes, double weights_bytes,
                                 double reserved_bytes);

}  // namespace sparksim
