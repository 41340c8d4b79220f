// make_moe_profile(): turns MoeStepModel into the engine's Profile schema. The B-only part of the
// step becomes the dense table (tabulated at every CUDA-graph bucket and power of two, so the
// engine interpolates it exactly at buckets), the request and pair parts its per_request_us and
// attention_ns_per_pair; drafters are fitted to the schema's linear forms by their secants
// between 1 and 256 requests (the routed-expert term is concave in R, so the secant is an upper
// bound between the two points: docs/moe.md).
#include "profiles/moe/moe_profile.hpp"

#include <cmath>
#include <cstdio>
#include <utility>

#include "profiles/analytic_profile.hpp"
#include "profiles/moe/moe_step_model.hpp"
#include "profiles/time_model.hpp"

namespace sparksim {

namespace {

constexpr std::int64_t kMaxGraphBucket = 512;  // the DeepEP per-rank token cap we plan with
constexpr std::int64_t kMaxDenseTokens = 8192;
constexpr std::int64_t kSecantRequests = 256;
constexpr int kFitGamma = 5;  // DSpark-5, the production drafter on V4
// The `capture` belief's shape (profiles/sps_belief.hpp) at DSpark-5's γ + 1 verify tokens per
// request: the drafter V4 serves.
constexpr std::int64_t kCaptureVerifyTokens = kFitGamma + 1;

std::string gb(double bytes) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.2f GB", bytes / 1e9);
  return buffer;
}

}  // namespace

void set_moe_draft_models(Profile& p, const MoeDraftUs& draft_us) {
  const auto secant = [&](DrafterFamily f, int gamma, double units_per_request) {
    const double lo = draft_us(f, 1, gamma);
    const double hi = draft_us(f, kSecantRequests, gamma);
    const double per_unit = (hi - lo) / ((kSecantRequests - 1) * units_per_request);
    return std::pair<double, double>{lo - per_unit * units_per_request, per_unit};
  };
  for (int i = 0; i < kDrafterFamilyCount; ++i) {
    const auto family = static_cast<DrafterFamily>(i);
    DraftTimeModel& m = p.draft[i].emplace();
    if (family == DrafterFamily::kMtp1) {
      const auto [fixed, per] = secant(family, 1, 1);
      m = {fixed, 0, per * 1e3, false, false, 0, false};
    } else if (family == DrafterFamily::kEagle3) {
      const auto [fixed, per] = secant(DrafterFamily::kMtp1, 1, 1);  // one pass = one MTP layer
      m = {0, fixed, per * 1e3, true, true, 0, false};
    } else {
      const auto [fixed, per] = secant(DrafterFamily::kDflash, kFitGamma, kFitGamma);
      if (family == DrafterFamily::kDflash) {
        m = {fixed, 0, per * 1e3, false, true, 0, false};
      } else {
        // Markov passes: (dspark − dflash) / γ = pass(R), linear in R.
        const double d1 =
            (draft_us(family, 1, kFitGamma) - draft_us(DrafterFamily::kDflash, 1, kFitGamma)) /
            kFitGamma;
        const double dn = (draft_us(family, kSecantRequests, kFitGamma) -
                           draft_us(DrafterFamily::kDflash, kSecantRequests, kFitGamma)) /
                          kFitGamma;
        const double pass_per_request = (dn - d1) / (kSecantRequests - 1);
        m = {fixed, d1 - pass_per_request, (per + pass_per_request) * 1e3, true, true, 0, false};
      }
    }
  }
}

ProfileDraft moe_draft(Profile terms) {
  ProfileDraft draft;
  draft.profile = std::move(terms);
  draft.capture.verify_tokens_per_request = kCaptureVerifyTokens;
  return draft;
}

Profile make_moe_profile(const MoeTarget& target, const MoeGpu& gpu,
                         const ReplicaTopology& topology, const MoeStepOptions& options,
                         const std::string& date, const std::string& git_sha) {
  return finish_profile(make_moe_draft(target, gpu, topology, options, date, git_sha));
}

ProfileDraft make_moe_draft(const MoeTarget& target, const MoeGpu& gpu,
                            const ReplicaTopology& topology, const MoeStepOptions& options,
                            const std::string& date, const std::string& git_sha) {
  require_fits(target, gpu, topology, options.planned_requests, 1);
  const MoeStepModel model(target, gpu, topology, options);
  const GpuMemory memory = gpu_memory(target, gpu, topology, options.planned_requests);
  // dep: one attention rank = one GPU is the simulated unit; tp: the whole replica.
  const int unit = topology.attention == AttentionParallel::kData ? 1 : topology.gpus;

  ProfileDraft draft = moe_draft({});
  draft.precision.attention_ns_per_pair = 4;  // the step model's fitted rate means no more
  Profile& p = draft.profile;
  p.target = target.name;
  p.gpus = unit;
  p.hbm_bytes = gpu.hbm_bytes * unit;
  p.memory_utilization = 0.9;
  p.weights_bytes = std::ceil(memory.weights() * unit);
  p.reserved_bytes = std::ceil(memory.window_reserve_bytes * unit);
  p.kv_bytes_per_token = target.kv_bytes_per_token() * unit;
  p.host_overhead_us = 150;

  VerifyTimeModel& v = p.verify;
  v.fixed_us = 0;  // in the dense table
  v.graph_buckets = vllm_graph_buckets(kMaxGraphBucket);
  v.dense_tokens = v.graph_buckets;
  for (std::int64_t t = 1024; t <= kMaxDenseTokens; t *= 2) v.dense_tokens.push_back(t);
  for (std::int64_t t : v.dense_tokens) v.dense_us.push_back(model.token_part_us(t));
  v.kv_read_ns_per_context_token = 0;  // the fits found no per-context-token term (docs/moe.md)
  v.attention_ns_per_pair = model.ns_per_pair();
  v.per_request_us = model.per_request_us();

  set_moe_draft_models(p, [&](DrafterFamily f, std::int64_t requests, int gamma) {
    return model.draft_us(f, requests, gamma);
  });

  p.provenance.source = "analytic";
  p.provenance.gpu = gpu.name;
  p.provenance.date = date;
  p.provenance.tool = kMoeTool;
  p.provenance.git_sha = git_sha;
  char knobs[160];
  std::snprintf(knobs, sizeof knobs,
                "expert imbalance %.2f, two-batch overlap %s, %lld planned "
                "requests per rank",
                options.expert_imbalance, options.two_batch_overlap ? "on" : "off",
                static_cast<long long>(options.planned_requests));
  p.provenance.notes =
      "ANALYTIC DeepSeek-V4 step model, not a measurement. Replica " + topology.name + " (" +
      std::to_string(topology.gpus) + " GPUs, EP " + std::to_string(topology.expert_parallel) +
      ", " + std::to_string(topology.gpus_per_node) + " GPUs per node, " +
      expert_format_name(topology.expert_format) + " experts); " +
      (unit == 1 ? "this profile is ONE GPU (attention data-parallel rank): concurrency and "
                   "throughput are per GPU"
                 : "this profile is the whole tensor-parallel replica") +
      "; " + knobs + ". Per GPU: weights " + gb(memory.weights()) + ", window reserve " +
      gb(memory.window_reserve_bytes) + ", KV " + gb(memory.kv_bytes) +
      ". Attention and mHC terms are least-squares fits to aiconfigurator's measured vLLM 0.24.0 "
      "tables, the all-to-all a fit to its DeepEP rows; experts, head and sampling are rooflines "
      "(docs/moe.md).";
  return draft;
}

}  // namespace sparksim
