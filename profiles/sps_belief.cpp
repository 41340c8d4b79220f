// SPS beliefs: names, and the one function that derives the stored tables from a time model.
#include "profiles/sps_belief.hpp"

#include <set>

#include "profiles/decimal_rounding.hpp"

namespace sparksim {

namespace {

// Six decimals, as the committed profiles have always stored SPS.
constexpr int kSpsDecimals = 6;

template <typename ShapeAt>
SpsPoints tabulate(const TimeModel& model, std::vector<std::int64_t> tokens, ShapeAt shape_at) {
  SpsPoints points;
  points.tokens = std::move(tokens);
  for (const std::int64_t b : points.tokens) {
    const double ns = static_cast<double>(model.verify_time(shape_at(b)));
    points.steps_per_s.push_back(round_decimals(1e9 / ns, kSpsDecimals));
  }
  return points;
}

}  // namespace

const char* sps_belief_name(SpsBelief belief) {
  switch (belief) {
    case SpsBelief::kCapture:
      return "capture";
    case SpsBelief::kLive:
      return "live";
    case SpsBelief::kReference:
      return "reference";
  }
  return "?";
}

std::optional<SpsBelief> parse_sps_belief(std::string_view name) {
  for (const SpsBelief b : {SpsBelief::kCapture, SpsBelief::kLive, SpsBelief::kReference}) {
    if (name == sps_belief_name(b)) return b;
  }
  return std::nullopt;
}

std::string sps_belief_description(SpsBelief belief) {
  switch (belief) {
    case SpsBelief::kCapture:
      return "capture: SPS(B) profiled at CUDA-graph capture (each request verifying gamma+1 "
             "tokens over a 1-token cache), as deployed engines build it";
    case SpsBelief::kLive:
      return "live: the time model's step time at each step's actual requests and contexts";
    case SpsBelief::kReference:
      return "reference: the profile's sps table (ceil(B/4) requests with 2048 cached tokens)";
  }
  return "?";
}

namespace {

// B verify tokens from ceil(B / per_request) decode requests with `context` cached tokens each.
BatchShape uniform_decode_batch(std::int64_t verify_tokens, std::int64_t per_request,
                                std::int64_t context) {
  BatchShape shape;
  shape.verify_tokens = verify_tokens;
  shape.decode_requests = (verify_tokens + per_request - 1) / per_request;
  shape.decode_context_tokens = shape.decode_requests * context;
  shape.verify_attention_pairs = verify_tokens * context;
  return shape;
}

}  // namespace

BatchShape sps_reference_batch(std::int64_t verify_tokens, const SpsReferenceShape& s) {
  return uniform_decode_batch(verify_tokens, s.verify_tokens_per_request, s.context_tokens);
}

BatchShape sps_capture_batch(std::int64_t verify_tokens, const SpsCaptureShape& s) {
  return uniform_decode_batch(verify_tokens, s.verify_tokens_per_request, s.context_tokens);
}

std::vector<std::int64_t> sps_token_points(const std::vector<std::int64_t>& buckets,
                                           std::int64_t max_tokens) {
  std::set<std::int64_t> points{1};
  for (std::int64_t b : buckets) {
    points.insert(b);
    points.insert(b + 1);
  }
  const std::int64_t start = buckets.empty() ? 64 : buckets.back();
  for (std::int64_t t = start; t <= std::min<std::int64_t>(2048, max_tokens); t += 64) {
    points.insert(t);
  }
  for (std::int64_t t = 2048; t <= max_tokens; t *= 2) {
    points.insert(t);
    if (t + t / 2 <= max_tokens) points.insert(t + t / 2);
  }
  std::vector<std::int64_t> out;
  for (std::int64_t t : points) {
    if (t <= max_tokens) out.push_back(t);
  }
  // The capture limit itself is the table's last point (beyond it the table's rate carries on).
  if (out.back() != max_tokens) out.push_back(max_tokens);
  return out;
}

SpsTables build_sps_tables(const Profile& profile, const SpsTableShapes& shapes) {
  const TimeModel model(profile);
  const auto& buckets = profile.verify.graph_buckets;
  SpsTables t;
  const SpsReferenceShape& ref = shapes.reference;
  t.reference = tabulate(model, sps_token_points(buckets, ref.max_tokens),
                         [&](std::int64_t b) { return sps_reference_batch(b, ref); });
  t.reference.reference = "verify_time at B verify tokens from ceil(B/" +
                          std::to_string(ref.verify_tokens_per_request) + ") requests with " +
                          std::to_string(ref.context_tokens) + " cached context tokens each (B*" +
                          std::to_string(ref.context_tokens) +
                          " attention pairs), no prefill; draft time and host overhead excluded";
  t.capture = build_capture_sps(profile, shapes.capture);
  return t;
}

SpsPoints build_capture_sps(const Profile& profile, const SpsCaptureShape& cap) {
  const TimeModel model(profile);
  SpsPoints capture = tabulate(model,
                               sps_token_points(profile.verify.graph_buckets,
                                                cap.max_requests * cap.verify_tokens_per_request),
                               [&](std::int64_t b) { return sps_capture_batch(b, cap); });
  capture.reference = "capture: verify_time at B verify tokens from ceil(B/" +
                      std::to_string(cap.verify_tokens_per_request) + ") requests with " +
                      std::to_string(cap.context_tokens) +
                      " cached context token(s) each, B up to " + std::to_string(cap.max_requests) +
                      " requests x " + std::to_string(cap.verify_tokens_per_request) +
                      " (the CUDA-graph capture limit); draft time and host overhead excluded";
  return capture;
}

SpsTable make_sps_table(const Profile& profile, SpsBelief belief, std::int64_t max_tokens) {
  if (belief == SpsBelief::kReference) return SpsTable(profile.sps, max_tokens);
  if (!profile.sps_capture.tokens.empty()) return SpsTable(profile.sps_capture, max_tokens);
  return SpsTable(build_capture_sps(profile), max_tokens);
}

}  // namespace sparksim
