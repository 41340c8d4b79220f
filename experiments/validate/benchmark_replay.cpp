// The benchmark client as a Workload, and the replay itself.
#include "experiments/validate/benchmark_replay.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <deque>
#include <random>
#include <stdexcept>

#include "common/distribution_summary.hpp"
#include "common/input_error.hpp"
#include "common/named_spec.hpp"
#include "common/rng.hpp"
#include "experiments/validate/front_end_server.hpp"
#include "policies/policy_registry.hpp"
#include "sim/acceptance/acceptance_registry.hpp"
#include "sim/engine_preset.hpp"
#include "sim/metrics.hpp"
#include "sim/simulation.hpp"

namespace sparksim {

namespace {

// Sends requests in order. Request i is due at its paced time (0 for an infinite rate; gamma
// inter-arrival gaps of mean 1/rate otherwise, like vLLM's client); with a concurrency limit it
// waits for a free slot. Once sent, it queues for the front end's intake (FrontEndServer: the
// requests handed in together are one batch, `batch` + count x `intake` busy time, released
// together), then reaches the scheduler `latency` later.
//
// The server is FIFO in the simulation's event order. With an infinite rate the first requests
// (all of them, or `max_concurrency`) are handed in together at t = 0: one batch, taken in before
// any output chunk. A later request is a batch of its own. A paced request is queued when the
// simulation pulls it (at the previous request's arrival, which may be before it is due): its
// intake is booked then, so a chunk streamed between the pull and its due time waits behind it
// (exact when the server is idle at the due time, the common case below saturation). A closed loop
// sends at the engine's completion of the previous request.
class BenchmarkClient final : public Workload {
 public:
  BenchmarkClient(const BenchmarkWorkload& w, FrontEndServer& server, SimTime batch, SimTime intake,
                  SimTime latency)
      : requests_(w.requests),
        limit_(w.max_concurrency),
        server_(server),
        batch_(batch),
        intake_(intake),
        latency_(latency) {
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
    } else {
      const std::int64_t n = static_cast<std::int64_t>(requests_.size());
      const std::int64_t together = limit_ == 0 ? n : std::min(limit_, n);
      const SimTime taken_in = server_.serve_batch(0, together, batch_, intake_);
      arrival_.assign(static_cast<std::size_t>(together), taken_in + latency_);
    }
    sent_at_.reserve(requests_.size());
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
  // When request `id` (the id-th sent: FIFO intake keeps arrivals in send order) was sent.
  SimTime sent_at(std::uint64_t id) const { return sent_at_.at(id); }
  const RequestSpec& request(std::uint64_t id) const { return requests_.at(id); }

 private:
  RequestSpec send(SimTime at) {
    RequestSpec r = requests_[next_];
    r.arrival = next_ < arrival_.size() ? arrival_[next_]
                                        : server_.serve_batch(at, 1, batch_, intake_) + latency_;
    sent_at_.push_back(at);
    ++next_;
    return r;
  }
  const std::vector<RequestSpec>& requests_;
  std::int64_t limit_;
  FrontEndServer& server_;
  SimTime batch_, intake_, latency_;
  std::vector<SimTime> due_;
  std::vector<SimTime> arrival_;  // precomputed for the batch sent at t = 0
  std::vector<SimTime> sent_at_;
  std::size_t next_ = 0;
};

// What the client receives: every step's tokens for a request are one streamed chunk, which the
// front end must process (`chunk` busy time, FIFO behind what is queued) before the client sees
// it. Without front-end costs a chunk arrives when its step ends.
class StreamedDeliveries {
 public:
  StreamedDeliveries(const BenchmarkClient& client, FrontEndServer& server, SimTime chunk)
      : client_(client), server_(server), chunk_(chunk) {}
  void on_step(SimTime end, const std::vector<Engine::StepItem>& items) {
    for (const Engine::StepItem& item : items) {
      if (item.request >= streams_.size()) streams_.resize(item.request + 1);
      Stream& s = streams_[item.request];
      // A prefill chunk that completes the prompt (plus, after a recompute, what was generated)
      // samples one token; a decode step delivers what it committed.
      const std::int64_t needed = client_.request(item.request).prompt_tokens + s.tokens;
      const std::int64_t tokens =
          item.prefill ? (item.context + item.width >= needed ? 1 : 0) : item.commits;
      if (tokens <= 0) continue;
      const SimTime at = server_.serve(end, chunk_);
      if (s.tokens == 0) {
        s.first = at;
      } else {
        itl_ms_.push_back(sim_time_to_ms(at - s.last));
      }
      s.last = at;
      s.tokens += tokens;
      last_ = std::max(last_, at);
    }
  }
  SimTime first(std::uint64_t id) const { return streams_.at(id).first; }
  SimTime last(std::uint64_t id) const { return streams_.at(id).last; }
  SimTime last_delivery() const { return last_; }
  const std::vector<double>& itl_ms() const { return itl_ms_; }

 private:
  struct Stream {
    std::int64_t tokens = 0;
    SimTime first = 0, last = 0;
  };
  const BenchmarkClient& client_;
  FrontEndServer& server_;
  SimTime chunk_;
  std::vector<Stream> streams_;
  std::vector<double> itl_ms_;
  SimTime last_ = 0;
};

// First word of "vLLM v0.11.0", case-insensitively.
std::string software_name(const std::string& engine_version) {
  std::string name = engine_version.substr(0, engine_version.find(' '));
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
  return name;
}

MetricStats stats_of(const DistributionSummary& s) {
  if (s.count == 0) return {};
  return {s.mean, s.p50, s.p99};
}

}  // namespace

bool serial_front_end_applies(const StepTerms& terms, const std::string& engine_version) {
  if (terms.frontend_engine.empty() || engine_version.empty()) return true;
  return software_name(engine_version) == software_name(terms.frontend_engine);
}

SimulatedMetrics replay_case(const BenchmarkCase& c, const Profile& profile_in,
                             const ReplayOptions& options) {
  Profile profile = profile_in;
  const std::string engine_name = options.engine.empty() ? c.engine : options.engine;
  EngineConfig config;
  config.drafter = parse_drafter(options.drafter);
  if (!engine_name.empty()) {
    const EnginePreset& preset = find_engine_preset(engine_name);
    config.max_running = preset.max_running;
    config.max_batch_tokens = preset.max_batch_tokens;
    config.prefill_mode = preset.prefill;
    profile.memory_utilization = preset_memory_utilization(
        preset, profile.hbm_bytes, profile.weights_bytes, profile.reserved_bytes);
  }
  config.kv_capacity_tokens =
      options.kv_capacity_tokens > 0 ? options.kv_capacity_tokens : profile.kv_capacity_tokens();

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

  const StepTerms& terms = profile.step_terms;
  const bool on = terms.present;
  // The serial costs belong to the server software they were measured on.
  const bool serial = on && serial_front_end_applies(terms, c.engine_version);
  FrontEndServer server;
  BenchmarkClient client(c.workload, server,
                         seconds_to_sim_time(serial ? terms.frontend_batch_ms * 1e-3 : 0.0),
                         seconds_to_sim_time(serial ? terms.frontend_request_ms * 1e-3 : 0.0),
                         seconds_to_sim_time(on ? terms.frontend_ms * 1e-3 : 0.0));
  StreamedDeliveries deliveries(client, server,
                                seconds_to_sim_time(serial ? terms.frontend_chunk_us * 1e-6 : 0.0));
  engine.set_step_observer([&](SimTime, SimTime end, const std::vector<Engine::StepItem>& items) {
    deliveries.on_step(end, items);
  });
  std::vector<double> ttft, tpot;
  const SimulationStats stats = run_simulation(engine, client, [&](const Request& r, SimTime) {
    if (r.spec.prompt_tokens != client.request(r.id).prompt_tokens) {
      throw std::logic_error("replay_case: request ids out of send order");
    }
    // The client's clock starts when it sends: the front end's queue and latency count in TTFT.
    const SimTime first = deliveries.first(r.id);
    ttft.push_back(sim_time_to_ms(first - client.sent_at(r.id)));
    if (r.spec.output_tokens > 1) {
      tpot.push_back(sim_time_to_ms(deliveries.last(r.id) - first) /
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
  // The benchmark ends when the client has received the last chunk.
  out.duration_s = sim_time_to_seconds(std::max(stats.end_time, deliveries.last_delivery()));
  out.output_throughput =
      out.duration_s > 0 ? static_cast<double>(metrics.counters().output_tokens) / out.duration_s
                         : 0;
  out.ttft_ms = stats_of(summarize_exact(ttft));
  out.tpot_ms = stats_of(summarize_exact(tpot));
  out.itl_ms = stats_of(summarize_exact(deliveries.itl_ms()));
  out.frontend_busy_s = sim_time_to_seconds(server.busy_time());
  return out;
}

}  // namespace sparksim
