// The telemetry fit and the profile built from it. The fitted whole step is split into the
// engine's verify and draft parts so that verify(2C tokens, C requests) + draft(mtp1, C) equals
// the fit at every dense-table point; context terms are zero (the telemetry does not say its
// traffic's context lengths, so their cost is inside the fitted terms).
#include "profiles/moe/telemetry_fit.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "common/input_error.hpp"
#include "profiles/analytic_profile.hpp"
#include "profiles/fit/least_squares_fit.hpp"
#include "profiles/moe/moe_target.hpp"
#include "profiles/profile_finishing.hpp"
#include "profiles/time_model.hpp"

namespace sparksim {

namespace {

double saturation(double verify_tokens, double group, const MoeTarget& t) {
  return 1.0 -
         std::pow(1.0 - static_cast<double>(t.top_k) / t.routed_experts, group * verify_tokens);
}

}  // namespace

TelemetryFit fit_telemetry(const TelemetryCurve& curve, double tokens_per_step,
                           const std::string& curves) {
  const MoeTarget& target = moe_target(curve.target);
  if (curves != "both" && curves != "concurrency" && curves != "frontier") {
    throw InputError("--curves: '" + curves + "'; valid: both, concurrency, frontier");
  }
  const auto selected = [&](const TelemetryPoint& p) {
    return curves == "both" || p.curve == curves;
  };
  std::size_t used = 0;
  for (const TelemetryPoint& p : curve.points) used += selected(p) ? 1 : 0;
  if (used < 3) {
    throw InputError(curve.path, 0,
                     "--curves " + curves + " selects " + std::to_string(used) +
                         " points; a fit needs at least 3");
  }
  TelemetryFit best;
  double best_error = std::numeric_limits<double>::infinity();
  // Routing groups from 1/8 to 64 ranks' worth of tokens (powers of two).
  for (double group = 0.125; group <= 64; group *= 2) {
    DesignMatrix all({"fixed_us", "per_token_us", "expert_stream_us"});
    DesignMatrix d({"fixed_us", "per_token_us", "expert_stream_us"});
    for (const TelemetryPoint& p : curve.points) {
      const double b = 2.0 * p.concurrency_per_gpu;
      const double step_us = tokens_per_step * p.concurrency_per_gpu / p.tok_s_per_gpu * 1e6;
      all.add({1.0, b, saturation(b, group, target)}, step_us, p.curve);
      if (selected(p)) d.add({1.0, b, saturation(b, group, target)}, step_us, p.curve);
    }
    const LinearFit fit = fit_least_squares(d);
    double worst = 0;
    std::vector<double> fitted;
    for (std::size_t i = 0; i < all.size(); ++i) {
      fitted.push_back(fit.predict(all.features[i]));
      if (selected(curve.points[i])) {
        worst = std::max(worst, std::abs(fitted.back() / all.observed[i] - 1.0));
      }
    }
    if (worst < best_error) {
      best_error = worst;
      best = TelemetryFit{};
      best.tokens_per_step = tokens_per_step;
      best.routing_group = group;
      best.fixed_us = fit.coefficient("fixed_us");
      best.per_token_us = fit.coefficient("per_token_us");
      best.expert_stream_us = fit.coefficient("expert_stream_us");
      best.points = curve.points;
      for (std::size_t i = 0; i < all.size(); ++i) {
        best.fitted.push_back(selected(curve.points[i]));
        best.step_ms.push_back(all.observed[i] * 1e-3);
        best.fitted_ms.push_back(fitted[i] * 1e-3);
      }
    }
  }
  if (!(best.per_token_us > 0)) {
    throw InputError(curve.path, 0,
                     "the fitted step does not grow with the batch (per-token term 0): the "
                     "throughput must rise less than proportionally with concurrency");
  }
  return best;
}

Profile make_telemetry_profile(const TelemetryCurve& curve, const TelemetryFit& fit,
                               const Profile& reference, const std::string& date,
                               const std::string& git_sha) {
  const MoeTarget& target = moe_target(curve.target);
  const auto whole_step_us = [&](double b) {
    return fit.fixed_us + fit.per_token_us * b +
           fit.expert_stream_us * saturation(b, fit.routing_group, target);
  };
  // Drafters keep the reference model's cost relative to its step, at the telemetry's median
  // concurrency: scale = fitted step / (reference verify + reference MTP-1 draft) there.
  std::vector<double> concurrency;
  for (const TelemetryPoint& p : fit.points) concurrency.push_back(p.concurrency_per_gpu);
  std::sort(concurrency.begin(), concurrency.end());
  const double c_mid = concurrency[concurrency.size() / 2];
  const TimeModel ref_model(reference);
  BatchShape mid;
  mid.decode_requests = std::llround(c_mid);
  mid.verify_tokens = 2 * mid.decode_requests;
  const DrafterSpec mtp1{DrafterFamily::kMtp1, 1, "mtp1"};
  require_draft_cost(reference, mtp1);  // the telemetry is an MTP-1 deployment's
  const double ref_step_us = static_cast<double>(ref_model.verify_time(mid) +
                                                 ref_model.draft_time(mtp1, mid.decode_requests)) *
                             1e-3;
  const double scale = whole_step_us(static_cast<double>(mid.verify_tokens)) / ref_step_us;
  if (!(std::isfinite(scale) && scale > 0 && std::isfinite(whole_step_us(1.0)) &&
        whole_step_us(1.0) > 0)) {
    throw InputError(curve.path, 0,
                     "the telemetry fit gives no usable step time (" +
                         format_number(whole_step_us(1.0)) +
                         " us at one token); check that throughput rises with concurrency");
  }

  ProfileDraft draft = draft_of(reference);
  Profile& p = draft.profile;
  p.path.clear();
  for (std::optional<DraftTimeModel>& family : p.draft) {
    if (!family) continue;  // no cost in the reference, none in the fit
    DraftTimeModel& m = *family;
    m.fixed_us *= scale;
    m.per_pass_us *= scale;
    m.per_token_ns *= scale;
    m.kv_read_ns_per_context_token *= scale;
  }
  round_stored_terms(p, draft.precision);  // the verify split below uses MTP-1 as stored
  const DraftTimeModel& d = *p.draft[static_cast<int>(DrafterFamily::kMtp1)];
  VerifyTimeModel& v = p.verify;
  // No CUDA-graph padding: the measured curve already holds whatever padding the deployment has,
  // and the fit is smooth in B.
  v.graph_buckets.clear();
  v.fixed_us = 0;
  v.kv_read_ns_per_context_token = 0;
  v.attention_ns_per_pair = 0;
  v.per_request_us = 0;
  v.dense_us.clear();
  double previous = 0;
  for (std::int64_t b : v.dense_tokens) {
    // verify(B) = whole(B) − draft(B / 2): MTP-1 verifies two tokens per request.
    const double draft_us = d.fixed_us + d.per_token_ns * 1e-3 * static_cast<double>(b) / 2.0;
    const double us = std::max(previous, whole_step_us(static_cast<double>(b)) - draft_us);
    v.dense_us.push_back(round_decimals(us, draft.precision.table_us));
    previous = v.dense_us.back();
  }
  double worst = 0;
  for (std::size_t i = 0; i < fit.step_ms.size(); ++i) {
    if (!fit.fitted[i]) continue;
    worst = std::max(worst, std::abs(fit.fitted_ms[i] / fit.step_ms[i] - 1.0));
  }
  p.provenance = Provenance{};  // nothing of the reference's provenance but its GPU
  p.provenance.gpu = reference.provenance.gpu;
  p.provenance.source = "telemetry";
  p.provenance.date = date;
  p.provenance.tool = kTelemetryTool;
  p.provenance.git_sha = git_sha;
  p.provenance.notes =
      "Fitted to a deployment's measured MTP-1 curve (" + curve.path + "; " + curve.source +
      "). ONE GPU (attention data-parallel rank). Whole MTP-1 step T(B=2C) = " +
      format_number(round_decimals(fit.fixed_us, 1)) + " us + " +
      format_number(round_decimals(fit.per_token_us, 3)) + " us/token + " +
      format_number(round_decimals(fit.expert_stream_us, 1)) + " us x (1 - (1 - k/E)^(" +
      format_number(fit.routing_group) + " B)), tau " + format_number(fit.tokens_per_step) +
      "; largest step-time fit error " + format_number(round_decimals(worst * 100, 2)) +
      "%. No context terms (the telemetry gives no context lengths). Memory and drafter shapes "
      "from the reference " +
      reference.provenance.gpu + " analytic profile (" +
      reference.provenance.notes.substr(0, reference.provenance.notes.find(';')) +
      "), drafters scaled by " + format_number(round_decimals(scale, 4)) +
      " (fitted / analytic step).";
  return finish_profile(std::move(draft));
}

}  // namespace sparksim
