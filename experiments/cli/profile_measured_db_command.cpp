// `sparksim profile measured-db`: composes a profile of one target on one GPU from the measured
// kernel-latency database in profiles/data/aic (aiconfigurator, vLLM 0.24.0), writes it, and
// prints the fit: coefficients, held-out error by region, drafter fits, and the analytic
// generator's error against the same compositions. The committed files under
// profiles/measured-db/ and the fidelity table in profiles/README.md come from this command.
#include <cstdio>
#include <ctime>
#include <memory>
#include <optional>
#include <string>

#include "common/json_file.hpp"
#include "common/version.hpp"
#include "experiments/cli/commands.hpp"
#include "experiments/cli/output_directory.hpp"
#include "experiments/cli/provenance_options.hpp"
#include "profiles/analytic_profile.hpp"
#include "profiles/profile_io.hpp"
#include "profiles/step_composition/measured_db_profile.hpp"

namespace sparksim::cli {

namespace {

struct ProfileMeasuredDbOptions {
  std::string database_dir = "profiles/data/aic";
  std::string shapes_path = "profiles/model_shapes.json";
  std::string gpu;
  std::string target;
  std::string out_path;
  MeasuredDbDeployment deployment;
  std::string date;
  std::string git_sha = sparksim_git_sha();
};

void print_report(const char* title, const FitErrorReport& r) {
  std::printf("  %s\n", title);
  std::printf("    %-16s %6s %9s %9s  %s\n", "region", "points", "MAPE %", "worst %",
              "worst point");
  const auto row = [](const RegionError& e) {
    std::printf("    %-16s %6zu %9.2f %+9.2f  %s\n", e.region.c_str(), e.points, e.mean_abs_pct,
                e.worst_signed_pct, e.worst_label.c_str());
  };
  for (const RegionError& e : r.regions) row(e);
  row(r.overall);
}

void run(const ProfileMeasuredDbOptions& o) {
  const JsonFile shapes = JsonFile::load(o.shapes_path);
  const std::string date = date_or_today(o.date);
  const MeasuredDbBuild build = make_measured_db_profile(o.database_dir, shapes, o.gpu, o.target,
                                                         date, o.git_sha, o.deployment);
  const Profile& p = build.profile;

  // The analytic generator judged on the same compositions (all points: it fits none of them);
  // it models one bf16 GPU with a bf16 KV cache only, so a TP, FP8 or FP8-KV deployment has no
  // analytic counterpart.
  const bool single_bf16 = o.deployment.tensor_parallel == 1 && o.deployment.precision == "bf16" &&
                           o.deployment.kv_cache_dtype == "bf16";
  std::optional<FitErrorReport> analytic_error;
  if (single_bf16) {
    const DenseTargetShape shape = read_dense_target(shapes, o.target);
    const KernelDatabase db = KernelDatabase::load(
        o.database_dir, o.gpu, AttentionHeads{shape.q_heads, shape.kv_heads, shape.head_dim});
    const Profile analytic =
        make_analytic_profile(shapes, o.gpu.substr(0, o.gpu.find('-')), o.target, date, o.git_sha);
    const StepComposer composer(db, shape, p.verify.graph_buckets,
                                memory_bound_rates(shapes, o.gpu.substr(0, o.gpu.find('-'))));
    analytic_error =
        profile_vs_composition(analytic, composer, fidelity_points(p.kv_capacity_tokens()));
  }

  create_parent_directory(o.out_path);
  write_profile(p, o.out_path);

  std::printf("%s\n%s\n", o.out_path.c_str(), p.label().c_str());
  std::printf(
      "  verify fit (%s): fixed %.3f us, per request %.4f us, KV read %.5f ns/token, "
      "pair %.6f ns%s\n",
      "least squares, relative residuals", p.verify.fixed_us, p.verify.per_request_us,
      p.verify.kv_read_ns_per_context_token, p.verify.attention_ns_per_pair,
      build.verify_fit.pinned_to_zero.empty() ? "" : " (some terms pinned to 0)");
  print_report("fitted model vs composition, points used in the fit (residuals):",
               build.verify_train);
  print_report("fitted model vs composition, HELD-OUT points:", build.verify_held_out);
  for (int i = 0; i < kDrafterFamilyCount; ++i) {
    if (!p.draft[i]) continue;  // no drafter of this family for the target
    const RegionError& e = build.draft_held_out[i].overall;
    std::printf("  draft %-7s held-out MAPE %5.2f %%, worst %+6.2f %% (%s)\n",
                std::string(kDrafterFamilyNames[i]).c_str(), e.mean_abs_pct, e.worst_signed_pct,
                e.worst_label.c_str());
  }
  if (analytic_error) {
    print_report("ANALYTIC profile vs composition, all points:", *analytic_error);
  }
  std::printf("  %zu rules outside the measured grid (listed in provenance.outside_grid)\n",
              p.provenance.outside_grid.size());
}

}  // namespace

void add_profile_measured_db_command(CLI::App& profile) {
  auto options = std::make_shared<ProfileMeasuredDbOptions>();
  CLI::App* cmd = profile.add_subcommand(
      "measured-db",
      "compose a MEASURED-DB profile from a public kernel-latency database and report its fit");
  cmd->add_option("--database", options->database_dir, "database folder (with database.json)")
      ->capture_default_str();
  cmd->add_option("--shapes", options->shapes_path, "model and GPU shapes (JSON)")
      ->capture_default_str();
  cmd->add_option("--gpu", options->gpu, "GPU as the database names it: h100-sxm or h200-sxm")
      ->required();
  cmd->add_option("--target", options->target, "dense target model, e.g. qwen3-8b")->required();
  cmd->add_option("--tp", options->deployment.tensor_parallel,
                  "tensor-parallel GPUs per replica (1, 2, 4, 8): per-GPU shards + all-reduces")
      ->capture_default_str();
  cmd->add_option("--precision", options->deployment.precision,
                  "layer GEMM precision: bf16, or fp8 (per-tensor W8A8 rows; LM head and "
                  "attention bf16)")
      ->capture_default_str();
  cmd->add_option("--kv-cache-dtype", options->deployment.kv_cache_dtype,
                  "KV-cache element type: bf16, or fp8 (attention from the database's fp8-KV "
                  "rows, half the KV bytes per token)")
      ->capture_default_str();
  cmd->add_option("--out", options->out_path, "profile JSON to write (atomically)")->required();
  add_provenance_options(*cmd, options->date, options->git_sha);
  cmd->callback([options] { run(*options); });
}

}  // namespace sparksim::cli
