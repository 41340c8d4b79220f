// Fitting the measured sweep into a profile: verify t = fixed + per_token * tokens +
// kv_read * Σ context + pair * attention pairs (the simulator's VerifyTimeModel with a linear
// dense part and no graph padding), drafter t = fixed + per_pass * γ + per_token * R γ +
// kv_read * γ Σ context (DraftTimeModel, sequential in γ, reading the KV cache every pass) for
// dspark, dflash and eagle3; mtp1 (one pass, one token per request) t = fixed + per_token * R +
// kv_read * Σ context, the form the simulator charges it.
#include "experiments/calibrate/measured_profile_fit.hpp"

#include <cmath>
#include <fstream>
#include <map>
#include <sstream>
#include <utility>

#include "common/csv_table.hpp"
#include "common/input_error.hpp"
#include "profiles/fit/design_matrix.hpp"
#include "profiles/fit/least_squares_fit.hpp"
#include "profiles/profile_finishing.hpp"

namespace sparksim {

namespace {

std::map<std::string, std::string> read_info(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError(path, 0, "cannot open the sweep's info file");
  std::map<std::string, std::string> info;
  std::string line;
  std::int64_t n = 0;
  while (std::getline(in, line)) {
    ++n;
    const auto eq = line.find('=');
    if (eq == std::string::npos || eq == 0) throw InputError(path, n, "expected key=value");
    info[line.substr(0, eq)] = line.substr(eq + 1);
  }
  for (const char* key : {"device", "target", "host_overhead_us", "weights_bytes",
                          "kv_bytes_per_token", "kv_capacity_tokens", "median_noise"}) {
    if (!info.contains(key)) throw InputError(path, n, std::string("missing key ") + key);
  }
  return info;
}

nlohmann::ordered_json region_json(const RegionError& e) {
  return {{"region", e.region},
          {"points", e.points},
          {"mean_abs_pct", e.mean_abs_pct},
          {"worst_abs_pct", e.worst_abs_pct},
          {"worst_label", e.worst_label}};
}

// Fits on 3 of every 4 points, reports the error on the 4th, then refits on all of them.
LinearFit fit_with_held_out(const DesignMatrix& d, const std::string& what, const std::string& path,
                            nlohmann::ordered_json& report) {
  if (d.size() < 2 * d.terms.size()) {
    throw InputError(path, 0,
                     what + ": " + std::to_string(d.size()) + " points, need at least " +
                         std::to_string(2 * d.terms.size()));
  }
  const auto [train, held] = d.split_held_out(4, 1);
  const LinearFit trial = fit_least_squares(train);
  const FitErrorReport e = error_report(trial, held);
  const LinearFit fit = fit_least_squares(d);
  nlohmann::ordered_json j;
  for (std::size_t i = 0; i < fit.terms.size(); ++i) j["terms"][fit.terms[i]] = fit.coefficients[i];
  j["pinned_to_zero"] = fit.pinned_to_zero;
  j["points"] = d.size();
  j["held_out"] = region_json(e.overall);
  for (const RegionError& r : e.regions) j["held_out_by_region"].push_back(region_json(r));
  report[what] = j;
  return fit;
}

// The sweep's rows as the fit's design matrices: the verify one, and one per drafter family.
struct SweepDesign {
  DesignMatrix verify = DesignMatrix({"fixed_us", "per_token_us", "kv_read_us", "pair_us"});
  std::map<std::string, DesignMatrix> drafts;
};

// The sweep CSV's columns (a missing one stops the fit at the header).
struct SweepColumns {
  explicit SweepColumns(const CsvTable& t)
      : kind(t.column("kind")),
        label(t.column("label")),
        requests(t.column("requests")),
        gamma(t.column("gamma")),
        vtok(t.column("verify_tokens")),
        ptok(t.column("prefill_tokens")),
        ctx(t.column("decode_context_tokens")),
        vpairs(t.column("verify_attention_pairs")),
        ppairs(t.column("prefill_attention_pairs")),
        us(t.column("time_us")) {}
  std::size_t kind, label, requests, gamma, vtok, ptok, ctx, vpairs, ppairs, us;
};

// One design row per sweep row; the token term is padded to `buckets` as the time model pads it.
SweepDesign read_sweep_design(const CsvTable& t, const SweepColumns& col,
                              const std::vector<std::int64_t>& buckets) {
  const auto [kind, label, requests, gamma, vtok, ptok, ctx, vpairs, ppairs, us] = col;
  const auto padded = [&](std::int64_t tokens) {
    return static_cast<double>(pad_to_graph_bucket(buckets, tokens));
  };
  SweepDesign d;
  for (std::size_t r = 0; r < t.rows(); ++r) {
    const double observed = t.number(r, us);
    if (!(observed > 0)) t.fail(r, "time_us must be positive");
    const std::string& k = t.cell(r, kind);
    const auto n = [&](std::size_t c) {
      return static_cast<double>(t.integer_in(r, c, 0, std::int64_t{1} << 40));
    };
    if (k == "verify") {
      const bool prefill = n(ptok) > 0;
      d.verify.add({1.0, padded(std::llround(n(vtok) + n(ptok))), n(ctx), n(vpairs) + n(ppairs)},
                   observed,
                   prefill ? "with prefill" : (n(vtok) <= 8 ? "decode B<=8" : "decode B>8"), 0,
                   t.cell(r, label));
    } else if (k == "mtp1") {
      if (n(gamma) != 1) t.fail(r, "mtp1 drafts one token per step: gamma must be 1");
      auto it =
          d.drafts
              .try_emplace(k, std::vector<std::string>{"fixed_us", "per_token_us", "kv_read_us"})
              .first;
      it->second.add({1.0, n(requests), n(ctx)}, observed, k, 0, t.cell(r, label));
    } else if (k == "dspark" || k == "dflash" || k == "eagle3") {
      auto it = d.drafts
                    .try_emplace(k, std::vector<std::string>{"fixed_us", "per_pass_us",
                                                             "per_token_us", "kv_read_us"})
                    .first;
      const double g = n(gamma);
      it->second.add({1.0, g, n(requests) * g, g * n(ctx)}, observed, k, 0, t.cell(r, label));
    } else {
      t.fail(r, "kind \"" + k + "\": verify, dspark, dflash, mtp1 or eagle3");
    }
  }
  return d;
}

// What the info file says about the device, the target and the measurement, into the profile.
void describe_measurement(const std::map<std::string, std::string>& info,
                          const MeasuredFitInputs& in, Profile& p) {
  p.provenance.source = "measured";
  p.provenance.gpu = info.at("device");
  p.provenance.date = in.date;
  p.provenance.tool = "sparksim calibrate-fit (sparksim_calibrate_kernels sweep)";
  p.provenance.git_sha = in.git_sha;
  p.provenance.notes = in.notes + " Host overhead measured: " + info.at("host_overhead_us") +
                       " us per step. Sweep noise (median IQR/median): " + info.at("median_noise") +
                       ". Statistic of the repeats: " +
                       (info.contains("estimator") ? info.at("estimator") : std::string("median")) +
                       ".";
  p.target = info.at("target");
  p.kv_bytes_per_token = std::stod(info.at("kv_bytes_per_token"));
  p.weights_bytes = std::stod(info.at("weights_bytes"));
  p.memory_utilization = 1.0;
  p.hbm_bytes = p.weights_bytes + std::stod(info.at("kv_capacity_tokens")) * p.kv_bytes_per_token;
  p.host_overhead_us = std::stod(info.at("host_overhead_us"));
}

// The verify fit as the profile's VerifyTimeModel: a linear dense part, padded to the graph
// buckets where the backend replays graphs (none on the CPU).
void set_verify_model(const LinearFit& v, const std::vector<std::int64_t>& buckets, Profile& p) {
  p.verify.fixed_us = v.coefficient("fixed_us");
  const double per_token = v.coefficient("per_token_us");
  p.verify.graph_buckets = buckets;
  p.verify.dense_tokens = {1, 16384};
  p.verify.dense_us = {per_token, per_token * 16384};
  p.verify.kv_read_ns_per_context_token = 1000 * v.coefficient("kv_read_us");
  p.verify.attention_ns_per_pair = 1000 * v.coefficient("pair_us");
}

// A drafter the sweep did not reach (--drafters, or a time cap that stopped it part way) is not
// fitted and left out of the profile, and the notes say so: a run that picks it is refused
// (require_draft_cost), never simulated with an invented cost.
void drop_unmeasured_drafters(std::map<std::string, DesignMatrix>& drafts, std::string& notes) {
  std::string measured, unmeasured;
  for (const char* family : {"mtp1", "eagle3", "dflash", "dspark"}) {
    const auto it = drafts.find(family);
    const bool enough = it != drafts.end() && it->second.size() >= 2 * it->second.terms.size();
    std::string& list = enough ? measured : unmeasured;
    list += (list.empty() ? "" : ", ") + std::string(family);
    if (it != drafts.end() && !enough) {
      list += " (" + std::to_string(it->second.size()) + " points, too few to fit)";
      drafts.erase(it);
    } else if (!enough) {
      list += " (not in the sweep)";
    }
  }
  notes += " Drafters measured: " + (measured.empty() ? "none" : measured) + ".";
  if (!unmeasured.empty()) notes += " Not measured (not in the profile): " + unmeasured + ".";
}

// A drafter family's fit as its DraftTimeModel: mtp1 is one pass over R tokens, the others are
// γ sequential passes reading the KV cache every pass.
void set_draft_model(const std::string& family, const LinearFit& f, Profile& p) {
  const bool mtp1 = family == "mtp1";
  DraftTimeModel& m =
      p.draft[static_cast<int>(parse_drafter(mtp1 ? family : family + "-4").family)].emplace();
  m.fixed_us = f.coefficient("fixed_us");
  m.per_pass_us = mtp1 ? 0.0 : f.coefficient("per_pass_us");
  m.per_token_ns = 1000 * f.coefficient("per_token_us");
  m.kv_read_ns_per_context_token = 1000 * f.coefficient("kv_read_us");
  m.sequential_in_gamma = !mtp1;
  m.tokens_scale_with_gamma = !mtp1;
  m.kv_read_per_pass = !mtp1;
}

}  // namespace

MeasuredFit fit_measured_profile(const MeasuredFitInputs& in) {
  const auto info = read_info(in.info_path);
  const CsvTable t = CsvTable::load(in.sweep_csv);
  const SweepColumns columns(t);
  // A backend that replays CUDA graphs (graph_max_bucket > 0 in the info; absent in older ones)
  // pays the dense part at the padded token count: the fit's token term is padded the same way
  // the time model pads (vLLM's buckets), and the profile declares those buckets.
  const std::int64_t graph_max_bucket =
      info.contains("graph_max_bucket") ? std::stoll(info.at("graph_max_bucket")) : 0;
  const std::vector<std::int64_t> buckets = vllm_graph_buckets(graph_max_bucket);
  SweepDesign design = read_sweep_design(t, columns, buckets);
  MeasuredFit out;
  out.report["sweep_points"] = t.rows();
  out.report["sweep_median_noise_iqr_over_median"] = std::stod(info.at("median_noise"));
  // The verify fit is required; a drafter's only where the sweep measured it.
  const LinearFit v = fit_with_held_out(design.verify, "verify", in.sweep_csv, out.report);
  ProfileDraft draft;
  Profile& p = draft.profile;
  describe_measurement(info, in, p);
  set_verify_model(v, buckets, p);
  drop_unmeasured_drafters(design.drafts, p.provenance.notes);
  for (auto& [family, d] : design.drafts) {
    set_draft_model(family, fit_with_held_out(d, family, in.sweep_csv, out.report), p);
  }
  out.profile = finish_profile(std::move(draft));
  return out;
}

}  // namespace sparksim
