// Workload: where requests come from. Open loop replays a trace (arrivals fixed in advance);
// closed loop keeps N users with one request in flight each, so load follows service speed
// (what throughput-vs-concurrency curves need). The simulation pulls arrivals from it and tells
// it about completions.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "common/rng.hpp"
#include "traces/request_spec.hpp"
#include "traces/synthetic.hpp"

namespace sparksim {

class Workload {
 public:
  virtual ~Workload() = default;
  // Requests whose arrival is known before the run (open loop: the whole trace in order; closed
  // loop: each user's first request). Pulled one at a time, in non-decreasing arrival order.
  virtual std::optional<RequestSpec> next_scheduled() = 0;
  // A request completed at `now`; returns the follow-up request it triggers, if any (arrival set).
  virtual std::optional<RequestSpec> on_completion(SimTime now) = 0;
  // False when on_completion never returns a request (a loop may then run replicas side by side
  // between arrivals: sim/cluster/windowed_cluster_loop.hpp).
  virtual bool completions_make_requests() const { return true; }
};

class OpenLoopWorkload final : public Workload {
 public:
  explicit OpenLoopWorkload(const std::vector<RequestSpec>& requests) : requests_(requests) {}
  std::optional<RequestSpec> next_scheduled() override;
  std::optional<RequestSpec> on_completion(SimTime) override { return std::nullopt; }
  bool completions_make_requests() const override { return false; }

 private:
  const std::vector<RequestSpec>& requests_;
  std::size_t next_ = 0;
};

struct ClosedLoopOptions {
  std::int64_t users = 1;
  double think_time_s = 0;        // mean of an exponential think time; 0 = send immediately
  double duration_s = 60;         // users send no new request at or after this time
  std::int64_t max_requests = 0;  // all users together send at most this many (0 = no limit)
};

class ClosedLoopWorkload final : public Workload {
 public:
  ClosedLoopWorkload(const SyntheticSpec& spec, const ClosedLoopOptions& options,
                     std::uint64_t seed);
  std::optional<RequestSpec> next_scheduled() override;
  std::optional<RequestSpec> on_completion(SimTime now) override;

 private:
  RequestSpec draw(SimTime arrival);
  SyntheticSpec spec_;
  ClosedLoopOptions options_;
  RngStream rng_;
  std::int64_t started_ = 0;
  SimTime end_ = 0;
};

}  // namespace sparksim
