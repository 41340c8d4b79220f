// Analytic (roofline) profiles: where no GPU measurement exists, sparksim estimates a Profile from
// the model shapes in profiles/model_shapes.json and each GPU's measured copy bandwidth and GEMM
// rate. Every assumption is a named constant in RooflineConstants; the result is always labelled
// provenance.source = "analytic". profiles/README.md explains the model and its numbers.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/json_file.hpp"
#include "profiles/non_gemm_ops.hpp"
#include "profiles/profile.hpp"
#include "profiles/profile_finishing.hpp"
#include "profiles/time_model.hpp"

namespace sparksim {

// The roofline's assumptions. Sources are given per constant; all of them are first guesses that
// issue 6 recalibrates from the profiler's measurements on the lent H100/H200 machines.
struct RooflineConstants {
  // Share of model_shapes.json's measured copy bandwidth (read + write) that weight and activation
  // streams reach: read-mostly streams match a copy; small kernels never reach full speed.
  double bandwidth_efficiency = 0.95;
  // Share of the measured large-GEMM bf16 rate reached by serving GEMMs (M = tokens, N and K of
  // 1k-25k): tile quantisation and wave tails cost 20-30% (cuBLAS on Hopper, typical).
  double gemm_efficiency = 0.75;
  // Attention score/value FLOPs (FlashAttention over a paged KV cache, short query blocks) run at
  // about half the GEMM rate.
  double attention_efficiency = 0.5;
  // Per kernel inside a CUDA graph: the launch gap plus ramp-up and tail (1.5-3 us on Hopper).
  // A Qwen3 decoder layer is 12 kernels, so this adds 24 us per layer.
  double kernel_overhead_us = 2.0;
  // Per verify step outside the kernels: graph launch and the host-to-device copies of token ids,
  // positions and block tables.
  double step_fixed_us = 20.0;
  // Per step CPU scheduling cost of a synchronous scheduler (batch assembly, sampling bookkeeping,
  // detokenisation). An assumption: DSpark's asynchronous production scheduler hides it.
  double host_overhead_us = 150.0;
  // Share of HBM the engine may use, like vLLM's default gpu_memory_utilization.
  double memory_utilization = 0.9;
  // model_shapes.json's hbm_gb are decimal gigabytes (80 GB, not 80 GiB): slightly conservative.
  double bytes_per_gb = 1e9;
  // DSpark's Markov head (plus confidence head) loop, per draft position, at batch 128: the
  // least-squares slope through the origin of the dspark_markov - dflash round latency difference
  // against γ = draft_length - 1 in the DSpark paper's Figure 4 (0.4, 1.0, 1.8, 2.5 ms at
  // γ = 3, 7, 11, 15; slope 0.162 ms). Its R-independent part comes from the roofline; the
  // per-token part is set so that the cost per position at batch 128 equals this value.
  double markov_us_per_position = 160.0;
  std::int64_t markov_calibration_requests = 128;
  // EAGLE-3 drafters predict over a reduced vocabulary (draft_vocab_size 32000 in its released
  // configs), mapped back to the target's; mtp1, dflash and dspark share the target's LM head.
  std::int64_t eagle3_draft_vocab = 32000;
  // vLLM's default CUDA-graph capture sizes: 1, 2, 4, then multiples of 8 up to 512.
  std::int64_t max_graph_bucket = 512;
  std::int64_t max_dense_tokens = 16384;
};

// Produces the analytic profile of `target` (a dense entry of shapes.targets, e.g. "qwen3-8b") on
// `gpu` ("h100" or "h200", or the full key "h100-sxm"). `date` (YYYY-MM-DD) and `git_sha` go
// into the provenance. Throws InputError naming the valid GPUs/targets for unknown ones, and
// `path:line:` errors for a malformed shapes file (the JsonFile overload knows the lines).
Profile make_analytic_profile(const nlohmann::json& shapes, const std::string& gpu,
                              const std::string& target, const std::string& date,
                              const std::string& git_sha, const RooflineConstants& c = {});
Profile make_analytic_profile(const JsonFile& shapes, const std::string& gpu,
                              const std::string& target, const std::string& date,
                              const std::string& git_sha, const RooflineConstants& c = {});
// The same profile before finish_profile(): the roofline's terms and provenance (what the
// measured-db generator starts from for memory, graph buckets and host overhead).
ProfileDraft make_analytic_draft(const JsonFile& shapes, const std::string& gpu,
                                 const std::string& target, const std::string& date,
                                 const std::string& git_sha, const RooflineConstants& c = {});

// The rates memory-bound kernels (non_gemm_ops.hpp) run at on `gpu` ("h100", "h100-sxm", ...):
// c.bandwidth_efficiency x the GPU's measured copy bandwidth, and c.kernel_overhead_us per kernel.
// One formula for the roofline and the measured-db composer.
MemoryBoundRates memory_bound_rates(const JsonFile& shapes, const std::string& gpu,
                                    const RooflineConstants& c = {});

// Names the generator accepts: GPUs by short name ("h100"), dense targets only (the MoE
// DeepSeek entries need a different model).
std::vector<std::string> analytic_gpu_names(const JsonFile& shapes);
std::vector<std::string> analytic_target_names(const JsonFile& shapes);

// The tool string written into provenance.tool; bump the roofline revision when the model changes.
inline constexpr const char* kAnalyticTool = "sparksim profile-analytic (roofline r1)";

}  // namespace sparksim
