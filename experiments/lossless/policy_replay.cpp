// One step's decision of a fresh registry policy after the instance's earlier steps.
#include "experiments/lossless/policy_replay.hpp"

#include <algorithm>
#include <stdexcept>

namespace sparksim {

PolicyReplay::PolicyReplay(const ExactInstance& instance, const std::string& policy_spec)
    : instance_(instance),
      text_(policy_spec),
      spec_(NamedSpec::parse(policy_spec, "--policy")),
      row_(&find_policy(spec_)),
      sps_(instance.sps) {
  make_policy(spec_, PolicyContext{instance.gamma});  // validates the parameters up front
  const auto requests = static_cast<std::size_t>(instance.request_count());
  for (std::size_t r = 0; r < requests; ++r) {
    ids_.push_back(r);
    contexts_.push_back(instance.requests[r].context_tokens);
  }
  history_confidences_.resize(requests * static_cast<std::size_t>(instance.gamma));
  history_hidden_.assign(row_->sees_hidden_outcome ? requests : 0, 0);
  scratch_.resize(requests);
}

void PolicyReplay::decide(std::span<const float> confidences, std::span<const int> hidden,
                          std::span<int> lengths) {
  const auto requests = static_cast<std::int64_t>(ids_.size());
  auto policy = make_policy(spec_, PolicyContext{instance_.gamma});
  for (const ExactHistoryStep& step : instance_.history) {
    std::transform(step.confidences.begin(), step.confidences.end(), history_confidences_.begin(),
                   [](double c) { return static_cast<float>(c); });
    BatchView view;
    view.gamma = instance_.gamma;
    view.requests = requests;
    view.request_ids = ids_;
    view.confidences = history_confidences_;
    view.context_tokens = step.context_tokens;
    view.hidden_accepted = history_hidden_;
    policy->schedule(view, sps_, scratch_);
  }
  BatchView view;
  view.gamma = instance_.gamma;
  view.requests = requests;
  view.request_ids = ids_;
  view.confidences = confidences;
  view.context_tokens = contexts_;
  if (row_->sees_hidden_outcome) view.hidden_accepted = hidden;
  std::fill(lengths.begin(), lengths.end(), -1);
  policy->schedule(view, sps_, lengths);
  for (std::int64_t r = 0; r < requests; ++r) {
    const int ell = lengths[static_cast<std::size_t>(r)];
    if (ell < 0 || ell > instance_.gamma) {
      throw std::logic_error("policy '" + text_ + "' returned length " + std::to_string(ell) +
                             " outside [0, gamma]");
    }
  }
}

}  // namespace sparksim
