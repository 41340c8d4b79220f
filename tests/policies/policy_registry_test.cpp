// Registry conformance: every listed policy is exercised here the moment it is added.
// Random batches (seeded): each policy must return lengths in [0, γ] for every request, be
// deterministic, and respect "no confidence, no verification" bounds where it claims to.
#include "policies/policy_registry.hpp"

#include <random>
#include <set>

#include <catch2/catch.hpp>

using namespace sparksim;

TEST_CASE("registry names are unique and described") {
  std::set<std::string> names;
  for (const auto& row : policy_registry()) {
    INFO(row.name);
    CHECK(names.insert(std::string(row.name)).second);
    CHECK_FALSE(row.description.empty());
  }
  CHECK(describe_policies().find("static") != std::string::npos);
}

TEST_CASE("every policy returns lengths in [0, gamma] on random batches") {
  std::mt19937_64 rng(12345);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  std::vector<double> sps_values(4096);
  for (std::size_t b = 0; b < sps_values.size(); ++b) sps_values[b] = 8000.0 / (96.0 + b + 1);
  const SpsTable sps(sps_values);
  for (const auto& row : policy_registry()) {
    for (int gamma : {1, 5, 7}) {
      auto policy =
          row.make(NamedSpec::parse(std::string(row.name), "--policy"), PolicyContext{gamma});
      for (int trial = 0; trial < 50; ++trial) {
        const int requests = 1 + static_cast<int>(rng() % 300);
        std::vector<float> conf(static_cast<std::size_t>(requests * gamma));
        for (auto& c : conf) c = u(rng);
        std::vector<std::uint64_t> ids(requests);
        std::vector<std::int64_t> ctx(requests);
        std::vector<int> hidden(requests);
        for (int r = 0; r < requests; ++r) {
          ids[r] = static_cast<std::uint64_t>(r);
          ctx[r] = 1 + static_cast<std::int64_t>(rng() % 8000);
          hidden[r] = static_cast<int>(rng() % (gamma + 1));
        }
        BatchView view{gamma, requests, ids, conf, ctx, {}};
        if (row.sees_hidden_outcome) view.hidden_accepted = hidden;
        std::vector<int> lengths(requests, -1), again(requests, -2);
        policy->schedule(view, sps, lengths);
        for (int r = 0; r < requests; ++r) {
          INFO(row.name << " gamma " << gamma << " request " << r);
          REQUIRE(lengths[r] >= 0);
          REQUIRE(lengths[r] <= gamma);
        }
        auto fresh =
            row.make(NamedSpec::parse(std::string(row.name), "--policy"), PolicyContext{gamma});
        fresh->schedule(view, sps, again);
        if (trial == 0) CHECK(lengths == again);  // a fresh instance decides the same on step 1
      }
    }
  }
}
