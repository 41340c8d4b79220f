// STS fitting, the held-out split and the temperatures file.
#include "sim/acceptance/sequential_temperature_scaling.hpp"

#include <cmath>
#include <limits>

#include "common/json_file.hpp"
#include "common/rng.hpp"
#include "sim/acceptance/fast_math.hpp"

namespace sparksim {

namespace {

// ECE of prefix[r] * σ(z[r] / t) against y.
double ece_at(double t, const std::vector<double>& prefix, const std::vector<float>& z,
              const std::vector<std::uint8_t>& y, std::vector<double>& scratch) {
  const float inv = static_cast<float>(1.0 / t);
  for (std::size_t r = 0; r < prefix.size(); ++r) {
    scratch[r] = prefix[r] * fast::sigmoid(z[r] * inv);
  }
  return expected_calibration_error(scratch, y);
}

}  // namespace

std::vector<double> fit_sts_temperatures(const ConfidenceSample& sample,
                                         const StsOptions& options) {
  const auto g = static_cast<std::size_t>(sample.gamma);
  const std::size_t stride =
      std::max<std::size_t>(1, (sample.rows() + options.max_fit_rows - 1) / options.max_fit_rows);
  std::vector<std::size_t> rows;
  for (std::size_t r = 0; r < sample.rows(); r += stride) rows.push_back(r);
  const std::size_t n = rows.size();

  std::vector<double> temperatures(g, 1.0);
  std::vector<double> prefix(n, 1.0), scratch(n);
  std::vector<float> z(n);
  std::vector<std::uint8_t> y(n);
  const double ratio = std::pow(options.t_max / options.t_min, 1.0 / (options.grid_points - 1));
  for (std::size_t k = 0; k < g; ++k) {
    for (std::size_t i = 0; i < n; ++i) {
      z[i] = static_cast<float>(fast::logit(sample.confidences[rows[i] * g + k]));
      y[i] = sample.accepted[rows[i]] > static_cast<int>(k) ? 1 : 0;
    }
    double best_t = 1.0, best = std::numeric_limits<double>::infinity();
    int best_i = 0;
    for (int i = 0; i < options.grid_points; ++i) {
      const double t = options.t_min * std::pow(ratio, i);
      const double e = ece_at(t, prefix, z, y, scratch);
      if (e < best) {
        best = e;
        best_t = t;
        best_i = i;
      }
    }
    const double lo = options.t_min * std::pow(ratio, std::max(0, best_i - 1));
    const double hi =
        options.t_min * std::pow(ratio, std::min(options.grid_points - 1, best_i + 1));
    for (int i = 0; i < options.refine_points; ++i) {
      const double t = lo + (hi - lo) * i / (options.refine_points - 1);
      const double e = ece_at(t, prefix, z, y, scratch);
      if (e < best) {
        best = e;
        best_t = t;
      }
    }
    temperatures[k] = best_t;
    const float inv = static_cast<float>(1.0 / best_t);
    for (std::size_t i = 0; i < n; ++i) prefix[i] *= fast::sigmoid(z[i] * inv);
  }
  return temperatures;
}

std::pair<ConfidenceSample, ConfidenceSample> split_by_request(const ConfidenceSample& sample,
                                                               double heldout_fraction,
                                                               std::uint64_t seed) {
  ConfidenceSample fit, held;
  fit.gamma = held.gamma = sample.gamma;
  const auto g = static_cast<std::size_t>(sample.gamma);
  const std::uint64_t key = derive_seed(seed, static_cast<std::uint64_t>(StreamId::kStsSplit));
  for (std::size_t r = 0; r < sample.rows(); ++r) {
    const std::uint64_t id = sample.request_ids.empty() ? r : sample.request_ids[r];
    ConfidenceSample& side = counter_uniform(key, id) < heldout_fraction ? held : fit;
    side.add(id, std::span<const float>(sample.confidences.data() + r * g, g), sample.accepted[r]);
  }
  return {std::move(fit), std::move(held)};
}

void write_sts_file(const std::string& path, const std::vector<double>& temperatures,
                    const nlohmann::ordered_json& extra) {
  nlohmann::ordered_json j;
  j["format"] = "sparksim-sts";
  j["version"] = 1;
  j["gamma"] = temperatures.size();
  j["temperatures"] = temperatures;
  for (const auto& [key, value] : extra.items()) j[key] = value;
  write_file_atomically(path, format_json(j));
}

std::vector<double> load_sts_temperatures(const std::string& path, int gamma) {
  const JsonFile f = JsonFile::load(path);
  using P = JsonFile::Pointer;
  if (f.get_string(P("/format")) != "sparksim-sts") {
    f.fail(P("/format"), "format is not \"sparksim-sts\" (write one with `sparksim calibrate`)");
  }
  f.get_int(P("/version"), 1, 1);
  const auto file_gamma = f.get_int(P("/gamma"), 1, 1000);
  if (file_gamma != gamma) {
    f.fail(P("/gamma"), "temperatures were fitted for γ = " + std::to_string(file_gamma) +
                            " but the drafter has γ = " + std::to_string(gamma));
  }
  auto t = f.get_number_array(P("/temperatures"), NumberRange::positive(),
                              static_cast<std::size_t>(gamma));
  if (t.size() != static_cast<std::size_t>(gamma)) {
    f.fail(P("/temperatures"), "has " + std::to_string(t.size()) + " entries; γ = " +
                                   std::to_string(gamma) + " needs exactly that many");
  }
  return t;
}

}  // namespace sparksim
