// Registry conformance: every listed policy is exercised here the moment it is added.
// Random batches (seeded) over multi-step runs with requests joining and leaving: each policy must
// return lengths in [0, γ] for every request and be deterministic (two fresh instances fed the
// same run decide the same); confidence-driven rows must verify nothing at zero confidence and
// never a position whose survival is 0; rank-based ones must admit a prefix of the global order;
// flags and the common sync parameter must be consistent.
#include "policies/policy_registry.hpp"

#include <cmath>
#include <numeric>
#include <random>
#include <set>

#include <catch2/catch.hpp>

#include "common/input_error.hpp"
#include "policies/candidate_merge.hpp"
#include "policy_test_util.hpp"

using namespace sparksim;

namespace {

std::unique_ptr<VerificationPolicy> make_row(const PolicyRow& row, int gamma,
                                             const std::string& params = "") {
  const std::string text = std::string(row.name) + (params.empty() ? "" : ":" + params);
  return row.make(NamedSpec::parse(text, "--policy"), PolicyContext{gamma});
}

SpsTable saturating_sps() {
  std::vector<double> values(4096);
  for (std::size_t b = 0; b < values.size(); ++b) values[b] = 8000.0 / (96.0 + b + 1);
  return SpsTable(values);
}

// One step of a random run: ids with churn (the policy is told who left), confidences with some
// zeros, contexts that grow like real commits, hidden outcomes.
struct RandomRun {
  explicit RandomRun(std::uint64_t seed, int gamma_) : rng(seed), gamma(gamma_) {}

  void next_step(std::vector<VerificationPolicy*> policies, bool all_zero) {
    for (std::size_t i = 0; i < ids.size();) {
      if (rng() % 12 == 0) {
        for (auto* p : policies) p->on_request_left(ids[i]);
        ids.erase(ids.begin() + static_cast<std::ptrdiff_t>(i));
        contexts.erase(contexts.begin() + static_cast<std::ptrdiff_t>(i));
      } else {
        contexts[i] += 1 + static_cast<std::int64_t>(rng() % (gamma + 1));
        ++i;
      }
    }
    const int joins = static_cast<int>(rng() % 40);
    for (int j = 0; j < joins && ids.size() < 300; ++j) {
      ids.push_back(next_id++);
      contexts.push_back(1 + static_cast<std::int64_t>(rng() % 8000));
    }
    if (ids.empty()) {
      ids.push_back(next_id++);
      contexts.push_back(5);
    }
    std::uniform_real_distribution<float> u(0.0f, 1.0f);
    confidences.resize(ids.size() * static_cast<std::size_t>(gamma));
    for (auto& c : confidences) c = all_zero ? 0.0f : (rng() % 8 == 0 ? 0.0f : u(rng));
    hidden.resize(ids.size());
    for (auto& h : hidden) h = static_cast<int>(rng() % (gamma + 1));
  }

  BatchView view(bool with_hidden) const {
    BatchView v{gamma, static_cast<std::int64_t>(ids.size()), ids, confidences, contexts, {}};
    if (with_hidden) v.hidden_accepted = hidden;
    return v;
  }

  std::mt19937_64 rng;
  int gamma;
  std::uint64_t next_id = 0;
  std::vector<std::uint64_t> ids;
  std::vector<std::int64_t> contexts;
  std::vector<float> confidences;
  std::vector<int> hidden;
};

}  // namespace

TEST_CASE("registry names are unique and described, flags consistent") {
  std::set<std::string> names;
  for (const auto& row : policy_registry()) {
    INFO(row.name);
    CHECK(names.insert(std::string(row.name)).second);
    CHECK_FALSE(row.description.empty());
    CHECK(describe_policies().find(std::string(row.name)) != std::string::npos);
    // A policy that reads the hidden outcome cannot be lossless by construction.
    if (row.sees_hidden_outcome) CHECK_FALSE(row.lossless_by_construction);
  }
  for (const char* name :
       {"static", "threshold", "greedy", "async-topk", "retrospective", "goodput", "oracle"}) {
    CHECK(names.count(name) == 1);
  }
}

TEST_CASE("registry flags: the expected lossless and hidden-outcome claims") {
  const auto row = [](const char* name) -> const PolicyRow& {
    return find_policy(NamedSpec::parse(name, "--policy"));
  };
  for (const char* name : {"static", "threshold", "greedy", "async-topk", "goodput"}) {
    INFO(name);
    CHECK(row(name).lossless_by_construction);
    CHECK_FALSE(row(name).sees_hidden_outcome);
  }
  CHECK_FALSE(row("retrospective").lossless_by_construction);
  CHECK_FALSE(row("retrospective").sees_hidden_outcome);
  CHECK_FALSE(row("oracle").lossless_by_construction);
  CHECK(row("oracle").sees_hidden_outcome);
}

TEST_CASE("every policy: sync=on and sync=off decide synchronous(), other values rejected") {
  for (const auto& row : policy_registry()) {
    INFO(row.name);
    CHECK(make_row(row, 5, "sync=on")->synchronous());
    CHECK_FALSE(make_row(row, 5, "sync=off")->synchronous());
    CHECK(make_row(row, 5, "sync=auto")->synchronous() == make_row(row, 5)->synchronous());
    CHECK_THROWS_AS(make_row(row, 5, "sync=yes"), InputError);
    CHECK_THROWS_AS(make_row(row, 5, "no_such_key=1"), InputError);
  }
  // The documented defaults: asynchronous exactly for static and async-topk.
  for (const auto& row : policy_registry()) {
    INFO(row.name);
    const bool async_by_default = row.name == "static" || row.name == "async-topk";
    CHECK(make_row(row, 5)->synchronous() == !async_by_default);
  }
}

TEST_CASE("every policy: lengths in [0, gamma] and deterministic over random runs with churn") {
  const SpsTable sps = saturating_sps();
  for (const auto& row : policy_registry()) {
    for (int gamma : {1, 5, 7}) {
      auto a = make_row(row, gamma);
      auto b = make_row(row, gamma);
      RandomRun run(12345 + static_cast<std::uint64_t>(gamma), gamma);
      for (int step = 0; step < 60; ++step) {
        run.next_step({a.get(), b.get()}, false);
        const auto view = run.view(row.sees_hidden_outcome);
        std::vector<int> la(run.ids.size(), -1), lb(run.ids.size(), -2);
        a->schedule(view, sps, la);
        b->schedule(view, sps, lb);
        INFO(row.name << " gamma " << gamma << " step " << step);
        for (int ell : la) {
          REQUIRE(ell >= 0);
          REQUIRE(ell <= gamma);
        }
        REQUIRE(la == lb);
      }
    }
  }
}

TEST_CASE("confidence-driven policies: zero confidence verifies nothing, zero survival never") {
  const SpsTable sps = saturating_sps();
  const SpsTable flat(std::vector<double>(4096, 100.0));  // idle engine: admit all it can
  for (const auto& row : policy_registry()) {
    if (!row.confidence_driven) continue;
    for (const SpsTable* table : {&sps, &flat}) {
      auto policy = make_row(row, 7);
      RandomRun run(777, 7);
      for (int step = 0; step < 40; ++step) {
        const bool all_zero = step % 4 == 3;
        run.next_step({policy.get()}, all_zero);
        std::vector<int> lengths(run.ids.size(), -1);
        policy->schedule(run.view(row.sees_hidden_outcome), *table, lengths);
        for (std::size_t r = 0; r < run.ids.size(); ++r) {
          std::vector<float> s(7);
          const int positive = compute_survivals(&run.confidences[r * 7], 7, s.data());
          INFO(row.name << " step " << step << " request " << r);
          if (all_zero) REQUIRE(lengths[r] == 0);
          REQUIRE(lengths[r] <= positive);
        }
      }
    }
  }
}

TEST_CASE("confidence-driven policies: an idle engine verifies every positive-survival draft") {
  // Flat SPS: every admission raises Θ, so the load-aware policies verify each positive prefix.
  const SpsTable flat(std::vector<double>(4096, 100.0));
  for (const char* name : {"greedy", "async-topk", "retrospective"}) {
    auto policy = make_policy(NamedSpec::parse(name, "--policy"), PolicyContext{3});
    std::vector<std::uint64_t> ids = {0, 1, 2};
    std::vector<float> conf = {0.9f, 0.5f, 0.1f, 0.7f, 0.0f, 0.9f, 0.0f, 0.3f, 0.3f};
    std::vector<std::int64_t> ctx = {10, 10, 10};
    std::vector<int> lengths(3, -1);
    policy->schedule(BatchView{3, 3, ids, conf, ctx, {}}, flat, lengths);
    INFO(name);
    CHECK(lengths == std::vector<int>{3, 1, 0});
  }
}

TEST_CASE("rank-based policies admit exactly a prefix of the global admission order") {
  // greedy, async-topk and retrospective all cut the order (survival desc, earlier position,
  // lower id) somewhere: Σℓ drafts admitted means the first Σℓ candidates of that order.
  const SpsTable sps = saturating_sps();
  for (const char* name : {"greedy", "async-topk", "retrospective"}) {
    auto policy = make_policy(NamedSpec::parse(name, "--policy"), PolicyContext{6});
    RandomRun run(4242, 6);
    for (int step = 0; step < 40; ++step) {
      run.next_step({policy.get()}, false);
      for (auto& c : run.confidences) c = std::round(c * 4.0f) / 4.0f;  // plenty of ties
      const auto view = run.view(false);
      std::vector<int> lengths(run.ids.size(), -1);
      policy->schedule(view, sps, lengths);
      const auto order = testing::reference_order(view);
      const auto admitted =
          static_cast<std::size_t>(std::accumulate(lengths.begin(), lengths.end(), 0));
      INFO(name << " step " << step);
      REQUIRE(admitted <= order.size());
      REQUIRE(lengths == testing::lengths_of_prefix(order, view.requests, admitted));
    }
  }
}
