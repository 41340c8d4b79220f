// Known answers for the CPU reference ops, the oracle every CUDA kernel is judged against: each
// expected value is worked by hand or a closed form (noted beside it), never taken from the
// reference code, so a wrong reference fails here before it can bless a wrong kernel.
#include "kernels/reference/ops_ref.hpp"

#include <cmath>
#include <numbers>
#include <vector>

#include <catch2/catch.hpp>

namespace sparksim::kernels {
namespace {

constexpr double kTol = 1e-12;  // the references accumulate in double; these cases are tiny

TEST_CASE("rms_norm: hand-worked values, gain and eps", "[kernels][ops_ref]") {
  // x = (3, 4): mean(x²) = 12.5, so out = x / sqrt(12.5) · gain.
  const std::vector<double> x = {3.0, 4.0};
  const std::vector<float> gain = {1.0f, 2.0f};
  std::vector<double> out(2);
  rms_norm_ref(x.data(), gain.data(), 2, 0.0, out.data());
  CHECK(out[0] == Approx(3.0 / std::sqrt(12.5)).epsilon(kTol));  // 0.848528...
  CHECK(out[1] == Approx(8.0 / std::sqrt(12.5)).epsilon(kTol));  // 2.262741...
  // eps is added to the mean square: x = (1), eps = 3 gives 1 / sqrt(4) = 0.5.
  const double one = 1.0;
  const float unit = 1.0f;
  double single = 0;
  rms_norm_ref(&one, &unit, 1, 3.0, &single);
  CHECK(single == Approx(0.5).epsilon(kTol));
  // A constant vector normalises to the gain itself.
  const std::vector<double> flat = {-2.0, -2.0, -2.0, -2.0};
  const std::vector<float> g4 = {1.0f, 0.5f, 3.0f, -1.0f};
  std::vector<double> o4(4);
  rms_norm_ref(flat.data(), g4.data(), 4, 0.0, o4.data());
  for (int i = 0; i < 4; ++i) CHECK(o4[i] == Approx(-static_cast<double>(g4[i])).epsilon(kTol));
}

TEST_CASE("matvec: y = W x, row-major", "[kernels][ops_ref]") {
  // [[1, 2, 3], [4, 5, 6]] · (1, 0, -1) = (1 - 3, 4 - 6) = (-2, -2); · (2, 1, 0) = (4, 13).
  const std::vector<float> w = {1, 2, 3, 4, 5, 6};
  std::vector<double> y(2);
  const std::vector<double> a = {1, 0, -1};
  matvec_ref(w.data(), a.data(), 2, 3, y.data());
  CHECK(y == std::vector<double>{-2.0, -2.0});
  const std::vector<double> b = {2, 1, 0};
  matvec_ref(w.data(), b.data(), 2, 3, y.data());
  CHECK(y == std::vector<double>{4.0, 13.0});
}

TEST_CASE("rope: NeoX pairs (i, i + d/2) rotate by position · theta^(-2i/d)",
          "[kernels][ops_ref]") {
  // head_dim 4, theta 10000: pair (0, 2) turns by p rad, pair (1, 3) by p / 100 rad.
  // Rotating (a, b) by φ gives (a cos φ - b sin φ, b cos φ + a sin φ).
  std::vector<double> head = {1.0, 2.0, 0.0, 0.5};
  rope_ref(head.data(), 4, 3, 10000.0);
  CHECK(head[0] == Approx(std::cos(3.0)).epsilon(kTol));
  CHECK(head[2] == Approx(std::sin(3.0)).epsilon(kTol));
  CHECK(head[1] == Approx(2.0 * std::cos(0.03) - 0.5 * std::sin(0.03)).epsilon(kTol));
  CHECK(head[3] == Approx(0.5 * std::cos(0.03) + 2.0 * std::sin(0.03)).epsilon(kTol));
  // Position 0 is the identity.
  std::vector<double> same = {0.25, -1.0, 4.0, 8.0};
  rope_ref(same.data(), 4, 0, 10000.0);
  CHECK(same == std::vector<double>{0.25, -1.0, 4.0, 8.0});
  // theta = 1: every pair turns by the position itself; position 1 on (1, 0): (cos 1, sin 1).
  std::vector<double> unit_theta = {1.0, 1.0, 0.0, 0.0};
  rope_ref(unit_theta.data(), 4, 1, 1.0);
  CHECK(unit_theta[0] == Approx(std::cos(1.0)).epsilon(kTol));
  CHECK(unit_theta[1] == Approx(std::cos(1.0)).epsilon(kTol));
  CHECK(unit_theta[2] == Approx(std::sin(1.0)).epsilon(kTol));
  CHECK(unit_theta[3] == Approx(std::sin(1.0)).epsilon(kTol));
}

TEST_CASE("qk_norm_rope: per-head norm with its own gain, then the rotation, values untouched",
          "[kernels][ops_ref]") {
  // head_dim 2, one query, one key and one value head at position 1 (the pair turns by 1 rad).
  // Query (3, 4): rms sqrt(12.5), gain (2, 2) -> (6, 8) / sqrt(12.5). Key (1, -1): rms 1, gain
  // (1, 0.5) -> (1, -0.5). Value (7, 9) as it was.
  std::vector<double> qkv = {3.0, 4.0, 1.0, -1.0, 7.0, 9.0};
  const std::vector<float> q_norm = {2.0f, 2.0f};
  const std::vector<float> k_norm = {1.0f, 0.5f};
  qk_norm_rope_ref(qkv.data(), q_norm.data(), k_norm.data(), 1, 1, 2, 1, 0.0, 10000.0);
  const double a = 6.0 / std::sqrt(12.5);
  const double b = 8.0 / std::sqrt(12.5);
  CHECK(qkv[0] == Approx(a * std::cos(1.0) - b * std::sin(1.0)).epsilon(kTol));
  CHECK(qkv[1] == Approx(b * std::cos(1.0) + a * std::sin(1.0)).epsilon(kTol));
  CHECK(qkv[2] == Approx(std::cos(1.0) + 0.5 * std::sin(1.0)).epsilon(kTol));
  CHECK(qkv[3] == Approx(-0.5 * std::cos(1.0) + std::sin(1.0)).epsilon(kTol));
  CHECK(qkv[4] == 7.0);
  CHECK(qkv[5] == 9.0);
}

TEST_CASE("swiglu: silu(g) · u at closed-form points", "[kernels][ops_ref]") {
  // silu(0) = 0; silu(ln 3) = ln 3 / (1 + 1/3) = 0.75 ln 3; silu(-ln 3) = -ln 3 / 4.
  const double ln3 = std::log(3.0);
  const std::vector<double> gate = {0.0, ln3, -ln3, 50.0};
  const std::vector<double> up = {7.0, 2.0, 4.0, 1.0};
  std::vector<double> out(4);
  swiglu_ref(gate.data(), up.data(), 4, out.data());
  CHECK(out[0] == 0.0);
  CHECK(out[1] == Approx(1.5 * ln3).epsilon(kTol));
  CHECK(out[2] == Approx(-ln3).epsilon(kTol));
  CHECK(out[3] == Approx(50.0).epsilon(1e-15));  // silu(50) = 50 / (1 + e^-50)
}

TEST_CASE("softmax: exact ratios, temperature, overflow-safe", "[kernels][ops_ref]") {
  // Logits (0, ln 2, ln 3) give weights 1 : 2 : 3.
  const std::vector<double> logits = {0.0, std::log(2.0), std::log(3.0)};
  std::vector<double> p(3);
  softmax_ref(logits.data(), 3, 1.0, p.data());
  CHECK(p[0] == Approx(1.0 / 6).epsilon(kTol));
  CHECK(p[1] == Approx(2.0 / 6).epsilon(kTol));
  CHECK(p[2] == Approx(3.0 / 6).epsilon(kTol));
  // Doubled logits at temperature 2 are the same distribution.
  const std::vector<double> doubled = {0.0, 2 * std::log(2.0), 2 * std::log(3.0)};
  softmax_ref(doubled.data(), 3, 2.0, p.data());
  CHECK(p[2] == Approx(0.5).epsilon(kTol));
  // Huge equal logits: no overflow, uniform.
  const std::vector<double> huge = {1000.0, 1000.0, 1000.0, 1000.0};
  std::vector<double> q(4);
  softmax_ref(huge.data(), 4, 1.0, q.data());
  for (double x : q) CHECK(x == Approx(0.25).epsilon(kTol));
}

TEST_CASE("attention: weights from scaled scores, strided cache", "[kernels][ops_ref]") {
  // head_dim 2, scale 1/sqrt(2). q = (sqrt(2) ln 3, 0); keys (0, 0) and (1, 0) score 0 and ln 3,
  // so the weights are 1/4 and 3/4; values (4, 0) and (0, 8) mix to (1, 6). Stride 3: one float
  // of padding after each position, which must be skipped.
  const std::vector<double> q = {std::numbers::sqrt2 * std::log(3.0), 0.0};
  const std::vector<float> k = {0.0f, 0.0f, 99.0f, 1.0f, 0.0f, 99.0f};
  const std::vector<float> v = {4.0f, 0.0f, 99.0f, 0.0f, 8.0f, 99.0f};
  std::vector<double> out(2);
  attention_ref(q.data(), k.data(), v.data(), 2, 3, 2, out.data());
  CHECK(out[0] == Approx(1.0).epsilon(kTol));
  CHECK(out[1] == Approx(6.0).epsilon(kTol));
  // One position: the output is its value, whatever the score.
  attention_ref(q.data(), k.data() + 3, v.data() + 3, 1, 3, 2, out.data());
  CHECK(out[0] == Approx(0.0).margin(kTol));
  CHECK(out[1] == Approx(8.0).epsilon(kTol));
}

}  // namespace
}  // namespace sparksim::kernels
