// Static policy and policy-spec parsing.
#include "policies/static_policy.hpp"

#include <catch2/catch.hpp>

#include "common/input_error.hpp"
#include "common/named_spec.hpp"
#include "policies/policy_registry.hpp"

using namespace sparksim;

TEST_CASE("static:k=N verifies N drafts for every request") {
  const SpsTable sps(std::vector<double>{100, 90, 80});
  std::vector<float> conf(3 * 7, 0.5f);
  std::vector<std::uint64_t> ids = {1, 2, 3};
  std::vector<std::int64_t> ctx = {10, 20, 30};
  BatchView view{7, 3, ids, conf, ctx, {}};
  std::vector<int> lengths(3, -1);
  auto policy = make_policy(NamedSpec::parse("static:k=3", "--policy"), PolicyContext{7});
  policy->schedule(view, sps, lengths);
  CHECK(lengths == std::vector<int>{3, 3, 3});
  CHECK_FALSE(policy->synchronous());
}

TEST_CASE("static:k defaults to 1 and rejects k above the block size") {
  auto policy = make_policy(NamedSpec::parse("static", "--policy"), PolicyContext{1});
  std::vector<int> lengths(1, -1);
  std::vector<float> conf(1, 0.9f);
  std::vector<std::uint64_t> ids = {0};
  std::vector<std::int64_t> ctx = {5};
  policy->schedule(BatchView{1, 1, ids, conf, ctx, {}}, SpsTable(std::vector<double>{1.0}),
                   lengths);
  CHECK(lengths[0] == 1);
  try {
    make_policy(NamedSpec::parse("static:k=2", "--policy"), PolicyContext{1});
    FAIL("k above gamma accepted");
  } catch (const InputError& e) {
    CHECK_THAT(e.what(), Catch::Contains("k=2 is out of range [0, 1]"));
  }
}

TEST_CASE("spec parsing: malformed parameters, duplicates, unknown keys, unknown names") {
  CHECK_THROWS_WITH(NamedSpec::parse(":k=1", "--policy"), Catch::Contains("has no name"));
  CHECK_THROWS_WITH(NamedSpec::parse("static:k", "--policy"), Catch::Contains("key=value"));
  CHECK_THROWS_WITH(NamedSpec::parse("static:k=1,k=2", "--policy"), Catch::Contains("given twice"));
  CHECK_THROWS_WITH(make_policy(NamedSpec::parse("static:kk=1", "--policy"), PolicyContext{7}),
                    Catch::Contains("unknown parameter 'kk'") && Catch::Contains("valid: k"));
  CHECK_THROWS_WITH(make_policy(NamedSpec::parse("static:k=x", "--policy"), PolicyContext{7}),
                    Catch::Contains("is not an integer"));
  CHECK_THROWS_WITH(make_policy(NamedSpec::parse("bogus", "--policy"), PolicyContext{7}),
                    Catch::Contains("unknown policy 'bogus'") && Catch::Contains("valid: static"));
}
