// threshold: raw-confidence and survival modes, defaults, parameter validation.
#include "policies/threshold_policy.hpp"

#include <catch2/catch.hpp>

#include "common/input_error.hpp"
#include "policies/policy_registry.hpp"
#include "policy_test_util.hpp"

using namespace sparksim;
using namespace sparksim::testing;

namespace {
std::vector<int> run(const std::string& spec, const OwnedBatch& b) {
  auto policy = make_policy(NamedSpec::parse(spec, "--policy"), PolicyContext{b.gamma});
  std::vector<int> lengths(b.ids.size(), -1);
  policy->schedule(b.view(), SpsTable(std::vector<double>{1.0}), lengths);
  return lengths;
}
}  // namespace

TEST_CASE("threshold: raw mode cuts at the first confidence below t") {
  OwnedBatch b = uniform_batch(1, {0.9f, 0.4f, 0.9f});
  CHECK(run("threshold:t=0.5", b) == std::vector<int>{1});
  CHECK(run("threshold:t=0.4", b) == std::vector<int>{3});  // c >= t is kept
  CHECK(run("threshold:t=0.95", b) == std::vector<int>{0});
  CHECK(run("threshold:t=0", uniform_batch(2, {0.0f, 0.0f})) == std::vector<int>{2, 2});
  CHECK(run("threshold", uniform_batch(2, {0.0f, 0.0f})) == std::vector<int>{0, 0});  // t = 0.5
}

TEST_CASE("threshold: survival mode cuts at the first cumulative product below t") {
  // Survivals 0.9, 0.72, 0.648: t = 0.7 keeps two, raw mode would keep all three.
  OwnedBatch b = uniform_batch(1, {0.9f, 0.8f, 0.9f});
  CHECK(run("threshold:t=0.7,mode=survival", b) == std::vector<int>{2});
  CHECK(run("threshold:t=0.7,mode=raw", b) == std::vector<int>{3});
  CHECK(run("threshold:t=0.6,mode=survival", b) == std::vector<int>{3});
}

TEST_CASE("threshold: per-request decisions, synchronous by default, bad parameters rejected") {
  OwnedBatch b;
  b.gamma = 2;
  b.ids = {0, 1, 2};
  b.confidences = {0.9f, 0.9f, 0.2f, 0.9f, 0.6f, 0.1f};
  b.contexts = {1, 1, 1};
  CHECK(run("threshold:t=0.5", b) == std::vector<int>{2, 0, 1});
  CHECK(make_policy(NamedSpec::parse("threshold", "--policy"), PolicyContext{2})->synchronous());
  CHECK_THROWS_WITH(make_policy(NamedSpec::parse("threshold:t=1.5", "--policy"), PolicyContext{2}),
                    Catch::Contains("t=1.5 is out of range"));
  CHECK_THROWS_WITH(
      make_policy(NamedSpec::parse("threshold:mode=cumulative", "--policy"), PolicyContext{2}),
      Catch::Contains("raw, survival"));
  CHECK_THROWS_AS(make_policy(NamedSpec::parse("threshold:k=2", "--policy"), PolicyContext{2}),
                  InputError);
}
