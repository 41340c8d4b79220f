// The paper's Appendix A counterexample, reproduced by sampling (issue 4's required outcome):
// retrospective P(A) = 0.85 ± 0.005, greedy 0.70 ± 0.005, both taken from the policy registry by
// name. With 10^6 trials the standard error is 0.00036, so ±0.005 is ±14 standard errors: the
// checks fail by chance with negligible probability. A policy missing from the registry is
// reported with WARN (not a pass) until it lands.
#include "experiments/lossless_appendix_a.hpp"

#include <catch2/catch.hpp>

#include "common/input_error.hpp"
#include "policies/policy_registry.hpp"

using namespace sparksim;

namespace {

constexpr std::int64_t kTrials = 1'000'000;

bool registered(const std::string& name) {
  for (const auto& row : policy_registry()) {
    if (row.name == name) return true;
  }
  WARN("policy '" << name << "' is not registered yet: its Appendix A check did not run");
  return false;
}

}  // namespace

TEST_CASE("Appendix A world has the published confidences") {
  TokenLevelModel model = make_appendix_a_model(3);
  int after_a = 0, after_b = 0;
  for (std::uint64_t id = 0; id < 200; ++id) {
    AcceptanceState state{};
    model.init_request(id, Domain::kChat, state);
    const DraftSlot slot{id, Domain::kChat, 0, 0, &state};
    std::vector<float> c(2);
    std::vector<int> hidden(1);
    model.draft({&slot, 1}, 2, c, hidden);
    CHECK(c[0] == Approx(0.8).margin(1e-7));
    // c_2 is 0.9 or 0 depending on the drafted x_1 (the policy cannot see x_1 itself).
    if (c[1] > 0.5f) {
      CHECK(c[1] == Approx(0.9).margin(1e-7));
      ++after_a;
    } else {
      CHECK(c[1] == 0.0f);
      ++after_b;
    }
  }
  CHECK(after_a > 60);
  CHECK(after_b > 60);
}

TEST_CASE("Appendix A retrospective outputs A with probability 0.85") {
  REQUIRE(registered("retrospective"));
  const AppendixAResult r = run_appendix_a("retrospective", kTrials, 1);
  INFO("P(A) = " << r.p_a << ", verified 0/1/2: " << r.lengths[0] << "/" << r.lengths[1] << "/"
                 << r.lengths[2]);
  CHECK(r.p_a == Approx(0.85).margin(0.005));
  // It verifies both drafts exactly when c_2 = 0.9 (x_1 = A, half the time), else none.
  CHECK(r.lengths[1] == 0);
  CHECK(static_cast<double>(r.lengths[2]) / kTrials == Approx(0.5).margin(0.005));
}

TEST_CASE("Appendix A greedy outputs A with probability 0.70") {
  REQUIRE(registered("greedy"));
  const AppendixAResult r = run_appendix_a("greedy", kTrials, 1);
  INFO("P(A) = " << r.p_a);
  CHECK(r.p_a == Approx(0.70).margin(0.005));
  CHECK(r.lengths[0] == kTrials);  // the causal early stop returns length 0
}

TEST_CASE("Appendix A lossless controls from the registry give 0.70") {
  // Static lengths ignore the drafts: verifying none, one or both keeps P(A) = 0.7.
  for (const char* spec : {"static:k=0", "static:k=1", "static:k=2"}) {
    const AppendixAResult r = run_appendix_a(spec, 200'000, 2);
    INFO(spec << ": P(A) = " << r.p_a);
    CHECK(r.p_a == Approx(0.70).margin(0.006));  // 0.006 = 5.9 standard errors at 2e5 trials
  }
  CHECK_THROWS_AS(run_appendix_a("no-such-policy", 1000, 1), InputError);
}
