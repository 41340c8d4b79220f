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
  const int vocab = in.vocab();
  const int gamma = in.gamma;
  const auto requests = static_cast<std::size_t>(in.request_count());
  const auto g = static_cast<std::size_t>(gamma);

  std::vector<std::vector<RequestItem>> items(requests);
  for (std::size_t r = 0; r < requests; ++r) {
    items[r] = request_items(in, in.requests[r], row.sees_hidden_outcome);
  }
  // weights[r][item][ℓ]: the probability that request r's outcome is `item` and it gets ℓ.
  std::vector<std::vector<std::vector<double>>> weights(requests);
  for (std::size_t r = 0; r < requests; ++r) {
    weights[r].assign(items[r].size(), std::vector<double>(g + 1, 0.0));
  }

  std::vector<float> confidences(requests * g);
  std::vector<int> hidden(requests, -1), lengths(requests);

  // The joint table of all requests' blocks, when small enough: per-request blocks given (item,
  // ℓ) are cached, and each outcome adds their outer product.
  const std::size_t paths = power(vocab, gamma + 1);
  double outcome_bound = 1, joint_size = 1;
  for (std::size_t r = 0; r < requests; ++r) {
    outcome_bound *= static_cast<double>(items[r].size());
    joint_size *= static_cast<double>(paths);
  }
  const bool joint =
      requests > 1 && joint_size <= 1e6 && joint_size * outcome_bound <= kMaxJointWork;
  std::vector<double> joint_committed(joint ? static_cast<std::size_t>(joint_size) : 0, 0.0);
  std::vector<std::vector<std::vector<std::vector<double>>>> blocks(requests);
  for (std::size_t r = 0; r < requests && joint; ++r) {
    blocks[r].assign(items[r].size(), std::vector<std::vector<double>>(g + 1));
  }
  const auto block = [&](std::size_t r, std::size_t i, int ell) -> const std::vector<double>& {
    std::vector<double>& b = blocks[r][i][static_cast<std::size_t>(ell)];
    if (!b.empty()) return b;
    b.assign(paths, 0.0);
    const RequestItem& item = items[r][i];
    const ExactRequest& req = in.requests[r];
    if (item.hidden >= 0) {
      add_block(in, req, item.drafts, item.hidden, ell, 1.0, b);
    } else {
      for (int h = 0; h <= gamma; ++h) {
        const double ph = item.hidden_given_drafts[static_cast<std::size_t>(h)];
        if (ph > 0) add_block(in, req, item.drafts, h, ell, ph, b);
      }
    }
    return b;
  };
  std::vector<double> product, next;

  ExactResult result;
  result.policy = policy_spec;
  result.sees_hidden_outcome = row.sees_hidden_outcome;
  std::vector<std::size_t> index(requests, 0);  // the joint outcome: one item per request
  while (true) {
    double probability = 1;
    for (std::size_t r = 0; r < requests; ++r) {
      const RequestItem& item = items[r][index[r]];
      probability *= item.probability;
      std::copy(item.confidences.begin(), item.confidences.end(),
                confidences.begin() + static_cast<std::ptrdiff_t>(r * g));
      hidden[r] = item.hidden;
    }
    replay.decide(confidences, hidden, lengths);
    for (std::size_t r = 0; r < requests; ++r) {
      weights[r][index[r]][static_cast<std::size_t>(lengths[r])] += probability;
    }
    ++result.outcomes_enumerated;
    if (joint) {
      product.assign(1, probability);
      for (std::size_t r = 0; r < requests; ++r) {
        const std::vector<double>& b = block(r, index[r], lengths[r]);
        next.assign(product.size() * paths, 0.0);
        for (std::size_t a = 0; a < product.size(); ++a) {
          if (product[a] == 0) continue;
          for (std::size_t p = 0; p < paths; ++p) next[a * paths + p] = product[a] * b[p];
        }
        product.swap(next);
      }
      for (std::size_t j = 0; j < product.size(); ++j) joint_committed[j] += product[j];
    }
    if (keep_outcomes && result.outcomes.size() < kMaxKeptOutcomes) {
      ExactOutcome o;
      o.probability = probability;
      for (std::size_t r = 0; r < requests; ++r) {
        const RequestItem& item = items[r][index[r]];
        o.drafts.insert(o.drafts.end(), item.drafts.begin(), item.drafts.end());
        o.hidden.push_back(item.hidden);
      }
      o.confidences = confidences;
      o.lengths = lengths;
      result.outcomes.push_back(std::move(o));
    }
    // Next joint outcome (the last request varies fastest); done when every index wrapped.
    bool advanced = false;
    for (std::size_t r = requests; r > 0 && !advanced; --r) {
      if (++index[r - 1] < items[r - 1].size()) {
        advanced = true;
      } else {
        index[r - 1] = 0;
      }
    }
    if (!advanced) break;
  }

  for (std::size_t r = 0; r < requests; ++r) {
    const ExactRequest& req = in.requests[r];
    ExactRequestResult rr;
    rr.target = target_paths(req, vocab, gamma);
    rr.committed.assign(rr.target.size(), 0.0);
    for (std::size_t i = 0; i < items[r].size(); ++i) {
      const RequestItem& item = items[r][i];
      for (int ell = 0; ell <= gamma; ++ell) {
        const double w = weights[r][i][static_cast<std::size_t>(ell)];
        if (!(w > 0)) continue;
        if (item.hidden >= 0) {
          add_block(in, req, item.drafts, item.hidden, ell, w, rr.committed);
          continue;
        }
        for (int h = 0; h <= gamma; ++h) {
          const double ph = item.hidden_given_drafts[static_cast<std::size_t>(h)];
          if (ph > 0) add_block(in, req, item.drafts, h, ell, w * ph, rr.committed);
        }
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
    if (rr.tv > result.max_tv) {
      result.max_tv = rr.tv;
      result.worst_request = static_cast<int>(r);
    }
    result.requests.push_back(std::move(rr));
  }
  if (joint) {
    product.assign(1, 1.0);
    for (std::size_t r = 0; r < requests; ++r) {
      const std::vector<double>& t = result.requests[r].target;
      next.assign(product.size() * paths, 0.0);
      for (std::size_t a = 0; a < product.size(); ++a) {
        for (std::size_t p = 0; p < paths; ++p) next[a * paths + p] = product[a] * t[p];
      }
      product.swap(next);
    }
    result.joint_tv = 0;
    for (std::size_t j = 0; j < product.size(); ++j) {
      result.joint_tv += 0.5 * std::abs(joint_committed[j] - product[j]);
    }
  }
  result.distorted = result.distortion() > kExactTolerance;
  return result;
}

}  // namespace sparksim
