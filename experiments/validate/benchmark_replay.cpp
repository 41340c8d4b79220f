// The benchmark client as a Workload, and the replay itself.
#include "experiments/validate/benchmark_replay.hpp"

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>

#include "common/distribution_summary.hpp"
#include "common/input_error.hpp"
#include "common/named_spec.hpp"
#include "common/rng.hpp"
#include "policies/policy_registry.hpp"
#include "sim/acceptance/acceptance_registry.hpp"
#include "sim/engine_preset.hpp"
#include "sim/metrics.hpp"
#include "sim/simulation.hpp"

namespace sparksim {

namespace {

// Sends requests in order. Request i is due at its paced time (0 for an infinite rate; gamma
// inter-arrival gaps of mean 1/rate otherwise, like vLLM's client); with a concurrency limit it
// waits for a free slot. A request's arrival is when it is sent: the engine's front end takes it in
// from there (requests sent at one instant are one intake batch: with an infinite rate the first
// requests, all of them or `max_concurrency`, at t = 0). A closed loop sends at the engine's
// completion of the previous request.
class BenchmarkClient final : public Workload {
 public:
  explicit BenchmarkClient(const BenchmarkWorkload& w)
      : requests_(w.requests), limit_(w.max_concurrency) {
    due_.resize(requests_.size(), 0);
    if (std::isfinite(w.request_rate)) {
      RngStream rng(w.seed, StreamId::kSyntheticArrivals);
      boost::random::gamma_distribution<double> gap(w.burstiness,
                                                    1.0 / (w.request_rate * w.burstiness));
      double t = 0;
      for (std::size_t i = 0; i < due_.size(); ++i) {
        due_[i] = seconds_to_sim_time(t);
        t += gap(rng.engine());
      }
    }
  }
  std::optional<RequestSpec> next_scheduled() override {
    if (next_ >= requests_.size()) return std::nullopt;
    if (limit_ > 0 && static_cast<std::int64_t>(next_) >= limit_) return std::nullopt;
    return send(due_[next_]);
  }
  std::optional<RequestSpec> on_completion(SimTime now) override {
    if (limit_ == 0 || next_ >= requests_.size()) return std::nullopt;
    return send(std::max(now, due_[next_]));
  }
  const RequestSpec& request(std::uint64_t id) const { return requests_.at(id); }

 private:
  RequestSpec send(SimTime at) {
    RequestSpec r = requests_[next_++];
    r.arrival = at;
    return r;
  }
  const std::vector<RequestSpec>& requests_;
  std::int64_t limit_;
  std::vector<SimTime> due_;
  std::size_t next_ = 0;
};

// What the client receives, chunk by chunk (the engine's deliveries, through its front end): the
// gaps between a request's chunks are the ITL samples.
class StreamedDeliveries {
 public:
  void on_delivery(const Request& r, SimTime at) {
    if (r.id >= last_.size()) last_.resize(r.id + 1, -1);
    SimTime& last = last_[r.id];
    if (last >= 0) itl_ms_.push_back(sim_time_to_ms(at - last));
    last = at;
  }
  const std::vector<double>& itl_ms() const { return itl_ms_; }

 private:
  std::vector<SimTime> last_;  // per request id, -1 before its first chunk
  std::vector<double> itl_ms_;
};

MetricStats stats_of(const DistributionSummary& s) {
  if (s.count == 0) return {};
  return {s.mean, s.p50, s.p99};
}

}  // namespace

SimulatedMetrics replay_case(const BenchmarkCase& c, const Profile& profile_in,
                             const ReplayOptions& options) {
  Profile profile = profile_in;
  const std::string engine_name = options.engine.empty() ? c.engine : options.engine;
  EngineConfig config;
  config.drafter = parse_drafter(options.drafter);
  if (!engine_name.empty()) {
    const EnginePreset& preset = find_engine_preset(engine_name);
    config.front_end = preset.front_end;
    config.max_running = preset.max_running;
    config.max_batch_tokens = preset.max_batch_tokens;
    config.prefill_mode = preset.prefill;
    profile.memory_utilization = preset_memory_utilization(
        preset, profile.hbm_bytes, profile.weights_bytes, profile.reserved_bytes);
  }
  config.kv_capacity_tokens =
      options.kv_capacity_tokens > 0 ? options.kv_capacity_tokens : profile.kv_capacity_tokens();
  if (options.front_end) config.front_end = *options.front_end;

  const TimeModel time_model(profile);
  const SpsTable sps(profile.sps,
                     std::max<std::int64_t>(config.max_batch_tokens,
                                            config.max_running * (config.drafter.gamma + 1)));
  const NamedSpec policy_spec = NamedSpec::parse("static:k=1", "--policy");
  const NamedSpec acceptance_spec = NamedSpec::parse("calibrated", "--acceptance");
  auto policy = make_policy(
      config.drafter.speculates() ? policy_spec : NamedSpec::parse("static", "--policy"),
      PolicyContext{config.drafter.gamma});
  auto acceptance = make_acceptance_model(
      acceptance_spec, AcceptanceContext{config.drafter, profile.target, c.workload.seed});
  MetricsCollector metrics(nullptr);
  Engine engine(config, time_model, sps, *acceptance, *policy, metrics);

  BenchmarkClient client(c.workload);
  StreamedDeliveries deliveries;
  engine.set_delivery_observer(
      [&](const Request& r, SimTime at) { deliveries.on_delivery(r, at); });
  std::vector<double> ttft, tpot;
  const SimulationStats stats = run_simulation(engine, client, [&](const Request& r, SimTime) {
    if (r.spec.prompt_tokens != client.request(r.id).prompt_tokens) {
      throw std::logic_error("replay_case: request ids out of send order");
    }
    // The client's clock starts when it sends: the front end's queue and latency count in TTFT.
    ttft.push_back(sim_time_to_ms(r.first_token - r.arrival));
    if (r.spec.output_tokens > 1) {
      tpot.push_back(sim_time_to_ms(r.done - r.first_token) /
                     static_cast<double>(r.spec.output_tokens - 1));
    }
  });
  if (stats.requests_rejected_kv > 0) {
    throw InputError(c.origin + ": " + std::to_string(stats.requests_rejected_kv) +
                     " requests can never fit in the profile's KV capacity (" +
                     std::to_string(config.kv_capacity_tokens) +
                     " tokens); the measured engine served them");
  }
  SimulatedMetrics out;
  out.completed = metrics.counters().requests_completed;
  out.preemptions = metrics.counters().preemptions;
  // The benchmark ends when the client has received the last chunk (run_simulation's end).
  out.duration_s = sim_time_to_seconds(stats.end_time);
  out.output_throughput =
      out.duration_s > 0 ? static_cast<double>(metrics.counters().output_tokens) / out.duration_s
                         : 0;
  out.ttft_ms = stats_of(summarize_exact(ttft));
  out.tpot_ms = stats_of(summarize_exact(tpot));
  out.itl_ms = stats_of(summarize_exact(deliveries.itl_ms()));
  out.front_end_busy_s = sim_time_to_seconds(engine.front_end().server().busy_time());
  return out;
}

}  // namespace sparksim
