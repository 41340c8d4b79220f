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

LosslessReport run_lossless(const LosslessOptions& o) {
  validate_lossless_options(o);
  const auto wall_start = std::chrono::steady_clock::now();
  const LosslessScenario& s = o.scenario;
  const NamedSpec policy_spec = NamedSpec::parse(o.policy, "--policy");
  const PolicyRow& row = find_policy(policy_spec);
  const NamedSpec model_spec = NamedSpec::parse(
      s.model + (s.model.find(':') == std::string::npos ? ":" : ",") + "drafter=" + o.drafter,
      "--model");
  const TokenLevelConfig config = parse_token_level_spec(model_spec);

  DrafterSpec drafter;
  drafter.family = DrafterFamily::kDspark;
  drafter.gamma = s.gamma;
  drafter.name = "token-level-" + o.drafter + "-" + std::to_string(s.gamma);

  std::unique_ptr<TokenTally> tally;
  nlohmann::ordered_json levels = nlohmann::ordered_json::array();
  const auto level_count = static_cast<std::int64_t>(s.levels.size());
  int vocab = 0;
  for (std::int64_t level = 0; level < level_count; ++level) {
    const LosslessLevel& spec_level = s.levels[static_cast<std::size_t>(level)];
    const int concurrency = spec_level.concurrency;
    const Profile profile = level_profile(s, spec_level);
    const TimeModel time_model(profile);
    // SPS for every B a step of this level can have (R anchors, R·γ drafts).
    const std::int64_t max_tokens = static_cast<std::int64_t>(concurrency) * (s.gamma + 1);
    std::vector<double> sps_values(static_cast<std::size_t>(max_tokens));
    for (std::int64_t b = 1; b <= max_tokens; ++b) {
      sps_values[static_cast<std::size_t>(b - 1)] = 1e6 / lossless_step_us(s, spec_level, b);
    }
    const SpsTable sps(std::move(sps_values));
    const std::int64_t requests =
        o.requests / level_count + (level < o.requests % level_count ? 1 : 0);
    // Each level samples from its own stream; the target and drafter are the same everywhere.
    auto model = make_token_level_model(config, s.gamma,
                                        derive_seed(o.seed, static_cast<std::uint64_t>(level)));
    if (!tally) {
      vocab = model->target().vocab();
      tally = std::make_unique<TokenTally>(vocab);
    }
    model->set_observer(tally.get());
    auto inner = make_policy(policy_spec, PolicyContext{s.gamma});
    RecordingPolicy policy(*inner, s.gamma);
    MetricsCollector metrics(nullptr);
    EngineConfig engine_config;
    engine_config.drafter = drafter;
    engine_config.kv_capacity_tokens = std::int64_t{1} << 40;
    engine_config.max_running = concurrency;
    engine_config.max_batch_tokens = std::int64_t{1} << 30;
    engine_config.policy_sees_hidden_outcome = row.sees_hidden_outcome;
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

    const auto& histogram = policy.histogram();
    std::int64_t request_steps = 0, verified = 0;
    for (std::size_t ell = 0; ell < histogram.size(); ++ell) {
      request_steps += histogram[ell];
      verified += static_cast<std::int64_t>(ell) * histogram[ell];
    }
    const AggregateCounters& c = metrics.counters();
    nlohmann::ordered_json j;
    j["concurrency"] = concurrency;
    j["curve"] = spec_level.curve == StepCurve::kCliff ? "cliff" : "saturating";
    j["requests"] = requests;
    j["steps"] = policy.steps();
    j["request_steps"] = request_steps;
    j["mean_verified_drafts"] =
        request_steps > 0 ? static_cast<double>(verified) / static_cast<double>(request_steps) : 0;
    j["verified_drafts_histogram"] = histogram;
    j["tau_mean"] = c.request_steps > 0 ? static_cast<double>(c.decode_committed) /
                                              static_cast<double>(c.request_steps)
                                        : 0;
    levels.push_back(std::move(j));
  }

  const ToyTargetLm target = ToyTargetLm::generate(config.lm);
  std::vector<double> probabilities(static_cast<std::size_t>(vocab) * vocab);
  for (int a = 0; a < vocab; ++a) {
    for (int b = 0; b < vocab; ++b) {
      probabilities[static_cast<std::size_t>(a) * vocab + b] = target.prob(a, b);
    }
  }
  const GTestResult transitions =
      conditional_g_test(tally->transitions(), probabilities, vocab, vocab);
  const GTestResult first = conditional_g_test(tally->first(), probabilities, vocab, vocab);
  const double p_min = std::min(transitions.p_value, first.p_value);
  const double p_combined = std::min(1.0, 2.0 * p_min);
  const bool distorted = p_combined < o.alpha;
  const bool first_decides = first.p_value <= transitions.p_value;
  const DeviationReport deviations =
      largest_deviations(first_decides ? tally->first() : tally->transitions(), probabilities,
                         vocab, vocab, kDeviationMinRow);

  LosslessReport report;
  report.distorted = distorted;
  nlohmann::ordered_json& r = report.result;
  r["sparksim_version"] = sparksim_version();
  r["policy"] = o.policy;
  r["lossless_by_construction"] = row.lossless_by_construction;
  r["sees_hidden_outcome"] = row.sees_hidden_outcome;
  r["verdict"] = distorted ? "distorted" : "lossless";
  r["claim_matches_verdict"] = row.lossless_by_construction != distorted;
  r["alpha"] = o.alpha;
  r["p_value"] = p_combined;
  r["p_value_note"] =
      "Bonferroni: 2 x the smaller of the two G-tests' p-values (capped at 1); distorted when "
      "below alpha";
  r["statistic"] = first_decides ? first.statistic : transitions.statistic;
  if (std::isinf(r["statistic"].get<double>())) r["statistic"] = "inf";
  r["statistic_test"] = first_decides ? "first_token" : "transitions";
  r["tests"]["transitions"] = test_json(transitions);
  r["tests"]["first_token"] = test_json(first);
  r["largest_deviation"] = deviation_json(deviations.largest, "condition_token");
  r["most_significant_deviation"] = deviation_json(deviations.most_significant, "condition_token");
  r["deviation_note"] =
      std::string("cells of the ") + (first_decides ? "first-token" : "transition") +
      " table; largest |deviation| among conditions with >= " + std::to_string(kDeviationMinRow) +
      " observations; 95% Wilson interval of the frequency minus the target, per cell (not "
      "adjusted for picking the largest of many cells: the verdict comes from the G-tests)";
  r["drafter"] = o.drafter;
  r["model"] = model_spec.text();
  r["requests"] = o.requests;
  r["seed"] = o.seed;
  nlohmann::ordered_json& sc = r["scenario"];
  sc["gamma"] = s.gamma;
  sc["output_tokens"] = s.output_tokens;
  sc["cliff_step_us"] =
      "base_us * (1 + cliff * [B > R] + cliff_slope * max(0, B - R - 1) / R), R = concurrency";
  sc["base_us"] = s.base_us;
  sc["cliff"] = s.cliff;
  sc["cliff_slope"] = s.cliff_slope;
  sc["saturating_sps"] = "8000 / (96 + B)";
  r["levels"] = std::move(levels);
  r["wall_s"] =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  return report;
}

int lossless_command(const LosslessOptions& o, bool appendix_a, std::int64_t appendix_a_trials,
                     std::ostream& out) {
  nlohmann::ordered_json result;
  int code = 0;
  char line[512];
  if (appendix_a) {
    if (appendix_a_trials < 1000 || appendix_a_trials > 1'000'000'000) {
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
    result["trials"] = appendix_a_trials;
    result["seed"] = o.seed;
    nlohmann::ordered_json per_policy = nlohmann::ordered_json::object();
    for (std::size_t i = 0; i < policies.size(); ++i) {
      const AppendixAResult a = run_appendix_a(policies[i], appendix_a_trials, o.seed);
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
  } else {
    LosslessReport report = run_lossless(o);
    result = std::move(report.result);
    code = report.distorted ? 3 : 0;
    const auto& t = result["tests"];
    std::snprintf(line, sizeof line, "policy            %s (registry claim: %s)\n",
                  o.policy.c_str(),
                  result["lossless_by_construction"].get<bool>() ? "lossless" : "unsafe");
    out << line;
    const auto statistic = [](const nlohmann::ordered_json& g) {
      char text[32];
      if (!g.is_number()) return std::string("inf");
      std::snprintf(text, sizeof text, "%.1f", g.get<double>());
      return std::string(text);
    };
    std::snprintf(
        line, sizeof line, "transitions       G = %s, df %lld, p = %.3g (%lld tokens)\n",
        statistic(t["transitions"]["statistic"]).c_str(),
        static_cast<long long>(t["transitions"]["degrees_of_freedom"].get<std::int64_t>()),
        t["transitions"]["p_value"].get<double>(),
        static_cast<long long>(t["transitions"]["observations"].get<std::int64_t>()));
    out << line;
    std::snprintf(
        line, sizeof line, "first tokens      G = %s, df %lld, p = %.3g (%lld steps)\n",
        statistic(t["first_token"]["statistic"]).c_str(),
        static_cast<long long>(t["first_token"]["degrees_of_freedom"].get<std::int64_t>()),
        t["first_token"]["p_value"].get<double>(),
        static_cast<long long>(t["first_token"]["observations"].get<std::int64_t>()));
    out << line;
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
  if (!o.out_dir.empty()) {
    StagedDirectory dir(o.out_dir);
    write_file_atomically(dir.file("result.json").string(), format_json(result));
    dir.commit();
  }
  return code;
}

}  // namespace sparksim
