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
  std::vector<int> drafts(requests * g), hidden(requests), lengths(requests);
  std::vector<float> confidences(requests * g);
  InstanceSampleResult result;
  result.trials = trials;
  result.first_frequency.assign(requests, std::vector<double>(static_cast<std::size_t>(vocab)));
  for (std::int64_t trial = 0; trial < trials; ++trial) {
    for (std::size_t r = 0; r < requests; ++r) {
      const ExactRequest& req = in.requests[r];
      int previous = req.anchor;
      hidden[r] = -1;
      for (std::size_t k = 0; k < g; ++k) {
        confidences[r * g + k] =
            static_cast<float>(req.confidence[k][static_cast<std::size_t>(previous)]);
        const auto p_d = row_of(req.draft[k], previous, vocab);
        const int x = sample_categorical(p_d, rng.uniform01());
        const double u = rng.uniform01();
        if (hidden[r] < 0 &&
            !accept_draft(row_of(req.target, previous, vocab)[static_cast<std::size_t>(x)],
                          p_d[static_cast<std::size_t>(x)], u)) {
          hidden[r] = static_cast<int>(k);
        }
        drafts[r * g + k] = x;
        previous = x;
      }
      if (hidden[r] < 0) hidden[r] = gamma;
    }
    replay.decide(confidences, hidden, lengths);
    for (std::size_t r = 0; r < requests; ++r) {
      const ExactRequest& req = in.requests[r];
      const int accepted = std::min(lengths[r], hidden[r]);
      std::size_t path = 0;
      for (int k = 0; k < accepted; ++k) {
        path = path * static_cast<std::size_t>(vocab) +
               static_cast<std::size_t>(drafts[r * g + static_cast<std::size_t>(k)]);
      }
      int previous =
          accepted == 0 ? req.anchor : drafts[r * g + static_cast<std::size_t>(accepted - 1)];
      const auto p_t = row_of(req.target, previous, vocab);
      int token =
          hidden[r] < lengths[r]
              ? sample_residual(
                    p_t, row_of(req.draft[static_cast<std::size_t>(accepted)], previous, vocab),
                    rng.uniform01())
              : sample_categorical(p_t, rng.uniform01());
      path = path * static_cast<std::size_t>(vocab) + static_cast<std::size_t>(token);
      if (accepted == 0)
        result.first_frequency[r][static_cast<std::size_t>(token)] += 1;
      else
        result.first_frequency[r][static_cast<std::size_t>(drafts[r * g])] += 1;
      for (int k = accepted + 1; k < gamma + 1; ++k) {
        previous = token;
        token = sample_categorical(row_of(req.target, previous, vocab), rng.uniform01());
        path = path * static_cast<std::size_t>(vocab) + static_cast<std::size_t>(token);
      }
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
