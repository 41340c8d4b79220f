// Property tests: the engine under every registered policy, on randomly drawn configurations and
// synthetic traces (seeded, so a failure names a case that reproduces). Each case checks the
// invariants that must hold whatever the inputs: no request lost or completed twice, tokens
// conserved, KV never over capacity, lengths in [0, γ], time monotone, and the metrics agreeing
// with requests.csv row by row.
#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "common/named_spec.hpp"
#include "common/rng.hpp"
#include "policies/policy_registry.hpp"
#include "profiles/profile_io.hpp"
#include "sim/acceptance/acceptance_registry.hpp"
#include "sim/engine.hpp"
#include "sim/simulation.hpp"
#include "traces/synthetic.hpp"

using namespace sparksim;

namespace {

// Wraps a real policy; after it decides, checks what the engine could not: the KV reservation
// (read from the engine at decision time) and that the lengths it is about to use are in range.
class CheckingPolicy final : public VerificationPolicy {
 public:
  explicit CheckingPolicy(std::unique_ptr<VerificationPolicy> inner) : inner_(std::move(inner)) {}
  void watch(const Engine* engine) { engine_ = engine; }

  void schedule(const BatchView& view, const SpsTable& sps, std::span<int> lengths) override {
    inner_->schedule(view, sps, lengths);
    ++decisions;
    for (std::int64_t r = 0; r < view.requests; ++r) {
      if (lengths[r] < 0 || lengths[r] > view.gamma) ++length_violations;
    }
    if (engine_ != nullptr && engine_->kv_reserved() > engine_->kv_capacity()) ++kv_violations;
    // Each running request appears once. (Ids need not ascend: with a separate prefill stage,
    // requests join the decode batch in the order their prefill finishes.)
    ids_.assign(view.request_ids.begin(), view.request_ids.begin() + view.requests);
    std::sort(ids_.begin(), ids_.end());
    if (std::adjacent_find(ids_.begin(), ids_.end()) != ids_.end()) ++duplicate_requests;
  }
  bool synchronous() const override { return inner_->synchronous(); }
  void on_request_left(std::uint64_t id) override { inner_->on_request_left(id); }

  std::int64_t decisions = 0;
  std::int64_t length_violations = 0;
  std::int64_t kv_violations = 0;
  std::int64_t duplicate_requests = 0;

 private:
  std::unique_ptr<VerificationPolicy> inner_;
  const Engine* engine_ = nullptr;
  std::vector<std::uint64_t> ids_;
};

std::vector<std::string> split_csv_line(const std::string& line) {
  std::vector<std::string> fields;
  std::string field;
  std::istringstream in(line);
  while (std::getline(in, field, ',')) fields.push_back(field);
  if (!line.empty() && line.back() == ',') fields.emplace_back();
  return fields;
}

struct CaseOutcome {
  std::string description;
  std::int64_t submitted = 0;
  std::int64_t rejected = 0;
};

}  // namespace

TEST_CASE("engine invariants hold for every policy on random configurations and traces",
          "[properties]") {
  // 60 cases per policy row: γ, KV capacity (small enough to force preemption in some cases),
  // concurrency, token budget, prefill mode, acceptance rate and traffic drawn from one seed.
  constexpr int kCasesPerPolicy = 60;
  const Profile profile =
      load_profile(std::string(SPARKSIM_SOURCE_DIR) + "/profiles/analytic/h100-sxm/qwen3-8b.json");
  const TimeModel time_model(profile);
  std::mt19937_64 draw(20261122);
  const int gammas[] = {1, 3, 5, 7};

  for (const PolicyRow& row : policy_registry()) {
    for (int c = 0; c < kCasesPerPolicy; ++c) {
      const int gamma = gammas[draw() % 4];
      EngineConfig config;
      config.drafter = DrafterSpec{gamma == 1 ? DrafterFamily::kMtp1 : DrafterFamily::kDspark,
                                   gamma, gamma == 1 ? "mtp1" : "dspark-" + std::to_string(gamma)};
      config.kv_capacity_tokens = std::int64_t{1500} + static_cast<std::int64_t>(draw() % 20000);
      config.max_running = 1 + static_cast<std::int64_t>(draw() % 64);
      config.max_batch_tokens = 256 + static_cast<std::int64_t>(draw() % 4096);
      config.prefill_mode = (draw() % 3 == 0) ? PrefillMode::kSeparate : PrefillMode::kChunked;
      config.policy_sees_hidden_outcome = row.sees_hidden_outcome;
      const std::uint64_t seed = draw();
      const double rate = 1.0 + static_cast<double>(draw() % 40);
      const std::string traffic = "rate=" + std::to_string(rate) +
                                  ",prompt=lognormal:300:1.0,output=lognormal:60:1.0,"
                                  "domain=math/code/chat,duration_s=8";
      const Trace trace = generate_synthetic_trace(parse_synthetic_spec(traffic), seed);

      const std::string description =
          std::string(row.name) + " case " + std::to_string(c) +
          ": gamma=" + std::to_string(gamma) + " kv=" + std::to_string(config.kv_capacity_tokens) +
          " max_running=" + std::to_string(config.max_running) +
          " budget=" + std::to_string(config.max_batch_tokens) +
          (config.prefill_mode == PrefillMode::kSeparate ? " separate" : " chunked") +
          " seed=" + std::to_string(seed) + " traffic=" + traffic;
      INFO(description);

      const SpsTable sps(profile.sps, 4096);
      auto acceptance = make_acceptance_model(NamedSpec::parse("bernoulli", "--acceptance"),
                                              AcceptanceContext{config.drafter, "qwen3-8b", seed});
      CheckingPolicy policy(
          make_policy(NamedSpec::parse(std::string(row.name), "--policy"), PolicyContext{gamma}));
      std::ostringstream csv;
      MetricsCollector metrics(&csv);
      Engine engine(config, time_model, sps, *acceptance, policy, metrics);
      policy.watch(&engine);

      std::map<std::uint64_t, int> completions;
      std::int64_t committed_outputs = 0;
      SimTime last_completion = 0;
      bool completion_time_monotone = true;
      bool lifecycle_ordered = true;
      const auto observer = [&](const Request& r, SimTime now) {
        ++completions[r.id];
        committed_outputs += r.generated;
        if (now < last_completion) completion_time_monotone = false;
        last_completion = now;
        if (!(r.arrival <= r.first_admitted && r.first_admitted < r.first_token &&
              r.first_token <= r.done && r.done == now && r.generated == r.spec.output_tokens)) {
          lifecycle_ordered = false;
        }
      };
      OpenLoopWorkload workload(trace.requests);
      const SimulationStats stats = run_simulation(engine, workload, observer);

      // No request lost or completed twice.
      const std::int64_t accepted = stats.requests_submitted - stats.requests_rejected_kv;
      CHECK(static_cast<std::int64_t>(completions.size()) == accepted);
      CHECK(std::all_of(completions.begin(), completions.end(),
                        [](const auto& kv) { return kv.second == 1; }));
      CHECK(stats.requests_submitted == static_cast<std::int64_t>(trace.requests.size()));
      CHECK(engine.idle());
      // Policies and KV.
      CHECK(policy.length_violations == 0);
      CHECK(policy.kv_violations == 0);
      CHECK(policy.duplicate_requests == 0);
      CHECK(engine.kv_reserved() == 0);
      CHECK(metrics.counters().kv_peak_reserved <= config.kv_capacity_tokens);
      // Time.
      CHECK(completion_time_monotone);
      CHECK(lifecycle_ordered);
      // Tokens: every committed output token is counted once, by first tokens or by decode.
      const AggregateCounters& k = metrics.counters();
      CHECK(k.requests_completed == accepted);
      CHECK(k.output_tokens == committed_outputs);
      CHECK(k.drafts_accepted <= k.drafts_verified);
      CHECK(k.verify_tokens == k.request_steps + k.drafts_verified);
      CHECK(k.decode_committed <= k.request_steps + k.drafts_accepted);

      // requests.csv agrees with what the observer saw, row by row.
      std::istringstream rows(csv.str());
      std::string line;
      std::getline(rows, line);
      const std::vector<std::string> header = split_csv_line(line);
      const auto column = [&](const std::string& name) {
        return static_cast<std::size_t>(std::find(header.begin(), header.end(), name) -
                                        header.begin());
      };
      const std::size_t id_col = column("request_id"), out_col = column("output_tokens"),
                        ver_col = column("drafts_verified"), acc_col = column("drafts_accepted");
      REQUIRE(acc_col < header.size());
      std::int64_t csv_rows = 0, csv_outputs = 0, csv_verified = 0, csv_accepted = 0;
      std::map<std::uint64_t, int> csv_ids;
      while (std::getline(rows, line)) {
        const std::vector<std::string> f = split_csv_line(line);
        REQUIRE(f.size() == header.size());
        ++csv_rows;
        ++csv_ids[std::stoull(f[id_col])];
        csv_outputs += std::stoll(f[out_col]);
        csv_verified += std::stoll(f[ver_col]);
        csv_accepted += std::stoll(f[acc_col]);
      }
      CHECK(csv_rows == accepted);
      CHECK(csv_ids == completions);
      CHECK(csv_outputs == k.output_tokens);
      CHECK(csv_verified == k.drafts_verified);
      CHECK(csv_accepted == k.drafts_accepted);
    }
  }
}
