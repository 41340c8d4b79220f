// Fitting, replaying and cross-validating the real-silicon host terms (see the header).
#include "experiments/validate/silicon_cross_validation.hpp"

#include <set>

#include "common/printf_string.hpp"
#include "experiments/validate/silicon_sample.hpp"

namespace sparksim {

namespace {

std::string key_of(const SiliconResult& r) {
  return silicon_split_key(r.row, r.config);
}

// The pooled error of `cases` under one label (silicon_group_errors over a single group).
SiliconGroupError pooled_error(std::vector<SiliconResult> cases, const std::string& label,
                               const std::string& role) {
  for (SiliconResult& r : cases) r.config.group = label;
  const std::vector<SiliconGroupError> g = silicon_group_errors(cases);
  SiliconGroupError e = g.empty() ? SiliconGroupError{} : g.front();
  e.group = label;
  e.role = role;
  return e;
}

}  // namespace

SimulatedMetrics replay_silicon_case(const SiliconResult& r, const SiliconReplayContext& context,
                                     double per_step_us) {
  Profile p = context.profiles->at(r.config.profile_path);
  p.step_terms.per_step_us += per_step_us;
  ReplayOptions replay;
  replay.drafter = "none";
  return replay_case(silicon_case(r.row, r.config, context.requests_per_user), p, replay);
}

std::vector<std::optional<HostFitCase>> silicon_host_fit_cases(
    const std::vector<SiliconResult>& results, const SiliconReplayContext& context) {
  std::vector<std::optional<HostFitCase>> out(results.size());
  for (std::size_t i = 0; i < results.size(); ++i) {
    const SiliconResult& r = results[i];
    // A check case's measurement never reaches a fit: it is not even read here.
    if (!r.config.replayable || r.role != "calibration") continue;
    HostFitCase c;
    c.engine = r.config.engine;
    c.measured_tpot_ms = r.row.tpot_ms;
    c.probe_us = context.probe_us;
    c.tpot_at_zero_ms = replay_silicon_case(r, context, 0).tpot_ms.mean.value_or(0);
    c.tpot_at_probe_ms = replay_silicon_case(r, context, context.probe_us).tpot_ms.mean.value_or(0);
    out[i] = c;
  }
  return out;
}

HostTermFit fit_silicon_host_terms(const std::vector<SiliconResult>& results,
                                   const std::vector<std::optional<HostFitCase>>& fit_cases,
                                   const std::function<bool(const SiliconResult&)>& use) {
  std::vector<HostFitCase> chosen;
  for (std::size_t i = 0; i < results.size(); ++i) {
    if (fit_cases[i] && (!use || use(results[i]))) chosen.push_back(*fit_cases[i]);
  }
  return fit_host_terms(chosen);
}

void replay_with_host_terms(std::vector<SiliconResult>& results, const HostTermFit& fit,
                            const SiliconReplayContext& context) {
  for (SiliconResult& r : results) {
    if (!r.config.replayable) continue;
    r.simulated = replay_silicon_case(r, context, fit.for_engine(r.config.engine).per_step_us);
  }
}

CrossValidation cross_validate_groups(const std::vector<SiliconResult>& results,
                                      const std::vector<std::optional<HostFitCase>>& fit_cases,
                                      const SiliconReplayContext& context) {
  CrossValidation cv;
  std::vector<std::string> keys;
  std::set<std::string> seen;
  for (const SiliconResult& r : results) {
    if (r.config.replayable && seen.insert(key_of(r)).second) keys.push_back(key_of(r));
  }
  std::vector<SiliconResult> check_cases, calibration_cases;
  for (const std::string& key : keys) {
    const HostTermFit fit = fit_silicon_host_terms(
        results, fit_cases, [&](const SiliconResult& r) { return key_of(r) != key; });
    std::vector<SiliconResult> held_out;
    for (const SiliconResult& r : results) {
      if (!r.config.replayable || key_of(r) != key) continue;
      SiliconResult predicted = r;
      predicted.simulated =
          replay_silicon_case(r, context, fit.for_engine(r.config.engine).per_step_us);
      held_out.push_back(std::move(predicted));
    }
    const SiliconResult& first = held_out.front();
    HeldOutGroup g{key, first.role, first.config.engine, fit.for_engine(first.config.engine),
                   pooled_error(held_out, key, first.role)};
    cv.groups.push_back(std::move(g));
    auto& pool = first.role == "check" ? check_cases : calibration_cases;
    pool.insert(pool.end(), held_out.begin(), held_out.end());
  }
  cv.check = pooled_error(check_cases, "all check groups", "check");
  cv.calibration =
      pooled_error(calibration_cases, "all calibration groups (each held out)", "calibration");
  return cv;
}

std::string format_host_terms(const HostTermFit& fit) {
  std::string out = printf_string(
      "\nPer-step host cost by engine preset (bounded [%g, %g] us, from >= %zu calibration "
      "cases' mean TPOT; check cases never reach the fit)\n",
      fit.bounds.min_us, fit.bounds.max_us, fit.bounds.min_cases);
  const auto line = [&](const std::string& name, const HostTermEstimate& e) {
    out += printf_string("  %-12s %8.1f us  (least squares %+.1f us, %lld cases, %s)\n",
                         name.c_str(), e.per_step_us, e.unclamped_us,
                         static_cast<long long>(e.cases), e.basis.c_str());
  };
  for (const auto& [engine, e] : fit.by_engine) line(engine, e);
  line("pooled", fit.pooled);
  out += "  any other engine preset: the pooled value when identified, else 0\n";
  return out;
}

nlohmann::ordered_json host_terms_json(const HostTermFit& fit) {
  const auto one = [](const HostTermEstimate& e) {
    return nlohmann::ordered_json{{"per_step_us", e.per_step_us},
                                  {"unclamped_us", e.unclamped_us},
                                  {"cases", e.cases},
                                  {"basis", e.basis}};
  };
  nlohmann::ordered_json j = {{"min_us", fit.bounds.min_us},
                              {"max_us", fit.bounds.max_us},
                              {"min_cases", fit.bounds.min_cases}};
  nlohmann::ordered_json engines = nlohmann::ordered_json::object();
  for (const auto& [engine, e] : fit.by_engine) engines[engine] = one(e);
  j["by_engine"] = engines;
  j["pooled"] = one(fit.pooled);
  return j;
}

std::string format_cross_validation(const CrossValidation& cv) {
  std::string out =
      "\nLeave-one-group-out: each group (engine version x model) predicted by a fit that never "
      "saw it (its host term from the other groups' calibration cases)\n";
  out +=
      printf_string("%-34s %-11s %5s  %-11s %8s  %-38s %7s %7s %7s %9s\n", "group", "role", "cases",
                    "engine", "host us", "term basis", "TTFT", "TPOT", "tput", "TPOT bias");
  const auto pct = [](double x) { return 100.0 * x; };
  for (const HeldOutGroup& g : cv.groups) {
    const std::string basis = g.host.basis.substr(0, 38);
    out += printf_string("%-34s %-11s %5lld  %-11s %8.1f  %-38s %6.1f%% %6.1f%% %6.1f%% %+8.1f%%\n",
                         g.group.c_str(), g.role.c_str(), static_cast<long long>(g.error.cases),
                         g.engine.c_str(), g.host.per_step_us, basis.c_str(),
                         pct(g.error.ttft_mean_abs), pct(g.error.tpot_mean_abs),
                         pct(g.error.throughput_mean_abs), pct(g.error.tpot_signed_mean));
  }
  for (const SiliconGroupError* e : {&cv.check, &cv.calibration}) {
    if (e->cases == 0) continue;
    out +=
        printf_string("%-34s %-11s %5lld  %-11s %8s  %-38s %6.1f%% %6.1f%% %6.1f%% %+8.1f%%\n",
                      e->group.substr(0, 34).c_str(), e->role.c_str(),
                      static_cast<long long>(e->cases), "", "", "", pct(e->ttft_mean_abs),
                      pct(e->tpot_mean_abs), pct(e->throughput_mean_abs), pct(e->tpot_signed_mean));
  }
  return out;
}

std::string cross_validation_csv(const CrossValidation& cv) {
  std::string out =
      "group,role,cases,engine,per_step_us,unclamped_us,fit_cases,term_basis,ttft_mean_abs_err,"
      "tpot_mean_abs_err,throughput_mean_abs_err,tpot_bias\n";
  const auto row = [&](const SiliconGroupError& e, const std::string& engine,
                       const HostTermEstimate* h) {
    out += printf_string("%s,%s,%lld,%s,", e.group.c_str(), e.role.c_str(),
                         static_cast<long long>(e.cases), engine.c_str());
    out += h ? printf_string("%.1f,%.1f,%lld,%s,", h->per_step_us, h->unclamped_us,
                             static_cast<long long>(h->cases), h->basis.c_str())
             : std::string(",,,,");
    out += printf_string("%.6f,%.6f,%.6f,%.6f\n", e.ttft_mean_abs, e.tpot_mean_abs,
                         e.throughput_mean_abs, e.tpot_signed_mean);
  };
  for (const HeldOutGroup& g : cv.groups) row(g.error, g.engine, &g.host);
  for (const SiliconGroupError* e : {&cv.check, &cv.calibration}) {
    if (e->cases > 0) row(*e, "", nullptr);
  }
  return out;
}

}  // namespace sparksim
