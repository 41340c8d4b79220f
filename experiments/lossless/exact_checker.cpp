// Enumeration of one step's joint outcomes, the policy's decision for each, and the committed
// blocks' distribution in closed form.
#include "experiments/lossless/exact_checker.hpp"

#include <algorithm>
#include <cmath>

#include "experiments/lossless/policy_replay.hpp"

namespace sparksim {

namespace {

std::size_t cell(int row, int col, int vocab) {
  return static_cast<std::size_t>(row) * static_cast<std::size_t>(vocab) +
         static_cast<std::size_t>(col);
}

std::size_t power(int base, int exponent) {
  std::size_t p = 1;
  for (int i = 0; i < exponent; ++i) p *= static_cast<std::size_t>(base);
  return p;
}

// One request's outcome of the step: its drafts and, for a policy that sees it, its hidden
// acceptance count (hidden = -1: the committed block mixes over the hidden count).
struct RequestItem {
  std::vector<int> drafts;
  int hidden = -1;
  double probability = 0;
  std::vector<float> confidences;
  std::vector<double> hidden_given_drafts;  // P(h = j | drafts), j = 0..γ
};

// P(h = j | drafts) for j = 0..γ: drafts 1..j accepted, j+1 rejected (or all γ accepted).
std::vector<double> hidden_distribution(const ExactRequest& r, int vocab,
                                        const std::vector<int>& drafts) {
  const auto gamma = static_cast<int>(drafts.size());
  std::vector<double> h(static_cast<std::size_t>(gamma) + 1, 0.0);
  double all_accepted = 1;
  int previous = r.anchor;
  for (int k = 1; k <= gamma; ++k) {
    const int x = drafts[static_cast<std::size_t>(k - 1)];
    const double p_d = r.draft[static_cast<std::size_t>(k - 1)][cell(previous, x, vocab)];
    const double p_t = r.target[cell(previous, x, vocab)];
    const double accept = p_d > 0 ? std::min(1.0, p_t / p_d) : 0.0;
    h[static_cast<std::size_t>(k - 1)] = all_accepted * (1 - accept);
    all_accepted *= accept;
    previous = x;
  }
  h[static_cast<std::size_t>(gamma)] = all_accepted;
  return h;
}

// Every outcome of request r with positive probability.
std::vector<RequestItem> request_items(const ExactInstance& in, const ExactRequest& r,
                                       bool sees_hidden) {
  const int vocab = in.vocab();
  const int gamma = in.gamma;
  std::vector<RequestItem> items;
  const std::size_t sequences = power(vocab, gamma);
  for (std::size_t s = 0; s < sequences; ++s) {
    RequestItem item;
    item.drafts.resize(static_cast<std::size_t>(gamma));
    std::size_t rest = s;
    for (int k = gamma - 1; k >= 0; --k) {
      item.drafts[static_cast<std::size_t>(k)] =
          static_cast<int>(rest % static_cast<std::size_t>(vocab));
      rest /= static_cast<std::size_t>(vocab);
    }
    double p = 1;
    int previous = r.anchor;
    for (int k = 0; k < gamma; ++k) {
      const int x = item.drafts[static_cast<std::size_t>(k)];
      p *= r.draft[static_cast<std::size_t>(k)][cell(previous, x, vocab)];
      item.confidences.push_back(static_cast<float>(
          r.confidence[static_cast<std::size_t>(k)][static_cast<std::size_t>(previous)]));
      previous = x;
    }
    if (!(p > 0)) continue;
    item.probability = p;
    item.hidden_given_drafts = hidden_distribution(r, vocab, item.drafts);
    if (!sees_hidden) {
      items.push_back(std::move(item));
      continue;
    }
    for (int h = 0; h <= gamma; ++h) {
      const double ph = item.hidden_given_drafts[static_cast<std::size_t>(h)];
      if (!(ph > 0)) continue;
      RequestItem with_hidden = item;
      with_hidden.hidden = h;
      with_hidden.probability = p * ph;
      items.push_back(std::move(with_hidden));
    }
  }
  return items;
}

// Adds weight × (the target's chain from `previous`, `length` more tokens) to out[prefix ...].
void add_chain(const ExactRequest& r, int vocab, int previous, int length, std::size_t prefix,
               double weight, std::vector<double>& out) {
  if (length == 0) {
    out[prefix] += weight;
    return;
  }
  for (int y = 0; y < vocab; ++y) {
    const double p = r.target[cell(previous, y, vocab)];
    if (p > 0) {
      add_chain(r, vocab, y, length - 1,
                prefix * static_cast<std::size_t>(vocab) + static_cast<std::size_t>(y), weight * p,
                out);
    }
  }
}

// Adds weight × the extended committed block of drafts/hidden/ℓ (closed-form rejection sampling).
void add_block(const ExactInstance& in, const ExactRequest& r, const std::vector<int>& drafts,
               int hidden, int ell, double weight, std::vector<double>& out) {
  const int vocab = in.vocab();
  const int accepted = std::min(ell, hidden);
  std::size_t prefix = 0;
  for (int k = 0; k < accepted; ++k) {
    prefix = prefix * static_cast<std::size_t>(vocab) +
             static_cast<std::size_t>(drafts[static_cast<std::size_t>(k)]);
  }
  const int previous = accepted == 0 ? r.anchor : drafts[static_cast<std::size_t>(accepted - 1)];
  const double* p_t = &r.target[cell(previous, 0, vocab)];
  std::vector<double> extra(p_t, p_t + vocab);
  if (hidden < ell) {
    // Position accepted + 1 was verified and rejected: the normalised residual.
    const double* p_d = &r.draft[static_cast<std::size_t>(accepted)][cell(previous, 0, vocab)];
    double total = 0;
    for (int y = 0; y < vocab; ++y) total += std::max(0.0, p_t[y] - p_d[y]);
    if (total > 1e-15) {
      for (int y = 0; y < vocab; ++y)
        extra[static_cast<std::size_t>(y)] = std::max(0.0, p_t[y] - p_d[y]) / total;
    }
  }
  const int rest = in.gamma - accepted;  // tokens after the extra one, up to γ + 1 in all
  for (int y = 0; y < vocab; ++y) {
    const double p = extra[static_cast<std::size_t>(y)];
    if (p > 0) {
      add_chain(r, vocab, y, rest,
                prefix * static_cast<std::size_t>(vocab) + static_cast<std::size_t>(y), weight * p,
                out);
    }
  }
}

// Adds weight × the committed block of `item` given ℓ: its own hidden count when the policy saw
// it, else the mixture over the hidden counts the drafts allow.
void add_item_blocks(const ExactInstance& in, const ExactRequest& r, const RequestItem& item,
                     int ell, double weight, std::vector<double>& out) {
  if (item.hidden >= 0) {
    add_block(in, r, item.drafts, item.hidden, ell, weight, out);
    return;
  }
  for (int h = 0; h <= in.gamma; ++h) {
    const double ph = item.hidden_given_drafts[static_cast<std::size_t>(h)];
    if (ph > 0) add_block(in, r, item.drafts, h, ell, weight * ph, out);
  }
}

// product ← product ⊗ factor (the outer product; the factor's index varies fastest). Zero rows
// of `product` stay zero without being multiplied out.
void extend_outer_product(std::vector<double>& product, const std::vector<double>& factor,
                          std::vector<double>& next) {
  const std::size_t paths = factor.size();
  next.assign(product.size() * paths, 0.0);
  for (std::size_t a = 0; a < product.size(); ++a) {
    if (product[a] == 0) continue;
    for (std::size_t p = 0; p < paths; ++p) next[a * paths + p] = product[a] * factor[p];
  }
  product.swap(next);
}

using RequestItems = std::vector<std::vector<RequestItem>>;  // [request][item]

// The joint distribution of all requests' committed blocks, when small enough to tabulate: the
// per-request blocks given (item, ℓ) are cached, and each joint outcome adds their outer product.
class JointCommitted {
 public:
  JointCommitted(const ExactInstance& in, const RequestItems& items)
      : in_(in), items_(items), paths_(power(in.vocab(), in.gamma + 1)) {
    double outcome_bound = 1, joint_size = 1;
    for (const auto& request_items : items) {
      outcome_bound *= static_cast<double>(request_items.size());
      joint_size *= static_cast<double>(paths_);
    }
    enabled_ = items.size() > 1 && joint_size <= 1e6 && joint_size * outcome_bound <= kMaxJointWork;
    if (!enabled_) return;
    table_.assign(static_cast<std::size_t>(joint_size), 0.0);
    blocks_.resize(items.size());
    for (std::size_t r = 0; r < items.size(); ++r) {
      blocks_[r].assign(items[r].size(),
                        std::vector<std::vector<double>>(static_cast<std::size_t>(in.gamma) + 1));
    }
  }
  bool enabled() const { return enabled_; }

  // The joint outcome `index` (one item per request) happened with `probability` and got `lengths`.
  void add(double probability, const std::vector<std::size_t>& index,
           const std::vector<int>& lengths) {
    product_.assign(1, probability);
    for (std::size_t r = 0; r < items_.size(); ++r) {
      extend_outer_product(product_, block(r, index[r], lengths[r]), next_);
    }
    for (std::size_t j = 0; j < product_.size(); ++j) table_[j] += product_[j];
  }

  // ½ Σ |joint committed − product of the requests' targets|.
  double tv(const std::vector<ExactRequestResult>& requests) {
    product_.assign(1, 1.0);
    for (const ExactRequestResult& r : requests) extend_outer_product(product_, r.target, next_);
    double tv = 0;
    for (std::size_t j = 0; j < product_.size(); ++j) tv += 0.5 * std::abs(table_[j] - product_[j]);
    return tv;
  }

 private:
  const std::vector<double>& block(std::size_t r, std::size_t i, int ell) {
    std::vector<double>& b = blocks_[r][i][static_cast<std::size_t>(ell)];
    if (!b.empty()) return b;
    b.assign(paths_, 0.0);
    add_item_blocks(in_, in_.requests[r], items_[r][i], ell, 1.0, b);
    return b;
  }

  const ExactInstance& in_;
  const RequestItems& items_;
  std::size_t paths_;
  bool enabled_ = false;
  std::vector<double> table_;
  std::vector<std::vector<std::vector<std::vector<double>>>> blocks_;  // [r][item][ℓ]
  std::vector<double> product_, next_;
};

// The probability of the joint outcome `index`; fills the confidences and hidden counts the
// policy is shown for it.
double load_outcome(const RequestItems& items, const std::vector<std::size_t>& index,
                    std::size_t gamma, std::vector<float>& confidences, std::vector<int>& hidden) {
  double probability = 1;
  for (std::size_t r = 0; r < items.size(); ++r) {
    const RequestItem& item = items[r][index[r]];
    probability *= item.probability;
    std::copy(item.confidences.begin(), item.confidences.end(),
              confidences.begin() + static_cast<std::ptrdiff_t>(r * gamma));
    hidden[r] = item.hidden;
  }
  return probability;
}

ExactOutcome kept_outcome(const RequestItems& items, const std::vector<std::size_t>& index,
                          double probability, const std::vector<float>& confidences,
                          const std::vector<int>& lengths) {
  ExactOutcome o;
  o.probability = probability;
  for (std::size_t r = 0; r < items.size(); ++r) {
    const RequestItem& item = items[r][index[r]];
    o.drafts.insert(o.drafts.end(), item.drafts.begin(), item.drafts.end());
    o.hidden.push_back(item.hidden);
  }
  o.confidences = confidences;
  o.lengths = lengths;
  return o;
}

// Next joint outcome (the last request varies fastest); false when every index wrapped.
bool next_outcome(const RequestItems& items, std::vector<std::size_t>& index) {
  for (std::size_t r = index.size(); r > 0; --r) {
    if (++index[r - 1] < items[r - 1].size()) return true;
    index[r - 1] = 0;
  }
  return false;
}

// weights[r][item][ℓ]: the probability that request r's outcome is `item` and it gets ℓ.
using LengthWeights = std::vector<std::vector<std::vector<double>>>;

// Asks the policy for every joint outcome; fills `weights` (and the joint table when enabled).
void enumerate_outcomes(const RequestItems& items, std::size_t gamma, PolicyReplay& replay,
                        bool keep_outcomes, LengthWeights& weights, JointCommitted& joint,
                        ExactResult& result) {
  const std::size_t requests = items.size();
  std::vector<float> confidences(requests * gamma);
  std::vector<int> hidden(requests, -1), lengths(requests);
  std::vector<std::size_t> index(requests, 0);  // the joint outcome: one item per request
  do {
    const double probability = load_outcome(items, index, gamma, confidences, hidden);
    replay.decide(confidences, hidden, lengths);
    for (std::size_t r = 0; r < requests; ++r) {
      weights[r][index[r]][static_cast<std::size_t>(lengths[r])] += probability;
    }
    ++result.outcomes_enumerated;
    if (joint.enabled()) joint.add(probability, index, lengths);
    if (keep_outcomes && result.outcomes.size() < kMaxKeptOutcomes) {
      result.outcomes.push_back(kept_outcome(items, index, probability, confidences, lengths));
    }
  } while (next_outcome(items, index));
}

// One request's committed blocks (from how often each outcome got each ℓ) against its target.
ExactRequestResult request_result(const ExactInstance& in, const ExactRequest& req,
                                  const std::vector<RequestItem>& items,
                                  const std::vector<std::vector<double>>& weights) {
  const int vocab = in.vocab();
  ExactRequestResult rr;
  rr.target = target_paths(req, vocab, in.gamma);
  rr.committed.assign(rr.target.size(), 0.0);
  for (std::size_t i = 0; i < items.size(); ++i) {
    for (int ell = 0; ell <= in.gamma; ++ell) {
      const double w = weights[i][static_cast<std::size_t>(ell)];
      if (w > 0) add_item_blocks(in, req, items[i], ell, w, rr.committed);
    }
  }
  const std::size_t per_first = rr.target.size() / static_cast<std::size_t>(vocab);
  rr.first_committed.assign(static_cast<std::size_t>(vocab), 0.0);
  rr.first_target.assign(static_cast<std::size_t>(vocab), 0.0);
  for (std::size_t p = 0; p < rr.target.size(); ++p) {
    rr.tv += 0.5 * std::abs(rr.committed[p] - rr.target[p]);
    rr.first_committed[p / per_first] += rr.committed[p];
    rr.first_target[p / per_first] += rr.target[p];
  }
  for (int y = 0; y < vocab; ++y) {
    rr.first_tv += 0.5 * std::abs(rr.first_committed[static_cast<std::size_t>(y)] -
                                  rr.first_target[static_cast<std::size_t>(y)]);
  }
  return rr;
}

}  // namespace

std::vector<double> target_paths(const ExactRequest& request, int vocab, int gamma) {
  std::vector<double> out(power(vocab, gamma + 1), 0.0);
  add_chain(request, vocab, request.anchor, gamma + 1, 0, 1.0, out);
  return out;
}

ExactResult check_exact(const ExactInstance& in, const std::string& policy_spec,
                        bool keep_outcomes) {
  PolicyReplay replay(in, policy_spec);
  const PolicyRow& row = replay.row();
  check_enumerable(in, row.sees_hidden_outcome);
  const auto requests = static_cast<std::size_t>(in.request_count());
  const auto g = static_cast<std::size_t>(in.gamma);

  RequestItems items(requests);
  LengthWeights weights(requests);
  for (std::size_t r = 0; r < requests; ++r) {
    items[r] = request_items(in, in.requests[r], row.sees_hidden_outcome);
    weights[r].assign(items[r].size(), std::vector<double>(g + 1, 0.0));
  }
  JointCommitted joint(in, items);

  ExactResult result;
  result.policy = policy_spec;
  result.sees_hidden_outcome = row.sees_hidden_outcome;
  enumerate_outcomes(items, g, replay, keep_outcomes, weights, joint, result);

  for (std::size_t r = 0; r < requests; ++r) {
    ExactRequestResult rr = request_result(in, in.requests[r], items[r], weights[r]);
    if (rr.tv > result.max_tv) {
      result.max_tv = rr.tv;
      result.worst_request = static_cast<int>(r);
    }
    result.requests.push_back(std::move(rr));
  }
  if (joint.enabled()) result.joint_tv = joint.tv(result.requests);
  result.distorted = result.distortion() > kExactTolerance;
  return result;
}

}  // namespace sparksim
