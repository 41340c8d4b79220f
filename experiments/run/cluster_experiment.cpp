// Validation, execution and output of one cluster simulation. The summary's run-shaped part repeats
// execute_run()'s keys in its order (the one-replica equivalence test guards that they agree).
#include "experiments/run/cluster_experiment.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <utility>

#include "common/csv_row.hpp"
#include "common/input_error.hpp"
#include "common/staged_directory.hpp"
#include "common/text_file.hpp"
#include "experiments/run/parallel_runner.hpp"
#include "experiments/run/problem_list.hpp"
#include "experiments/run/summary_json.hpp"
#include "experiments/run/timeseries_csv.hpp"
#include "policies/policy_registry.hpp"
#include "profiles/live_sps.hpp"
#include "profiles/sps_belief.hpp"
#include "profiles/time_model.hpp"
#include "sim/acceptance/acceptance_registry.hpp"
#include "sim/cluster/kv_network.hpp"
#include "sim/cluster/subprocess.hpp"
#include "sim/metrics.hpp"

namespace sparksim {

namespace {

constexpr std::int64_t kMaxReplicas = 4096;

double per(double num, double den) {
  return den > 0 ? num / den : 0.0;
}

void add_counters(AggregateCounters& sum, const AggregateCounters& c) {
  sum.steps += c.steps;
  sum.prefill_lane_steps += c.prefill_lane_steps;
  sum.request_steps += c.request_steps;
  sum.verify_tokens += c.verify_tokens;
  sum.drafts_verified += c.drafts_verified;
  sum.drafts_accepted += c.drafts_accepted;
  sum.decode_committed += c.decode_committed;
  sum.output_tokens += c.output_tokens;
  sum.prefill_tokens += c.prefill_tokens;
  sum.preemptions += c.preemptions;
  sum.kv_peak_reserved += c.kv_peak_reserved;  // the sum of each replica's own peak
  sum.last_event = std::max(sum.last_event, c.last_event);
}

// One replica: its engine and everything the engine refers to.
struct ReplicaRig {
  std::unique_ptr<VerificationPolicy> policy;
  std::shared_ptr<AcceptanceModel> acceptance;  // one for every replica when it is shareable
  std::unique_ptr<MetricsCollector> metrics;
  std::unique_ptr<LiveSps> live_sps;  // the `live` belief only
  std::unique_ptr<Engine> engine;
  ReplicaRole role = ReplicaRole::kColocated;
};

// The cluster's own options. `run`: the validated run, or null when it had problems (they are
// already in `problems`); o.run must be the options it came from.
// ClusterOptions::threads resolved: 0 is two threads where the process may use two CPUs (the count
// the windowed loop was measured at, sim/cluster/README.md), else one.
std::size_t cluster_threads(const ClusterOptions& o) {
  return static_cast<std::size_t>(o.threads > 0 ? o.threads : std::min(default_jobs(), 2));
}

ClusterSetup check_cluster(const ClusterOptions& o, const RunSetup* run, ProblemList& problems) {
  ClusterSetup setup{o, run ? *run : RunSetup{}, NamedSpec::parse("round-robin", "--router"), {}};
  const bool run_ok = run != nullptr;
  problems.check([&] {
    setup.router_spec = NamedSpec::parse(o.router, "--router");
    make_router(setup.router_spec);
  });

  const bool builtin = o.platform_path.empty();
  if (builtin && o.replicas < 1) {
    problems.add("--replicas N (>= 1) is required unless --platform FILE.xml is given");
  }
  if (o.replicas < 0 || o.replicas > kMaxReplicas) {
    problems.add("--replicas must be in [1, " + std::to_string(kMaxReplicas) + "]");
  }
  if (o.prefill_replicas < 0) problems.add("--prefill-replicas must be >= 0");
  if (o.threads < 0)
    problems.add("--threads must be >= 1 (or 0 for the default: two, or one on a one-CPU machine)");
  if (!o.run.write_acceptance_log.empty()) {
    problems.add("--write-acceptance-log: record the log with `sparksim run` (one replica)");
  }
  if (builtin && o.replicas >= 1 && o.prefill_replicas >= o.replicas) {
    problems.add("--prefill-replicas " + std::to_string(o.prefill_replicas) +
                 " leaves no decode replica among --replicas " + std::to_string(o.replicas));
  }
  if (o.prefill_replicas > 0 && o.run.prefill == "separate") {
    problems.add(
        "--prefill separate (a prefill stage inside each replica) and --prefill-replicas "
        "(a prefill pool) exclude each other");
  }
  if (!builtin) {
    if (o.gpus_per_node != 0 || o.nvlink_bandwidth_gb_s != 0 || o.nvlink_latency_us != 0 ||
        o.network_bandwidth_gb_s != 0 || o.network_latency_us != 0) {
      problems.add(
          "--gpus-per-node, --nvlink-* and --network-* describe the built-in topology; a "
          "--platform file describes its own links");
    }
    if (!std::filesystem::is_regular_file(o.platform_path)) {
      problems.add(o.platform_path + ": cannot open platform file");
    }
  } else if (!o.router_host.empty() && o.router_host != "router") {
    problems.add(
        "--router-host names a host of a --platform file; the built-in topology has its own");
  }
  const auto positive_or_default = [&](double value, const char* flag) {
    if (value == 0) return;
    if (!(value > 0) || !std::isfinite(value)) {
      problems.add(std::string(flag) + " must be a finite number > 0");
    }
  };
  positive_or_default(o.nvlink_bandwidth_gb_s, "--nvlink-bandwidth-gb-s");
  positive_or_default(o.network_bandwidth_gb_s, "--network-bandwidth-gb-s");
  if (o.nvlink_latency_us < 0 || !std::isfinite(o.nvlink_latency_us)) {
    problems.add("--nvlink-latency-us must be a finite number >= 0");
  }
  if (o.network_latency_us < 0 || !std::isfinite(o.network_latency_us)) {
    problems.add("--network-latency-us must be a finite number >= 0");
  }
  if (o.gpus_per_node < 0 || o.gpus_per_node > 1024) {
    problems.add("--gpus-per-node must be in [1, 1024] (0: the default, 8)");
  }
  for (const std::string& option : o.simgrid_config) {
    if (option.find(':') == std::string::npos || option.front() == ':') {
      problems.add("--simgrid-cfg: '" + option + "' is not of the form key:value");
    }
  }
  if (run_ok && o.prefill_replicas > 0 && !(setup.run.profile.kv_bytes_per_token > 0)) {
    problems.add(setup.run.profile.path +
                 ": memory.kv_bytes_per_token must be > 0 to move KV between replicas");
  }
  problems.throw_if_any();
  return setup;
}

void resolve_platform(ClusterSetup& setup) {
  const ClusterOptions& o = setup.options;
  PlatformSpec& p = setup.platform;
  p.platform_path = o.platform_path;
  p.router_host = o.router_host.empty() ? "router" : o.router_host;
  p.replicas = o.replicas;
  p.prefill_replicas = o.prefill_replicas;
  p.gpus_per_replica = setup.run.profile.gpus;
  if (o.gpus_per_node > 0) p.builtin.gpus_per_node = o.gpus_per_node;
  if (o.nvlink_bandwidth_gb_s > 0)
    p.builtin.nvlink_bandwidth_bytes_s = o.nvlink_bandwidth_gb_s * 1e9;
  if (o.nvlink_latency_us > 0) p.builtin.nvlink_latency_s = o.nvlink_latency_us * 1e-6;
  if (o.network_bandwidth_gb_s > 0) {
    p.builtin.network_bandwidth_bytes_s = o.network_bandwidth_gb_s * 1e9;
  }
  if (o.network_latency_us > 0) p.builtin.network_latency_s = o.network_latency_us * 1e-6;
  p.simgrid_config = o.simgrid_config;
}

}  // namespace

ClusterSetup prepare_cluster(const ClusterOptions& options) {
  ProblemList problems;
  std::optional<RunSetup> run;
  problems.check([&] { run = prepare_run(options.run); });
  ClusterSetup setup = check_cluster(options, run ? &*run : nullptr, problems);
  resolve_platform(setup);
  return setup;
}

ClusterSetup prepare_cluster(const RunSetup& run, const ClusterOptions& options) {
  ClusterOptions with_run = options;
  with_run.run = run.options;
  ProblemList problems;
  ClusterSetup setup = check_cluster(with_run, &run, problems);
  resolve_platform(setup);
  return setup;
}

namespace {

// Every replica's engine (its own policy and metrics, its own acceptance model unless one can be
// shared) on one time model and SPS table; the first `prefill` replicas prefill when the cluster is
// disaggregated.
std::vector<ReplicaRig> build_rigs(const RunSetup& rs, std::size_t n, std::size_t prefill,
                                   const TimeModel& time_model, const SpsTable& sps) {
  std::vector<ReplicaRig> rigs(n);
  for (std::size_t i = 0; i < n; ++i) {
    ReplicaRig& rig = rigs[i];
    rig.role = prefill == 0 ? ReplicaRole::kColocated
                            : (i < prefill ? ReplicaRole::kPrefill : ReplicaRole::kDecode);
    rig.policy = make_policy(rs.policy_spec, PolicyContext{rs.engine.drafter.gamma});
    // Every replica's model is built from the same spec and seed: a shareable one is built once.
    if (i > 0 && rigs[0].acceptance->shareable()) {
      rig.acceptance = rigs[0].acceptance;
    } else {
      rig.acceptance = make_acceptance_model(
          rs.acceptance_spec,
          AcceptanceContext{rs.engine.drafter, rs.profile.target, rs.options.seed});
    }
    rig.metrics = std::make_unique<MetricsCollector>(nullptr);
    rig.engine = std::make_unique<Engine>(rs.engine, time_model, sps, *rig.acceptance, *rig.policy,
                                          *rig.metrics);
    if (rs.sps_belief == SpsBelief::kLive) {
      rig.live_sps = std::make_unique<LiveSps>(time_model);
      rig.engine->use_live_sps(rig.live_sps.get());
    }
  }
  return rigs;
}

void add_bins(std::vector<PerSecondBin>& bins, const std::vector<PerSecondBin>& rb) {
  if (rb.size() > bins.size()) bins.resize(rb.size());
  for (std::size_t s = 0; s < rb.size(); ++s) {
    bins[s].running_request_seconds += rb[s].running_request_seconds;
    bins[s].steps += rb[s].steps;
    bins[s].request_steps += rb[s].request_steps;
    bins[s].verify_tokens += rb[s].verify_tokens;
    bins[s].decode_committed += rb[s].decode_committed;
    bins[s].output_tokens += rb[s].output_tokens;
  }
}

// Whole cluster: counters and per-second series summed over replicas; per-request distributions
// from the completions as the cluster saw them; ITL histograms merged. Fills `bins`.
MetricsTotals cluster_totals(const std::vector<ReplicaRig>& rigs,
                             const MetricsCollector& cluster_metrics, const ClusterStats& stats,
                             int replica_gpus, std::vector<PerSecondBin>& bins) {
  MetricsTotals total = totals_of(cluster_metrics);
  total.counters = AggregateCounters{};
  LogHistogram itl_step, itl_token;
  for (const ReplicaRig& rig : rigs) {
    add_counters(total.counters, rig.metrics->counters());
    itl_step.merge(rig.metrics->itl_step_histogram());
    itl_token.merge(rig.metrics->itl_token_histogram());
    add_bins(bins, rig.metrics->per_second());
    total.kv_capacity_tokens += rig.engine->kv_capacity();
  }
  const AggregateCounters& whole = cluster_metrics.counters();
  total.counters.requests_completed = whole.requests_completed;
  total.counters.single_token_requests = whole.single_token_requests;
  const auto& cb = cluster_metrics.per_second();
  if (cb.size() > bins.size()) bins.resize(cb.size());
  for (std::size_t s = 0; s < cb.size(); ++s) bins[s].completed = cb[s].completed;
  total.itl_step_ms = itl_step.summarize();
  total.itl_token_ms = itl_token.summarize();
  total.requests_total = stats.requests_submitted;
  total.requests_rejected_kv = stats.requests_rejected_kv;
  total.end_time = stats.end_time;
  total.gpus = replica_gpus * static_cast<int>(rigs.size());
  return total;
}

// Acceptance notes from every replica, each once, in replica order.
std::vector<std::string> acceptance_notes(const std::vector<ReplicaRig>& rigs) {
  std::vector<std::string> notes;
  for (const ReplicaRig& rig : rigs) {
    for (const std::string& note : rig.acceptance->notes()) {
      if (std::find(notes.begin(), notes.end(), note) == notes.end()) notes.push_back(note);
    }
  }
  return notes;
}

// transfers.csv: every KV transfer that landed, with its route and how much it was slowed.
std::string transfers_csv(const KvNetwork& network, const ClusterPlatform& platform) {
  std::string csv =
      "request_id,from_replica,to_replica,from_host,to_host,bytes,start_s,land_s,duration_ms,"
      "route_latency_us,route_bandwidth_gb_s,idle_route_ms,slowdown\n";
  for (const KvTransferRecord& t : network.transfers()) {
    if (t.land < 0) continue;
    const double duration_ms = sim_time_to_ms(t.land - t.start);
    const double idle_ms =
        1e3 * (t.route_latency_s + static_cast<double>(t.bytes) / t.route_bandwidth_bytes_s);
    CsvRow(csv)
        .integer(static_cast<std::int64_t>(t.request_id))
        .integer(static_cast<std::int64_t>(t.from))
        .integer(static_cast<std::int64_t>(t.to))
        .text(platform.replica_host_name(t.from))
        .text(platform.replica_host_name(t.to))
        .integer(static_cast<std::int64_t>(t.bytes))
        .scaled(t.start, 9)
        .scaled(t.land, 9)
        .scaled(t.land - t.start, 6)
        .fixed(t.route_latency_s * 1e6, 6)
        .fixed(t.route_bandwidth_bytes_s / 1e9, 6)
        .fixed(idle_ms, 9)
        .fixed(per(duration_ms, idle_ms), 6)
        .end();
  }
  return csv;
}

// summary.json's "cluster": shape, router and the KV transfers' sizes and times.
nlohmann::ordered_json cluster_section(const ClusterSetup& setup, const ClusterPlatform& platform,
                                       const KvNetwork& network, std::size_t prefill) {
  std::vector<double> transfer_ms;
  std::uint64_t transfer_bytes = 0;
  for (const KvTransferRecord& t : network.transfers()) {
    if (t.land < 0) continue;
    transfer_ms.push_back(sim_time_to_ms(t.land - t.start));
    transfer_bytes += t.bytes;
  }
  const std::size_t n = platform.replica_count();
  nlohmann::ordered_json cluster;
  cluster["replicas"] = n;
  cluster["prefill_replicas"] = prefill;
  cluster["decode_replicas"] = prefill > 0 ? n - prefill : 0;
  cluster["router"] = setup.router_spec.text();
  cluster["topology"] = platform.description();
  cluster["gpus_per_replica"] = setup.run.gpus;
  cluster["kv_bytes_per_token"] = setup.run.profile.kv_bytes_per_token;
  cluster["kv_transfers"] = static_cast<std::int64_t>(transfer_ms.size());
  cluster["kv_transfer_bytes"] = transfer_bytes;
  cluster["kv_transfer_ms"] = to_json(summarize_exact(transfer_ms));
  return cluster;
}

// summary.json's "replicas": each replica's own metrics, host and role.
nlohmann::ordered_json replicas_section(const std::vector<ReplicaRig>& rigs,
                                        const ClusterStats& stats, const ClusterPlatform& platform,
                                        int replica_gpus) {
  nlohmann::ordered_json per_replica = nlohmann::ordered_json::array();
  per_replica.get_ref<nlohmann::ordered_json::array_t&>().reserve(rigs.size());
  std::size_t keys_per_replica = 0;
  for (std::size_t i = 0; i < rigs.size(); ++i) {
    const ReplicaRig& rig = rigs[i];
    MetricsTotals m = totals_of(*rig.metrics);
    m.requests_total = stats.replicas[i].requests_submitted;
    m.requests_rejected_kv = stats.replicas[i].requests_rejected_kv;
    m.end_time = stats.replicas[i].end_time;
    m.gpus = replica_gpus;
    m.kv_capacity_tokens = rig.engine->kv_capacity();
    // Every replica has the first one's keys: room for them up front, so that adding each key
    // does not regrow the object (whose growth copies every key so far).
    nlohmann::ordered_json r = nlohmann::ordered_json::object();
    r.get_ref<nlohmann::ordered_json::object_t&>().reserve(keys_per_replica);
    r["replica"] = i;
    r["host"] = platform.replica_host_name(i);
    r["role"] = replica_role_name(rig.role);
    put_metrics(r, m);
    keys_per_replica = r.size();
    per_replica.push_back(std::move(r));
  }
  return per_replica;
}

// summary.json's "links": what each network link carried and how busy it was.
nlohmann::ordered_json links_section(const KvNetwork& network, double duration_s) {
  nlohmann::ordered_json links = nlohmann::ordered_json::array();
  for (const LinkUsage& u : network.link_usage()) {
    nlohmann::ordered_json l;
    l["name"] = u.name;
    l["bandwidth_gb_s"] = u.bandwidth_bytes_s / 1e9;
    l["latency_us"] = u.latency_s * 1e6;
    l["transfers"] = u.transfers;
    l["bytes"] = u.bytes;
    l["busy_s"] = sim_time_to_seconds(u.busy);
    l["utilization_mean"] = per(static_cast<double>(u.bytes), u.bandwidth_bytes_s * duration_s);
    l["utilization_while_busy"] =
        per(static_cast<double>(u.bytes), u.bandwidth_bytes_s * sim_time_to_seconds(u.busy));
    links.push_back(std::move(l));
  }
  return links;
}

// config.json's "cluster": the options that shaped the cluster and SimGrid's configuration.
nlohmann::ordered_json cluster_config(const ClusterSetup& setup, const ClusterPlatform& platform,
                                      std::size_t prefill) {
  nlohmann::ordered_json ccfg;
  const ClusterOptions& co = setup.options;
  ccfg["replicas"] = platform.replica_count();
  ccfg["platform"] = co.platform_path;
  ccfg["router_host"] = platform.router_host_name();
  ccfg["router"] = setup.router_spec.text();
  ccfg["prefill_replicas"] = prefill;
  ccfg["topology"] = platform.description();
  if (co.platform_path.empty()) {
    const BuiltinTopology& t = setup.platform.builtin;
    ccfg["gpus_per_node"] = t.gpus_per_node;
    ccfg["nvlink_bandwidth_gb_s"] = t.nvlink_bandwidth_bytes_s / 1e9;
    ccfg["nvlink_latency_us"] = t.nvlink_latency_s * 1e6;
    ccfg["network_bandwidth_gb_s"] = t.network_bandwidth_bytes_s / 1e9;
    ccfg["network_latency_us"] = t.network_latency_s * 1e6;
  }
  nlohmann::ordered_json simgrid = nlohmann::ordered_json::array();
  for (const std::string& c : default_simgrid_config()) simgrid.push_back(c);
  for (const std::string& c : co.simgrid_config) simgrid.push_back(c);
  ccfg["simgrid_config"] = simgrid;
  return ccfg;
}

}  // namespace

namespace {

// One cluster built from a setup and ready to run: the platform (a bad platform file or an
// unreachable replica stops its constructor, before anything is simulated), every replica's rig,
// the routers and the KV network. Both the full summary and a plan's lean run simulate through it.
struct BuiltCluster {
  explicit BuiltCluster(const ClusterSetup& setup)
      : rs(setup.run),
        platform(ClusterPlatform::create(setup.platform)),
        prefill(static_cast<std::size_t>(setup.platform.prefill_replicas)),
        time_model(rs.profile),
        sps(make_sps_table(
            rs.profile, rs.sps_belief,
            std::max<std::int64_t>(rs.engine.max_batch_tokens,
                                   rs.engine.max_running * (rs.engine.drafter.gamma + 1)))),
        rigs(build_rigs(rs, platform->replica_count(), prefill, time_model, sps)),
        workload(make_run_workload(rs)),
        arrival_router(make_router(setup.router_spec)),
        decode_router(make_router(setup.router_spec)),
        network(*platform),
        threads(cluster_threads(setup.options)) {
    replicas.resize(rigs.size());
    for (std::size_t i = 0; i < rigs.size(); ++i)
      replicas[i] = ClusterReplica{rigs[i].engine.get(), rigs[i].role};
    wiring.replicas = replicas;
    wiring.arrival_router = arrival_router.get();
    if (prefill > 0) {
      wiring.decode_router = decode_router.get();
      wiring.transport = &network;
      wiring.kv_bytes_per_token = rs.profile.kv_bytes_per_token;
    }
  }

  // Runs the simulation on the router's actor, to its end or until `stop` is set.
  ClusterStats run(const ClusterCompletion& observer, const bool* stop = nullptr) {
    ClusterStats stats;
    platform->run_router(
        [&] { stats = run_cluster_simulation(wiring, *workload, observer, threads, stop); });
    return stats;
  }

  const RunSetup& rs;
  std::unique_ptr<ClusterPlatform> platform;
  std::size_t prefill;
  TimeModel time_model;
  SpsTable sps;
  std::vector<ReplicaRig> rigs;
  std::vector<ClusterReplica> replicas;
  std::unique_ptr<Workload> workload;
  std::unique_ptr<Router> arrival_router, decode_router;
  KvNetwork network;
  ClusterWiring wiring;
  std::size_t threads;
};

}  // namespace

ClusterOutcome execute_cluster(const ClusterSetup& setup, std::ostream* requests_csv) {
  const auto wall_start = std::chrono::steady_clock::now();
  BuiltCluster cluster(setup);
  const RunSetup& rs = setup.run;
  const std::vector<ReplicaRig>& rigs = cluster.rigs;
  const ClusterPlatform* platform = cluster.platform.get();
  const KvNetwork& network = cluster.network;
  const std::size_t prefill = cluster.prefill;

  // The whole cluster's per-request view: requests.csv and the latency distributions.
  MetricsCollector cluster_metrics(requests_csv);
  ClusterOutcome out;
  out.placement_csv = "request_id,replica\n";
  out.stats = cluster.run([&](const Request& r, std::size_t replica, SimTime) {
    cluster_metrics.on_request_done(r);
    CsvRow(out.placement_csv)
        .integer(static_cast<std::int64_t>(r.id))
        .integer(static_cast<std::int64_t>(replica))
        .end();
  });
  const double wall_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();

  std::vector<PerSecondBin> bins;
  const MetricsTotals total = cluster_totals(rigs, cluster_metrics, out.stats, rs.gpus, bins);
  const double duration_s = sim_time_to_seconds(out.stats.end_time);
  nlohmann::ordered_json& s = out.summary;
  put_run_identity(s, rs.profile, rs.engine.drafter.name, rs.policy_spec.text(), rs.sps_belief,
                   rs.acceptance_spec.text(), *rigs.front().acceptance);
  s["acceptance_notes"] = acceptance_notes(rigs);
  s["seed"] = rs.options.seed;
  put_metrics(s, total);
  s["sim_wall_s"] = wall_s;
  s["request_steps_per_wall_s"] = per(static_cast<double>(total.counters.request_steps), wall_s);
  s["speedup_vs_simulated_time"] = per(duration_s, wall_s);
  s["load_report"] = load_report_json(rs.trace.report);
  out.transfers_csv = transfers_csv(network, *platform);
  s["cluster"] = cluster_section(setup, *platform, network, prefill);
  s["replicas"] = replicas_section(rigs, out.stats, *platform, rs.gpus);
  s["links"] = links_section(network, duration_s);

  out.config = run_config_json(rs, rigs.front().policy->synchronous());
  out.config["cluster"] = cluster_config(setup, *platform, prefill);
  out.timeseries_csv = timeseries_csv(bins);
  return out;
}

nlohmann::ordered_json cluster_to_directory(const ClusterOptions& options) {
  if (options.run.out_dir.empty()) throw InputError("--out DIR is required");
  const ClusterSetup setup = prepare_cluster(options);  // input errors before any output
  StagedDirectory dir(options.run.out_dir);
  ClusterOutcome outcome;
  {
    std::ofstream requests(dir.file("requests.csv"), std::ios::binary);
    outcome = execute_cluster(setup, &requests);
    if (!requests) throw std::runtime_error("failed writing requests.csv");
  }
  const auto write = [&](const std::string& name, const std::string& text) {
    write_file_bytes(dir.file(name), text);
  };
  write("summary.json", outcome.summary.dump(2) + "\n");
  write("config.json", outcome.config.dump(2) + "\n");
  write("timeseries.csv", outcome.timeseries_csv);
  write("transfers.csv", outcome.transfers_csv);
  write("placement.csv", outcome.placement_csv);
  dir.commit();
  return std::move(outcome.summary);
}

ClusterResult execute_cluster_in_subprocess(const ClusterSetup& setup) {
  const std::string text = run_in_subprocess([&setup] {
    std::ostringstream requests;
    nlohmann::ordered_json both;
    both["summary"] = execute_cluster(setup, &requests).summary;
    both["requests_csv"] = requests.str();
    return both.dump();
  });
  auto both = nlohmann::ordered_json::parse(text);
  return ClusterResult{std::move(both["summary"]), both["requests_csv"].get<std::string>()};
}

ClusterSampleRun execute_cluster_samples(const ClusterSetup& setup,
                                         const ClusterSampleObserver& observer, const bool* stop) {
  BuiltCluster cluster(setup);
  ClusterSampleRun out;
  const auto count = [&](const Request& r, std::size_t, SimTime) {
    const RequestSample sample = request_sample(r);
    ++out.requests_completed;
    out.samples.add(sample);
    if (observer) observer(sample, r.done);
  };
  const ClusterStats stats = cluster.run(count, stop);
  out.requests_total = stats.requests_submitted;
  out.requests_rejected_kv = stats.requests_rejected_kv;
  for (const ReplicaRig& rig : cluster.rigs)
    out.output_tokens += rig.metrics->counters().output_tokens;
  out.duration_s = sim_time_to_seconds(stats.end_time);
  return out;
}

}  // namespace sparksim
