// Spec parsing for the calibrated and replay models.
#include "sim/acceptance/acceptance_factories.hpp"

#include <optional>

#include "common/input_error.hpp"
#include "sim/acceptance/calibrated_model.hpp"
#include "sim/acceptance/log_replay_model.hpp"
#include "sim/acceptance/published_curves.hpp"
#include "sim/acceptance/sequential_temperature_scaling.hpp"

namespace sparksim {

std::string spec_path(const NamedSpec& spec, const std::string& key) {
  const std::string& text = spec.text();
  const auto colon = text.find(':');
  if (colon == std::string::npos) return spec.get_choice(key, "", {});
  std::size_t pos = colon + 1;
  while (pos <= text.size()) {
    const auto comma = text.find(',', pos);
    const std::string item =
        text.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    const auto eq = item.find('=');
    if (eq != std::string::npos && item.substr(0, eq) == key) {
      const std::string value = item.substr(eq + 1);
      return spec.get_choice(key, "", {value});  // marks the key as known
    }
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return spec.get_choice(key, "", {});
}

std::unique_ptr<AcceptanceModel> make_calibrated_acceptance(const NamedSpec& spec,
                                                            const AcceptanceContext& context) {
  const double auc = spec.get_double("auc", -1.0, 0.5, 0.995);
  const double ece = spec.get_double("ece", -1.0, 0.0, 0.4);
  const double signal = spec.get_double("signal", -1.0, 0.0, 8.0);
  const double sharpness = spec.get_double("sharpness", -1.0, 0.05, 25.0);
  const std::string sts = spec_path(spec, "sts");
  const std::string curves_path = spec_path(spec, "curves");
  const std::string target = spec.get_choice("target", context.target,
                                             {"qwen3-4b", "qwen3-8b", "qwen3-14b", "gemma4-12b"});
  const std::string scenario =
      spec.get_choice("scenario", "", {"v4-vllm-note", "dspark-table1-qwen3"});
  const double logit_shift = spec.get_double("shift", 0.0, -5.0, 5.0);
  CalibratedModelConfig config;
  Heterogeneity& h = config.heterogeneity;
  h.request_sd = spec.get_double("request_sd", h.request_sd, 0.0, 4.0);
  h.latent_sd = spec.get_double("latent_sd", h.latent_sd, 0.0, 4.0);
  h.latent_rho = spec.get_double("latent_rho", h.latent_rho, 0.0, 0.999);
  spec.reject_unknown_keys();
  if ((auc >= 0 && signal >= 0) || (ece >= 0 && sharpness >= 0)) {
    throw InputError("--acceptance: '" + spec.text() +
                     "': give a head target (auc=, ece=) or its parameter (signal=, sharpness=), "
                     "not both");
  }

  config.gamma = context.drafter.gamma;
  config.seed = context.seed;
  config.curves = curves_path.empty() ? published_mean_curves(context.drafter, target, scenario)
                                      : load_curves_file(curves_path, context.drafter.gamma);
  if (logit_shift != 0.0) shift_mean_curves(config.curves, logit_shift);
  if (!curves_path.empty()) {
    config.curves.notes.push_back("mean curves from " + curves_path);
  }
  for (auto& head : config.head) {
    if (signal >= 0) head.signal = signal;
    if (sharpness >= 0) head.sharpness = sharpness;
  }
  if ((auc >= 0 || ece >= 0) && context.tune_heads) {
    const CalibratedAcceptanceModel untuned(config);
    for (int d = 0; d < kDomainCount; ++d) {
      config.head[static_cast<std::size_t>(d)] = tune_confidence_head(
          untuned, static_cast<Domain>(d), auc >= 0 ? std::optional<double>(auc) : std::nullopt,
          ece >= 0 ? std::optional<double>(ece) : std::nullopt);
    }
  }
  if (!sts.empty()) config.sts_temperatures = load_sts_temperatures(sts, config.gamma);
  return std::make_unique<CalibratedAcceptanceModel>(std::move(config));
}

std::unique_ptr<AcceptanceModel> make_replay_acceptance(const NamedSpec& spec,
                                                        const AcceptanceContext& context) {
  const std::string log = spec_path(spec, "log");
  const double signal = spec.get_double("signal", default_confidence_head().signal, 0.0, 8.0);
  spec.reject_unknown_keys();
  if (log.empty()) {
    throw InputError("--acceptance: '" + spec.text() +
                     "': replay needs log=PATH (or use --acceptance-log PATH)");
  }
  return std::make_unique<LogReplayModel>(log, context, signal);
}

}  // namespace sparksim
