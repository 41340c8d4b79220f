// Fleets for capacity planning: round-robin over independent single-replica runs (colocated), or
// one cluster simulation per candidate count (any router, colocated or disaggregated).
#include "experiments/plan/fleet.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <type_traits>

#include "common/input_error.hpp"
#include "common/named_spec.hpp"
#include "experiments/plan/slo_miss_watch.hpp"
#include "experiments/run/cluster_experiment.hpp"
#include "experiments/run/parallel_runner.hpp"
#include "sim/cluster/router.hpp"
#include "sim/cluster/subprocess.hpp"

namespace sparksim {

namespace {

void finish(FleetOutcome& f) {
  if (f.duration_s > 0) {
    f.throughput_tok_s = static_cast<double>(f.output_tokens) / f.duration_s;
    f.throughput_tok_s_per_gpu = f.throughput_tok_s / static_cast<double>(f.gpus);
  }
}

// A cluster child's answer to its plan: what ClusterSampleRun holds, and where and why it stopped.
struct ChildAnswer {
  ClusterSampleRun run;
  std::optional<SimTime> stopped_at;
  std::string stop_reason;
};

// The answer in bytes (the child and its parent are the same binary): fixed-size fields as they
// lie in memory, then each vector and string after its length. Sending a whole requests.csv
// through JSON cost a plan's search about a third of its time.
class AnswerBytes {
 public:
  template <typename T>
  void put(const T& value) {
    static_assert(std::is_trivially_copyable_v<T>);
    bytes_.append(reinterpret_cast<const char*>(&value), sizeof value);
  }
  void put(const std::vector<double>& values) {
    put(values.size());
    bytes_.append(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(double));
  }
  void put(const std::string& text) {
    put(text.size());
    bytes_ += text;
  }
  std::string& bytes() { return bytes_; }

 private:
  std::string bytes_;
};

class AnswerReader {
 public:
  explicit AnswerReader(const std::string& bytes) : bytes_(bytes) {}
  template <typename T>
  void get(T& value) {
    static_assert(std::is_trivially_copyable_v<T>);
    std::memcpy(&value, take(sizeof value), sizeof value);
  }
  void get(std::vector<double>& values) {
    std::size_t n = 0;
    get(n);
    values.resize(n);
    if (n > 0) std::memcpy(values.data(), take(n * sizeof(double)), n * sizeof(double));
  }
  void get(std::string& text) {
    std::size_t n = 0;
    get(n);
    text.assign(take(n), n);
  }

 private:
  const char* take(std::size_t n) {
    if (bytes_.size() - at_ < n)
      throw std::runtime_error("a plan's cluster child sent a short answer");
    const char* p = bytes_.data() + at_;
    at_ += n;
    return p;
  }
  const std::string& bytes_;
  std::size_t at_ = 0;
};

std::string encode(const ChildAnswer& a) {
  AnswerBytes out;
  const ClusterSampleRun& r = a.run;
  out.put(r.requests_total);
  out.put(r.requests_completed);
  out.put(r.requests_rejected_kv);
  out.put(r.output_tokens);
  out.put(r.duration_s);
  for (const auto* v : {&r.samples.ttft_ms, &r.samples.tpot_ms, &r.samples.e2e_s,
                        &r.samples.queue_ms, &r.samples.tok_s_per_user}) {
    out.put(*v);
  }
  out.put(a.stopped_at.has_value());
  out.put(a.stopped_at.value_or(0));
  out.put(a.stop_reason);
  return std::move(out.bytes());
}

ChildAnswer decode(const std::string& bytes) {
  AnswerReader in(bytes);
  ChildAnswer a;
  ClusterSampleRun& r = a.run;
  in.get(r.requests_total);
  in.get(r.requests_completed);
  in.get(r.requests_rejected_kv);
  in.get(r.output_tokens);
  in.get(r.duration_s);
  for (auto* v : {&r.samples.ttft_ms, &r.samples.tpot_ms, &r.samples.e2e_s, &r.samples.queue_ms,
                  &r.samples.tok_s_per_user}) {
    in.get(*v);
  }
  bool stopped = false;
  SimTime at = 0;
  in.get(stopped);
  in.get(at);
  if (stopped) a.stopped_at = at;
  in.get(a.stop_reason);
  return a;
}

// Thrown by a cluster child's observer to end its run once the miss is certain.
struct MissCertain {};

// The child's work: the cluster run, stopped once `terms` are lost for good when any are given.
ChildAnswer run_cluster_child(const ClusterSetup& cluster, const std::vector<SloTerm>& terms) {
  ChildAnswer a;
  if (terms.empty()) {
    a.run = execute_cluster_samples(cluster);
    return a;
  }
  const auto& requests = cluster.run.trace.requests;
  const auto multi_token = std::count_if(requests.begin(), requests.end(),
                                         [](const auto& r) { return r.output_tokens > 1; });
  SloMissWatch watch(terms, static_cast<std::int64_t>(requests.size()), multi_token);
  std::int64_t completed = 0;
  try {
    a.run = execute_cluster_samples(cluster, [&](const RequestSample& sample, SimTime done) {
      // Every completion at the instant the miss became certain counts, in any order.
      if (a.stopped_at && done > *a.stopped_at) throw MissCertain{};
      ++completed;
      if (watch.add(sample) && !a.stopped_at) a.stopped_at = done;
    });
    a.stopped_at.reset();  // it ran to the end: the samples are whole and judged as usual
  } catch (const MissCertain&) {
    a.run = ClusterSampleRun{};
    a.run.requests_total = static_cast<std::int64_t>(requests.size());
    a.run.requests_completed = completed;
    a.stop_reason = watch.reason();
  }
  return a;
}

class RoundRobinFleet final : public FleetSimulator {
 public:
  std::string router() const override { return "round-robin"; }
  std::string layout() const override { return "colocated"; }
  void check(const RunSetup&) const override {}

  FleetOutcome simulate(const RunSetup& setup, std::int64_t replicas, int jobs) const override {
    const auto& all = setup.trace.requests;
    const auto n = static_cast<std::size_t>(replicas);
    std::vector<FleetOutcome> parts(n);
    run_in_parallel(n, jobs, [&](std::size_t k) {
      RunSetup mine = setup;
      mine.trace.requests.clear();
      for (std::size_t i = k; i < all.size(); i += n) mine.trace.requests.push_back(all[i]);
      FleetOutcome& p = parts[k];
      const RunOutcome out =
          execute_run(mine, nullptr, nullptr, nullptr,
                      [&p](const Request& r, SimTime) { p.samples.add(request_sample(r)); });
      const auto& s = out.summary;
      p.requests_total = s.at("requests_total").get<std::int64_t>();
      p.requests_completed = s.at("requests_completed").get<std::int64_t>();
      p.requests_rejected_kv = s.at("requests_rejected_kv").get<std::int64_t>();
      p.output_tokens = s.at("output_tokens").get<std::int64_t>();
      p.duration_s = s.at("sim_duration_s").get<double>();
    });
    FleetOutcome f;
    f.replicas = replicas;
    f.gpus = replicas * setup.gpus;
    for (const auto& p : parts) {  // replica order: the pooled samples do not depend on threads
      f.requests_total += p.requests_total;
      f.requests_completed += p.requests_completed;
      f.requests_rejected_kv += p.requests_rejected_kv;
      f.output_tokens += p.output_tokens;
      f.duration_s = std::max(f.duration_s, p.duration_s);
      f.samples.append(p.samples);
    }
    finish(f);
    return f;
  }
};

// `sparksim cluster` on the built-in topology, one forked child per candidate count (SimGrid
// allows one simulation per process). `jobs` is unused by simulate(): fork keeps only the calling
// thread, so a caller that wants several counts at once forks them itself (child_run).
class ClusterFleet final : public FleetSimulator {
 public:
  ClusterFleet(std::string router, double prefill_share)
      : router_(std::move(router)), prefill_share_(prefill_share) {}

  std::string router() const override { return router_; }
  std::string layout() const override {
    if (prefill_share_ == 0) return "colocated";
    char buffer[48];
    std::snprintf(buffer, sizeof buffer, "prefill-share=%g", prefill_share_);
    return buffer;
  }

  void check(const RunSetup& setup) const override {
    ClusterOptions options;
    options.replicas = 2;
    options.router = router_;
    options.prefill_replicas = prefill_share_ > 0 ? 1 : 0;
    prepare_cluster(setup, options);
  }

  FleetOutcome simulate(const RunSetup& setup, std::int64_t replicas, int) const override {
    ChildRun run = child_run(setup, replicas, {});
    if (run.body) finish_child_run(run.outcome, run_in_subprocess(run.body));
    return run.outcome;
  }

  bool forks() const override { return true; }
  ChildRun child_run(const RunSetup& setup, std::int64_t replicas,
                     std::span<const SloTerm> stop_terms) const override {
    ChildRun run;
    FleetOutcome& f = run.outcome;
    f.replicas = replicas;
    f.gpus = replicas * setup.gpus;
    f.requests_total = static_cast<std::int64_t>(setup.trace.requests.size());
    ClusterOptions options;
    options.replicas = replicas;
    options.router = router_;
    if (prefill_share_ > 0) {
      f.prefill_replicas = prefill_replicas_for(prefill_share_, replicas);
      if (f.prefill_replicas == 0) {
        f.infeasible = "a disaggregated layout needs at least 2 replicas";
        return run;
      }
      options.prefill_replicas = f.prefill_replicas;
    }
    run.body = [cluster = prepare_cluster(setup, options),
                terms = std::vector<SloTerm>(stop_terms.begin(), stop_terms.end())] {
      return encode(run_cluster_child(cluster, terms));
    };
    return run;
  }

  void finish_child_run(FleetOutcome& f, const std::string& bytes) const override {
    ChildAnswer a = decode(bytes);
    f.requests_total = a.run.requests_total;
    f.requests_completed = a.run.requests_completed;
    f.stopped_at = a.stopped_at;
    f.stop_reason = std::move(a.stop_reason);
    if (f.stopped_at) return;
    f.requests_rejected_kv = a.run.requests_rejected_kv;
    f.output_tokens = a.run.output_tokens;
    f.duration_s = a.run.duration_s;
    f.samples = std::move(a.run.samples);
    finish(f);
  }

 private:
  std::string router_;
  double prefill_share_;
};

// Validates the router name (its table lists the valid ones) and the share.
void check_fleet(const std::string& router, double prefill_share) {
  make_router(NamedSpec::parse(router, "--router"));
  if (!(prefill_share >= 0 && prefill_share < 1)) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%g", prefill_share);
    throw InputError(std::string("--prefill-share ") + buffer +
                     ": must be in [0, 1) (0 = colocated; 0.25 = a quarter of the replicas "
                     "prefill)");
  }
}

}  // namespace

std::int64_t prefill_replicas_for(double prefill_share, std::int64_t replicas) {
  if (!(prefill_share > 0) || replicas < 2) return 0;
  const auto p =
      static_cast<std::int64_t>(std::llround(prefill_share * static_cast<double>(replicas)));
  return std::clamp<std::int64_t>(p, 1, replicas - 1);
}

std::unique_ptr<FleetSimulator> make_fleet_simulator(const std::string& router,
                                                     double prefill_share) {
  check_fleet(router, prefill_share);
  if (router == "round-robin" && prefill_share == 0) return std::make_unique<RoundRobinFleet>();
  return std::make_unique<ClusterFleet>(router, prefill_share);
}

std::unique_ptr<FleetSimulator> make_cluster_fleet_simulator(const std::string& router,
                                                             double prefill_share) {
  check_fleet(router, prefill_share);
  return std::make_unique<ClusterFleet>(router, prefill_share);
}

}  // namespace sparksim
