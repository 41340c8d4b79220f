// Monte Carlo trials of one step of an ExactInstance, G-tested against the target's paths.
#include "experiments/lossless/instance_sampler.hpp"

#include <algorithm>

#include "common/rng.hpp"
#include "experiments/lossless/exact_checker.hpp"
#include "experiments/lossless/policy_replay.hpp"
#include "sim/acceptance/token_level/goodness_of_fit.hpp"
#include "sim/acceptance/token_level/rejection_sampler.hpp"

namespace sparksim {

namespace {

std::span<const double> row_of(const std::vector<double>& table, int row, int vocab) {
  return {table.data() + static_cast<std::size_t>(row) * static_cast<std::size_t>(vocab),
          static_cast<std::size_t>(vocab)};
}

// One step's random draws for every request, in the order they are made.
struct StepSample {
  std::vector<int> drafts, hidden, lengths;  // R × γ, R, R
  std::vector<float> confidences;            // R × γ
};

// Draws request r's γ drafts and their acceptance (hidden[r]: the first rejected position, γ when
// all pass), with the confidences the head shows the policy.
void draft_request(const ExactRequest& req, std::size_t r, int vocab, std::size_t g, RngStream& rng,
                   StepSample& step) {
  int previous = req.anchor;
  int& hidden = step.hidden[r];
  hidden = -1;
  for (std::size_t k = 0; k < g; ++k) {
    step.confidences[r * g + k] =
        static_cast<float>(req.confidence[k][static_cast<std::size_t>(previous)]);
    const auto p_d = row_of(req.draft[k], previous, vocab);
    const int x = sample_categorical(p_d, rng.uniform01());
    const double u = rng.uniform01();
    if (hidden < 0 &&
        !accept_draft(row_of(req.target, previous, vocab)[static_cast<std::size_t>(x)],
                      p_d[static_cast<std::size_t>(x)], u)) {
      hidden = static_cast<int>(k);
    }
    step.drafts[r * g + k] = x;
    previous = x;
  }
  if (hidden < 0) hidden = static_cast<int>(g);
}

// Request r's committed block (the accepted drafts, then the residual or bonus token), extended
// to γ + 1 tokens from the target: its path index (first token most significant). Counts the
// block's first token in `first_frequency`.
std::size_t commit_request(const ExactRequest& req, std::size_t r, int vocab, int gamma,
                           const StepSample& step, RngStream& rng,
                           std::vector<double>& first_frequency) {
  const auto g = static_cast<std::size_t>(gamma);
  const int accepted = std::min(step.lengths[r], step.hidden[r]);
  std::size_t path = 0;
  for (int k = 0; k < accepted; ++k) {
    path = path * static_cast<std::size_t>(vocab) +
           static_cast<std::size_t>(step.drafts[r * g + static_cast<std::size_t>(k)]);
  }
  int previous =
      accepted == 0 ? req.anchor : step.drafts[r * g + static_cast<std::size_t>(accepted - 1)];
  const auto p_t = row_of(req.target, previous, vocab);
  int token = step.hidden[r] < step.lengths[r]
                  ? sample_residual(
                        p_t, row_of(req.draft[static_cast<std::size_t>(accepted)], previous, vocab),
                        rng.uniform01())
                  : sample_categorical(p_t, rng.uniform01());
  path = path * static_cast<std::size_t>(vocab) + static_cast<std::size_t>(token);
  if (accepted == 0)
    first_frequency[static_cast<std::size_t>(token)] += 1;
  else
    first_frequency[static_cast<std::size_t>(step.drafts[r * g])] += 1;
  for (int k = accepted + 1; k < gamma + 1; ++k) {
    previous = token;
    token = sample_categorical(row_of(req.target, previous, vocab), rng.uniform01());
    path = path * static_cast<std::size_t>(vocab) + static_cast<std::size_t>(token);
  }
  return path;
}

}  // namespace

InstanceSampleResult sample_instance(const ExactInstance& in, const std::string& policy_spec,
                                     std::int64_t trials, std::uint64_t seed, double alpha) {
  PolicyReplay replay(in, policy_spec);
  const int vocab = in.vocab();
  const int gamma = in.gamma;
  const auto requests = static_cast<std::size_t>(in.request_count());
  const auto g = static_cast<std::size_t>(gamma);
  std::size_t paths = 1;
  for (int i = 0; i <= gamma; ++i) paths *= static_cast<std::size_t>(vocab);

  RngStream rng(seed, StreamId::kAcceptance);
  std::vector<std::int64_t> counts(requests * paths, 0);
  StepSample step{std::vector<int>(requests * g), std::vector<int>(requests),
                  std::vector<int>(requests), std::vector<float>(requests * g)};
  InstanceSampleResult result;
  result.trials = trials;
  result.first_frequency.assign(requests, std::vector<double>(static_cast<std::size_t>(vocab)));
  for (std::int64_t trial = 0; trial < trials; ++trial) {
    for (std::size_t r = 0; r < requests; ++r)
      draft_request(in.requests[r], r, vocab, g, rng, step);
    replay.decide(step.confidences, step.hidden, step.lengths);
    for (std::size_t r = 0; r < requests; ++r) {
      const std::size_t path =
          commit_request(in.requests[r], r, vocab, gamma, step, rng, result.first_frequency[r]);
      ++counts[r * paths + path];
    }
  }
  std::vector<double> probabilities;
  for (const ExactRequest& req : in.requests) {
    const auto target = target_paths(req, vocab, gamma);
    probabilities.insert(probabilities.end(), target.begin(), target.end());
  }
  const GTestResult test = conditional_g_test(counts, probabilities, static_cast<int>(requests),
                                              static_cast<int>(paths));
  result.statistic = test.statistic;
  result.degrees_of_freedom = test.degrees_of_freedom;
  result.p_value = test.p_value;
  result.distorted = test.p_value < alpha;
  for (auto& row : result.first_frequency) {
    for (double& f : row) f /= static_cast<double>(trials);
  }
  return result;
}

}  // namespace sparksim
