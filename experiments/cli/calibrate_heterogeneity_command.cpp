// `sparksim calibrate heterogeneity`: the calibrated model's per-request and per-step spread
// against the Spec-Bench EAGLE / Vicuna-7B acceptance data (per-category p10/p50/p90 of per-request
// τ, lag-1 autocorrelation, per-step accepted-length histogram), optionally refitting the
// heterogeneity parameters by grid search; can also write the Spec-Bench requests as a native CSV
// trace for `sparksim run --acceptance-log`.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>

#include "common/csv_row.hpp"
#include "common/input_error.hpp"
#include "common/json_file.hpp"
#include "experiments/cli/commands.hpp"
#include "sim/acceptance/calibrated_model.hpp"
#include "sim/acceptance/specbench.hpp"

namespace sparksim::cli {

namespace {

struct HeterogeneityOptions {
  std::string specbench = "traces/specbench_eagle_vicuna7b_accept.jsonl";
  int replicas = 20;
  std::uint64_t seed = 1;
  bool fit = false;
  double request_sd = -1, latent_sd = -1, latent_rho = -1;
  std::string write_trace;
  std::int64_t prompt_tokens = 512;
  double rate = 2.0;
};

void print_comparison(const SpecBenchData& data, const Heterogeneity& h, int replicas,
                      std::uint64_t seed) {
  std::printf(
      "heterogeneity: request_sd %.3f, latent_sd %.3f, latent_rho %.3f (logit scale); %d "
      "simulated replicas of each question, seed %llu\n\n",
      h.request_sd, h.latent_sd, h.latent_rho, replicas, static_cast<unsigned long long>(seed));
  std::printf(
      "| category | domain | requests | steps | tau real / sim | per-request tau p10 / p50 "
      "/ p90 real | sim | lag-1 real / sim |\n");
  std::printf("|---|---|---:|---:|---|---|---|---|\n");
  std::vector<std::string> rows = data.categories;
  rows.push_back("");
  for (const auto& c : rows) {
    const SpreadStats real = specbench_real_stats(data, c);
    const SpreadStats sim = specbench_simulated_stats(data, c, h, replicas, seed);
    Domain d = Domain::kChat;
    specbench_domain(c, d);
    std::printf(
        "| %s | %s | %lld | %lld | %.2f / %.2f | %.2f / %.2f / %.2f | %.2f / %.2f / %.2f | "
        "%.2f / %.2f |\n",
        c.empty() ? "**all**" : c.c_str(), c.empty() ? "" : std::string(domain_name(d)).c_str(),
        static_cast<long long>(real.requests), static_cast<long long>(real.steps), real.tau_mean,
        sim.tau_mean, real.tau_p10, real.tau_p50, real.tau_p90, sim.tau_p10, sim.tau_p50,
        sim.tau_p90, real.lag1, sim.lag1);
  }
  std::printf("\nper-step accepted length (tokens committed per step), fraction of steps:\n\n");
  std::printf("| category | |");
  for (int len = 1; len <= data.max_length; ++len) std::printf(" %d |", len);
  std::printf("\n|---|---|");
  for (int len = 1; len <= data.max_length; ++len) std::printf("---:|");
  std::printf("\n");
  for (const auto& c : rows) {
    const SpreadStats real = specbench_real_stats(data, c);
    const SpreadStats sim = specbench_simulated_stats(data, c, h, replicas, seed);
    for (int which = 0; which < 2; ++which) {
      const SpreadStats& s = which == 0 ? real : sim;
      std::printf("| %s | %s |", which == 0 ? (c.empty() ? "**all**" : c.c_str()) : "",
                  which == 0 ? "real" : "sim");
      for (double f : s.histogram) std::printf(" %.3f |", f);
      std::printf("\n");
    }
  }
}

void write_trace(const SpecBenchData& data, const HeterogeneityOptions& o) {
  if (!(o.rate > 0)) throw InputError("--rate must be > 0");
  if (o.prompt_tokens < 1) throw InputError("--prompt-tokens must be >= 1");
  std::string csv = "arrival_s,prompt_tokens,output_tokens,domain\n";
  for (std::size_t i = 0; i < data.questions.size(); ++i) {
    const auto& q = data.questions[i];
    // + 1: sparksim's prefill step emits the first output token, so the decode steps commit
    // exactly the recorded tokens and a full-depth replay takes exactly the recorded steps.
    CsvRow(csv)
        .text(format_number(static_cast<double>(i) / o.rate))
        .integer(o.prompt_tokens)
        .integer(q.output_tokens() + 1)
        .text(domain_name(q.domain))
        .end();
  }
  write_file_atomically(o.write_trace, csv);
}

}  // namespace

void add_calibrate_heterogeneity_command(CLI::App& calibrate) {
  auto options = std::make_shared<HeterogeneityOptions>();
  HeterogeneityOptions& o = *options;
  CLI::App* cmd = calibrate.add_subcommand(
      "heterogeneity",
      "compare the calibrated model's per-request and per-step acceptance spread with the "
      "Spec-Bench EAGLE data (and refit it with --fit)");
  cmd->add_option("--specbench", o.specbench, "Spec-Bench acceptance JSONL")->capture_default_str();
  cmd->add_option("--replicas", o.replicas, "simulated copies of each question")
      ->capture_default_str();
  cmd->add_option("--seed", o.seed, "seed")->capture_default_str();
  cmd->add_flag("--fit", o.fit, "grid-search the heterogeneity parameters first");
  cmd->add_option("--request-sd", o.request_sd, "override the per-request difficulty sd");
  cmd->add_option("--latent-sd", o.latent_sd, "override the latent state's sd");
  cmd->add_option("--latent-rho", o.latent_rho, "override the latent state's step correlation");
  cmd->add_option("--write-trace", o.write_trace,
                  "also write the questions as a native CSV trace (one request per question, "
                  "output = its recorded tokens + the prefill's first token) for `sparksim run "
                  "--acceptance-log`");
  cmd->add_option("--prompt-tokens", o.prompt_tokens,
                  "prompt length of every request in --write-trace (the file has none)")
      ->capture_default_str();
  cmd->add_option("--rate", o.rate, "arrivals per second in --write-trace (evenly spaced)")
      ->capture_default_str();
  cmd->callback([options] {
    const HeterogeneityOptions& o = *options;
    if (o.replicas < 1 || o.replicas > 1000) throw InputError("--replicas must be in 1..1000");
    const SpecBenchData data = load_specbench(o.specbench);
    if (!o.write_trace.empty()) {
      write_trace(data, o);
      std::printf("wrote %s (%zu requests)\n", o.write_trace.c_str(), data.questions.size());
    }
    Heterogeneity h = default_heterogeneity();
    if (o.fit) {
      const auto points = fit_heterogeneity(data, std::max(1, o.replicas / 4), o.seed);
      std::printf("grid search (%zu points), best 8 by loss:\n", points.size());
      for (std::size_t i = 0; i < std::min<std::size_t>(8, points.size()); ++i) {
        const Heterogeneity& p = points[i].heterogeneity;
        std::printf("  request_sd %.2f  latent_sd %.2f  latent_rho %.2f  loss %.4f\n", p.request_sd,
                    p.latent_sd, p.latent_rho, points[i].loss);
      }
      std::printf("\n");
      h = points.front().heterogeneity;
    }
    if (o.request_sd >= 0) h.request_sd = o.request_sd;
    if (o.latent_sd >= 0) h.latent_sd = o.latent_sd;
    if (o.latent_rho >= 0) h.latent_rho = o.latent_rho;
    if (h.latent_rho >= 1.0) throw InputError("--latent-rho must be < 1");
    print_comparison(data, h, o.replicas, o.seed);
  });
}

}  // namespace sparksim::cli
