// DeepSeek-V4 step model. Attention and mHC coefficients are least-squares fits to the measured
// aiconfigurator rows (vLLM 0.24.0, H100/H200, tp_size 1, sequence length >= 128) listed in
// docs/moe.md, where their largest and median errors are given; the routed experts, shared
// expert, LM head and sampling are rooflines with the efficiencies below; the all-to-all is
// MoeGpu's DeepEP fit. The composed profile is therefore labelled "analytic".
#include "profiles/moe/moe_step_model.hpp"

#include <algorithm>
#include <cmath>

#include "profiles/analytic_profile.hpp"
#include "profiles/moe/expert_routing.hpp"
#include "profiles/time_model.hpp"

namespace sparksim {

namespace {

// Roofline efficiencies, chosen against the measured vLLM FusedMoE rows for the V4 shapes
// (moe.csv, EP 8-256, balanced): streaming the experts reaches 63% of the HBM datasheet rate
// (268 µs for 805 MB of FP8 experts at 512 tokens, EP 8, H200); the grouped FP8 GEMMs 30% of the
// FP8 peak at 16k tokens. Median error of this roofline over those rows: 12-14% (docs/moe.md).
constexpr double kMemoryEfficiency = 0.63;
constexpr double kComputeEfficiency = 0.30;
constexpr double kMoeKernelUs = 20;   // the routed MoE op's floor (1 token, EP 32: 31-33 µs)
constexpr double kGemmKernelUs = 10;  // shared expert / router / head GEMM floors in a graph
constexpr double kSamplingKernelUs = 15;
constexpr double kStepFixedUs = 20;        // graph launch and input copies, as the dense profiles
constexpr double kTensorAllReduceUs = 10;  // tp attention's all-reduce latency (NVLink)
constexpr double kTensorAllReduceGbS = 300;

// κ (µs), µs per verify token, ns per query×context pair, ns per (token × selected entry).
struct Coefficients {
  double kappa, per_token, per_pair, per_selected;
};
// [gpu: h100, h200][target: flash, pro][kind: CSA, HCA]; SWA layers use the HCA row (vLLM's
// module tables proxy sliding-window-only layers by HCA, and so do we).
constexpr Coefficients kAttention[2][2][2] = {
    {{{112.96, 0.4327, 0.0444, 0.3194}, {90.56, 0.4036, 0.0024, 0}},
     {{180.38, 0.8894, 0.0397, 0.4688}, {152.41, 0.8490, 0, 0}}},
    {{{101.18, 0.4033, 0.0351, 0.3339}, {80.52, 0.3764, 0, 0}},
     {{146.45, 0.8451, 0.0300, 0.4932}, {123.18, 0.8034, 0, 0}}},
};
// mHC pre and post kernels per layer (num_sites 2): κ µs, µs per token, from mhc_module.csv.
constexpr double kMhc[2][2][4] = {
    {{18.4, 0.050, 6.2, 0.055}, {21.0, 0.085, 8.6, 0.088}},
    {{18.0, 0.028, 6.2, 0.035}, {21.0, 0.063, 8.0, 0.063}},
};

double roofline_us(double bytes, double flops, const MoeGpu& gpu, double kernel_us) {
  return std::max(bytes / (gpu.hbm_bytes_per_s * kMemoryEfficiency),
                  flops / (gpu.fp8_flops * kComputeEfficiency)) *
             1e6 +
         kernel_us;
}

}  // namespace

MoeStepModel::MoeStepModel(const MoeTarget& target, const MoeGpu& gpu,
                           const ReplicaTopology& topology, const MoeStepOptions& options)
    : target_(target), gpu_(gpu), topology_(topology), options_(options) {
  const int g = gpu.name == "h100-sxm" ? 0 : 1;
  const int t = target.name == "deepseek-v4-flash" ? 0 : 1;
  const double window_read_us =
      target.window_tokens * kLatentEntryBytes / (gpu.hbm_bytes_per_s * kMemoryEfficiency) * 1e6;
  for (int kind = 0; kind < 3; ++kind) {
    const Coefficients& c = kAttention[g][t][kind == 1 ? 0 : 1];
    kappa_us_[kind] = c.kappa;
    // The fitted rows have one token per request (B = R), so the per-token coefficient holds the
    // per-request work too; the window read (a roofline) is moved to the per-request term.
    // CSA selects min(L / 4, top-k) entries per token: charged at top-k (saturated: contexts
    // beyond 4 × top-k = 2048 Flash / 4096 Pro tokens), conservative below.
    per_token_us_[kind] =
        c.per_token - window_read_us + c.per_selected * target.indexer_top_k * 1e-3;
    ns_per_pair_[kind] = c.per_pair;
  }
  const int h = target.hidden == 4096 ? 0 : 1;
  mhc_pre_[0] = kMhc[g][h][0];
  mhc_pre_[1] = kMhc[g][h][1];
  mhc_post_[0] = kMhc[g][h][2];
  mhc_post_[1] = kMhc[g][h][3];
}

double MoeStepModel::tokens_per_rank(std::int64_t tokens) const {
  // dep: every rank brings its own B; tp: the replica's B is split over its ranks for the MoE.
  return topology_.attention == AttentionParallel::kData
             ? static_cast<double>(tokens)
             : static_cast<double>(tokens) / topology_.gpus;
}

double MoeStepModel::routed_us(double per_rank) const {
  const int ranks = topology_.expert_parallel;
  const int local = target_.routed_experts / ranks;
  const auto group_tokens = static_cast<std::int64_t>(std::llround(per_rank * ranks));
  const double distinct =
      expected_distinct_experts(group_tokens, target_.top_k, target_.routed_experts, local);
  const double hits =
      hottest_rank_hits(per_rank * ranks, target_.top_k, ranks, options_.expert_imbalance);
  const double h = target_.hidden;
  const double bytes =
      distinct * target_.expert_params() * expert_bytes_per_param(topology_.expert_format) +
      hits * h * 3.0;  // FP8 in, BF16 out
  return roofline_us(bytes, 2.0 * hits * target_.expert_params(), gpu_, kMoeKernelUs);
}

double MoeStepModel::shared_us(double tokens) const {
  const double h = target_.hidden;
  const double params = target_.shared_experts * target_.expert_params();
  const double router = h * target_.routed_experts;
  return roofline_us(params + 2.0 * router + tokens * h * 4.0, 2.0 * tokens * (params + router),
                     gpu_, 2 * kGemmKernelUs);
}

double MoeStepModel::mhc_us(double tokens) const {
  return mhc_pre_[0] + mhc_pre_[1] * tokens + mhc_post_[0] + mhc_post_[1] * tokens;
}

double MoeStepModel::head_us(double tokens) const {
  const double hv = static_cast<double>(target_.hidden) * target_.vocab;
  // BF16 head at half the FP8 rate; sampling reads and writes fp32 logits once.
  const double head = roofline_us(2.0 * hv, 2.0 * 2.0 * tokens * hv, gpu_, kGemmKernelUs);
  const double sampling =
      tokens * target_.vocab * 8.0 / (gpu_.hbm_bytes_per_s * kMemoryEfficiency) * 1e6 +
      kSamplingKernelUs;
  return head + sampling;
}

StepParts MoeStepModel::layer(std::int64_t tokens, int kind) const {
  StepParts p;
  const double b = static_cast<double>(tokens);
  const bool tp = topology_.attention == AttentionParallel::kTensor;
  const int n = topology_.gpus;
  // tp: each GPU computes 1/N of the heads for all B tokens, then an all-reduce of B × h BF16.
  p.attention_us = kappa_us_[kind] + per_token_us_[kind] * (tp ? b / n : b);
  if (tp && n > 1) {
    p.attention_us += kTensorAllReduceUs + b * target_.hidden * 2.0 / (kTensorAllReduceGbS * 1e3);
  }
  p.mhc_us = mhc_us(b);
  p.shared_expert_us = shared_us(tp ? b / n : b);
  const double per_rank = tokens_per_rank(tokens);
  p.routed_experts_us = routed_us(per_rank);
  if (topology_.expert_parallel > 1) {
    const AllToAllLink& link = topology_.crosses_nodes() ? gpu_.internode : gpu_.intranode;
    const double kh = static_cast<double>(target_.top_k) * target_.hidden;
    p.dispatch_us = link.dispatch_latency_us + per_rank * kh * 1.03 / (link.dispatch_gb_s * 1e3);
    p.combine_us = link.combine_latency_us + per_rank * kh * 2.0 / (link.combine_gb_s * 1e3);
  }
  // The shared expert runs beside the routed path (dispatch, experts, combine).
  const double moe_path = p.dispatch_us + p.routed_experts_us + p.combine_us;
  p.total_us = p.attention_us + p.mhc_us + std::max(p.shared_expert_us, moe_path);
  return p;
}

StepParts MoeStepModel::step(std::int64_t tokens, std::int64_t requests, double pairs) const {
  StepParts s;
  if (tokens <= 0) return s;
  const int counts[3] = {target_.swa_layers, target_.csa_layers, target_.hca_layers};
  for (int kind = 0; kind < 3; ++kind) {
    if (counts[kind] == 0) continue;
    StepParts l = layer(tokens, kind);
    if (options_.two_batch_overlap && tokens >= 2) {
      // Two micro-batches of B/2: compute C and communication M per half pipeline as
      // C, max(C, M), M: one half's all-to-all hides under the other's compute.
      const StepParts half = layer(tokens / 2, kind);
      const double comm = half.dispatch_us + half.combine_us;
      const double compute = half.total_us - comm;
      l.total_us = std::min(l.total_us, compute + std::max(compute, comm) + comm);
    }
    s.attention_us += counts[kind] * l.attention_us;
    s.mhc_us += counts[kind] * l.mhc_us;
    s.shared_expert_us += counts[kind] * l.shared_expert_us;
    s.routed_experts_us += counts[kind] * l.routed_experts_us;
    s.dispatch_us += counts[kind] * l.dispatch_us;
    s.combine_us += counts[kind] * l.combine_us;
    s.total_us += counts[kind] * l.total_us;
  }
  s.head_us = head_us(static_cast<double>(tokens));
  s.fixed_us = kStepFixedUs;
  s.total_us += s.head_us + s.fixed_us + per_request_us() * static_cast<double>(requests) +
                ns_per_pair() * pairs * 1e-3;
  return s;
}

double MoeStepModel::token_part_us(std::int64_t tokens) const {
  return step(tokens, 0, 0).total_us;
}

double MoeStepModel::per_request_us() const {
  return target_.layers * target_.window_tokens * kLatentEntryBytes /
         (gpu_.hbm_bytes_per_s * kMemoryEfficiency) * 1e6;
}

double MoeStepModel::ns_per_pair() const {
  return target_.swa_layers * ns_per_pair_[0] + target_.csa_layers * ns_per_pair_[1] +
         target_.hca_layers * ns_per_pair_[2];
}

double MoeStepModel::draft_us(DrafterFamily family, std::int64_t requests, int gamma) const {
  if (requests <= 0) return 0;
  const double r = static_cast<double>(requests);
  // Drafter layers attend a 128-token window only: priced as SWA/HCA-kind layers (kind 0).
  const auto layers_us = [&](int count, double positions) {
    const auto p = static_cast<std::int64_t>(std::ceil(positions));
    return count * (layer(p, 0).total_us + per_request_us() / target_.layers * r);
  };
  const double h = target_.hidden;
  if (family == DrafterFamily::kMtp1 || family == DrafterFamily::kEagle3) {
    // Norms and a 2h -> h projection of [hidden state; next-token embedding], one layer, the
    // shared head; eagle3 repeats it γ times.
    const double projection = roofline_us(2.0 * h * h, 2.0 * r * 2.0 * h * h, gpu_, kGemmKernelUs);
    const double one = projection + layers_us(1, r) + head_us(r);
    return family == DrafterFamily::kMtp1 ? one : gamma * one;
  }
  // DSpark / DFlash: context projection of three target layers' features, three MoE layers over
  // R·γ block positions, the shared head over them; DSpark adds γ sequential Markov passes.
  const double positions = r * gamma;
  const double projection =
      roofline_us(3.0 * h * h, 2.0 * positions * 3.0 * h * h, gpu_, kGemmKernelUs);
  double t = projection + layers_us(3, positions) + head_us(positions);
  if (family == DrafterFamily::kDspark) {
    // Per pass: gather of R bias rows, rank -> vocab GEMM (BF16), bias add + sample.
    const double rank_vocab = static_cast<double>(target_.markov_rank) * target_.vocab;
    const double pass = roofline_us(2.0 * rank_vocab + r * target_.vocab * 8.0,
                                    2.0 * 2.0 * r * rank_vocab, gpu_, 2 * kGemmKernelUs);
    t += gamma * pass;
  }
  return t;
}

}  // namespace sparksim
