// `sparksim profile-moe`: writes the profile of a DeepSeek-V4 replica GPU (or tensor-parallel
// replica) from the MoE step model: target, GPU, topology (dep<N> / tp<N>), expert format,
// imbalance, two-batch overlap. Refuses, before writing anything, topologies that do not fit.
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <memory>
#include <string>

#include "common/input_error.hpp"
#include "common/version.hpp"
#include "experiments/cli/commands.hpp"
#include "experiments/cli/provenance_options.hpp"
#include "profiles/moe/moe_step_model.hpp"
#include "profiles/profile_io.hpp"

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
  std::string out_path;
  std::string date;
  std::string git_sha = sparksim_git_sha();
};

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
  MoeStepOptions options;
  options.expert_imbalance = o.expert_imbalance;
  options.two_batch_overlap = o.two_batch_overlap;
  options.planned_requests = o.planned_requests;
  // Everything is validated (and the fit checked) before the output directory is touched.
  const Profile profile =
      make_moe_profile(target, gpu, topology, options, date_or_today(o.date), o.git_sha);
  const std::filesystem::path out(o.out_path);
  if (out.has_parent_path()) {
    std::error_code ec;
    std::filesystem::create_directories(out.parent_path(), ec);
    if (ec) throw InputError(o.out_path, 0, "cannot create its directory: " + ec.message());
  }
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

void add_profile_moe_command(CLI::App& app) {
  auto o = std::make_shared<ProfileMoeOptions>();
  CLI::App* cmd = app.add_subcommand(
      "profile-moe", "Write an ANALYTIC DeepSeek-V4 replica profile from the MoE step model");
  cmd->add_option("--target", o->target, "deepseek-v4-flash or deepseek-v4-pro")->required();
  cmd->add_option("--gpu", o->gpu, "h100 or h200")->required();
  cmd->add_option("--topology", o->topology,
                  "dep<N> (attention data-parallel, EP N) or tp<N> (attention tensor-parallel, "
                  "EP N)")
      ->capture_default_str();
  cmd->add_option("--expert-format", o->expert_format, "fp4 or fp8 routed experts")
      ->capture_default_str();
  cmd->add_option("--gpus-per-node", o->gpus_per_node, "GPUs per node: EP beyond it crosses nodes")
      ->capture_default_str();
  cmd->add_option("--expert-imbalance", o->expert_imbalance,
                  "hottest expert-parallel rank's routed load / mean")
      ->capture_default_str();
  cmd->add_flag("--two-batch-overlap", o->two_batch_overlap,
                "overlap the all-to-all of one micro-batch with the other's compute");
  cmd->add_option("--planned-requests", o->planned_requests,
                  "requests per attention rank whose sliding-window KV is reserved")
      ->capture_default_str();
  cmd->add_option("--out", o->out_path, "Profile JSON to write (atomically)")->required();
  add_provenance_options(*cmd, o->date, o->git_sha);
  cmd->callback([o] { run_profile_moe(*o); });
}

}  // namespace sparksim::cli
