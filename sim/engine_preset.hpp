// Engine presets: the scheduler limits of the serving engines people run, by name (`--engine
// vllm`), so a simulated replica starts from the same max sequences, per-step token budget, prefill
// mode and KV memory share as the real one. Declared once here; every command that builds an
// engine applies them through apply_engine_preset() and records the name in config.json.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "sim/engine.hpp"

namespace sparksim {

struct EnginePreset {
  std::string_view name;          // what --engine accepts
  std::string_view description;   // one line for help and reports
  std::int64_t max_running;       // vLLM max_num_seqs / SGLang max_running_requests
  std::int64_t max_batch_tokens;  // vLLM max_num_batched_tokens / SGLang chunked_prefill_size
  PrefillMode prefill;
  double memory_utilization;  // share of HBM for weights + KV (gpu_memory_utilization)
  std::string_view source;    // where the defaults come from
};

std::span<const EnginePreset> engine_presets();
// The preset called `name`; throws InputError("--engine: ...") listing the valid names.
const EnginePreset& find_engine_preset(const std::string& name);
// "vllm, sglang"
std::string engine_preset_names();

}  // namespace sparksim
