// The V4 measured-db generator (see the header): tables from composed steps, fits for the rest.
#include "profiles/step_composition/moe_measured_db_profile.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <utility>

#include "profiles/analytic_profile.hpp"
#include "profiles/fit/design_matrix.hpp"
#include "profiles/kernel_db/v4_kernel_tables.hpp"
#include "profiles/moe/moe_profile.hpp"
#include "profiles/moe/moe_step_model.hpp"
#include "profiles/step_composition/fidelity_points.hpp"
#include "profiles/step_composition/measured_db_profile.hpp"
#include "profiles/step_composition/moe_step_composer.hpp"
#include "profiles/time_model.hpp"

namespace sparksim {

namespace {

constexpr std::size_t kHeldOut = 4;         // every 4th point (offset 1) is held out
constexpr std::int64_t kShortestCache = 1;  // the dense table: attention at its shortest row

struct VerifyPoint {
  std::int64_t requests, width, cached;
  std::string region;
};

// R requests verifying W tokens each at `cached` cached tokens: decode at small and large batch,
// long context; within the DeepEP per-rank token cap the profile plans with (512).
std::vector<VerifyPoint> verify_points() {
  std::vector<VerifyPoint> out;
  for (std::int64_t cached : {128, 512, 1024, 2048, 4096, 8192}) {
    for (std::int64_t r : {1, 2, 4, 8, 16, 32, 64, 128, 256}) {
      for (std::int64_t w : {1, 2, 4, 6}) {
        if (r * w > 512) continue;
        const char* region = cached >= 4096 ? "long context (4k-8k)"
                             : r * w <= 32  ? "decode B <= 32"
                                            : "decode B > 32";
        out.push_back({r, w, cached, region});
      }
    }
  }
  return out;
}

BatchShape shape_of(const VerifyPoint& p) {
  return batch_shape_of(StepShape{p.requests, p.width, p.cached});
}

std::string label(const VerifyPoint& p) {
  return "R=" + std::to_string(p.requests) + " W=" + std::to_string(p.width) +
         " L=" + std::to_string(p.cached);
}

FitErrorReport judge(const Profile& p, const MoeStepComposer& composer,
                     const std::vector<VerifyPoint>& points) {
  const TimeModel model(p);
  DesignMatrix d;
  std::vector<double> predicted;
  for (const VerifyPoint& v : points) {
    const BatchShape b = shape_of(v);
    const std::int64_t tokens = pad_to_graph_bucket(p.verify.graph_buckets, b.verify_tokens);
    d.add({}, composer.step(tokens, v.cached).total_ms * 1e3, v.region, 0, label(v));
    predicted.push_back(static_cast<double>(model.verify_time(b)) * 1e-3);
  }
  return error_report(predicted, d);
}

FitErrorReport judge_draft(const Profile& p, const MoeStepComposer& composer, DrafterFamily family,
                           int gamma) {
  const TimeModel model(p);
  DesignMatrix d;
  std::vector<double> predicted;
  const DrafterSpec spec{family, gamma, ""};
  for (std::int64_t r : {1, 2, 4, 8, 16, 32, 64, 128, 256, 512}) {
    d.add({}, composer.draft(family, r, gamma).total_ms * 1e3, "draft", 0,
          "R=" + std::to_string(r));
    predicted.push_back(static_cast<double>(model.draft_time(spec, r)) * 1e-3);
  }
  return error_report(predicted, d);
}

}  // namespace

MoeMeasuredDbBuild make_moe_measured_db_profile(const MoeTarget& target, const MoeGpu& gpu,
                                                const ReplicaTopology& topology,
                                                const MoeMeasuredDbOptions& options,
                                                const std::string& date,
                                                const std::string& git_sha) {
  const V4KernelShape shape{target.name == "deepseek-v4-flash" ? "V4-Flash" : "V4-Pro",
                            target.hidden,
                            target.expert_ffn,
                            target.routed_experts,
                            target.top_k,
                            target.q_heads};
  const V4KernelTables tables = V4KernelTables::load(
      options.database_dir, gpu.name, shape, topology.expert_parallel, options.distribution);
  const MoeStepComposer composer(tables, target, gpu, topology, options.two_batch_overlap);

  // Memory, graph buckets and host overhead: the analytic MoE profile's (not latencies). It also
  // refuses a topology that does not fit.
  MoeStepOptions analytic;
  analytic.two_batch_overlap = options.two_batch_overlap;
  analytic.planned_requests = options.planned_requests;
  MoeMeasuredDbBuild build;
  // Timed terms are stored at the measured-db precision (the default), not the step model's.
  ProfileDraft draft =
      moe_draft(make_moe_draft(target, gpu, topology, analytic, date, git_sha).profile);
  Profile& p = draft.profile;
  std::set<std::string> outside;

  VerifyTimeModel& v = p.verify;
  v.dense_us.clear();
  for (std::int64_t t : v.dense_tokens) {
    const ComposedMoeStep s = composer.step(t, kShortestCache);
    outside.insert(s.outside_grid.begin(), s.outside_grid.end());
    v.dense_us.push_back(s.total_ms * 1e3);
  }
  round_stored_terms(p, draft.precision);  // lifted, and fitted against, as stored
  // Measured neighbours are not always monotone (run-to-run noise, the database's caveat): more
  // tokens never cost less.
  for (std::size_t i = 1; i < v.dense_us.size(); ++i) {
    v.dense_us[i] = std::max(v.dense_us[i], v.dense_us[i - 1]);
  }
  v.fixed_us = 0;
  v.per_request_us = 0;
  v.kv_read_ns_per_context_token = 0;
  v.attention_ns_per_pair = 0;

  const std::vector<VerifyPoint> points = verify_points();
  const TimeModel tables_only(p);
  DesignMatrix d(
      {"fixed_us", "per_request_us", "kv_read_us_per_context_token", "attention_us_per_pair"});
  for (const VerifyPoint& vp : points) {
    const BatchShape b = shape_of(vp);
    const ComposedMoeStep s =
        composer.step(pad_to_graph_bucket(v.graph_buckets, b.verify_tokens), vp.cached);
    outside.insert(s.outside_grid.begin(), s.outside_grid.end());
    d.add(
        {1.0, static_cast<double>(b.decode_requests), static_cast<double>(b.decode_context_tokens),
         static_cast<double>(b.verify_attention_pairs)},
        s.total_ms * 1e3, vp.region, static_cast<double>(tables_only.verify_time(b)) * 1e-3,
        label(vp));
  }
  const auto [train, held] = d.split_held_out(kHeldOut, 1);
  build.verify_fit = fit_least_squares(train);
  const LinearFit& f = build.verify_fit;
  set_fitted_decode_terms(v, f);

  set_moe_draft_models(p, [&](DrafterFamily family, std::int64_t requests, int gamma) {
    const ComposedMoeStep s = composer.draft(family, requests, gamma);
    outside.insert(s.outside_grid.begin(), s.outside_grid.end());
    return s.total_ms * 1e3;
  });

  // Judged as stored (rounded); the held-out error goes into the notes.
  Profile stored = p;
  round_stored_terms(stored, draft.precision);
  std::vector<VerifyPoint> fitted, held_out;
  for (std::size_t i = 0; i < points.size(); ++i) {
    (i % kHeldOut == 1 ? held_out : fitted).push_back(points[i]);
  }
  build.verify_train = judge(stored, composer, fitted);
  build.verify_held_out = judge(stored, composer, held_out);
  build.draft_mtp1 = judge_draft(stored, composer, DrafterFamily::kMtp1, 1);
  build.draft_dspark5 = judge_draft(stored, composer, DrafterFamily::kDspark, 5);

  const DatabaseIdentity& id = tables.identity();
  p.provenance.source = "measured-db";
  p.provenance.tool = kMoeMeasuredDbTool;
  p.provenance.database = id.repository;
  p.provenance.database_commit = id.commit;
  p.provenance.framework =
      id.framework + " (DeepEP all-to-all: " + tables.all_to_all_framework() + ")";
  p.provenance.outside_grid.assign(outside.begin(), outside.end());
  char held_text[160];
  std::snprintf(
      held_text, sizeof held_text, "held-out verify error: mean %.2f%%, worst %.2f%% (%s)",
      build.verify_held_out.overall.mean_abs_pct, build.verify_held_out.overall.worst_abs_pct,
      build.verify_held_out.overall.worst_label.c_str());
  p.provenance.notes =
      "DeepSeek-V4 step composed from kernel latencies MEASURED BY A PUBLIC DATABASE (" +
      id.describe() + "). Replica " + topology.name + " (" + std::to_string(topology.gpus) +
      " GPUs, EP " + std::to_string(topology.expert_parallel) + ", " +
      std::to_string(topology.gpus_per_node) +
      " GPUs per node, fp8 experts); this profile is ONE GPU (attention data-parallel rank): "
      "concurrency and throughput are per GPU. Per layer: dsv4 CSA/HCA attention module row at "
      "(verify tokens, cached length) (a W-token verify priced as W one-query rows, "
      "aiconfigurator's MTP rule), mHC pre+post, shared expert + router GEMMs beside DeepEP "
      "dispatch + fused MoE (moe.csv at the EP group's tokens, routing " +
      options.distribution + ") + combine" +
      (options.two_batch_overlap ? ", two-batch overlap" : "") +
      "; LM head bf16 GEMM. dense_us is the composed step at the shortest cached row; context "
      "and per-request terms are least-squares fits to composed steps (" +
      held_text +
      "); drafters are secants of composed draft steps. Not in the database, so not in any "
      "step time: norms, sampling, embedding, the Markov head's softmax. Memory and "
      "host_overhead_us are the analytic MoE profile's. outside_grid lists every extrapolation "
      "and substitution.";
  build.profile = finish_profile(std::move(draft));
  return build;
}

}  // namespace sparksim
