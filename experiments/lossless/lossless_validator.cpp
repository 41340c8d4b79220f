// The losslessness validator: scenario, engine runs per concurrency level, token tallies, tests.
#include "experiments/lossless/lossless_validator.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <memory>
#include <string_view>

#include "common/input_error.hpp"
#include "common/json_file.hpp"
#include "common/named_spec.hpp"
#include "common/rng.hpp"
#include "common/staged_directory.hpp"
#include "common/version.hpp"
#include "experiments/lossless/lossless_appendix_a.hpp"
#include "policies/policy_registry.hpp"
#include "profiles/time_model.hpp"
#include "sim/acceptance/token_level/goodness_of_fit.hpp"
#include "sim/acceptance/token_level/token_level_spec.hpp"
#include "sim/engine.hpp"
#include "sim/metrics.hpp"
#include "sim/simulation.hpp"
#include "sim/workload.hpp"

namespace sparksim {

namespace {

// Rows of the deviation report need this many observations (95% CI half-width <= 0.031).
constexpr std::int64_t kDeviationMinRow = 1000;

// Counts committed tokens of verification steps (prefill tokens come from the target directly and
// say nothing about the policy).
class TokenTally final : public TokenCommitObserver {
 public:
  explicit TokenTally(int vocab)
      : vocab_(vocab),
        transitions_(static_cast<std::size_t>(vocab) * vocab, 0),
        first_(static_cast<std::size_t>(vocab) * vocab, 0) {}
  void on_committed(std::uint64_t, int previous, std::span<const int> tokens,
                    bool speculative) override {
    if (!speculative) return;
    ++first_[static_cast<std::size_t>(previous) * vocab_ + tokens[0]];
    int from = previous;
    for (int t : tokens) {
      ++transitions_[static_cast<std::size_t>(from) * vocab_ + t];
      from = t;
    }
  }
  const std::vector<std::int64_t>& transitions() const { return transitions_; }
  const std::vector<std::int64_t>& first() const { return first_; }
  int vocab() const { return vocab_; }

 private:
  int vocab_;
  std::vector<std::int64_t> transitions_, first_;
};

// Delegates to the policy under test and records its decisions (so the report can show that they
// vary with load).
class RecordingPolicy final : public VerificationPolicy {
 public:
  RecordingPolicy(VerificationPolicy& inner, int gamma)
      : inner_(inner), histogram_(static_cast<std::size_t>(gamma) + 1, 0) {}
  void schedule(const BatchView& view, const SpsTable& sps, std::span<int> lengths) override {
    inner_.schedule(view, sps, lengths);
    ++steps_;
    for (std::int64_t r = 0; r < view.requests; ++r) {
      const int ell = lengths[static_cast<std::size_t>(r)];
      if (ell >= 0 && ell < static_cast<int>(histogram_.size())) ++histogram_[ell];
    }
  }
  bool synchronous() const override { return inner_.synchronous(); }
  void on_request_left(std::uint64_t id) override { inner_.on_request_left(id); }
  const std::vector<std::int64_t>& histogram() const { return histogram_; }
  std::int64_t steps() const { return steps_; }

 private:
  VerificationPolicy& inner_;
  std::vector<std::int64_t> histogram_;
  std::int64_t steps_ = 0;
};

// The in-memory profile whose verify time is lossless_step_us() for every B >= 1 (a piecewise-
// linear dense table); no draft cost, no host overhead, no context-dependent terms. Step times
// only order events here: what is tested is the committed tokens.
Profile level_profile(const LosslessScenario& s, const LosslessLevel& level) {
  Profile p;
  p.provenance.source = "analytic";
  p.provenance.gpu = "synthetic";
  p.provenance.tool = "sparksim lossless";
  p.provenance.git_sha = sparksim_version();
  p.provenance.notes = "step-time curve of the losslessness validator";
  p.target = "toy";
  p.gpus = 1;
  p.hbm_bytes = 1e12;
  p.weights_bytes = 0;
  p.kv_bytes_per_token = 1;
  const std::int64_t r = level.concurrency;
  if (level.curve == StepCurve::kCliff) {
    p.verify.fixed_us = s.base_us;
    p.verify.dense_tokens = {r, r + 1, r + 2};
    p.verify.dense_us = {0, s.base_us * s.cliff,
                         s.base_us * (s.cliff + s.cliff_slope / static_cast<double>(r))};
  } else {
    p.verify.fixed_us = 12000;  // (96 + B) / 8000 s
    p.verify.dense_tokens = {1, 2};
    p.verify.dense_us = {125, 250};
  }
  // Drafting costs nothing here on purpose: the step curve above is the whole step.
  p.draft[static_cast<int>(DrafterFamily::kDspark)] = DraftTimeModel{};
  p.sps.tokens = {1, 2};
  p.sps.steps_per_s = {1, 1};  // unused: the scheduler gets the exact curve
  p.sps.reference = "exact curve of the level";
  return p;
}

nlohmann::ordered_json test_json(const GTestResult& g) {
  nlohmann::ordered_json j;
  j["statistic"] =
      std::isinf(g.statistic) ? nlohmann::ordered_json("inf") : nlohmann::ordered_json(g.statistic);
  j["degrees_of_freedom"] = g.degrees_of_freedom;
  j["p_value"] = g.p_value;
  j["observations"] = g.observations;
  j["rows_tested"] = g.rows_tested;
  j["impossible_tokens"] = g.impossible;
  return j;
}

nlohmann::ordered_json deviation_json(const CellDeviation& d, const char* row_name) {
  nlohmann::ordered_json j;
  if (d.row < 0) return j;
  j[row_name] = d.row;
  j["token"] = d.col;
  j["observations"] = d.row_observations;
  j["target_probability"] = d.target;
  j["committed_frequency"] = d.observed;
  j["deviation"] = d.deviation;
  j["deviation_ci95"] = {d.ci_low, d.ci_high};
  j["z"] = std::isinf(d.z) ? nlohmann::ordered_json(d.z > 0 ? "inf" : "-inf")
                           : nlohmann::ordered_json(d.z);
  return j;
}

}  // namespace

double lossless_step_us(const LosslessScenario& s, const LosslessLevel& level,
                        std::int64_t tokens) {
  const double b = static_cast<double>(tokens);
  if (level.curve == StepCurve::kSaturating) return (96.0 + b) / 8000.0 * 1e6;
  const double r = static_cast<double>(level.concurrency);
  return s.base_us * (1.0 + (b > r ? s.cliff : 0.0) + s.cliff_slope * std::max(0.0, b - r - 1) / r);
}

void validate_lossless_options(const LosslessOptions& o) {
  // Every problem is collected, then reported at once (one per line).
  struct {
    std::vector<std::string> messages;
    void add(std::string m) { messages.push_back(std::move(m)); }
    void check(const std::function<void()>& f) {
      try {
        f();
      } catch (const InputError& e) {
        messages.emplace_back(e.what());
      }
    }
    void throw_if_any() const {
      std::string all;
      for (std::size_t i = 0; i < messages.size(); ++i) all += (i ? "\nerror: " : "") + messages[i];
      if (!all.empty()) throw InputError(all);
    }
  } problems;
  problems.check([&] {
    if (o.policy.empty()) throw InputError("--policy SPEC is required");
    const NamedSpec spec = NamedSpec::parse(o.policy, "--policy");
    make_policy(spec, PolicyContext{o.scenario.gamma});
  });
  bool known_drafter = false;
  for (std::string_view name : kToyDrafterNames) known_drafter |= name == o.drafter;
  if (!known_drafter) {
    problems.add("--drafter: unknown token-level drafter '" + o.drafter +
                 "'; valid: parallel, markov, autoregressive, adversarial");
  }
  const auto levels = static_cast<std::int64_t>(o.scenario.levels.size());
  if (o.requests < levels || o.requests > 100'000'000) {
    problems.add("--requests must be in [" + std::to_string(levels) + ", 100000000] (at least " +
                 "one request per concurrency level)");
  }
  if (!(o.alpha > 0 && o.alpha < 1)) problems.add("--alpha must be in (0, 1)");
  problems.check([&] { parse_token_level_spec(NamedSpec::parse(o.scenario.model, "--model")); });
  const LosslessScenario& s = o.scenario;
  if (s.gamma < 1 || s.gamma > 32) problems.add("scenario gamma must be in [1, 32]");
  if (s.levels.empty()) problems.add("scenario needs at least one level");
  for (const LosslessLevel& level : s.levels) {
    if (level.concurrency < 1 || level.concurrency > 4096) {
      problems.add("scenario concurrency levels must be in [1, 4096]");
    }
  }
  if (s.output_tokens < 2) problems.add("scenario output_tokens must be >= 2");
  if (!(s.base_us > 0) || !(s.cliff >= 0) || !(s.cliff_slope >= 0)) {
    problems.add("scenario cliff curve needs base_us > 0, cliff >= 0, cliff_slope >= 0");
  }
  problems.throw_if_any();
}

namespace {

// The scenario's token-level model with the drafter under test appended.
NamedSpec model_spec_with_drafter(const LosslessScenario& s, const std::string& drafter) {
  return NamedSpec::parse(
      s.model + (s.model.find(':') == std::string::npos ? ":" : ",") + "drafter=" + drafter,
      "--model");
}

DrafterSpec token_level_drafter(const LosslessScenario& s, const std::string& drafter_name) {
  DrafterSpec drafter;
  drafter.family = DrafterFamily::kDspark;
  drafter.gamma = s.gamma;
  drafter.name = "token-level-" + drafter_name + "-" + std::to_string(s.gamma);
  return drafter;
}

// SPS for every B a step of this level can have (R anchors, R·γ drafts).
SpsTable level_sps(const LosslessScenario& s, const LosslessLevel& level) {
  const std::int64_t max_tokens = static_cast<std::int64_t>(level.concurrency) * (s.gamma + 1);
  std::vector<double> sps_values(static_cast<std::size_t>(max_tokens));
  for (std::int64_t b = 1; b <= max_tokens; ++b) {
    sps_values[static_cast<std::size_t>(b - 1)] = 1e6 / lossless_step_us(s, level, b);
  }
  return SpsTable(std::move(sps_values));
}

// The level's entry of result.json: its load and what the policy decided there.
nlohmann::ordered_json level_json(const LosslessLevel& level, std::int64_t requests,
                                  const RecordingPolicy& policy, const AggregateCounters& c) {
  const auto& histogram = policy.histogram();
  std::int64_t request_steps = 0, verified = 0;
  for (std::size_t ell = 0; ell < histogram.size(); ++ell) {
    request_steps += histogram[ell];
    verified += static_cast<std::int64_t>(ell) * histogram[ell];
  }
  nlohmann::ordered_json j;
  j["concurrency"] = level.concurrency;
  j["curve"] = level.curve == StepCurve::kCliff ? "cliff" : "saturating";
  j["requests"] = requests;
  j["steps"] = policy.steps();
  j["request_steps"] = request_steps;
  j["mean_verified_drafts"] =
      request_steps > 0 ? static_cast<double>(verified) / static_cast<double>(request_steps) : 0;
  j["verified_drafts_histogram"] = histogram;
  j["tau_mean"] = c.request_steps > 0 ? static_cast<double>(c.decode_committed) /
                                            static_cast<double>(c.request_steps)
                                      : 0;
  return j;
}

// What every level shares: the options, the token-level model, the drafter and the policy.
struct LosslessRun {
  const LosslessOptions& options;
  const TokenLevelConfig& config;
  const DrafterSpec& drafter;
  const PolicyRow& row;
  const NamedSpec& policy_spec;
};

// Runs level number `level` in the real engine; its committed tokens go into `tally` (made on the
// first level, once the target's vocabulary is known).
nlohmann::ordered_json run_level(const LosslessRun& run, std::int64_t level,
                                 std::unique_ptr<TokenTally>& tally) {
  const LosslessOptions& o = run.options;
  const LosslessScenario& s = o.scenario;
  const LosslessLevel& spec_level = s.levels[static_cast<std::size_t>(level)];
  const TimeModel time_model(level_profile(s, spec_level));
  const SpsTable sps = level_sps(s, spec_level);
  const auto level_count = static_cast<std::int64_t>(s.levels.size());
  const std::int64_t requests =
      o.requests / level_count + (level < o.requests % level_count ? 1 : 0);
  // Each level samples from its own stream; the target and drafter are the same everywhere.
  auto model = make_token_level_model(run.config, s.gamma,
                                      derive_seed(o.seed, static_cast<std::uint64_t>(level)));
  if (!tally) tally = std::make_unique<TokenTally>(model->target().vocab());
  model->set_observer(tally.get());
  auto inner = make_policy(run.policy_spec, PolicyContext{s.gamma});
  RecordingPolicy policy(*inner, s.gamma);
  MetricsCollector metrics(nullptr);
  EngineConfig engine_config;
  engine_config.drafter = run.drafter;
  engine_config.kv_capacity_tokens = std::int64_t{1} << 40;
  engine_config.max_running = spec_level.concurrency;
  engine_config.max_batch_tokens = std::int64_t{1} << 30;
  engine_config.policy_sees_hidden_outcome = run.row.sees_hidden_outcome;
  Engine engine(engine_config, time_model, sps, *model, policy, metrics);
  std::vector<RequestSpec> specs(static_cast<std::size_t>(requests));
  for (RequestSpec& r : specs) {
    r.arrival = 0;
    r.prompt_tokens = 1;
    r.output_tokens = s.output_tokens;
    r.domain = Domain::kChat;
  }
  OpenLoopWorkload workload(specs);
  run_simulation(engine, workload);
  return level_json(spec_level, requests, policy, metrics.counters());
}

// The two G-tests of the committed tokens, their Bonferroni combination and the deviations of
// the table that decides.
struct TokenTests {
  GTestResult transitions, first;
  double p_combined = 1;
  bool distorted = false;
  bool first_decides = false;
  DeviationReport deviations;
};

TokenTests test_tokens(const TokenTally& tally, const TokenLevelConfig& config, double alpha) {
  const int vocab = tally.vocab();
  const ToyTargetLm target = ToyTargetLm::generate(config.lm);
  std::vector<double> probabilities(static_cast<std::size_t>(vocab) * vocab);
  for (int a = 0; a < vocab; ++a) {
    for (int b = 0; b < vocab; ++b) {
      probabilities[static_cast<std::size_t>(a) * vocab + b] = target.prob(a, b);
    }
  }
  TokenTests t;
  t.transitions = conditional_g_test(tally.transitions(), probabilities, vocab, vocab);
  t.first = conditional_g_test(tally.first(), probabilities, vocab, vocab);
  const double p_min = std::min(t.transitions.p_value, t.first.p_value);
  t.p_combined = std::min(1.0, 2.0 * p_min);
  t.distorted = t.p_combined < alpha;
  t.first_decides = t.first.p_value <= t.transitions.p_value;
  t.deviations = largest_deviations(t.first_decides ? tally.first() : tally.transitions(),
                                    probabilities, vocab, vocab, kDeviationMinRow);
  return t;
}

// result.json's verdict part: the claim, the tests and the deviations.
void add_verdict(nlohmann::ordered_json& r, const LosslessOptions& o, const PolicyRow& row,
                 const TokenTests& t) {
  r["sparksim_version"] = sparksim_version();
  r["policy"] = o.policy;
  r["lossless_by_construction"] = row.lossless_by_construction;
  r["sees_hidden_outcome"] = row.sees_hidden_outcome;
  r["verdict"] = t.distorted ? "distorted" : "lossless";
  r["claim_matches_verdict"] = row.lossless_by_construction != t.distorted;
  r["alpha"] = o.alpha;
  r["p_value"] = t.p_combined;
  r["p_value_note"] =
      "Bonferroni: 2 x the smaller of the two G-tests' p-values (capped at 1); distorted when "
      "below alpha";
  r["statistic"] = t.first_decides ? t.first.statistic : t.transitions.statistic;
  if (std::isinf(r["statistic"].get<double>())) r["statistic"] = "inf";
  r["statistic_test"] = t.first_decides ? "first_token" : "transitions";
  r["tests"]["transitions"] = test_json(t.transitions);
  r["tests"]["first_token"] = test_json(t.first);
  r["largest_deviation"] = deviation_json(t.deviations.largest, "condition_token");
  r["most_significant_deviation"] =
      deviation_json(t.deviations.most_significant, "condition_token");
  r["deviation_note"] =
      std::string("cells of the ") + (t.first_decides ? "first-token" : "transition") +
      " table; largest |deviation| among conditions with >= " + std::to_string(kDeviationMinRow) +
      " observations; 95% Wilson interval of the frequency minus the target, per cell (not "
      "adjusted for picking the largest of many cells: the verdict comes from the G-tests)";
}

nlohmann::ordered_json scenario_json(const LosslessScenario& s) {
  nlohmann::ordered_json sc;
  sc["gamma"] = s.gamma;
  sc["output_tokens"] = s.output_tokens;
  sc["cliff_step_us"] =
      "base_us * (1 + cliff * [B > R] + cliff_slope * max(0, B - R - 1) / R), R = concurrency";
  sc["base_us"] = s.base_us;
  sc["cliff"] = s.cliff;
  sc["cliff_slope"] = s.cliff_slope;
  sc["saturating_sps"] = "8000 / (96 + B)";
  return sc;
}

}  // namespace

LosslessReport run_lossless(const LosslessOptions& o) {
  validate_lossless_options(o);
  const auto wall_start = std::chrono::steady_clock::now();
  const LosslessScenario& s = o.scenario;
  const NamedSpec policy_spec = NamedSpec::parse(o.policy, "--policy");
  const PolicyRow& row = find_policy(policy_spec);
  const NamedSpec model_spec = model_spec_with_drafter(s, o.drafter);
  const TokenLevelConfig config = parse_token_level_spec(model_spec);
  const DrafterSpec drafter = token_level_drafter(s, o.drafter);
  const LosslessRun run{o, config, drafter, row, policy_spec};

  std::unique_ptr<TokenTally> tally;
  nlohmann::ordered_json levels = nlohmann::ordered_json::array();
  const auto level_count = static_cast<std::int64_t>(s.levels.size());
  for (std::int64_t level = 0; level < level_count; ++level) {
    levels.push_back(run_level(run, level, tally));
  }
  const TokenTests tests = test_tokens(*tally, config, o.alpha);

  LosslessReport report;
  report.distorted = tests.distorted;
  nlohmann::ordered_json& r = report.result;
  add_verdict(r, o, row, tests);
  r["drafter"] = o.drafter;
  r["model"] = model_spec.text();
  r["requests"] = o.requests;
  r["seed"] = o.seed;
  r["scenario"] = scenario_json(s);
  r["levels"] = std::move(levels);
  r["wall_s"] =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  return report;
}

namespace {

// `--appendix-a`: the paper's counterexample by sampling, retrospective and greedy (and the
// policy asked about, which alone decides the exit code). Prints a line per policy.
int appendix_a_command(const LosslessOptions& o, std::int64_t trials,
                       nlohmann::ordered_json& result, std::ostream& out) {
  if (trials < 1000 || trials > 1'000'000'000) {
    throw InputError("--trials must be in [1000, 1000000000]");
  }
  std::vector<std::string> policies = {"retrospective", "greedy"};
  if (!o.policy.empty()) policies.push_back(o.policy);
  // Resolve every name first: nothing runs if one is unknown.
  for (const auto& name : policies) find_policy(NamedSpec::parse(name, "--policy"));
  result["sparksim_version"] = sparksim_version();
  result["appendix_a"] =
      "one request, gamma = 2, target (0.7, 0.3), draft (0.5, 0.5), c1 = 0.8, c2 = 0.9 after A "
      "and 0 after B, SPS(1) = 1, SPS(2) = 0.5, SPS(3) = 0.45; paper: retrospective P(A) = "
      "0.85, lossless 0.70";
  result["trials"] = trials;
  result["seed"] = o.seed;
  int code = 0;
  char line[512];
  nlohmann::ordered_json per_policy = nlohmann::ordered_json::object();
  for (std::size_t i = 0; i < policies.size(); ++i) {
    const AppendixAResult a = run_appendix_a(policies[i], trials, o.seed);
    if (i == 0) result["retrospective_p_a"] = a.p_a;
    if (i == 1) result["greedy_p_a"] = a.p_a;
    nlohmann::ordered_json j;
    j["p_a"] = a.p_a;
    j["ci999"] = {a.ci_low, a.ci_high};
    j["first_is_a"] = a.first_is_a;
    j["p_value_vs_0.7"] = a.p_value;
    j["verified_drafts_histogram"] = a.lengths;
    const bool distorted = a.p_value < o.alpha;
    j["verdict"] = distorted ? "distorted" : "lossless";
    per_policy[policies[i]] = j;
    std::snprintf(line, sizeof line,
                  "%-14s P(first token = A) = %.4f  (99.9%% CI %.4f..%.4f; lossless: 0.7000)  "
                  "verified 0/1/2: %lld/%lld/%lld\n",
                  (policies[i] + ":").c_str(), a.p_a, a.ci_low, a.ci_high,
                  static_cast<long long>(a.lengths[0]), static_cast<long long>(a.lengths[1]),
                  static_cast<long long>(a.lengths[2]));
    out << line;
    if (i == 2 && distorted) code = 3;  // only the policy asked about decides the exit code
  }
  result["policies"] = std::move(per_policy);
  return code;
}

// "transitions       G = 25.3, df 32, p = 0.792 (142337 tokens)" for one G-test of result.json.
void print_g_test(const char* label, const nlohmann::ordered_json& g, const char* unit,
                  std::ostream& out) {
  char statistic[32] = "inf";
  if (g["statistic"].is_number()) {
    std::snprintf(statistic, sizeof statistic, "%.1f", g["statistic"].get<double>());
  }
  char line[512];
  std::snprintf(line, sizeof line, "%-17s G = %s, df %lld, p = %.3g (%lld %s)\n", label, statistic,
                static_cast<long long>(g["degrees_of_freedom"].get<std::int64_t>()),
                g["p_value"].get<double>(),
                static_cast<long long>(g["observations"].get<std::int64_t>()), unit);
  out << line;
}

// The validator's summary on stdout, read back from its result.json.
void print_validator_summary(const LosslessOptions& o, const nlohmann::ordered_json& result,
                             std::ostream& out) {
  char line[512];
  std::snprintf(line, sizeof line, "policy            %s (registry claim: %s)\n", o.policy.c_str(),
                result["lossless_by_construction"].get<bool>() ? "lossless" : "unsafe");
  out << line;
  print_g_test("transitions", result["tests"]["transitions"], "tokens", out);
  print_g_test("first tokens", result["tests"]["first_token"], "steps", out);
  const auto& d = result["largest_deviation"];
  if (!d.empty()) {
    std::snprintf(line, sizeof line,
                  "largest deviation P(%d | %d): committed %.4f vs target %.4f (95%% CI of the "
                  "difference %+.4f..%+.4f)\n",
                  d["token"].get<int>(), d["condition_token"].get<int>(),
                  d["committed_frequency"].get<double>(), d["target_probability"].get<double>(),
                  d["deviation_ci95"][0].get<double>(), d["deviation_ci95"][1].get<double>());
    out << line;
  }
  std::snprintf(line, sizeof line, "verdict           %s (p = %.3g, alpha = %g; %.1f s)\n",
                result["verdict"].get<std::string>().c_str(), result["p_value"].get<double>(),
                o.alpha, result["wall_s"].get<double>());
  out << line;
}

}  // namespace

int lossless_command(const LosslessOptions& o, bool appendix_a, std::int64_t appendix_a_trials,
                     std::ostream& out) {
  nlohmann::ordered_json result;
  int code = 0;
  if (appendix_a) {
    code = appendix_a_command(o, appendix_a_trials, result, out);
  } else {
    LosslessReport report = run_lossless(o);
    result = std::move(report.result);
    code = report.distorted ? 3 : 0;
    print_validator_summary(o, result, out);
  }
  if (!o.out_dir.empty()) {
    StagedDirectory dir(o.out_dir);
    write_file_atomically(dir.file("result.json").string(), format_json(result));
    dir.commit();
  }
  return code;
}

}  // namespace sparksim
