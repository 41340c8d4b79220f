// `sparksim profile analytic`: writes the analytic (roofline) profile of one target on one GPU,
// the stand-in for a measured profile where no GPU run exists. The committed files under
// profiles/analytic/ come from this command (exact invocations in profiles/README.md). With
// --constants it uses roofline constants fitted to the measured-db database instead of the
// defaults; the profile stays `analytic` and its tool, notes and label say so.
#include <cstdio>
#include <ctime>
#include <memory>
#include <string>

#include "common/json_file.hpp"
#include "common/version.hpp"
#include "experiments/cli/commands.hpp"
#include "experiments/cli/output_directory.hpp"
#include "experiments/cli/provenance_options.hpp"
#include "profiles/analytic_profile.hpp"
#include "profiles/fitted_roofline_constants.hpp"
#include "profiles/profile_io.hpp"
#include "profiles/time_model.hpp"

namespace sparksim::cli {

namespace {

struct ProfileAnalyticOptions {
  std::string shapes_path = "profiles/model_shapes.json";
  std::string gpu;
  std::string target;
  std::string out_path;
  std::string constants_path;                // empty: RooflineConstants' defaults
  std::string date;                          // empty: today (UTC)
  std::string git_sha = sparksim_git_sha();  // the revision this binary was built from
};

void run_profile_analytic(const ProfileAnalyticOptions& o) {
  check_date_option(o.date);
  // Everything is read and checked before anything is written.
  const JsonFile shapes = JsonFile::load(o.shapes_path);
  RooflineConstants constants;
  FittedRooflineConstants fitted;
  if (!o.constants_path.empty()) {
    fitted = read_fitted_roofline_constants(o.constants_path);
    constants = fitted.constants;
  }
  Profile profile =
      make_analytic_profile(shapes, o.gpu, o.target, date_or_today(o.date), o.git_sha, constants);
  if (!o.constants_path.empty()) mark_fitted_constants(profile, fitted, o.constants_path);
  create_parent_directory(o.out_path);
  write_profile(profile, o.out_path);

  const TimeModel model(profile);
  const SpsTable sps(profile.sps, profile.sps.tokens.back());
  const auto step_ms = [&](std::int64_t b) {
    return sim_time_to_ms(model.verify_time(sps_reference_batch(b, kSpsReferenceShape)));
  };
  std::printf(
      "%s: ANALYTIC%s %s on %s: KV capacity %lld tokens; SPS(1)=%.1f SPS(64)=%.1f SPS(512)=%.1f "
      "steps/s (%.2f / %.2f / %.2f ms at the reference shape)\n",
      o.out_path.c_str(), o.constants_path.empty() ? "" : " (fitted constants)",
      profile.target.c_str(), profile.provenance.gpu.c_str(),
      static_cast<long long>(profile.kv_capacity_tokens()), sps.steps_per_s(1), sps.steps_per_s(64),
      sps.steps_per_s(512), step_ms(1), step_ms(64), step_ms(512));
}

}  // namespace

void add_profile_analytic_command(CLI::App& profile) {
  auto options = std::make_shared<ProfileAnalyticOptions>();
  CLI::App* cmd = profile.add_subcommand(
      "analytic", "write an ANALYTIC (roofline, not measured) profile of a target model on a GPU");
  cmd->add_option("--shapes", options->shapes_path, "model and GPU shapes (JSON)")
      ->capture_default_str();
  cmd->add_option("--gpu", options->gpu,
                  "GPU: h100-sxm or h200-sxm (keys of the shapes file's gpus; h100, h200 accepted)")
      ->required();
  cmd->add_option("--target", options->target, "target model, e.g. qwen3-8b")->required();
  cmd->add_option("--out", options->out_path, "profile JSON to write (atomically)")->required();
  cmd->add_option("--constants", options->constants_path,
                  "roofline constants fitted to the database (sparksim calibrate roofline "
                  "--write; e.g. profiles/analytic/roofline-constants-fitted-aic.json); default: "
                  "the built-in r1 constants");
  add_provenance_options(*cmd, options->date, options->git_sha);
  cmd->callback([options] { run_profile_analytic(*options); });
}

}  // namespace sparksim::cli
