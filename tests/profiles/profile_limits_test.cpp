// Absurd time-model coefficients (a unit error, a "zero bandwidth" profile) are refused at the
// offending line, and a step too long for integer nanoseconds is refused instead of overflowing.
#include <limits>
#include <stdexcept>
#include <string>

#include <catch2/catch.hpp>

#include "common/input_error.hpp"
#include "common/json_file.hpp"
#include "common/sim_time.hpp"
#include "profiles/profile_io.hpp"
#include "profiles/time_model.hpp"
#include "tests/profiles/profile_fixture.hpp"

using namespace sparksim;

namespace {

std::string replaced(const std::string& text, const std::string& from, const std::string& to) {
  std::string out = text;
  const auto at = out.find(from);
  REQUIRE(at != std::string::npos);
  return out.replace(at, from.size(), to);
}

std::string load_error(const std::string& text) {
  try {
    profile_from_json(JsonFile::parse(text, "absurd.json"));
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("time-model coefficients past their bounds are refused at their line") {
  const std::string& base = testing::kFixtureProfile;
  REQUIRE(load_error(base).empty());
  CHECK_THAT(load_error(replaced(base, "\"kv_read_ns_per_context_token\": 2",
                                 "\"kv_read_ns_per_context_token\": 1e300")),
             Catch::Contains("absurd.json:25: verify.kv_read_ns_per_context_token"));
  CHECK_THAT(load_error(replaced(base, "\"dense_us\": [100, 130, 170, 250]",
                                 "\"dense_us\": [100, 130, 170, 1e18]")),
             Catch::Contains("absurd.json:24: verify.dense_us[3]"));
  CHECK_THAT(load_error(replaced(base, "\"fixed_us\": 10", "\"fixed_us\": 2e9")),
             Catch::Contains("absurd.json:21: verify.fixed_us"));
  CHECK_THAT(load_error(replaced(base, "\"host_overhead_us\": 150", "\"host_overhead_us\": 1e12")),
             Catch::Contains("absurd.json:19: host_overhead_us"));
  // The bounds themselves are accepted.
  CHECK(load_error(replaced(base, "\"fixed_us\": 10", "\"fixed_us\": 1e9")).empty());
}

TEST_CASE("a step past the simulator's per-step limit throws instead of overflowing") {
  const Profile profile =
      profile_from_json(JsonFile::parse(testing::kFixtureProfile, "fixture.json"));
  const TimeModel model(profile);
  BatchShape shape;
  shape.decode_requests = 1;
  shape.verify_tokens = 1;
  // 2 ns per context token × 1e15 tokens = 2e15 ns, past kMaxStepTime (1e15 ns).
  shape.decode_context_tokens = std::int64_t{1'000'000'000'000'000};
  CHECK_THROWS_AS(model.verify_time(shape), std::overflow_error);
  shape.decode_context_tokens = 1000;
  CHECK(model.verify_time(shape) > 0);
  CHECK(model.verify_time(shape) < kMaxStepTime);
}
