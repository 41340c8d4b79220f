// Domain names round-trip, and unknown names are refused (callers list valid_domain_list()).
#include "traces/domain.hpp"

#include <catch2/catch.hpp>

namespace sparksim {
namespace {

TEST_CASE("domain names round-trip", "[traces][domain]") {
  for (int i = 0; i < kDomainCount; ++i) {
    Domain d = Domain::kMath;
    REQUIRE(parse_domain(domain_name(static_cast<Domain>(i)), d));
    CHECK(d == static_cast<Domain>(i));
  }
  Domain d = Domain::kCode;
  CHECK_FALSE(parse_domain("Chat", d));
  CHECK_FALSE(parse_domain("", d));
  CHECK(d == Domain::kCode);  // untouched on failure
  CHECK(valid_domain_list() == "math, code, chat");
}

}  // namespace
}  // namespace sparksim
