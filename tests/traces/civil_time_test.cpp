// Calendar arithmetic and exact timestamp parsing, checked against std::chrono's civil calendar.
#include "traces/civil_time.hpp"

#include <chrono>

#include <catch2/catch.hpp>

namespace sparksim {
namespace {

static_assert(days_from_civil(1970, 1, 1) == 0);
static_assert(days_from_civil(1969, 12, 31) == -1);
static_assert(days_from_civil(2000, 3, 1) == 11017);
static_assert(days_from_civil(2023, 11, 16) == 19677);

TEST_CASE("days_from_civil agrees with std::chrono for every day of 1600-2400", "[traces][civil]") {
  using namespace std::chrono;
  int checked = 0;
  for (int y = 1600; y <= 2400; ++y) {
    for (int m = 1; m <= 12; ++m) {
      const int last = days_in_month(y, m);
      const year_month_day last_day{year{y} / month{static_cast<unsigned>(m)} / std::chrono::last};
      REQUIRE(static_cast<unsigned>(last_day.day()) == static_cast<unsigned>(last));
      for (int d = 1; d <= last; ++d) {
        const sys_days reference{year{y} / month{static_cast<unsigned>(m)} /
                                 day{static_cast<unsigned>(d)}};
        REQUIRE(days_from_civil(y, m, d) == reference.time_since_epoch().count());
        ++checked;
      }
    }
  }
  CHECK(checked == 292'560);  // 801 years: 801 * 365 + 195 leap days
}

TEST_CASE("parse_civil_time is exact to the nanosecond", "[traces][civil]") {
  CivilTime t;
  REQUIRE(parse_civil_time("2023-11-16 18:17:03.9799600", t).empty());
  CHECK(t.seconds == 19677LL * 86400 + 18LL * 3600 + 17LL * 60 + 3);
  CHECK(t.nanos == 979'960'000);
  REQUIRE(parse_civil_time("1970-01-01 00:00:00", t).empty());
  CHECK(t.seconds == 0);
  CHECK(t.nanos == 0);
  REQUIRE(parse_civil_time("2024-02-29 23:59:59.123456789", t).empty());
  CHECK(t.nanos == 123'456'789);
  REQUIRE(parse_civil_time("2024-02-29 23:59:59.5", t).empty());
  CHECK(t.nanos == 500'000'000);
}

TEST_CASE("parse_civil_time rejects malformed and impossible times", "[traces][civil]") {
  CivilTime t;
  const std::string shape = "expected YYYY-MM-DD HH:MM:SS[.fffffff]";
  CHECK(parse_civil_time("", t) == shape);
  CHECK(parse_civil_time("2023-11-16", t) == shape);
  CHECK(parse_civil_time("2023/11/16 18:17:03", t) == shape);
  CHECK(parse_civil_time("2023-11-16 18:17:0x", t) == shape);
  CHECK(parse_civil_time("2023-11-16 18:17:03,5", t) == shape);
  CHECK(parse_civil_time("2023-11-16 18:17:03.12a", t) == shape);
  CHECK(parse_civil_time("2023-11-16 18:17:03.", t) ==
        "fraction must have 1 to 9 digits (" + shape + ")");
  CHECK(parse_civil_time("2023-11-16 18:17:03.1234567890", t) ==
        "fraction must have 1 to 9 digits (" + shape + ")");
  CHECK(parse_civil_time("2023-00-16 18:17:03", t) == "month 0 is not 1-12");
  CHECK(parse_civil_time("2100-02-29 00:00:00", t) == "day 29 does not exist in 2100-02");
  CHECK(parse_civil_time("2023-04-31 00:00:00", t) == "day 31 does not exist in 2023-04");
  CHECK(parse_civil_time("2023-11-16 18:60:03", t) == "minute 60 is not 0-59");
  CHECK(parse_civil_time("2023-11-16 18:17:60", t) == "second 60 is not 0-59");
}

}  // namespace
}  // namespace sparksim
