// Sweep config parsing and validation (every problem at once, at its line). Points: sweep_grid.
// sweep_grid.
#include "experiments/sweep/sweep_config.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <set>
#include <string_view>

#include "common/input_error.hpp"
#include "common/named_spec.hpp"
#include "experiments/run/problem_list.hpp"
#include "policies/policy_registry.hpp"
#include "profiles/drafter.hpp"
#include "profiles/profile_io.hpp"
#include "profiles/sps_belief.hpp"
#include "sim/acceptance/acceptance_registry.hpp"
#include "sim/engine_preset.hpp"
#include "traces/arrival_burstiness.hpp"
#include "traces/synthetic.hpp"
#include "traces/trace_loader.hpp"

namespace sparksim {

namespace {

using Pointer = JsonFile::Pointer;

constexpr std::string_view kTopKeys[] = {"schema",
                                         "title",
                                         "about",
                                         "profile",
                                         "workload",
                                         "load",
                                         "systems",
                                         "seeds",
                                         "acceptance",
                                         "engine",
                                         "tok_s_per_user_percentile",
                                         "tiers_tok_s_per_user",
                                         "baseline"};
constexpr std::string_view kWorkloadKeys[] = {"trace",          "trace_format", "domain",
                                              "spread_buckets", "max_requests", "synthetic",
                                              "think_time_s",   "arrival_cv"};
constexpr std::string_view kLoadKeys[] = {"concurrency", "rate_scale"};
constexpr std::string_view kSystemKeys[] = {"drafter", "policies", "sps"};
constexpr std::string_view kEngineKeys[] = {"preset",  "max_running", "max_batch_tokens",
                                            "prefill", "sps",         "kv_capacity_tokens"};
constexpr std::string_view kBaselineKeys[] = {"drafter", "policy"};

template <std::size_t N>
std::string list_keys(const std::string_view (&keys)[N]) {
  std::string out;
  for (std::string_view k : keys) out += (out.empty() ? "" : ", ") + std::string(k);
  return out;
}

// Every unknown key of the object at `ptr` is its own problem (not just the first).
template <std::size_t N>
void check_keys(const JsonFile& f, const Pointer& ptr, const std::string_view (&keys)[N],
                ProblemList& problems) {
  const auto& object = f.root().at(ptr);
  if (!object.is_object()) return;
  for (const auto& item : object.items()) {
    if (std::find(std::begin(keys), std::end(keys), item.key()) != std::end(keys)) continue;
    const std::string where = ptr.empty() ? "" : " in " + f.name_of(ptr);
    problems.add(
        InputError(f.path(), f.line_of(ptr / item.key()),
                   "unknown key '" + item.key() + "'" + where + "; valid keys: " + list_keys(keys))
            .what());
  }
}

// A problem found by code made for the command line, placed at the config's line for `ptr`.
std::string at_line(const JsonFile& f, const Pointer& ptr, const std::string& message) {
  return InputError(f.path(), f.line_of(ptr), f.name_of(ptr) + ": " + strip_flag_prefix(message))
      .what();
}

template <typename F>
void check_at(const JsonFile& f, const Pointer& ptr, ProblemList& problems, F&& body) {
  try {
    body();
  } catch (const InputError& e) {
    problems.add(at_line(f, ptr, e.what()));
  }
}

// Resolves the baseline: an explicit {drafter, policy} must be one of the systems; without one,
// the only system whose drafter is mtp1 (the production baseline), if exactly one exists.
void resolve_baseline(const JsonFile& f, SweepConfig& c, ProblemList& problems) {
  const Pointer ptr("/baseline");
  if (f.has(ptr)) {
    std::string drafter, policy;
    problems.check([&] { f.get_object(ptr); });
    if (!f.root().at(ptr).is_object()) return;
    check_keys(f, ptr, kBaselineKeys, problems);
    problems.check([&] { drafter = f.get_string(ptr / "drafter"); });
    problems.check([&] { policy = f.get_string(ptr / "policy"); });
    if (drafter.empty() || policy.empty()) return;
    check_at(f, ptr / "drafter", problems, [&] { drafter = parse_drafter(drafter).name; });
    for (std::size_t i = 0; i < c.systems.size(); ++i) {
      if (c.systems[i].drafter == drafter && c.systems[i].policy == policy) c.baseline = i;
    }
    if (!c.baseline) {
      std::string names;
      for (const auto& s : c.systems) names += (names.empty() ? "" : ", ") + s.label();
      problems.add(InputError(f.path(), f.line_of(ptr),
                              "baseline '" + drafter + " + " + policy +
                                  "' is not one of the sweep's systems (" + names + ")")
                       .what());
    }
    return;
  }
  std::optional<std::size_t> mtp1;
  int count = 0;
  for (std::size_t i = 0; i < c.systems.size(); ++i) {
    if (c.systems[i].drafter == "mtp1") {
      mtp1 = i;
      ++count;
    }
  }
  if (count == 1) c.baseline = mtp1;
}

// schema, title (the file's name when absent), about and the profile's path.
void parse_header(const JsonFile& f, SweepConfig& c, ProblemList& problems) {
  problems.check([&] {
    const std::string schema = f.get_string(Pointer("/schema"));
    if (schema != kSweepSchema) {
      f.fail(Pointer("/schema"),
             "schema is '" + schema + "'; this sparksim reads '" + kSweepSchema + "'");
    }
  });
  if (f.has(Pointer("/title"))) {
    problems.check([&] { c.title = f.get_string(Pointer("/title")); });
  } else {
    c.title = std::filesystem::path(f.path()).stem().string();
  }
  if (f.has(Pointer("/about"))) {
    problems.check([&] { c.about = f.get_string(Pointer("/about"), true); });
  }
  problems.check([&] { c.profile_path = f.get_string(Pointer("/profile")); });
}

// The workload: a trace file or a synthetic spec, never both.
void parse_workload(const JsonFile& f, SweepConfig& c, ProblemList& problems) {
  const Pointer wl("/workload");
  problems.check([&] { f.get_object(wl); });
  if (!f.has(wl) || !f.root().at(wl).is_object()) return;
  check_keys(f, wl, kWorkloadKeys, problems);
  // trace_format and domain may be empty: "" means detect / the trace's own domain.
  const auto opt_string = [&](const char* key, std::string& out, bool allow_empty) {
    if (f.has(wl / key)) problems.check([&] { out = f.get_string(wl / key, allow_empty); });
  };
  opt_string("trace", c.trace_path, false);
  opt_string("trace_format", c.trace_format, true);
  opt_string("domain", c.domain, true);
  opt_string("synthetic", c.synthetic, false);
  if (f.has(wl / "spread_buckets")) {
    problems.check([&] { c.spread_buckets = f.get_bool(wl / "spread_buckets"); });
  }
  if (f.has(wl / "max_requests")) {
    problems.check(
        [&] { c.max_requests = f.get_int(wl / "max_requests", 0, kMaxTokensPerRequest); });
  }
  if (f.has(wl / "think_time_s")) {
    problems.check(
        [&] { c.think_time_s = f.get_number(wl / "think_time_s", NumberRange::at_least(0)); });
  }
  if (f.has(wl / "arrival_cv")) {
    problems.check([&] {
      c.arrival_cv = f.get_number(wl / "arrival_cv", {0.0, kMaxArrivalCv, true});
    });
  }
  if (c.trace_path.empty() == c.synthetic.empty()) {
    problems.add(InputError(f.path(), f.line_of(wl),
                            "workload needs exactly one of 'trace' (a trace file) and "
                            "'synthetic' (a --synthetic spec)")
                     .what());
  }
  if (!c.synthetic.empty()) {
    check_at(f, wl / "synthetic", problems, [&] { parse_synthetic_spec(c.synthetic); });
  }
}

// The load values at `values`: a non-empty list of distinct users (integers) or rate scales.
void parse_load_values(const JsonFile& f, const Pointer& values, bool users, SweepConfig& c) {
  if (users) {
    for (auto x : f.get_int_array(values, 1, 1'000'000)) {
      c.loads.push_back(static_cast<double>(x));
    }
  } else {
    c.loads = f.get_number_array(values, NumberRange::positive());
  }
  if (c.loads.empty()) f.fail(values, f.name_of(values) + " is empty: nothing to sweep");
  std::set<double> seen;
  for (std::size_t i = 0; i < c.loads.size(); ++i) {
    if (!seen.insert(c.loads[i]).second) {
      f.fail(values / i, f.name_of(values / i) + " repeats load " + format_number(c.loads[i]));
    }
  }
}

// Load: exactly one kind, a non-empty list of distinct values.
void parse_load(const JsonFile& f, SweepConfig& c, ProblemList& problems) {
  const Pointer ld("/load");
  problems.check([&] { f.get_object(ld); });
  if (!f.has(ld) || !f.root().at(ld).is_object()) return;
  check_keys(f, ld, kLoadKeys, problems);
  const bool users = f.has(ld / "concurrency");
  const bool scale = f.has(ld / "rate_scale");
  if (users == scale) {
    problems.add(InputError(f.path(), f.line_of(ld),
                            "load needs exactly one of 'concurrency' (closed-loop users) and "
                            "'rate_scale' (arrival-rate multipliers)")
                     .what());
    return;
  }
  c.load_kind = users ? LoadKind::kConcurrency : LoadKind::kRateScale;
  const Pointer values = ld / (users ? "concurrency" : "rate_scale");
  problems.check([&] { parse_load_values(f, values, users, c); });
  if (users && c.arrival_cv != 0) {
    problems.add(InputError(f.path(), f.line_of(Pointer("/workload/arrival_cv")),
                            "workload.arrival_cv re-draws an open-loop workload's arrivals; "
                            "load.concurrency runs a closed loop, which has none")
                     .what());
  }
  if (users && !c.trace_path.empty()) {
    problems.add(InputError(f.path(), f.line_of(values),
                            "load.concurrency runs closed-loop users, which draw lengths from "
                            "workload.synthetic; a trace replays its own arrivals: use "
                            "load.rate_scale with a trace")
                     .what());
  }
}

// A system's "policies": a non-empty list of spec strings (checked later, against the drafter).
std::vector<std::string> system_policies(const JsonFile& f, const Pointer& sp,
                                         ProblemList& problems) {
  std::vector<std::string> policies;
  problems.check([&] {
    const auto& pa = f.get_array(sp / "policies");
    if (pa.empty()) f.fail(sp / "policies", f.name_of(sp / "policies") + " is empty");
    for (std::size_t j = 0; j < pa.size(); ++j) {
      problems.check([&] { policies.push_back(f.get_string(sp / "policies" / j)); });
    }
  });
  return policies;
}

// A system's own "sps" belief, if it names one.
std::optional<std::string> system_sps(const JsonFile& f, const Pointer& sp, ProblemList& problems) {
  std::optional<std::string> own_sps;
  if (f.has(sp / "sps")) {
    problems.check([&] {
      const std::string name = f.get_string(sp / "sps");
      if (!parse_sps_belief(name)) {
        f.fail(sp / "sps",
               f.name_of(sp / "sps") + " is '" + name + "'; valid: " + kSpsBeliefChoices);
      }
      own_sps = name;
    });
  }
  return own_sps;
}

// One entry of "systems": a drafter and its policies (each checked against the drafter's γ), with
// an optional SPS belief. Each policy is one system; a system already listed is a problem.
void parse_system(const JsonFile& f, const Pointer& sp, std::set<std::string>& labels,
                  SweepConfig& c, ProblemList& problems) {
  check_keys(f, sp, kSystemKeys, problems);
  std::optional<DrafterSpec> drafter;
  problems.check([&] {
    const std::string name = f.get_string(sp / "drafter");
    check_at(f, sp / "drafter", problems, [&] { drafter = parse_drafter(name); });
  });
  const std::vector<std::string> policies = system_policies(f, sp, problems);
  const std::optional<std::string> own_sps = system_sps(f, sp, problems);
  for (std::size_t j = 0; j < policies.size(); ++j) {
    const Pointer pp = sp / "policies" / j;
    bool ok = true;
    check_at(f, pp, problems, [&] {
      ok = false;
      const NamedSpec spec = NamedSpec::parse(policies[j], "--policy");
      if (drafter) {
        make_policy(spec, PolicyContext{drafter->gamma});
      } else {
        find_policy(spec);
      }
      ok = true;
    });
    if (!ok || !drafter) continue;
    SweepSystem s{drafter->name, policies[j], drafter->gamma};
    if (own_sps) {
      s.sps = *own_sps;
      s.sps_own = true;
    }
    if (!labels.insert(s.label()).second) {
      problems.add(at_line(f, pp, "repeats the system '" + s.label() + "'"));
      continue;
    }
    c.systems.push_back(std::move(s));
  }
}

// Systems: drafter × policies, names and parameters checked against the registries.
void parse_systems(const JsonFile& f, SweepConfig& c, ProblemList& problems) {
  const Pointer sys("/systems");
  problems.check([&] {
    const auto& a = f.get_array(sys);
    if (a.empty()) f.fail(sys, "systems is empty: nothing to sweep");
  });
  if (!f.has(sys) || !f.root().at(sys).is_array()) return;
  const auto& a = f.root().at(sys);
  std::set<std::string> labels;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const Pointer sp = sys / i;
    if (!a[i].is_object()) {
      problems.check([&] { f.get_object(sp); });
      continue;
    }
    parse_system(f, sp, labels, c, problems);
  }
}

void parse_seeds(const JsonFile& f, SweepConfig& c, ProblemList& problems) {
  problems.check([&] {
    const Pointer sp("/seeds");
    const auto seeds = f.get_int_array(sp, 0, std::numeric_limits<std::int64_t>::max());
    if (seeds.empty()) f.fail(sp, "seeds is empty: nothing to sweep");
    std::set<std::int64_t> seen;
    for (std::size_t i = 0; i < seeds.size(); ++i) {
      if (!seen.insert(seeds[i]).second) {
        f.fail(sp / i, f.name_of(sp / i) + " repeats seed " + std::to_string(seeds[i]));
      }
      c.seeds.push_back(static_cast<std::uint64_t>(seeds[i]));
    }
  });
}

void parse_acceptance(const JsonFile& f, SweepConfig& c, ProblemList& problems) {
  if (f.has(Pointer("/acceptance"))) {
    problems.check([&] { c.acceptance = f.get_string(Pointer("/acceptance")); });
  }
  check_at(f, Pointer("/acceptance"), problems,
           [&] { find_acceptance_model(NamedSpec::parse(c.acceptance, "--acceptance")); });
}

// engine.sps and engine.prefill: names from a fixed list.
void parse_engine_choices(const JsonFile& f, const Pointer& en, SweepConfig& c,
                          ProblemList& problems) {
  if (f.has(en / "sps")) {
    problems.check([&] {
      c.sps = f.get_string(en / "sps");
      if (!parse_sps_belief(c.sps)) {
        f.fail(en / "sps", "engine.sps is '" + c.sps + "'; valid: " + kSpsBeliefChoices);
      }
    });
  }
  if (f.has(en / "prefill")) {
    problems.check([&] {
      c.prefill = f.get_string(en / "prefill");
      if (c.prefill != "chunked" && c.prefill != "separate") {
        f.fail(en / "prefill", "engine.prefill is '" + c.prefill + "'; valid: chunked, separate");
      }
    });
  }
}

// The engine: a preset (sim/engine_preset.hpp) sets the limits; keys given beside it win.
void parse_engine(const JsonFile& f, SweepConfig& c, ProblemList& problems) {
  const Pointer en("/engine");
  if (!f.has(en)) return;
  problems.check([&] { f.get_object(en); });
  if (!f.root().at(en).is_object()) return;
  check_keys(f, en, kEngineKeys, problems);
  if (f.has(en / "preset")) {
    check_at(f, en / "preset", problems, [&] {
      const std::string name = f.get_string(en / "preset");
      const EnginePreset& p = find_engine_preset(name);
      c.engine = name;  // as written: config.json records it and the resolved name and version
      c.max_running = p.max_running;
      c.max_batch_tokens = p.max_batch_tokens;
      c.prefill = p.prefill == PrefillMode::kChunked ? "chunked" : "separate";
    });
  }
  if (f.has(en / "max_running")) {
    problems.check([&] { c.max_running = f.get_int(en / "max_running", 1, 1'000'000); });
  }
  if (f.has(en / "max_batch_tokens")) {
    problems.check(
        [&] { c.max_batch_tokens = f.get_int(en / "max_batch_tokens", 1, 100'000'000); });
  }
  if (f.has(en / "kv_capacity_tokens")) {
    problems.check(
        [&] { c.kv_capacity_tokens = f.get_int(en / "kv_capacity_tokens", 0, 1'000'000'000'000); });
  }
  parse_engine_choices(f, en, c, problems);
}

// Analysis settings: the reported percentile, tiers and their baseline.
void parse_analysis(const JsonFile& f, SweepConfig& c, ProblemList& problems) {
  const Pointer pc("/tok_s_per_user_percentile");
  if (f.has(pc)) {
    problems.check([&] {
      c.percentile = f.get_number(pc);
      if (!(c.percentile > 0 && c.percentile < 100)) {
        f.fail(pc, "tok_s_per_user_percentile is " + format_number(c.percentile) +
                       "; must be in (0, 100)");
      }
    });
  }
  const Pointer tp("/tiers_tok_s_per_user");
  if (f.has(tp)) {
    problems.check(
        [&] { c.tiers_tok_s_per_user = f.get_number_array(tp, NumberRange::positive()); });
  }
  resolve_baseline(f, c, problems);
  if (!c.tiers_tok_s_per_user.empty() && !c.baseline && !f.has(Pointer("/baseline"))) {
    problems.add(InputError(f.path(), f.line_of(tp),
                            "tiers_tok_s_per_user needs a baseline to compare against: add "
                            "\"baseline\": {\"drafter\": ..., \"policy\": ...} naming one of the "
                            "systems (the default, a single mtp1 system, is absent)")
                     .what());
  }
}

}  // namespace

const char* load_kind_name(LoadKind kind) {
  return kind == LoadKind::kConcurrency ? "concurrency" : "rate_scale";
}

SweepConfig parse_sweep_config(const JsonFile& f) {
  ProblemList problems;
  SweepConfig c;
  c.path = f.path();
  if (!f.root().is_object()) f.fail(Pointer(), "a sweep config must be a JSON object");
  check_keys(f, Pointer(), kTopKeys, problems);
  parse_header(f, c, problems);
  parse_workload(f, c, problems);
  parse_load(f, c, problems);
  parse_systems(f, c, problems);
  parse_seeds(f, c, problems);
  parse_acceptance(f, c, problems);
  parse_engine(f, c, problems);
  parse_analysis(f, c, problems);
  for (SweepSystem& s : c.systems) {
    if (!s.sps_own) s.sps = c.sps;
  }
  problems.throw_if_any();
  return c;
}

void check_analysis_settings(const SweepConfig& c, const std::string& where) {
  ProblemList problems;
  if (!(c.percentile > 0 && c.percentile < 100)) {
    problems.add(where + ": percentile is " + format_number(c.percentile) +
                 "; must be in (0, 100)");
  }
  for (double t : c.tiers_tok_s_per_user) {
    if (!(t > 0) || !std::isfinite(t)) {
      problems.add(where + ": tier " + format_number(t) +
                   " tok/s/user must be a finite number > 0");
    }
  }
  if (!c.tiers_tok_s_per_user.empty() && !c.baseline) {
    problems.add(where + ": tiers need a baseline system to compare against; " + c.path +
                 " names none (add \"baseline\": {\"drafter\": ..., \"policy\": ...})");
  }
  problems.throw_if_any();
}

SweepConfig load_sweep_config(const std::string& path) {
  const JsonFile f = JsonFile::load(path);
  ProblemList problems;
  SweepConfig c;
  try {
    c = parse_sweep_config(f);
  } catch (const InputError& e) {
    problems.add(e.what());
  }
  // The input files, even when the structure had problems, so one pass shows everything.
  Profile profile;
  if (f.has(Pointer("/profile")) && f.root().at("profile").is_string()) {
    check_at(f, Pointer("/profile"), problems,
             [&] { profile = load_profile(f.root().at("profile").get<std::string>()); });
  }
  const Pointer trace_ptr("/workload/trace");
  if (f.has(trace_ptr) && f.root().at(trace_ptr).is_string()) {
    check_at(f, trace_ptr, problems, [&] {
      TraceOptions topt;
      if (!c.trace_format.empty()) topt.format = parse_trace_format(c.trace_format);
      if (!c.domain.empty()) {
        Domain d;
        if (!parse_domain(c.domain, d)) {
          throw InputError("unknown domain '" + c.domain + "'; valid: " + valid_domain_list());
        }
        topt.domain = d;
      }
      topt.spread_buckets = c.spread_buckets;
      load_trace(f.root().at(trace_ptr).get<std::string>(), topt);
    });
  }
  problems.throw_if_any();

  c.profile_source = profile.provenance.source;
  // One prepare per system runs sparksim run's own checks (trace file, domain, format, policy
  // parameters against γ, the acceptance model against the target) on the first load and seed.
  std::set<std::string> seen_messages;
  for (std::size_t s = 0; s < c.systems.size(); ++s) {
    SweepPoint p{0, s, 0, 0};
    try {
      const RunSetup setup = prepare_run(point_run_options(c, p));
      if (s == 0) c.profile_label = setup.profile.label();
    } catch (const InputError& e) {
      // prepare_run lists its problems one per line; report each once, at the config.
      for (const std::string& line : problem_lines(e)) {
        if (seen_messages.insert(line).second) {
          problems.add(
              InputError(f.path(), 0, "preparing " + c.systems[s].label() + ": " + line).what());
        }
      }
    }
  }
  problems.throw_if_any();
  return c;
}

nlohmann::ordered_json SweepConfig::resolved() const {
  nlohmann::ordered_json j;
  j["schema"] = kSweepSchema;
  j["title"] = title;
  j["about"] = about;
  j["profile"] = profile_path;
  nlohmann::ordered_json w;
  if (!trace_path.empty()) {
    w["trace"] = trace_path;
    w["trace_format"] = trace_format;
    w["domain"] = domain;
    w["spread_buckets"] = spread_buckets;
    w["max_requests"] = max_requests;
  } else {
    w["synthetic"] = synthetic;
    w["think_time_s"] = think_time_s;
  }
  // Only when set: every earlier resolved config stays as it was.
  if (arrival_cv != 0) w["arrival_cv"] = arrival_cv;
  j["workload"] = w;
  nlohmann::ordered_json values = nlohmann::ordered_json::array();
  for (double x : loads) {
    if (load_kind == LoadKind::kConcurrency) {
      values.push_back(static_cast<std::int64_t>(x));
    } else {
      values.push_back(x);
    }
  }
  j["load"][load_kind_name(load_kind)] = values;
  nlohmann::ordered_json systems_json = nlohmann::ordered_json::array();
  for (const auto& s : systems) {
    const bool same_group = !systems_json.empty() && systems_json.back()["drafter"] == s.drafter &&
                            systems_json.back().contains("sps") == s.sps_own &&
                            (!s.sps_own || systems_json.back()["sps"] == s.sps);
    if (same_group) {
      systems_json.back()["policies"].push_back(s.policy);
    } else {
      systems_json.push_back({{"drafter", s.drafter}, {"policies", {s.policy}}});
      if (s.sps_own) systems_json.back()["sps"] = s.sps;
    }
  }
  j["systems"] = systems_json;
  j["seeds"] = seeds;
  j["acceptance"] = acceptance;
  // Only a named preset is written: a resolved config read back must name a valid one.
  if (!engine.empty()) j["engine"]["preset"] = engine;
  j["engine"].update(nlohmann::ordered_json{{"max_running", max_running},
                                            {"max_batch_tokens", max_batch_tokens},
                                            {"prefill", prefill},
                                            {"sps", sps},
                                            {"kv_capacity_tokens", kv_capacity_tokens}});
  j["tok_s_per_user_percentile"] = percentile;
  j["tiers_tok_s_per_user"] = tiers_tok_s_per_user;
  if (baseline) {
    j["baseline"] = {{"drafter", systems[*baseline].drafter},
                     {"policy", systems[*baseline].policy}};
  }
  return j;
}

}  // namespace sparksim
