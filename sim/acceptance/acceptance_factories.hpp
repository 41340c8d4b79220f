// Builders for the registry rows of issue 3's models, `calibrated` and `replay`: they read the
// spec's keys (validating all of them) and the files a spec names. Kept out of the registry file
// so the table stays one screen long.
#pragma once

#include <memory>
#include <string>

#include "common/named_spec.hpp"
#include "sim/acceptance/acceptance_context.hpp"
#include "sim/acceptance/acceptance_model.hpp"

namespace sparksim {

// `calibrated[:key=value,...]`; keys: auc, ece (raw-head targets) or signal, sharpness (raw head
// parameters); sts=PATH (STS temperatures from `sparksim calibrate`); curves=PATH (mean curves
// instead of the published ones); target=NAME (curves of another published target);
// request_sd, latent_sd, latent_rho (heterogeneity).
std::unique_ptr<AcceptanceModel> make_calibrated_acceptance(const NamedSpec& spec,
                                                            const AcceptanceContext& context);
inline constexpr const char* kCalibratedDescription =
    "the default: published per-target, per-domain, per-position mean curves (DSpark Table 1, "
    "Fig. 2, Fig. 4; MTP-1 0.85-0.90) reproduced as the mean over per-request difficulty and a "
    "persistent per-step latent state (fitted to Spec-Bench), with an over-confident raw "
    "confidence head; keys: auc=, ece= (raw-head targets) or signal=, sharpness=; sts=PATH "
    "(temperatures from `sparksim calibrate`); curves=PATH; target=NAME; request_sd=, latent_sd=, "
    "latent_rho=";

// `replay:log=PATH[,signal=X]`: replays an acceptance log (ours, or a Spec-Bench JSONL file whose
// confidences are synthesised with head signal X).
std::unique_ptr<AcceptanceModel> make_replay_acceptance(const NamedSpec& spec,
                                                        const AcceptanceContext& context);
inline constexpr const char* kReplayDescription =
    "replays an acceptance log per request and decode step: a log written by `sparksim run "
    "--write-acceptance-log` (exact), or Spec-Bench per-step accepted lengths with synthesised "
    "calibrated confidences (signal=X sets their ranking quality); `--acceptance-log PATH` is "
    "short for replay:log=PATH";

// The value of `key` in `spec` taken verbatim (file paths), or "" when absent; marks the key as
// known. (NamedSpec has typed getters only; a path here is any text without ','.)
std::string spec_path(const NamedSpec& spec, const std::string& key);

}  // namespace sparksim
