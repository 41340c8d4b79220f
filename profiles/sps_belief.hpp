// SPS beliefs: what the scheduler believes one more verify token costs. The load-aware policies
// maximise τ·SPS(B) against a steps-per-second table, and that table is part of the system being
// simulated (docs/sps-beliefs.md):
//   capture   — the table a deployed engine profiles at CUDA-graph capture (SGLang's DSpark port):
//               every request verifying γ+1 tokens, short dummy contexts, batch sizes up to the
//               capture limit. In effect the dense cost staircase. The default.
//   live      — the time model's own step time at the step's actual requests and contexts (what
//               an ideal engine could compute); refreshed every step by LiveSps.
//   reference — the profile's `sps` table: ⌈B/4⌉ requests with 2048 cached tokens each (what
//               sparksim used before beliefs were named).
// build_sps_tables() derives the stored tables from a profile's verify time model (step terms
// included); the loader calls it for old profiles that carry no capture table. Every producer
// gets both tables from it through the one finishing step (profiles/profile_finishing.hpp), the
// reference table always at kSpsReferenceShape; tests/profiles/profile_conformance_test.cpp checks
// every committed profile's tables against a rebuild.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "profiles/profile.hpp"
#include "profiles/time_model.hpp"

namespace sparksim {

enum class SpsBelief : std::uint8_t { kCapture, kLive, kReference };

// Deployed practice: engines profile SPS(B) once, at capture, and trust it (docs/sps-beliefs.md).
inline constexpr SpsBelief kDefaultSpsBelief = SpsBelief::kCapture;

const char* sps_belief_name(SpsBelief belief);  // "capture" | "live" | "reference"
std::optional<SpsBelief> parse_sps_belief(std::string_view name);
inline constexpr const char* kSpsBeliefChoices = "capture, live, reference";
// One line for reports: what the scheduler's table is.
std::string sps_belief_description(SpsBelief belief);

// The shape SGLang's port profiles at CUDA-graph capture: each of R requests verifies
// verify_tokens_per_request tokens over a dummy cache of context_tokens (its capture fills
// sequence lengths with 1), for R up to max_requests (the capture limit; 256 = the engine's
// default max_running, so every batch it can run is covered). B between multiples of γ+1 is the
// same shape with ⌈B/(γ+1)⌉ requests.
struct SpsCaptureShape {
  std::int64_t verify_tokens_per_request = 8;  // γ + 1 for dspark-7
  std::int64_t context_tokens = 1;
  std::int64_t max_requests = 256;
};

// The reference shape (sparksim's table before beliefs): B verify tokens from ⌈B/4⌉ requests with
// 2048 cached tokens each, B up to max_tokens.
struct SpsReferenceShape {
  std::int64_t verify_tokens_per_request = 4;
  std::int64_t context_tokens = 2048;
  std::int64_t max_tokens = 8192;
};

struct SpsTableShapes {
  SpsCaptureShape capture;
  SpsReferenceShape reference;
};

struct SpsTables {
  SpsPoints reference;
  SpsPoints capture;
};

// Both tables, from `profile.verify` alone (draft time and host overhead excluded, as a profiled
// forward excludes them): SPS(B) = 1 s / verify_time(shape at B), tabulated at every CUDA-graph
// bucket and the token after it (so the padding staircase survives linear interpolation), every
// 64 tokens past the buckets to 2048, then 1.5x/2x steps to the shape's last B.
SpsTables build_sps_tables(const Profile& profile, const SpsTableShapes& shapes = {});
// build_sps_tables' capture table alone (what the loader derives for a file without one).
SpsPoints build_capture_sps(const Profile& profile, const SpsCaptureShape& shape = {});

// The batch shapes the tables evaluate at B verify tokens.
BatchShape sps_reference_batch(std::int64_t verify_tokens, const SpsReferenceShape& shape);
BatchShape sps_capture_batch(std::int64_t verify_tokens, const SpsCaptureShape& shape);

// The token points the tables are tabulated at (see build_sps_tables).
std::vector<std::int64_t> sps_token_points(const std::vector<std::int64_t>& graph_buckets,
                                           std::int64_t max_tokens);

// The scheduler's table for a static belief, materialised to max_tokens. `live` has no static
// table: it returns the capture table, which LiveSps replaces every step.
SpsTable make_sps_table(const Profile& profile, SpsBelief belief, std::int64_t max_tokens);

}  // namespace sparksim
