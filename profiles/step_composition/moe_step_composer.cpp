// MoeStepComposer: the V4 step from measured rows (see the header). The all-to-all of an EP group
// other than one node of 8 has no measured row: inside a node (EP < 8) the EP 8 row at the same
// tokens per GPU is used, across nodes the analytic cross-node constants of moe_gpu.cpp; both are
// recorded in outside_grid.
#include "profiles/step_composition/moe_step_composer.hpp"

#include <algorithm>
#include <cmath>

#include "common/input_error.hpp"

namespace sparksim {

namespace {

constexpr int kDepthOfOneNode = 8;  // the DeepEP rows' EP size (node_num 1)

void add_parts(ComposedMoeStep& into, const ComposedMoeStep& l, double count) {
  into.attention_ms += count * l.attention_ms;
  into.mhc_ms += count * l.mhc_ms;
  into.shared_ms += count * l.shared_ms;
  into.routed_ms += count * l.routed_ms;
  into.dispatch_ms += count * l.dispatch_ms;
  into.combine_ms += count * l.combine_ms;
  into.head_ms += count * l.head_ms;
  into.total_ms += count * l.total_ms;
  into.outside_grid.insert(l.outside_grid.begin(), l.outside_grid.end());
}

void take(ComposedMoeStep& s, double& term, const KernelLatency& k) {
  term += k.ms;
  s.outside_grid.insert(k.outside_grid.begin(), k.outside_grid.end());
}

}  // namespace

MoeStepComposer::MoeStepComposer(const V4KernelTables& tables, const MoeTarget& target,
                                 const MoeGpu& gpu, const ReplicaTopology& topology,
                                 bool two_batch_overlap)
    : tables_(tables),
      target_(target),
      gpu_(gpu),
      topology_(topology),
      two_batch_overlap_(two_batch_overlap) {
  if (topology.attention != AttentionParallel::kData) {
    throw InputError("--topology: " + topology.name +
                     ": the measured-db composition covers attention data-parallel (dep<N>) "
                     "topologies only; profile-moe without --measured-db models tp<N>");
  }
  if (topology.expert_format != ExpertFormat::kFp8) {
    throw InputError("--expert-format: " + std::string(expert_format_name(topology.expert_format)) +
                     ": the database measured the V4 routed experts in fp8_block only");
  }
  if (tables.expert_parallel() != topology.expert_parallel) {
    throw std::logic_error("MoeStepComposer: tables loaded for another EP size");
  }
}

KernelLatency MoeStepComposer::head(std::int64_t rows) const {
  return tables_.bf16_gemm().latency(rows, target_.vocab, target_.hidden);
}

ComposedMoeStep MoeStepComposer::layer_once(std::int64_t tokens, int kind,
                                            std::int64_t cached) const {
  ComposedMoeStep l;
  const std::int64_t h = target_.hidden;
  const std::int64_t ffn = target_.expert_ffn * target_.shared_experts;
  take(
      l, l.attention_ms,
      tables_.attention(kind == 1 ? V4AttentionKind::kCsa : V4AttentionKind::kHca, tokens, cached));
  if (kind == 0) {
    l.outside_grid.insert(
        "sliding-window-only layers: no SWA module table; priced by the HCA module row");
  }
  take(l, l.mhc_ms, tables_.mhc(tokens));
  // Shared expert (gate and up as one 2·I-wide fp8-block GEMM, down) and the BF16 router.
  take(l, l.shared_ms, tables_.fp8_block_gemm().latency(tokens, 2 * ffn, h));
  take(l, l.shared_ms, tables_.fp8_block_gemm().latency(tokens, h, ffn));
  take(l, l.shared_ms, tables_.bf16_gemm().latency(tokens, target_.routed_experts, h));
  // The fused routed-expert op sees the whole EP group's tokens (each rank brings its own).
  const int ep = topology_.expert_parallel;
  take(l, l.routed_ms, tables_.routed_experts(tokens * ep));
  if (ep > 1) {
    if (topology_.crosses_nodes()) {
      const AllToAllLink& link = gpu_.internode;
      const double kh = static_cast<double>(target_.top_k) * h;
      const double b = static_cast<double>(tokens);
      l.dispatch_ms =
          (link.dispatch_latency_us + b * kh * 1.03 / (link.dispatch_gb_s * 1e3)) * 1e-3;
      l.combine_ms = (link.combine_latency_us + b * kh * 2.0 / (link.combine_gb_s * 1e3)) * 1e-3;
      l.outside_grid.insert(
          "comm_deepep_ll.csv: EP " + std::to_string(ep) + " across nodes of " +
          std::to_string(topology_.gpus_per_node) +
          " not measured (one node only): dispatch/combine from the analytic cross-node "
          "constants (latency + bytes at 50 GB/s per GPU, docs/moe.md)");
    } else {
      take(l, l.dispatch_ms, tables_.dispatch(tokens));
      take(l, l.combine_ms, tables_.combine(tokens));
      if (ep != kDepthOfOneNode) {
        l.outside_grid.insert("comm_deepep_ll.csv: EP " + std::to_string(ep) +
                              " not measured: the EP 8 row at the same tokens per GPU");
      }
    }
  }
  l.total_ms =
      l.attention_ms + l.mhc_ms + std::max(l.shared_ms, l.dispatch_ms + l.routed_ms + l.combine_ms);
  return l;
}

ComposedMoeStep MoeStepComposer::layer(std::int64_t tokens, int kind, std::int64_t cached) const {
  ComposedMoeStep l = layer_once(tokens, kind, cached);
  if (two_batch_overlap_ && tokens >= 2) {
    // Two micro-batches of B/2: compute C and all-to-all M per half pipeline as C, max(C, M), M.
    const ComposedMoeStep half = layer_once(tokens / 2, kind, cached);
    const double comm = half.dispatch_ms + half.combine_ms;
    const double compute = half.total_ms - comm;
    l.total_ms = std::min(l.total_ms, compute + std::max(compute, comm) + comm);
    l.outside_grid.insert(half.outside_grid.begin(), half.outside_grid.end());
  }
  return l;
}

ComposedMoeStep MoeStepComposer::step(std::int64_t tokens, std::int64_t cached) const {
  ComposedMoeStep s;
  if (tokens <= 0) return s;
  const int counts[3] = {target_.swa_layers, target_.csa_layers, target_.hca_layers};
  for (int kind = 0; kind < 3; ++kind) {
    if (counts[kind] > 0) add_parts(s, layer(tokens, kind, cached), counts[kind]);
  }
  take(s, s.head_ms, head(tokens));
  s.total_ms += s.head_ms;
  return s;
}

ComposedMoeStep MoeStepComposer::draft(DrafterFamily family, std::int64_t requests,
                                       int gamma) const {
  ComposedMoeStep s;
  if (requests <= 0) return s;
  const std::int64_t h = target_.hidden;
  const auto gemm = [&](std::int64_t m, std::int64_t n, std::int64_t k) {
    const KernelLatency g = tables_.fp8_block_gemm().latency(m, n, k);
    s.total_ms += g.ms;
    s.outside_grid.insert(g.outside_grid.begin(), g.outside_grid.end());
  };
  const auto layers = [&](int count, std::int64_t positions) {
    add_parts(s, layer(positions, 0, kDrafterWindow), count);
    const KernelLatency hd = head(positions);
    s.head_ms += hd.ms;
    s.total_ms += hd.ms;
    s.outside_grid.insert(hd.outside_grid.begin(), hd.outside_grid.end());
  };
  if (family == DrafterFamily::kMtp1 || family == DrafterFamily::kEagle3) {
    // A 2h -> h projection of [hidden state; next-token embedding], one layer, the shared head.
    const int passes = family == DrafterFamily::kMtp1 ? 1 : gamma;
    for (int i = 0; i < passes; ++i) {
      gemm(requests, h, 2 * h);
      layers(1, requests);
    }
    return s;
  }
  // Context projection of three target layers' features, three layers over R·γ positions.
  const std::int64_t positions = requests * gamma;
  gemm(positions, h, 3 * h);
  layers(3, positions);
  if (family == DrafterFamily::kDspark) {
    for (int i = 0; i < gamma; ++i) {
      const KernelLatency markov =
          tables_.bf16_gemm().latency(requests, target_.vocab, target_.markov_rank);
      s.total_ms += markov.ms;
      s.outside_grid.insert(markov.outside_grid.begin(), markov.outside_grid.end());
    }
  }
  return s;
}

}  // namespace sparksim
