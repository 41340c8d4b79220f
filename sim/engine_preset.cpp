// The preset table. Values are each engine's defaults for one H100-class GPU (80-141 GB) serving
// with its OpenAI-compatible server, as the engines' own argument code sets them.
#include "sim/engine_preset.hpp"

#include <array>

#include "common/input_error.hpp"

namespace sparksim {

namespace {

constexpr std::array<EnginePreset, 2> kPresets = {{
    {"vllm",
     "vLLM V1 `vllm serve` defaults on H100/H200: max_num_seqs 1024, max_num_batched_tokens "
     "8192, chunked prefill on, gpu_memory_utilization 0.9",
     1024, 8192, PrefillMode::kChunked, 0.9,
     "vLLM engine arguments (V1 defaults for the OpenAI server on GPUs with >= 70 GiB); the same "
     "values are stated in the bundled measurements' notes"},
    {"sglang",
     "SGLang `launch_server` defaults on H100/H200 (one GPU): chunked_prefill_size 8192, "
     "mem_fraction_static 0.88, running requests bounded by the KV pool",
     4096, 8192, PrefillMode::kChunked, 0.88,
     "SGLang server_args.py: chunked_prefill_size 8192 for 35-160 GB GPUs, mem_fraction_static "
     "0.88 at tp 1; max_running_requests is sized from the KV pool, so the preset sets a high cap "
     "and lets the simulator's KV accounting bound admission"},
}};

}  // namespace

std::span<const EnginePreset> engine_presets() {
  return kPresets;
}

std::string engine_preset_names() {
  std::string out;
  for (const EnginePreset& p : kPresets) out += (out.empty() ? "" : ", ") + std::string(p.name);
  return out;
}

const EnginePreset& find_engine_preset(const std::string& name) {
  for (const EnginePreset& p : kPresets) {
    if (p.name == name) return p;
  }
  throw InputError("--engine: unknown engine preset '" + name +
                   "'; valid: " + engine_preset_names());
}

}  // namespace sparksim
