// oracle: verifies exactly the hidden accepted count; refuses to run blind.
#include "policies/oracle_policy.hpp"

#include <stdexcept>

#include <catch2/catch.hpp>

#include "policies/policy_registry.hpp"
#include "policy_test_util.hpp"

using namespace sparksim;
using namespace sparksim::testing;

TEST_CASE("oracle: lengths are the hidden accepted counts, confidences ignored") {
  OwnedBatch b = uniform_batch(4, {0.0f, 0.0f, 0.0f});
  b.hidden = {0, 3, 1, 2};
  OraclePolicy policy(true);
  std::vector<int> lengths(4, -1);
  policy.schedule(b.view(true), SpsTable(std::vector<double>{1.0}), lengths);
  CHECK(lengths == std::vector<int>{0, 3, 1, 2});
  CHECK_THROWS_AS(policy.schedule(b.view(false), SpsTable(std::vector<double>{1.0}), lengths),
                  std::logic_error);
}

TEST_CASE("oracle: flagged unsafe and hidden-outcome in the registry") {
  const auto& row = find_policy(NamedSpec::parse("oracle", "--policy"));
  CHECK(row.sees_hidden_outcome);
  CHECK_FALSE(row.lossless_by_construction);
  CHECK(make_policy(NamedSpec::parse("oracle", "--policy"), PolicyContext{3})->synchronous());
  CHECK_FALSE(make_policy(NamedSpec::parse("oracle:sync=off", "--policy"), PolicyContext{3})
                  ->synchronous());
}
