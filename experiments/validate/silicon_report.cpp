// Real-silicon replay report: per-case rows, per-group mean |error|, skipped rows.
#include "experiments/validate/silicon_report.hpp"

#include <cmath>
#include <map>

#include "common/printf_string.hpp"

namespace sparksim {

namespace {

struct CaseErrors {
  double ttft, tpot, throughput;
};

CaseErrors errors_of(const SiliconResult& r) {
  const SimulatedMetrics& s = *r.simulated;
  const double measured_tput =
      static_cast<double>(r.row.batch_size * r.row.osl) /
      ((r.row.ttft_ms + static_cast<double>(r.row.osl - 1) * r.row.tpot_ms) * 1e-3);
  return {relative_error(s.ttft_ms.mean.value_or(0), r.row.ttft_ms),
          relative_error(s.tpot_ms.mean.value_or(0), r.row.tpot_ms),
          relative_error(s.output_throughput, measured_tput)};
}

}  // namespace

double relative_error(double predicted, double measured) {
  return (predicted - measured) / measured;
}

namespace {

void add_case(SiliconGroupError& g, const SiliconResult& r) {
  const CaseErrors e = errors_of(r);
  g.cases += 1;
  g.ttft_mean_abs += std::abs(e.ttft);
  g.tpot_mean_abs += std::abs(e.tpot);
  g.throughput_mean_abs += std::abs(e.throughput);
  g.tpot_signed_mean += e.tpot;
  if (r.consistency && r.consistency->prefill_exceeds_profile()) g.prefill_over_profile += 1;
  if (r.consistency && r.consistency->decode_exceeds_profile()) g.decode_over_profile += 1;
}

void finish(SiliconGroupError& g) {
  if (g.cases == 0) return;
  const double n = static_cast<double>(g.cases);
  g.ttft_mean_abs /= n;
  g.tpot_mean_abs /= n;
  g.throughput_mean_abs /= n;
  g.tpot_signed_mean /= n;
}

}  // namespace

std::vector<SiliconGroupError> silicon_group_errors(const std::vector<SiliconResult>& results) {
  std::vector<SiliconGroupError> groups;
  std::map<std::string, std::size_t> index;
  for (const SiliconResult& r : results) {
    if (!r.simulated) continue;
    auto [it, fresh] = index.emplace(r.config.group, groups.size());
    if (fresh) groups.push_back({r.config.group, r.role});
    add_case(groups[it->second], r);
  }
  for (SiliconGroupError& g : groups) finish(g);
  return groups;
}

SiliconGroupError silicon_role_error(const std::vector<SiliconResult>& results,
                                     const std::string& role) {
  SiliconGroupError g{"all " + role + " groups", role};
  for (const SiliconResult& r : results) {
    if (r.simulated && r.role == role) add_case(g, r);
  }
  finish(g);
  return g;
}

std::vector<std::string> silicon_targets_missed(const std::vector<SiliconResult>& results,
                                                const SiliconTargets& targets) {
  std::vector<std::string> missed;
  const SiliconGroupError pooled = silicon_role_error(results, "check");
  if (pooled.cases == 0) return missed;
  const auto judge = [&](const char* what, double value, double limit, const std::string& where) {
    if (value > limit) {
      missed.push_back(printf_string("%s %.1f%% > %g%%", what, 100 * value, 100 * limit) + where);
    }
  };
  judge("TPOT", pooled.tpot_mean_abs, targets.tpot_mean, "");
  const SiliconGroupError* worst = nullptr;
  const std::vector<SiliconGroupError> groups = silicon_group_errors(results);
  for (const SiliconGroupError& g : groups) {
    if (g.role == "check" && (worst == nullptr || g.tpot_mean_abs > worst->tpot_mean_abs)) {
      worst = &g;
    }
  }
  judge("worst check group's TPOT", worst->tpot_mean_abs, targets.tpot_worst_group,
        " (" + worst->group + ")");
  judge("output throughput", pooled.throughput_mean_abs, targets.throughput_mean, "");
  judge("TTFT", pooled.ttft_mean_abs, targets.ttft_mean, "");
  return missed;
}

std::string format_silicon_report(const std::vector<SiliconResult>& results) {
  std::string out =
      "Real-silicon replay (closed loop at batch_size, fixed isl/osl; errors = (predicted - "
      "measured) / measured; pf load / dc load = the prefill / decode tokens/s the measurement "
      "implies over the profile's fastest pure prefill / decode step, '!' when > 1)\n";
  out += printf_string("%-44s %4s %5s %5s %4s %10s %10s %7s %8s %8s %7s %7s %8s %8s\n", "case",
                       "tp", "isl", "osl", "conc", "TTFT meas", "TTFT pred", "err %", "TPOT meas",
                       "TPOT pred", "err %", "tput %", "pf load", "dc load");
  for (const SiliconResult& r : results) {
    if (!r.simulated) continue;
    const CaseErrors e = errors_of(r);
    const bool pf_over = r.consistency && r.consistency->prefill_exceeds_profile();
    const bool dc_over = r.consistency && r.consistency->decode_exceeds_profile();
    out += printf_string(
        "%-44.44s %4lld %5lld %5lld %4lld %10.1f %10.1f %+7.1f %8.2f %8.2f %+7.1f %+7.1f %7.2f%s "
        "%7.2f%s\n",
        r.row.id.c_str(), static_cast<long long>(r.row.tp), static_cast<long long>(r.row.isl),
        static_cast<long long>(r.row.osl), static_cast<long long>(r.row.batch_size), r.row.ttft_ms,
        r.simulated->ttft_ms.mean.value_or(0), 100 * e.ttft, r.row.tpot_ms,
        r.simulated->tpot_ms.mean.value_or(0), 100 * e.tpot, 100 * e.throughput,
        r.consistency ? r.consistency->prefill_load : 0.0, pf_over ? "!" : " ",
        r.consistency ? r.consistency->decode_load : 0.0, dc_over ? "!" : "");
  }
  out +=
      "\nPer group (engine version / model / precision): mean |error| %; pf>max = cases implying "
      "more prefill than the profile's fastest pure prefill step, dc>max more decode than its pure "
      "decode step at their concurrency\n";
  out += printf_string("%-40s %-11s %5s %9s %9s %9s %11s %7s %7s\n", "group", "role", "cases",
                       "TTFT", "TPOT", "tput", "TPOT bias", "pf>max", "dc>max");
  const auto line = [&](const SiliconGroupError& g) {
    out +=
        printf_string("%-40s %-11s %5lld %9.1f %9.1f %9.1f %+11.1f %7lld %7lld\n", g.group.c_str(),
                      g.role.empty() ? "-" : g.role.c_str(), static_cast<long long>(g.cases),
                      100 * g.ttft_mean_abs, 100 * g.tpot_mean_abs, 100 * g.throughput_mean_abs,
                      100 * g.tpot_signed_mean, static_cast<long long>(g.prefill_over_profile),
                      static_cast<long long>(g.decode_over_profile));
  };
  for (const SiliconGroupError& g : silicon_group_errors(results)) line(g);
  for (const char* role : {"check", "calibration"}) {
    const SiliconGroupError pooled = silicon_role_error(results, role);
    if (pooled.cases > 0) line(pooled);
  }
  std::map<std::string, std::int64_t> skipped;
  for (const SiliconResult& r : results) {
    if (!r.simulated) skipped[r.config.skip_reason] += 1;
  }
  if (!skipped.empty()) {
    out += "\nSkipped rows (no supported configuration replays them):\n";
    for (const auto& [reason, count] : skipped) {
      out += printf_string("  %5lld  %s\n", static_cast<long long>(count), reason.c_str());
    }
  }
  return out;
}

nlohmann::ordered_json silicon_report_json(const std::vector<SiliconResult>& results) {
  nlohmann::ordered_json j;
  j["schema"] = "sparksim.silicon-report/1";
  j["client"] = "closed loop at batch_size, fixed isl/osl, every output exactly osl tokens";
  nlohmann::ordered_json cases = nlohmann::ordered_json::array();
  for (const SiliconResult& r : results) {
    nlohmann::ordered_json c;
    c["id"] = r.row.id;
    c["origin"] = r.row.origin;
    if (!r.simulated) {
      c["skipped"] = r.config.skip_reason;
    } else {
      const CaseErrors e = errors_of(r);
      c["group"] = r.config.group;
      c["role"] = r.role;
      c["profile"] = r.config.profile_path;
      c["engine"] = r.config.engine;
      c["tp"] = r.row.tp;
      c["ttft_ms"] = {{"measured", r.row.ttft_ms},
                      {"predicted", r.simulated->ttft_ms.mean.value_or(0)},
                      {"error", e.ttft}};
      c["tpot_ms"] = {{"measured", r.row.tpot_ms},
                      {"predicted", r.simulated->tpot_ms.mean.value_or(0)},
                      {"error", e.tpot}};
      c["output_throughput_error"] = e.throughput;
      if (r.consistency) {
        const SiliconConsistency& k = *r.consistency;
        c["consistency"] = {{"request_rate_per_s", k.request_rate_per_s},
                            {"prefill_tokens_per_s", k.prefill_tokens_per_s},
                            {"decode_tokens_per_s", k.decode_tokens_per_s},
                            {"chunk_tokens", k.chunk_tokens},
                            {"chunk_step_ms", k.chunk_step_ms},
                            {"max_prefill_tokens_per_s", k.max_prefill_tokens_per_s},
                            {"decode_step_ms", k.decode_step_ms},
                            {"max_decode_tokens_per_s", k.max_decode_tokens_per_s},
                            {"prefill_load", k.prefill_load},
                            {"decode_load", k.decode_load},
                            {"prefill_exceeds_profile", k.prefill_exceeds_profile()},
                            {"decode_exceeds_profile", k.decode_exceeds_profile()}};
      }
    }
    cases.push_back(c);
  }
  j["cases"] = cases;
  j["check_targets_missed"] = silicon_targets_missed(results);  // empty: met, or no check role
  nlohmann::ordered_json groups = nlohmann::ordered_json::array();
  for (const SiliconGroupError& g : silicon_group_errors(results)) {
    groups.push_back({{"group", g.group},
                      {"role", g.role},
                      {"cases", g.cases},
                      {"ttft_mean_abs_error", g.ttft_mean_abs},
                      {"tpot_mean_abs_error", g.tpot_mean_abs},
                      {"output_throughput_mean_abs_error", g.throughput_mean_abs},
                      {"tpot_mean_signed_error", g.tpot_signed_mean},
                      {"prefill_exceeds_profile_cases", g.prefill_over_profile},
                      {"decode_exceeds_profile_cases", g.decode_over_profile}});
  }
  j["groups"] = groups;
  return j;
}

}  // namespace sparksim
