// The shared summary lines (see the header).
#include "experiments/cli/summary_lines.hpp"

#include <cstdio>

namespace sparksim::cli {

namespace {

double number(const nlohmann::ordered_json& s, const char* key) {
  return s.at(key).get<double>();
}

long long count(const nlohmann::ordered_json& s, const char* key) {
  return static_cast<long long>(number(s, key));
}

double p50(const nlohmann::ordered_json& s, const char* key) {
  return s.at(key).at("p50").get<double>();
}

}  // namespace

void print_sps_belief_line(const nlohmann::ordered_json& s) {
  std::printf("SPS belief        %s\n", s.at("sps_belief").get<std::string>().c_str());
}

void print_requests_line(const nlohmann::ordered_json& s) {
  std::printf("requests          %lld completed of %lld (%lld never fit in KV)\n",
              count(s, "requests_completed"), count(s, "requests_total"),
              count(s, "requests_rejected_kv"));
}

void print_simulated_line(const nlohmann::ordered_json& s) {
  std::printf("simulated         %.1f s, %lld steps, %lld request-steps\n",
              number(s, "sim_duration_s"), count(s, "steps"), count(s, "request_steps"));
}

void print_per_user_line(const nlohmann::ordered_json& s) {
  std::printf("per user (p50)    %.1f tok/s, TPOT %.2f ms, TTFT %.1f ms, E2E %.2f s\n",
              p50(s, "tok_s_per_user"), p50(s, "tpot_ms"), p50(s, "ttft_ms"), p50(s, "e2e_s"));
}

void print_wall_line(const nlohmann::ordered_json& s) {
  std::printf("wall              %.3f s (%.2f M request-steps/s, %.0fx simulated time)\n",
              number(s, "sim_wall_s"), number(s, "request_steps_per_wall_s") / 1e6,
              number(s, "speedup_vs_simulated_time"));
}

}  // namespace sparksim::cli
