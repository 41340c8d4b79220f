// The `live` SPS belief's invariant (docs/sps-beliefs.md), on the analytic H200 / Qwen3-8B time
// model with the dspark-7 drafter:
//
//   Let a step have R requests that share one context length and no prefill, let T(B) be the
//   engine's true duration of that step with B verify tokens (verify forward + draft forward +
//   the host overhead a synchronous policy pays), and let a_(1) >= a_(2) >= ... >= a_(N) be the
//   step's positive survivals. The full-block oracle values m admissions at
//   Θ(m) = (R + a_(1) + ... + a_(m)) / T(R + m) and says m_full = min { m : Θ(m) >= Θ(N) } drafts
//   are worth verifying: any fewer does strictly worse than verifying the whole block.
//   Invariant: under `live`, a global-search policy verifies at least m_full drafts.
//
// The oracle evaluates T with the TimeModel directly (not through LiveSps). The same check under
// the `reference` table must find violations at this load, or the invariant would not say
// anything about the belief.
#include <algorithm>
#include <functional>
#include <numeric>
#include <random>

#include <catch2/catch.hpp>

#include "policies/async_topk_policy.hpp"
#include "policies/greedy_policy.hpp"
#include "policies/retrospective_policy.hpp"
#include "policy_test_util.hpp"
#include "profiles/live_sps.hpp"
#include "profiles/profile_io.hpp"
#include "profiles/sps_belief.hpp"

using namespace sparksim;
using namespace sparksim::testing;

namespace {

constexpr int kGamma = 7;
const DrafterSpec kDrafter{DrafterFamily::kDspark, kGamma, "dspark-7"};

struct Step {
  OwnedBatch batch;
  std::int64_t context = 0;  // every request's
};

Step random_step(std::mt19937_64& rng, int requests, std::int64_t context) {
  std::uniform_real_distribution<float> first(0.6f, 0.99f);
  std::uniform_real_distribution<float> decay(0.75f, 1.0f);
  Step s;
  s.context = context;
  s.batch.gamma = kGamma;
  for (int r = 0; r < requests; ++r) {
    s.batch.ids.push_back(static_cast<std::uint64_t>(r));
    float c = first(rng);
    for (int k = 0; k < kGamma; ++k) {
      s.batch.confidences.push_back(c);
      c *= decay(rng);
    }
    s.batch.contexts.push_back(context);
    s.batch.hidden.push_back(0);
  }
  return s;
}

// The oracle's m_full, from the time model and the survivals (float products, left to right, as
// every policy computes them).
std::int64_t full_block_worth(const Step& s, const TimeModel& model, SimTime other) {
  const auto r = s.batch.requests();
  std::vector<double> survivals;
  for (std::int64_t i = 0; i < r; ++i) {
    float a = 1.0f;
    for (int k = 0; k < kGamma; ++k) {
      a *= s.batch.confidences[static_cast<std::size_t>(i * kGamma + k)];
      if (a > 0) survivals.push_back(a);
    }
  }
  std::sort(survivals.begin(), survivals.end(), std::greater<>());
  const auto theta = [&](std::size_t m) {
    BatchShape shape;
    shape.decode_requests = r;
    shape.verify_tokens = r + static_cast<std::int64_t>(m);
    shape.decode_context_tokens = r * s.context;
    shape.verify_attention_pairs = shape.verify_tokens * s.context;
    const double tau =
        static_cast<double>(r) + std::accumulate(survivals.begin(), survivals.begin() + m, 0.0);
    return tau / static_cast<double>(model.verify_time(shape) + other);
  };
  const double full = theta(survivals.size());
  for (std::size_t m = 0; m < survivals.size(); ++m) {
    // A relative margin far below any real difference keeps a summation-order tie from counting.
    if (theta(m) >= full * (1 - 1e-12)) return static_cast<std::int64_t>(m);
  }
  return static_cast<std::int64_t>(survivals.size());
}

std::int64_t verified(VerificationPolicy& policy, const Step& s, const SpsTable& sps, int repeats) {
  std::vector<int> lengths(s.batch.ids.size());
  // async-topk sizes K from survivals `lag` steps old: the same step repeated makes them current.
  for (int i = 0; i < repeats; ++i) policy.schedule(s.batch.view(), sps, lengths);
  return std::accumulate(lengths.begin(), lengths.end(), std::int64_t{0});
}

const Profile& h200_qwen3_8b() {
  static const Profile p =
      load_profile(std::string(SPARKSIM_SOURCE_DIR) + "/profiles/analytic/h200-sxm/qwen3-8b.json");
  return p;
}

}  // namespace

TEST_CASE("live: global-search policies verify at least what the full-block oracle says") {
  const Profile& profile = h200_qwen3_8b();
  const TimeModel model(profile);
  LiveSps live(model);
  const SpsTable reference = make_sps_table(profile, SpsBelief::kReference, 8192);
  std::mt19937_64 rng(18);
  int steps = 0;
  int reference_violations = 0;
  for (const int requests : {1, 3, 8, 24, 48, 64, 96, 160, 256}) {
    for (const std::int64_t context : {200, 2048, 9000}) {
      for (int trial = 0; trial < 4; ++trial) {
        const Step s = random_step(rng, requests, context);
        INFO("R = " << requests << ", context " << context << ", trial " << trial);
        for (const bool synchronous : {true, false}) {
          SimTime other = model.draft_time(kDrafter, requests, requests * context);
          if (synchronous) other += model.host_overhead();
          const std::int64_t worth = full_block_worth(s, model, other);
          const SpsTable& sps =
              live.at(requests, requests * context, requests * (kGamma + 1) + 1, other);
          RetrospectivePolicy retrospective(synchronous);
          CHECK(verified(retrospective, s, sps, 1) >= worth);
          AsyncTopKPolicy async(kGamma, 2, synchronous);
          CHECK(verified(async, s, sps, 3) >= worth);
          RetrospectivePolicy on_reference(synchronous);
          if (verified(on_reference, s, reference, 1) < worth) ++reference_violations;
          ++steps;
        }
      }
    }
  }
  // The reference table charges a whole request's KV read every 4 tokens: under it the same
  // policy trims below what the truth says is worth verifying, on many of these steps.
  INFO(reference_violations << " of " << steps << " steps violate it under `reference`");
  CHECK(reference_violations > steps / 4);
}

TEST_CASE("live: greedy's early stop can break the invariant at a staircase step") {
  // The invariant is a global-search property: Algorithm 1 stops at the first admission that
  // lowers Θ, so where the true step time jumps at a CUDA-graph bucket edge and the batch
  // beyond it pays off, greedy stops short of m_full (the trap the paper names). Flat cost up to
  // B = 8, a cliff at 9 that eight high-survival tokens repay by B = 16.
  std::vector<double> sps(32);
  for (int b = 1; b <= 32; ++b) sps[b - 1] = b <= 8 ? 100.0 : (b <= 16 ? 80.0 : 40.0);
  const SpsTable table(sps);
  const OwnedBatch batch = uniform_batch(8, {0.99f, 0.99f, 0.5f});
  GreedyPolicy greedy(true);
  RetrospectivePolicy global(true);
  std::vector<int> lengths(8);
  greedy.schedule(batch.view(), table, lengths);
  const int greedy_count = std::accumulate(lengths.begin(), lengths.end(), 0);
  global.schedule(batch.view(), table, lengths);
  const int global_count = std::accumulate(lengths.begin(), lengths.end(), 0);
  // Survivals 0.99, 0.9801, 0.49 per request. Θ(0) = 8 x 100 = 800; Θ(1) = 8.99 x 80 < 800:
  // greedy stops at 0. Θ(m) = (8 + 0.99 m) x 80 grows to Θ(8) = 15.92 x 80 = 1273.6 (B = 16);
  // past it SPS halves (Θ(16) = 23.76 x 40 = 950.4), so the whole path's best is 8 drafts.
  CHECK(greedy_count == 0);
  CHECK(global_count == 8);
}
