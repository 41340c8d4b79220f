// The lines of the headline summary that `sparksim run` and `sparksim cluster` both print, from
// the summary.json they wrote, so that the two commands say the same thing the same way.
#pragma once

#include <nlohmann/json.hpp>

namespace sparksim::cli {

// "SPS belief        <name>": the scheduler's SPS belief the run used (docs/sps-beliefs.md).
void print_sps_belief_line(const nlohmann::ordered_json& summary);
// "requests          N completed of M (K never fit in KV)"
void print_requests_line(const nlohmann::ordered_json& summary);
// "simulated         S s, N steps, M request-steps"
void print_simulated_line(const nlohmann::ordered_json& summary);
// "per user (p50)    X tok/s, TPOT ..., TTFT ..., E2E ..."
void print_per_user_line(const nlohmann::ordered_json& summary);
// "wall              S s (X M request-steps/s, Nx simulated time)"
void print_wall_line(const nlohmann::ordered_json& summary);

}  // namespace sparksim::cli
