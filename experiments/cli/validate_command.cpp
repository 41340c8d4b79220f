// `sparksim validate`: replays end-to-end serving benchmarks (a `vllm bench serve` result, a native
// case, or a bundled set) on profiles and prints measured against simulated side by side, with
// errors; exit 0 when the check cases meet the tolerances, 3 when they do not, 2 for bad input.
// With --calibrate-out DIR it first fits the profiles' step terms to the set's calibration cases
// and writes the calibrated profiles there.
#include <cstdio>
#include <filesystem>
#include <map>
#include <utility>

#include "common/input_error.hpp"
#include "common/json_file.hpp"
#include "common/version.hpp"
#include "experiments/cli/commands.hpp"
#include "experiments/validate/benchmark_case.hpp"
#include "experiments/validate/benchmark_replay.hpp"
#include "experiments/validate/silicon_consistency.hpp"
#include "experiments/validate/silicon_cross_validation.hpp"
#include "experiments/validate/silicon_report.hpp"
#include "experiments/validate/silicon_sample.hpp"
#include "experiments/validate/step_term_fit.hpp"
#include "experiments/validate/validation_report.hpp"
#include "profiles/profile_finishing.hpp"
#include "profiles/profile_io.hpp"
#include "profiles/time_model.hpp"
#include "sim/engine_preset.hpp"

namespace sparksim::cli {

namespace {

struct ValidateOptions {
  std::string result;    // vllm bench serve JSON
  std::string set;       // native case or set
  std::string profile;   // one profile for every case
  std::string profiles;  // DIR/<target>.json per case
  std::string engine;    // preset, overriding the cases'
  std::string drafter = "none";
  std::string json_out;
  std::string calibrate_out;
  std::string markdown_out;
  Tolerances tolerances;
  std::string silicon;  // real-silicon samples (silicon_sample.csv format)
  std::string silicon_profiles = "profiles/measured-db";
  std::int64_t silicon_requests_per_user = 10;
  bool silicon_requests_per_user_set = false;  // given on the command line
  std::string silicon_client = "lockstep";
  std::string silicon_kv_cache_dtype = "bf16";  // the declared KV-cache scenario
  std::string silicon_split;                    // roles by group (sparksim.silicon-split/1)
  std::string cross_validate;                   // "groups": leave-one-group-out report
  std::string cross_validate_csv;               // its table as CSV
};

// --silicon: every row mapped (or skipped) and every profile loaded before anything runs, then
// each replayable row replayed closed loop; the report goes to stdout (and --json).
void run_silicon(const ValidateOptions& o) {
  if (!o.result.empty() || !o.set.empty() || !o.profile.empty() || !o.profiles.empty() ||
      !o.calibrate_out.empty()) {
    throw InputError(
        "validate --silicon: picks each row's profile from --silicon-profiles; do not combine it "
        "with --result, --set, --profile, --profiles or --calibrate-out");
  }
  const SiliconClient client = silicon_client(o.silicon_client, o.silicon_requests_per_user,
                                              o.silicon_requests_per_user_set);
  const SiliconKvCache kv_cache = silicon_kv_cache(o.silicon_kv_cache_dtype);
  if (!o.cross_validate.empty() && o.cross_validate != "groups") {
    throw InputError("validate: --cross-validate is '" + o.cross_validate +
                     "'; the only mode is 'groups' (leave one engine version x model out)");
  }
  if (!o.cross_validate.empty() && o.silicon_split.empty()) {
    throw InputError(
        "validate: --cross-validate needs --silicon-split (the roles say which cases a fit may "
        "use)");
  }
  if (!o.cross_validate_csv.empty() && o.cross_validate.empty()) {
    throw InputError("validate: --cross-validate-csv needs --cross-validate groups");
  }
  std::vector<SiliconResult> results;
  std::map<std::string, Profile> profiles;
  const std::map<std::string, std::string> roles = o.silicon_split.empty()
                                                       ? std::map<std::string, std::string>{}
                                                       : read_silicon_split(o.silicon_split);
  for (SiliconRow& row : read_silicon_sample(o.silicon)) {
    SiliconConfig config = map_silicon_row(row, o.silicon_profiles, kv_cache);
    std::string role;
    if (config.replayable && !profiles.contains(config.profile_path)) {
      profiles.emplace(config.profile_path, load_profile(config.profile_path));
    }
    if (config.replayable && !o.silicon_split.empty()) {
      const auto it = roles.find(silicon_split_key(row, config));
      if (it == roles.end()) {
        throw InputError(row.origin + ": group " + silicon_split_key(row, config) +
                         " has no role in " + o.silicon_split);
      }
      role = it->second;
    }
    results.push_back({std::move(row), std::move(config), std::nullopt, role, std::nullopt});
  }
  // Each replayable row's implied work against its own profile's fastest steps (a diagnostic).
  std::map<std::string, TimeModel> time_models;
  for (SiliconResult& r : results) {
    if (!r.config.replayable) continue;
    auto it = time_models.find(r.config.profile_path);
    if (it == time_models.end()) {
      it = time_models.emplace(r.config.profile_path, TimeModel(profiles.at(r.config.profile_path)))
               .first;
    }
    r.consistency = silicon_consistency(r.row, it->second,
                                        find_engine_preset(r.config.engine).max_batch_tokens);
  }
  // The host terms are fitted to the calibration cases (none without a split) and every case is
  // replayed with its engine's term.
  const SiliconReplayContext context{&profiles, client.requests_per_user};
  const std::vector<std::optional<HostFitCase>> fit_cases =
      silicon_host_fit_cases(results, context);
  const HostTermFit host = fit_silicon_host_terms(results, fit_cases);
  replay_with_host_terms(results, host, context);
  std::optional<CrossValidation> cv;
  if (!o.cross_validate.empty()) cv = cross_validate_groups(results, fit_cases, context);
  std::printf("Client: %s\n", client.description.c_str());
  std::printf("KV cache: %s\n", silicon_kv_cache_description(kv_cache).c_str());
  std::fputs(format_silicon_report(results).c_str(), stdout);
  std::fputs(format_host_terms(host).c_str(), stdout);
  if (cv) std::fputs(format_cross_validation(*cv).c_str(), stdout);
  if (!o.json_out.empty()) {
    nlohmann::ordered_json j = silicon_report_json(results);
    j["client"] = client.description;
    j["kv_cache"] = silicon_kv_cache_description(kv_cache);
    j["host_terms"] = host_terms_json(host);
    write_file_atomically(o.json_out, format_json(j));
  }
  if (cv && !o.cross_validate_csv.empty()) {
    write_file_atomically(o.cross_validate_csv, cross_validation_csv(*cv));
  }
  if (o.silicon_split.empty()) return;  // no roles: nothing is judged
  const std::vector<std::string> missed = silicon_targets_missed(results);
  std::string verdict = missed.empty() ? "PASS" : "MISS:";
  for (std::size_t i = 0; i < missed.size(); ++i) verdict += (i ? "; " : " ") + missed[i];
  std::printf(
      "verdict on the check groups: %s (targets: TPOT <= 5%% with every check group <= "
      "10%%, output throughput <= 5%%, TTFT <= 15%%)\n",
      verdict.c_str());
  if (!missed.empty()) throw CommandExit{3};
}

std::string profile_path_for(const ValidateOptions& o, const BenchmarkCase& c) {
  if (!o.profile.empty()) return o.profile;
  return (std::filesystem::path(o.profiles) / (c.target + ".json")).string();
}

void check_validate_options(const ValidateOptions& o) {
  if (o.result.empty() == o.set.empty()) {
    throw InputError("validate: give exactly one of --result (vllm bench serve JSON) or --set");
  }
  if (o.profile.empty() == o.profiles.empty()) {
    throw InputError("validate: give exactly one of --profile PATH or --profiles DIR");
  }
  if (!(o.tolerances.mean > 0) || !(o.tolerances.worst > 0)) {
    throw InputError("validate: --tolerance-mean and --tolerance-worst must be > 0");
  }
}

// The cases: one from a `vllm bench serve` result, or a native case or set; --engine overrides
// every case's preset.
std::vector<BenchmarkCase> read_cases(const ValidateOptions& o) {
  std::vector<BenchmarkCase> cases;
  if (!o.result.empty()) {
    cases.push_back(read_vllm_bench_result(o.result));
    if (o.engine.empty()) cases.back().engine = "vllm";  // the file does not say; vLLM's by default
    if (cases.back().target.empty()) {
      if (!o.profiles.empty()) {
        throw InputError(o.result +
                         ": no model_id to pick a profile from --profiles; use --profile");
      }
      cases.back().target = "(--profile)";
    }
  } else {
    cases = read_benchmark_cases(o.set);
  }
  if (!o.engine.empty()) {
    for (BenchmarkCase& c : cases) c.engine = o.engine;
  }
  return cases;
}

// Each target's profile and the path it came from (the report names it).
struct CaseProfiles {
  std::map<std::string, Profile> profiles;
  std::map<std::string, std::string> paths;
};

// Every profile loads (and can cost the drafter) before anything is simulated.
CaseProfiles load_case_profiles(const ValidateOptions& o, const std::vector<BenchmarkCase>& cases,
                                const DrafterSpec& drafter) {
  CaseProfiles loaded;
  for (const BenchmarkCase& c : cases) {
    const std::string path = profile_path_for(o, c);
    if (!loaded.profiles.contains(c.target)) {
      const Profile& p = loaded.profiles.emplace(c.target, load_profile(path)).first->second;
      require_draft_cost(p, drafter);
      loaded.paths.emplace(c.target, path);
    }
  }
  return loaded;
}

// --calibrate-out: fits one set of step terms to the calibration cases on the profiles without
// theirs, then finishes and writes each profile with them; the cases then replay on those.
void calibrate_profiles(const ValidateOptions& o, const std::vector<BenchmarkCase>& cases,
                        CaseProfiles& loaded) {
  std::map<std::string, Profile> bare = loaded.profiles;
  for (auto& [target, p] : bare) p.step_terms = StepTerms{};
  const StepTermFit fit =
      fit_step_terms(cases, bare, "sparksim " + sparksim_version() + " validate --calibrate-out");
  for (const std::string& line : fit.log) std::printf("calibrate  %s\n", line.c_str());
  // The front end is the engine's: the presets ship it (sim/engine_preset.cpp), and the cases
  // below replay with the presets' values. The fit's are printed to be copied there.
  const FrontEndCosts& fe = fit.front_end;
  std::printf(
      "calibrate  front end for %s: latency_ms %.2f, intake_batch_ms %.3f, "
      "intake_request_ms %.3f, chunk_us %.3f (%s)\n",
      fit.front_end_engine.empty() ? "any engine" : fit.front_end_engine.c_str(), fe.latency_ms,
      fe.intake_batch_ms, fe.intake_request_ms, fe.chunk_us, fit.front_end_source.c_str());
  for (const EnginePreset& preset : engine_presets()) {
    if (preset.front_end.any()) {
      std::printf("calibrate  preset %s ships %s\n", std::string(preset.name).c_str(),
                  preset.front_end == fe ? "these values" : "other values (sim/engine_preset.cpp)");
    }
  }
  StepTerms terms = fit.terms;
  terms.measurements += " (" + o.set + ")";
  std::filesystem::create_directories(o.calibrate_out);
  for (auto& [target, p] : loaded.profiles) {
    // The step terms are part of verify_time, so the SPS tables are built again with them.
    ProfileDraft draft = draft_of(bare.at(target));
    draft.profile.step_terms = terms;
    p = finish_profile(std::move(draft));
    const std::string out = (std::filesystem::path(o.calibrate_out) / (target + ".json")).string();
    write_profile(p, out);
    loaded.paths[target] = out;
    std::printf("calibrate  wrote %s\n", out.c_str());
  }
}

// Replays every case, prints the table (and writes --json, --markdown); exit 3 when the check
// cases miss the tolerances.
void replay_and_judge(const ValidateOptions& o, const std::vector<BenchmarkCase>& cases,
                      const CaseProfiles& loaded) {
  ReplayOptions replay;
  replay.drafter = o.drafter;
  std::vector<CaseResult> results;
  for (const BenchmarkCase& c : cases) {
    const Profile& p = loaded.profiles.at(c.target);
    results.push_back({c, replay_case(c, p, replay), loaded.paths.at(c.target), p.label()});
  }
  const ValidationVerdict verdict = judge(results, o.tolerances);
  std::fputs(format_validation_table(results, verdict, o.tolerances).c_str(), stdout);
  if (!o.json_out.empty()) {
    write_file_atomically(o.json_out,
                          format_json(validation_report_json(results, verdict, o.tolerances)));
  }
  if (!o.markdown_out.empty()) {
    write_file_atomically(o.markdown_out, format_validation_markdown(results));
  }
  if (!verdict.pass) throw CommandExit{3};
}

void run_validate(const ValidateOptions& o) {
  if (!o.silicon.empty()) {
    run_silicon(o);
    return;
  }
  check_validate_options(o);
  const DrafterSpec drafter = parse_drafter(o.drafter);
  const std::vector<BenchmarkCase> cases = read_cases(o);
  CaseProfiles loaded = load_case_profiles(o, cases, drafter);
  if (!o.calibrate_out.empty()) calibrate_profiles(o, cases, loaded);
  replay_and_judge(o, cases, loaded);
}

}  // namespace

void add_validate_command(CLI::App& app) {
  auto o = std::make_shared<ValidateOptions>();
  CLI::App* cmd = app.add_subcommand(
      "validate", "replay serving benchmarks and compare measured with simulated metrics");
  cmd->add_option("--result", o->result, "a `vllm bench serve --save-result` JSON file");
  cmd->add_option("--set", o->set,
                  "a native benchmark description or a set of them "
                  "(experiments/validate/data/h100_serving_set.json)");
  cmd->add_option("--silicon", o->silicon,
                  "real-silicon samples (aiconfigurator silicon_sample.csv format), e.g. "
                  "experiments/validate/data/silicon/silicon_dense.csv");
  cmd->add_option("--silicon-profiles", o->silicon_profiles,
                  "--silicon: folder of <gpu>/<target>-tp<N>[-fp8][-kvfp8].json profiles")
      ->capture_default_str();
  cmd->add_option("--silicon-requests-per-user", o->silicon_requests_per_user,
                  "--silicon: requests sent per concurrency slot (batch_size x this in all; "
                  "lockstep only)")
      ->capture_default_str()
      ->each([o](const std::string&) { o->silicon_requests_per_user_set = true; });
  cmd->add_option("--silicon-client", o->silicon_client,
                  "--silicon: the client each row is replayed as: lockstep (10 x batch_size "
                  "requests, all counted) or aiperf-template (upstream's aiperf script: 2 x "
                  "batch_size warm-up drained and excluded, 50 x batch_size counted)")
      ->capture_default_str();
  cmd->add_option("--silicon-kv-cache-dtype", o->silicon_kv_cache_dtype,
                  "--silicon: the KV cache each row is replayed with: bf16, fp8 (every fp8-weight "
                  "row on its -kvfp8 profile) or checkpoint (fp8 only where the row's checkpoint "
                  "declares an FP8 KV cache)")
      ->capture_default_str();
  cmd->add_option("--cross-validate", o->cross_validate,
                  "--silicon: 'groups' = leave-one-group-out, each engine version x model "
                  "predicted by terms fitted without it");
  cmd->add_option("--cross-validate-csv", o->cross_validate_csv,
                  "--cross-validate: write the held-out groups' errors as CSV here");
  cmd->add_option("--silicon-split", o->silicon_split,
                  "--silicon: roles by group (check | calibration), e.g. "
                  "experiments/validate/data/silicon/split.json");
  cmd->add_option("--profile", o->profile, "profile JSON for every case");
  cmd->add_option("--profiles", o->profiles, "directory of profiles named <target>.json");
  cmd->add_option("--engine", o->engine,
                  "engine preset for every case (default: each case's; vllm for --result)");
  cmd->add_option("--drafter", o->drafter, "what the simulated engine speculates with")
      ->capture_default_str();
  cmd->add_option("--json", o->json_out, "write the report as JSON here");
  cmd->add_option("--markdown", o->markdown_out, "write the per-case table as Markdown rows here");
  cmd->add_option("--calibrate-out", o->calibrate_out,
                  "fit the step terms to the calibration cases, write calibrated profiles to DIR");
  cmd->add_option("--tolerance-mean", o->tolerances.mean,
                  "mean |relative error| allowed on check cases")
      ->capture_default_str();
  cmd->add_option("--tolerance-worst", o->tolerances.worst,
                  "largest |relative error| allowed on a check case")
      ->capture_default_str();
  cmd->callback([o] { run_validate(*o); });
}

}  // namespace sparksim::cli
