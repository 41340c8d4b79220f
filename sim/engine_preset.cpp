// The preset table. Values are each engine version's published defaults for one H100-class GPU
// (80-141 GB) serving with its OpenAI-compatible server; each entry's `source` says where they come
// from and whether they differ from the engine's other versions.
#include "sim/engine_preset.hpp"

#include <array>

#include "common/input_error.hpp"

namespace sparksim {

namespace {

constexpr std::string_view kVllmSource =
    "vLLM engine arguments, EngineArgs._set_default_args in vllm/engine/arg_utils.py: on GPUs with "
    ">= 70 GiB that are not A100, the OpenAI server gets max_num_seqs 1024 and "
    "max_num_batched_tokens 8192; V1 chunked prefill on; gpu_memory_utilization 0.9 of the GPU's "
    "memory. vLLM 0.11 and 0.12 publish the same defaults, so vllm@0.11 and vllm@0.12 differ "
    "only in name";

// vLLM 0.11's API server, fitted on the bundled validation set (docs/validation.md "Front end").
constexpr FrontEndCosts kVllm011FrontEnd{
    .latency_ms = 0.29, .intake_batch_ms = 33.954, .intake_request_ms = 11.526};
constexpr std::string_view kVllm011FrontEndSource =
    "fitted by `sparksim validate --set experiments/validate/data/h100_serving_set.json --profiles "
    "profiles/measured-db/h100-sxm --calibrate-out ...` (experiments/validate/step_term_fit.cpp, "
    "jointly with profiles/calibrated/measured-db/h100-sxm's step terms) on vLLM v0.11.0 serving "
    "Qwen3 on one H100 SXM: intake_batch_ms + intake_request_ms (one request taken in alone, "
    "45.48 ms) to the ITL p99 of qwen3-8b sharegpt vLLM c=8 (a request taken in holds back the "
    "chunks streaming meanwhile); intake_request_ms to the output throughput of qwen3-14b random "
    "128/4 n=1000 rate=inf (every request at t = 0: one intake batch); latency_ms to the mean TTFT "
    "residual of the closed-loop calibration cases; intake_prompt_token_us and chunk_us 0: not "
    "identified by these cases. On the analytic composition the same fit gives 33.501 + 11.979 ms "
    "and latency 0 (profiles/calibrated/h100-sxm was fitted with those)";
constexpr std::string_view kNoFrontEndSource =
    "none fitted: no serving measurement of this version identifies its API server's costs yet, "
    "so requests reach the scheduler as they arrive and tokens the client as their step ends";

constexpr std::array<EnginePreset, 5> kPresets = {{
    {"vllm@0.11", "vllm", "0.11",
     "vLLM 0.11 (V1) `vllm serve` defaults on H100/H200: max_num_seqs 1024, max_num_batched_tokens "
     "8192, chunked prefill on, gpu_memory_utilization 0.9",
     1024, 8192, PrefillMode::kChunked, 0.9, MemoryShareOf::kTotal, kVllmSource, kVllm011FrontEnd,
     kVllm011FrontEndSource},
    {"vllm@0.12", "vllm", "0.12",
     "vLLM 0.12 (V1) `vllm serve` defaults on H100/H200: max_num_seqs 1024, max_num_batched_tokens "
     "8192, chunked prefill on, gpu_memory_utilization 0.9",
     1024, 8192, PrefillMode::kChunked, 0.9, MemoryShareOf::kTotal, kVllmSource, FrontEndCosts{},
     "none fitted: vLLM 0.12's API server was not measured apart (the silicon set's vLLM 0.12 rows "
     "were replayed without a front end); vllm@0.11's fit is not carried over"},
    {"sglang@0.5", "sglang", "0.5",
     "SGLang 0.5 `launch_server` defaults on H100/H200 (one GPU): chunked_prefill_size 8192, "
     "mem_fraction_static 0.88, running requests bounded by the KV pool",
     4096, 8192, PrefillMode::kChunked, 0.88, MemoryShareOf::kTotal,
     "SGLang server_args.py (0.5 series): chunked_prefill_size 8192 for 35-160 GB GPUs, "
     "mem_fraction_static 0.88 at tp 1 of the GPU's memory; max_running_requests is sized from "
     "the KV pool, so the preset sets a high cap (4096) and lets the simulator's KV accounting "
     "bound admission. One preset covers the 0.5 series (0.5.6 and 0.5.8 rows replay on it); "
     "per-patch differences were not traced",
     FrontEndCosts{}, kNoFrontEndSource},
    {"trtllm@1.0", "trtllm", "1.0",
     "TensorRT-LLM 1.0 `trtllm-serve` (PyTorch backend) defaults: max_batch_size 2048, "
     "max_num_tokens 8192, KV cache 0.9 of the memory free after the weights",
     2048, 8192, PrefillMode::kChunked, 0.9, MemoryShareOf::kFree,
     "TensorRT-LLM BuildConfig defaults (tensorrt_llm/builder.py: max_batch_size 2048, "
     "max_num_tokens 8192), which trtllm-serve passes on; trtllm-serve "
     "--kv_cache_free_gpu_memory_fraction 0.9 ('Free GPU memory fraction reserved for KV Cache, "
     "after allocating model weights and buffers', nvidia.github.io/TensorRT-LLM trtllm-serve "
     "command reference); enable_chunked_prefill off and the GUARANTEED_NO_EVICT capacity "
     "scheduler. In-flight batching mixes whole context requests with generation under "
     "max_num_tokens; the simulator has no whole-prompt mode, so prefill is modelled as chunks "
     "under the same 8192-token budget (identical while a prompt fits the step's free budget)",
     FrontEndCosts{}, kNoFrontEndSource},
    {"trtllm@1.2", "trtllm", "1.2",
     "TensorRT-LLM 1.2 (PyTorch backend) server defaults, as `trtllm-serve` and Dynamo's "
     "TensorRT-LLM worker pass them: max_batch_size 2048, max_num_tokens 8192, KV cache 0.9 of "
     "the memory free after the weights",
     2048, 8192, PrefillMode::kChunked, 0.9, MemoryShareOf::kFree,
     "The silicon rows of 1.2.0rc6.post1 name the image nvcr.io/nvidia/ai-dynamo/"
     "tensorrtllm-runtime:0.8.0 (Dynamo 0.8.0). Its worker (components/src/dynamo/trtllm/utils/"
     "trtllm_utils.py of ai-dynamo/dynamo) defaults --max-batch-size and --max-num-tokens to "
     "TensorRT-LLM's BuildConfig.model_fields defaults and free_gpu_memory_fraction to 0.9; "
     "trtllm-serve of the same series (tensorrt_llm/commands/serve.py) does the same "
     "(--kv_cache_free_gpu_memory_fraction 0.9, 'after allocating model weights and buffers'), "
     "with enable_chunked_prefill off and the GUARANTEED_NO_EVICT capacity scheduler. The "
     "BuildConfig values are taken as 1.0's (2048, 8192): the pydantic BuildConfig of 1.2 itself "
     "was not read. Prefill is modelled as chunks under the 8192-token budget, as for trtllm@1.0 "
     "(identical while a prompt fits the step's free budget)",
     FrontEndCosts{}, kNoFrontEndSource},
}};

constexpr std::array<EngineAlias, 3> kAliases = {{
    {"vllm", "vllm@0.12"},
    {"sglang", "sglang@0.5"},
    {"trtllm", "trtllm@1.2"},
}};

}  // namespace

std::span<const EnginePreset> engine_presets() {
  return kPresets;
}

std::span<const EngineAlias> engine_aliases() {
  return kAliases;
}

std::string engine_preset_names() {
  std::string out;
  for (const EnginePreset& p : kPresets) out += (out.empty() ? "" : ", ") + std::string(p.name);
  out += " (aliases:";
  for (std::size_t i = 0; i < kAliases.size(); ++i) {
    out += std::string(i == 0 ? " " : ", ") + std::string(kAliases[i].alias) + " = " +
           std::string(kAliases[i].preset);
  }
  return out + ")";
}

const EnginePreset* lookup_engine_preset(const std::string& name) {
  std::string_view wanted = name;
  for (const EngineAlias& a : kAliases) {
    if (a.alias == wanted) wanted = a.preset;
  }
  for (const EnginePreset& p : kPresets) {
    if (p.name == wanted) return &p;
  }
  return nullptr;
}

const EnginePreset& find_engine_preset(const std::string& name) {
  if (const EnginePreset* p = lookup_engine_preset(name)) return *p;
  throw InputError("--engine: unknown engine preset '" + name +
                   "'; valid: " + engine_preset_names());
}

const EnginePreset* engine_preset_for_version(const std::string& engine,
                                              const std::string& version) {
  for (const EnginePreset& p : kPresets) {
    if (p.engine != engine || version.size() < p.version.size()) continue;
    if (version.compare(0, p.version.size(), p.version) != 0) continue;
    if (version.size() == p.version.size() || version[p.version.size()] == '.') return &p;
  }
  return nullptr;
}

double preset_memory_utilization(const EnginePreset& preset, double hbm_bytes, double weights_bytes,
                                 double reserved_bytes) {
  if (preset.memory_share_of == MemoryShareOf::kTotal || !(hbm_bytes > 0)) {
    return preset.memory_share;
  }
  const double fixed = weights_bytes + reserved_bytes;
  if (!(fixed < hbm_bytes)) return preset.memory_share;
  return (fixed + preset.memory_share * (hbm_bytes - fixed)) / hbm_bytes;
}

}  // namespace sparksim
