// Open-loop trace replay and closed-loop users.
#include "sim/workload.hpp"

#include <random>

namespace sparksim {

std::optional<RequestSpec> OpenLoopWorkload::next_scheduled() {
  if (next_ >= requests_.size()) return std::nullopt;
  return requests_[next_++];
}

ClosedLoopWorkload::ClosedLoopWorkload(const SyntheticSpec& spec, const ClosedLoopOptions& options,
                                       std::uint64_t seed)
    : spec_(spec),
      options_(options),
      rng_(seed, StreamId::kClosedLoop),
      end_(seconds_to_sim_time(options.duration_s)) {}

RequestSpec ClosedLoopWorkload::draw(SimTime arrival) {
  RequestSpec r = sample_request(spec_, rng_);
  r.arrival = arrival;
  return r;
}

std::optional<RequestSpec> ClosedLoopWorkload::next_scheduled() {
  // Every user sends its first request at time 0 (while the request budget lasts).
  if (started_ >= options_.users) return std::nullopt;
  if (options_.max_requests > 0 && started_ >= options_.max_requests) return std::nullopt;
  ++started_;
  return draw(0);
}

std::optional<RequestSpec> ClosedLoopWorkload::on_completion(SimTime now) {
  SimTime arrival = now;
  if (options_.think_time_s > 0) {
    arrival += seconds_to_sim_time(rng_.exponential(1.0 / options_.think_time_s));
  }
  if (arrival >= end_) return std::nullopt;
  if (options_.max_requests > 0 && started_ >= options_.max_requests) return std::nullopt;
  ++started_;
  return draw(arrival);
}

}  // namespace sparksim
