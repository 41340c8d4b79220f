// Table-based sigmoid and standard-normal draws for the acceptance models' hot loop.
// A calibrated draw costs about 2γ sigmoids and γ + 1 normal variates per request-step; at the
// engine's 5-10 M request-steps/s, std::exp and an exact inverse normal CDF would dominate the
// step, so both are tables built once (function-local statics, thread-safe initialisation).
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <numbers>

#if defined(__SSE2__)
#include <immintrin.h>
#endif

namespace sparksim::fast {

// σ(z) = 1 / (1 + e^-z) from a table over [-kSigmoidRange, kSigmoidRange] with 32 points per
// unit, each holding σ and its slope: z is rounded to the nearest point and σ extrapolated
// linearly from it. Absolute error < 1.2e-5 (Taylor remainder (h/2)²/2 · max|σ''| with h = 1/32,
// max|σ''| = 0.0962); outside the range it returns σ(±kSigmoidRange), within 1.2e-7 of 0 or 1.
// The rounding to the nearest point adds and subtracts 1.5·2^23 (round-half-even in the float
// unit, as std::nearbyint would in the default mode, without a library call).
inline constexpr float kSigmoidRange = 16.0f;
inline constexpr int kSigmoidPerUnit = 32;
inline constexpr int kSigmoidPoints = static_cast<int>(2 * kSigmoidRange) * kSigmoidPerUnit + 1;

struct SigmoidPoint {
  float value, slope;  // σ(z_i) and dσ/dz · (1 / kSigmoidPerUnit)
};

inline const std::array<SigmoidPoint, kSigmoidPoints>& sigmoid_table() {
  static const std::array<SigmoidPoint, kSigmoidPoints> table = [] {
    std::array<SigmoidPoint, kSigmoidPoints> t{};
    for (int i = 0; i < kSigmoidPoints; ++i) {
      const double z =
          -static_cast<double>(kSigmoidRange) + static_cast<double>(i) / kSigmoidPerUnit;
      const double s = 1.0 / (1.0 + std::exp(-z));
      t[static_cast<std::size_t>(i)] = {static_cast<float>(s),
                                        static_cast<float>(s * (1 - s) / kSigmoidPerUnit)};
    }
    return t;
  }();
  return table;
}

// x clamped to [lo, hi] without branches (GCC turns std::min/max of floats into compare-and-
// jump here, and the jumps mispredict on random data). x must not be NaN.
inline float clamp(float x, float lo, float hi) {
#if defined(__SSE2__)
  return _mm_cvtss_f32(_mm_min_ss(_mm_max_ss(_mm_set_ss(x), _mm_set_ss(lo)), _mm_set_ss(hi)));
#else
  return std::min(std::max(x, lo), hi);
#endif
}

// σ(z) from a table pointer (hot loops keep sigmoid_table().data() to skip the static's guard).
inline constexpr float kRoundMagic = 12582912.0f;  // 1.5 · 2^23: adding it rounds to an integer
inline constexpr std::uint32_t kRoundMask = 0x3FFFFFu;  // that integer, from the float's bits
inline float sigmoid(const SigmoidPoint* table, float z) {
  const float y = clamp(z * static_cast<float>(kSigmoidPerUnit) + kSigmoidRange * kSigmoidPerUnit,
                        0.0f, static_cast<float>(kSigmoidPoints - 1));
  const float shifted = y + kRoundMagic;
  const std::uint32_t i = std::bit_cast<std::uint32_t>(shifted) & kRoundMask;
  const float f = y - (shifted - kRoundMagic);  // in [-½, ½]
  return table[i].value + f * table[i].slope;
}

inline float sigmoid(float z) {
  return sigmoid(sigmoid_table().data(), z);
}

// Standard normal from 10 random bits: the 1024 mid-quantiles Φ^-1((i + ½) / 1024), rescaled to
// unit variance. A discrete distribution with 1024 equiprobable atoms, tails cut at ±3.1σ: the
// models use it for the latent state's innovations and the confidence head's noise, where that
// resolution is far below every other error (per-request draws use inverse_normal_cdf). One
// 64-bit hash feeds six draws; the table is 4 KiB.
inline constexpr int kNormalBits = 10;
inline constexpr int kNormalEntries = 1 << kNormalBits;

// Φ^-1(p) to about 1e-9 (Acklam's rational approximation refined by one Halley step); used to
// build tables and for per-request draws outside the hot loop.
inline double inverse_normal_cdf(double p) {
  static constexpr double a[] = {-3.969683028665376e+01, 2.209460984245205e+02,
                                 -2.759285104469687e+02, 1.383577518672690e+02,
                                 -3.066479806614716e+01, 2.506628277459239e+00};
  static constexpr double b[] = {-5.447609879822406e+01, 1.615858368580409e+02,
                                 -1.556989798598866e+02, 6.680131188771972e+01,
                                 -1.328068155288572e+01};
  static constexpr double c[] = {-7.784894002430293e-03, -3.223964580411365e-01,
                                 -2.400758277161838e+00, -2.549732539343734e+00,
                                 4.374664141464968e+00,  2.938163982698783e+00};
  static constexpr double d[] = {7.784695709041462e-03, 3.224671290700398e-01,
                                 2.445134137142996e+00, 3.754408661907416e+00};
  p = p < 1e-300 ? 1e-300 : (p > 1.0 - 1e-16 ? 1.0 - 1e-16 : p);
  double x;
  if (p < 0.02425) {
    const double q = std::sqrt(-2 * std::log(p));
    x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
        ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  } else if (p <= 1 - 0.02425) {
    const double q = p - 0.5;
    const double r = q * q;
    x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
        (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
  } else {
    const double q = std::sqrt(-2 * std::log1p(-p));
    x = -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
        ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  }
  const double e = 0.5 * std::erfc(-x / std::sqrt(2.0)) - p;
  const double u = e * std::sqrt(2 * std::numbers::pi) * std::exp(x * x / 2);
  return x - u / (1 + x * u / 2);
}

inline const std::array<float, kNormalEntries>& normal_table() {
  static const std::array<float, kNormalEntries> table = [] {
    std::array<double, kNormalEntries> raw{};
    double sum_sq = 0;
    for (int i = 0; i < kNormalEntries; ++i) {
      raw[static_cast<std::size_t>(i)] = inverse_normal_cdf((i + 0.5) / kNormalEntries);
      sum_sq += raw[static_cast<std::size_t>(i)] * raw[static_cast<std::size_t>(i)];
    }
    const double scale = 1.0 / std::sqrt(sum_sq / kNormalEntries);
    std::array<float, kNormalEntries> t{};
    for (int i = 0; i < kNormalEntries; ++i) {
      t[static_cast<std::size_t>(i)] = static_cast<float>(raw[static_cast<std::size_t>(i)] * scale);
    }
    return t;
  }();
  return table;
}

// The draw for bits [10·slot, 10·slot + 10) of `bits`; slot in 0..5.
inline float normal_from_bits(std::uint64_t bits, int slot) {
  return normal_table()[static_cast<std::size_t>((bits >> (kNormalBits * slot)) &
                                                 (kNormalEntries - 1))];
}

// Logistic quantiles logit((i + ½) / 1024): a Bernoulli(σ(ℓ)) outcome is [table[i] < ℓ] for 10
// random bits i, exact to 1/1024 in probability, with no exp() per draw.
inline const std::array<float, kNormalEntries>& logistic_table() {
  static const std::array<float, kNormalEntries> table = [] {
    std::array<float, kNormalEntries> t{};
    for (int i = 0; i < kNormalEntries; ++i) {
      const double p = (i + 0.5) / kNormalEntries;
      t[static_cast<std::size_t>(i)] = static_cast<float>(std::log(p / (1 - p)));
    }
    return t;
  }();
  return table;
}

inline float logistic_from_bits(std::uint64_t bits, int slot) {
  return logistic_table()[static_cast<std::size_t>((bits >> (kNormalBits * slot)) &
                                                   (kNormalEntries - 1))];
}

// Logit with the argument clipped to [1e-7, 1 - 1e-7] (a probability of exactly 0 or 1 maps to
// the edge of the sigmoid table rather than to infinity).
inline double logit(double p) {
  p = p < 1e-7 ? 1e-7 : (p > 1 - 1e-7 ? 1 - 1e-7 : p);
  return std::log(p / (1 - p));
}

}  // namespace sparksim::fast
