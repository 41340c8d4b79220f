// The comparison metrics behind every GPU check: they must fail on real discrepancies (and on
// NaN) and name the worst element, or a broken kernel would pass silently.
#include "kernels/checks/compare.hpp"

#include <cmath>

#include <catch2/catch.hpp>

namespace sparksim::kernels {
namespace {

TEST_CASE("max_rel is relative to the output's scale", "[kernels][compare]") {
  const std::vector<double> ref = {10.0, -2.0, 0.0, 4.0};
  const auto ok = compare_max_rel("x", {10.0f, -2.0f, 0.05f, 4.0f}, ref, 1e-2);
  CHECK(ok.passed);
  CHECK(ok.error == Approx(0.005).epsilon(1e-4));
  const auto bad = compare_max_rel("x", {10.0f, -2.0f, 0.0f, 4.5f}, ref, 1e-2);
  CHECK_FALSE(bad.passed);
  CHECK(bad.error == Approx(0.05).epsilon(1e-4));
  CHECK(bad.detail.find("worst at [3]") != std::string::npos);
  CHECK(bad.summary().find("FAIL") != std::string::npos);
}

TEST_CASE("NaN and size mismatches fail", "[kernels][compare]") {
  CHECK_FALSE(compare_max_rel("x", {1.0f, NAN}, {1.0, 1.0}, 1.0).passed);
  CHECK_FALSE(compare_nmse("x", {1.0f, NAN}, {1.0, 1.0}, 1.0).passed);
  CHECK_FALSE(compare_nmse("x", {1.0f}, {1.0, 1.0}, 1.0).passed);
}

TEST_CASE("nmse sums squared errors over the reference's energy", "[kernels][compare]") {
  const auto r = compare_nmse("x", {1.0f, 2.1f}, {1.0, 2.0}, 1e-2);
  CHECK(r.error == Approx(0.01 / 5.0).epsilon(1e-3));
  CHECK(r.passed);
  CHECK_FALSE(compare_nmse("x", {1.0f, 2.1f}, {1.0, 2.0}, 1e-3).passed);
}

}  // namespace
}  // namespace sparksim::kernels
