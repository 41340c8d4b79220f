// `sparksim profile moe`: writes the profile of a DeepSeek-V4 replica GPU (or tensor-parallel
// replica) from the MoE step model: target, GPU, topology (dep<N> / tp<N>), expert format,
// imbalance, two-batch overlap. Refuses, before writing anything, topologies that do not fit.
#include <cstdio>
#include <ctime>
#include <memory>
#include <string>

#include "common/input_error.hpp"
#include "common/version.hpp"
#include "experiments/cli/commands.hpp"
#include "experiments/cli/output_directory.hpp"
#include "experiments/cli/provenance_options.hpp"
#include "profiles/moe/moe_step_model.hpp"
#include "profiles/profile_io.hpp"
#include "profiles/step_composition/moe_measured_db_profile.hpp"

namespace sparksim::cli {

namespace {

struct ProfileMoeOptions {
  std::string target;
  std::string gpu;
  std::string topology = "dep8";
  std::string expert_format = "fp8";
  int gpus_per_node = 8;
  double expert_imbalance = 1.1;
  bool two_batch_overlap = false;
  std::int64_t planned_requests = 256;
  std::string measured_db;  // empty: the analytic step model
  std::string expert_distribution = "balanced";
  bool expert_imbalance_given = false;
  std::string out_path;
  std::string date;
  std::string git_sha = sparksim_git_sha();
};

void print_error(const char* what, const FitErrorReport& r) {
  std::printf("  %-26s mean %.2f%%, worst %.2f%% (%s, %+.2f%%)\n", what, r.overall.mean_abs_pct,
              r.overall.worst_abs_pct, r.overall.worst_label.c_str(), r.overall.worst_signed_pct);
  for (const RegionError& e : r.regions) {
    std::printf("    %-24s %zu points, mean %.2f%%, worst %.2f%%\n", e.region.c_str(), e.points,
                e.mean_abs_pct, e.worst_abs_pct);
  }
}

void run_measured_db(const ProfileMoeOptions& o, const MoeTarget& target, const MoeGpu& gpu,
                     const ReplicaTopology& topology) {
  if (o.expert_imbalance_given) {
    throw InputError(
        "--expert-imbalance: with --measured-db the imbalance is the measured "
        "routing distribution (--expert-distribution)");
  }
  const std::string& d = o.expert_distribution;
  if (d != "balanced" && d != "power_law_1.01" && d != "power_law_1.2") {
    throw InputError("--expert-distribution: '" + d +
                     "'; valid: balanced, power_law_1.01, power_law_1.2");
  }
  MoeMeasuredDbOptions options;
  options.database_dir = o.measured_db;
  options.distribution = d;
  options.two_batch_overlap = o.two_batch_overlap;
  options.planned_requests = o.planned_requests;
  const MoeMeasuredDbBuild build = make_moe_measured_db_profile(target, gpu, topology, options,
                                                                date_or_today(o.date), o.git_sha);
  create_parent_directory(o.out_path);
  write_profile(build.profile, o.out_path);
  std::printf("%s: MEASURED-DB %s on %s %s (fp8 experts, %s routing): KV %lld tokens per GPU\n",
              o.out_path.c_str(), target.name.c_str(), gpu.name.c_str(), topology.name.c_str(),
              d.c_str(), static_cast<long long>(build.profile.kv_capacity_tokens()));
  std::printf("  fit: fixed %.3f us, per request %.4f us, %.5f ns/context token, %.6f ns/pair%s\n",
              build.profile.verify.fixed_us, build.profile.verify.per_request_us,
              build.profile.verify.kv_read_ns_per_context_token,
              build.profile.verify.attention_ns_per_pair,
              build.verify_fit.pinned_to_zero.empty() ? "" : " (some terms pinned to 0)");
  print_error("verify, fitted points", build.verify_train);
  print_error("verify, held-out points", build.verify_held_out);
  print_error("draft mtp1", build.draft_mtp1);
  print_error("draft dspark-5", build.draft_dspark5);
  std::printf("  outside the measured grid: %zu rules (provenance.outside_grid)\n",
              build.profile.provenance.outside_grid.size());
}

void run_profile_moe(const ProfileMoeOptions& o) {
  const MoeTarget& target = moe_target(o.target);
  const MoeGpu& gpu = moe_gpu(o.gpu);
  const ExpertFormat format = parse_expert_format(o.expert_format);
  const ReplicaTopology topology = parse_topology(o.topology, target, format, o.gpus_per_node);
  if (!(o.expert_imbalance >= 1.0 && o.expert_imbalance <= 8.0)) {
    throw InputError("--expert-imbalance: " + std::to_string(o.expert_imbalance) +
                     "; must be in [1, 8] (max / mean rank load)");
  }
  if (o.planned_requests < 1 || o.planned_requests > 4096) {
    throw InputError("--planned-requests: must be in 1..4096");
  }
  if (!o.measured_db.empty()) {
    run_measured_db(o, target, gpu, topology);
    return;
  }
  MoeStepOptions options;
  options.expert_imbalance = o.expert_imbalance;
  options.two_batch_overlap = o.two_batch_overlap;
  options.planned_requests = o.planned_requests;
  // Everything is validated (and the fit checked) before the output directory is touched.
  const Profile profile =
      make_moe_profile(target, gpu, topology, options, date_or_today(o.date), o.git_sha);
  create_parent_directory(o.out_path);
  write_profile(profile, o.out_path);
  const MoeStepModel model(target, gpu, topology, options);
  std::printf(
      "%s: ANALYTIC %s on %s %s (%s experts): KV %lld tokens per %s; step at R=64, B=128, "
      "4096 ctx: %.2f ms\n",
      o.out_path.c_str(), target.name.c_str(), gpu.name.c_str(), topology.name.c_str(),
      expert_format_name(format), static_cast<long long>(profile.kv_capacity_tokens()),
      profile.gpus == 1 ? "GPU" : "replica", model.step(128, 64, 128.0 * 4096).total_us * 1e-3);
}

}  // namespace

void add_profile_moe_command(CLI::App& profile) {
  auto o = std::make_shared<ProfileMoeOptions>();
  CLI::App* cmd = profile.add_subcommand("moe",
                                         "write a DeepSeek-V4 replica profile: the ANALYTIC step "
                                         "model, or MEASURED-DB rows with --measured-db");
  cmd->add_option("--target", o->target, "deepseek-v4-flash or deepseek-v4-pro")->required();
  cmd->add_option("--gpu", o->gpu, "h100-sxm or h200-sxm (h100, h200 accepted)")->required();
  cmd->add_option("--topology", o->topology,
                  "dep<N> (attention data-parallel, EP N) or tp<N> (attention tensor-parallel, "
                  "EP N)")
      ->capture_default_str();
  cmd->add_option("--expert-format", o->expert_format, "fp4 or fp8 routed experts")
      ->capture_default_str();
  cmd->add_option("--gpus-per-node", o->gpus_per_node, "GPUs per node: EP beyond it crosses nodes")
      ->capture_default_str();
  cmd->add_option("--expert-imbalance", o->expert_imbalance,
                  "hottest expert-parallel rank's routed load / mean (analytic model)")
      ->capture_default_str()
      ->each([o](const std::string&) { o->expert_imbalance_given = true; });
  cmd->add_option("--measured-db", o->measured_db,
                  "compose the step from this measured kernel database (profiles/data/aic): "
                  "provenance measured-db, dep<N> with fp8 experts")
      ->check(CLI::ExistingDirectory);
  cmd->add_option("--expert-distribution", o->expert_distribution,
                  "with --measured-db: the routing of the measured MoE rows (balanced, "
                  "power_law_1.01, power_law_1.2)")
      ->capture_default_str();
  cmd->add_flag("--two-batch-overlap", o->two_batch_overlap,
                "overlap the all-to-all of one micro-batch with the other's compute");
  cmd->add_option("--planned-requests", o->planned_requests,
                  "requests per attention rank whose sliding-window KV is reserved")
      ->capture_default_str();
  cmd->add_option("--out", o->out_path, "profile JSON to write (atomically)")->required();
  add_provenance_options(*cmd, o->date, o->git_sha);
  cmd->callback([o] { run_profile_moe(*o); });
}

}  // namespace sparksim::cli
