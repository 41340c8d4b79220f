// Conformance of every registered acceptance model: it builds for a usual drafter and target,
// fills confidences in [0, 1] and outcomes in [0, γ], and its draws do not depend on which other
// requests share the batch. A new row is tested the moment it is listed.
#include "sim/acceptance/acceptance_registry.hpp"

#include <set>

#include <catch2/catch.hpp>

#include "acceptance_test_support.hpp"
#include "common/input_error.hpp"

using namespace sparksim;

namespace {

// A spec each row can be built from: rows that need a file get one.
NamedSpec spec_for(const AcceptanceRow& row, const sparksim::testing::ScratchDir& dir) {
  if (row.name == "replay") {
    std::string log =
        "# sparksim acceptance log v1: gamma=5 drafter=dspark-5 target=qwen3-8b seed=1 "
        "acceptance=calibrated\nrequest_id,decode_step,domain,generated,verified,first_rejected,"
        "c1,c2,c3,c4,c5\n";
    for (int id = 0; id < 8; ++id) {
      for (int t = 0; t < 6; ++t) {
        log += std::to_string(id) + "," + std::to_string(t) + ",chat,0,5," +
               std::to_string(1 + (id + t) % 6) + ",0.9,0.8,0.7,0.6,0.5\n";
      }
    }
    return NamedSpec::parse("replay:log=" + dir.write("log.csv", log), "--acceptance");
  }
  return NamedSpec::parse(std::string(row.name), "--acceptance");
}

}  // namespace

TEST_CASE("every acceptance model draws valid, batch-independent outputs") {
  sparksim::testing::ScratchDir dir;
  const AcceptanceContext context{{DrafterFamily::kDspark, 5, "dspark-5"}, "qwen3-8b", 3};
  std::set<std::string> names;
  for (const AcceptanceRow& row : acceptance_registry()) {
    INFO(row.name);
    CHECK(names.insert(std::string(row.name)).second);  // no duplicate names
    CHECK_FALSE(row.description.empty());
    const NamedSpec spec = spec_for(row, dir);
    auto batched = make_acceptance_model(spec, context);
    auto alone = make_acceptance_model(spec, context);
    const int n = 8;
    std::vector<AcceptanceState> sb(n), sa(n);
    std::vector<std::int64_t> generated(n, 0);  // as the engine counts it: min(ℓ, hidden) + 1
    for (int i = 0; i < n; ++i) {
      batched->init_request(static_cast<std::uint64_t>(i), Domain::kMath, sb[i]);
      alone->init_request(static_cast<std::uint64_t>(i), Domain::kMath, sa[i]);
    }
    for (int t = 0; t < 6; ++t) {
      std::vector<DraftSlot> slots;
      for (int i = n - 1; i >= 0; --i) {
        slots.push_back({static_cast<std::uint64_t>(i), Domain::kMath, t, generated[i], &sb[i]});
      }
      std::vector<float> c(n * 5);
      std::vector<int> h(n);
      batched->draft(slots, 5, c, h);
      batched->on_verified(slots, std::vector<int>(n, 5));
      for (int j = 0; j < n; ++j) {
        CHECK(h[j] >= 0);
        CHECK(h[j] <= 5);
        for (int k = 0; k < 5; ++k) {
          CHECK(c[j * 5 + k] >= 0.0f);
          CHECK(c[j * 5 + k] <= 1.0f);
        }
      }
      // The same requests drafted one at a time, in the other order.
      for (int i = 0; i < n; ++i) {
        const DraftSlot slot{static_cast<std::uint64_t>(i), Domain::kMath, t, generated[i], &sa[i]};
        std::vector<float> ca(5);
        int ha = -1;
        alone->draft(std::span<const DraftSlot>(&slot, 1), 5, ca, std::span<int>(&ha, 1));
        alone->on_verified(std::span<const DraftSlot>(&slot, 1), std::vector<int>{5});
        const int j = n - 1 - i;
        CHECK(ha == h[j]);
        for (int k = 0; k < 5; ++k) CHECK(ca[k] == c[j * 5 + k]);
      }
      for (int j = 0; j < n; ++j) generated[n - 1 - j] += std::min(5, h[j]) + 1;
    }
  }
}

TEST_CASE("unknown models and keys are input errors that list the valid ones") {
  const AcceptanceContext context{{DrafterFamily::kDspark, 7, "dspark-7"}, "qwen3-8b", 1};
  CHECK_THROWS_WITH(
      make_acceptance_model(NamedSpec::parse("magic", "--acceptance"), context),
      Catch::Contains("bernoulli") && Catch::Contains("calibrated") && Catch::Contains("replay"));
  CHECK_THROWS_WITH(
      make_acceptance_model(NamedSpec::parse("calibrated:aucc=0.8", "--acceptance"), context),
      Catch::Contains("unknown parameter 'aucc'"));
  CHECK_THROWS_AS(
      make_acceptance_model(NamedSpec::parse("calibrated:auc=1.5", "--acceptance"), context),
      InputError);
  CHECK_THROWS_WITH(make_acceptance_model(
                        NamedSpec::parse("calibrated:auc=0.8,signal=1", "--acceptance"), context),
                    Catch::Contains("not both"));
  CHECK_THROWS_WITH(make_acceptance_model(NamedSpec::parse("replay", "--acceptance"), context),
                    Catch::Contains("log=PATH"));
  const AcceptanceContext big{{DrafterFamily::kDspark, 20, "dspark-20"}, "qwen3-8b", 1};
  CHECK_THROWS_WITH(make_acceptance_model(NamedSpec::parse("calibrated", "--acceptance"), big),
                    Catch::Contains("block sizes 1..15"));
}
