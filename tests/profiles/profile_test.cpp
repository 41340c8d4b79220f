// Profile::kv_capacity_tokens by hand, including the edge cases the loader rejects (no room) and
// the floor at a fractional token.
#include "profiles/profile.hpp"

#include <catch2/catch.hpp>

namespace sparksim {
namespace {

TEST_CASE("kv_capacity_tokens is the room left after the weights, in whole tokens") {
  Profile p;
  p.hbm_bytes = 1000;
  p.memory_utilization = 0.9;
  p.weights_bytes = 400;
  p.kv_bytes_per_token = 7;
  CHECK(p.kv_capacity_tokens() == 71);  // (900 - 400) / 7 = 71.4

  // Qwen3-8B on an 80 GB H100: (72e9 - 16,381,470,720) / 147,456 = 377,187.29.
  p.hbm_bytes = 80e9;
  p.weights_bytes = 16'381'470'720;
  p.kv_bytes_per_token = 147'456;
  CHECK(p.kv_capacity_tokens() == 377'187);

  p.weights_bytes = 80e9;  // no room
  CHECK(p.kv_capacity_tokens() == 0);
  p.kv_bytes_per_token = 0;
  CHECK(p.kv_capacity_tokens() == 0);
}

}  // namespace
}  // namespace sparksim
