// Text and JSON forms of exact and sampled instance checks.
#include "experiments/lossless/exact_report.hpp"

#include <cstdio>
#include <set>
#include <string>

#include "common/json_file.hpp"

namespace sparksim {

namespace {

std::string number(double x) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", x);
  return text;
}

// "A 0.7, B 0.3" (zero entries left out).
std::string distribution(const double* p, const std::vector<std::string>& tokens) {
  std::string s;
  for (std::size_t y = 0; y < tokens.size(); ++y) {
    if (p[y] == 0) continue;
    s += (s.empty() ? "" : ", ") + tokens[y] + " " + number(p[y]);
  }
  return s;
}

// The previous tokens position k (1-based) can follow: the anchor for k = 1, else the tokens
// position k - 1 drafts with positive probability.
std::set<int> reachable_previous(const ExactInstance& in, const ExactRequest& r, int k) {
  std::set<int> current = {r.anchor};
  const int vocab = in.vocab();
  for (int position = 1; position < k; ++position) {
    std::set<int> next;
    for (int prev : current) {
      for (int y = 0; y < vocab; ++y) {
        if (r.draft[static_cast<std::size_t>(position - 1)]
                   [static_cast<std::size_t>(prev) * static_cast<std::size_t>(vocab) +
                    static_cast<std::size_t>(y)] > 0) {
          next.insert(y);
        }
      }
    }
    current = std::move(next);
  }
  return current;
}

bool same_model(const ExactRequest& a, const ExactRequest& b) {
  return a.target == b.target && a.draft == b.draft && a.confidence == b.confidence;
}

std::string tokens_text(const ExactInstance& in, const std::vector<int>& drafts,
                        std::size_t begin) {
  std::string s;
  for (int k = 0; k < in.gamma; ++k) {
    s += (k ? " " : "") +
         in.tokens[static_cast<std::size_t>(drafts[begin + static_cast<std::size_t>(k)])];
  }
  return s;
}

}  // namespace

void print_exact_instance(const ExactInstance& in, std::ostream& out) {
  const int vocab = in.vocab();
  std::string tokens;
  for (const auto& t : in.tokens) tokens += (tokens.empty() ? "" : " ") + t;
  out << "instance" << (in.note.empty() ? "" : " (" + in.note + ")") << ": tokens {" << tokens
      << "}, gamma = " << in.gamma << ", " << in.request_count()
      << (in.request_count() == 1 ? " request" : " requests in the step") << "\n";
  std::string sps;
  for (std::size_t b = 0; b < in.sps.size(); ++b) {
    sps += (b ? ", " : "") + ("SPS(" + std::to_string(b + 1) + ") = ") + number(in.sps[b]);
  }
  out << "  " << sps << "\n";
  for (std::size_t ri = 0; ri < in.requests.size(); ++ri) {
    const ExactRequest& r = in.requests[ri];
    out << "  request " << ri << ": anchor " << in.tokens[static_cast<std::size_t>(r.anchor)]
        << ", context " << r.context_tokens << " tokens";
    if (ri > 0 && same_model(r, in.requests.front())) {
      out << "; same tables and confidence head as request 0\n";
      continue;
    }
    out << "\n    target:";
    for (int prev = 0; prev < vocab; ++prev) {
      out << (prev ? " |" : "") << " after " << in.tokens[static_cast<std::size_t>(prev)] << ": "
          << distribution(
                 &r.target[static_cast<std::size_t>(prev) * static_cast<std::size_t>(vocab)],
                 in.tokens);
    }
    out << "\n";
    for (int k = 1; k <= in.gamma; ++k) {
      out << "    draft x" << k << ":";
      std::string confidence;
      bool first = true;
      for (int prev : reachable_previous(in, r, k)) {
        const auto p = static_cast<std::size_t>(prev);
        out << (first ? "" : " |") << " after " << in.tokens[p] << ": "
            << distribution(
                   &r.draft[static_cast<std::size_t>(k - 1)][p * static_cast<std::size_t>(vocab)],
                   in.tokens);
        confidence += (first ? "" : ", ") +
                      number(r.confidence[static_cast<std::size_t>(k - 1)][p]) + " after " +
                      in.tokens[p];
        first = false;
      }
      out << "\n      c" << k << " = " << confidence
          << (r.exact_confidence ? " (calibrated: sum_y min(p_d, p_t))" : " (free head)") << "\n";
    }
  }
  if (in.history.empty()) {
    out << "  earlier steps replayed into the policy: none\n";
  } else {
    out << "  earlier steps replayed into the policy (oldest first; per request c1..c" << in.gamma
        << " @ context):\n";
    for (const ExactHistoryStep& step : in.history) {
      out << "   ";
      for (int r = 0; r < in.request_count(); ++r) {
        out << (r ? " |" : "") << " (";
        for (int k = 0; k < in.gamma; ++k) {
          out << (k ? " " : "")
              << number(step.confidences[static_cast<std::size_t>(r) *
                                             static_cast<std::size_t>(in.gamma) +
                                         static_cast<std::size_t>(k)]);
        }
        out << ") @ " << step.context_tokens[static_cast<std::size_t>(r)];
      }
      out << "\n";
    }
  }
}

void print_exact_result(const ExactInstance& in, const ExactResult& result, std::ostream& out,
                        std::size_t max_lines) {
  const auto g = static_cast<std::size_t>(in.gamma);
  out << "policy " << result.policy << ": decision per outcome (" << result.outcomes_enumerated
      << " joint outcomes with positive probability)\n";
  out << "  probability   drafts" << (result.sees_hidden_outcome ? " [hidden accepted]" : "")
      << "   confidences seen   -> drafts verified\n";
  for (std::size_t i = 0; i < result.outcomes.size() && i < max_lines; ++i) {
    const ExactOutcome& o = result.outcomes[i];
    std::string drafts, confidences, lengths;
    for (int r = 0; r < in.request_count(); ++r) {
      const auto rr = static_cast<std::size_t>(r);
      if (r > 0) drafts += " | ";
      drafts += tokens_text(in, o.drafts, rr * g);
      if (result.sees_hidden_outcome) {
        drafts += " [";
        drafts += std::to_string(o.hidden[rr]);
        drafts += "]";
      }
      std::string c;
      for (std::size_t k = 0; k < g; ++k) {
        if (k > 0) c += " ";
        c += number(o.confidences[rr * g + k]);
      }
      if (r > 0) {
        confidences += " | ";
        lengths += " | ";
      }
      confidences += c;
      lengths += std::to_string(o.lengths[rr]);
    }
    char line[512];
    std::snprintf(line, sizeof line, "  %-12s  %-*s  %-18s -> %s\n", number(o.probability).c_str(),
                  static_cast<int>(in.request_count() * (2 * g + 4)), drafts.c_str(),
                  confidences.c_str(), lengths.c_str());
    out << line;
  }
  if (result.outcomes_enumerated >
      static_cast<std::int64_t>(std::min(max_lines, result.outcomes.size()))) {
    out << "  ... "
        << (result.outcomes_enumerated -
            static_cast<std::int64_t>(std::min(max_lines, result.outcomes.size())))
        << " more outcomes not shown\n";
  }
  for (std::size_t r = 0; r < result.requests.size(); ++r) {
    const ExactRequestResult& rr = result.requests[r];
    out << "request " << r << ", first committed token (committed vs target):";
    for (std::size_t y = 0; y < rr.first_target.size(); ++y) {
      if (rr.first_target[y] == 0 && rr.first_committed[y] == 0) continue;
      out << " " << in.tokens[y] << " " << number(rr.first_committed[y]) << " vs "
          << number(rr.first_target[y]) << ";";
    }
    out << "\n  TV distance: first token " << number(rr.first_tv)
        << ", block of gamma+1 = " << in.gamma + 1 << " tokens " << number(rr.tv) << "\n";
  }
  if (result.requests.size() > 1) {
    out << "all requests together: TV distance "
        << (result.joint_tv < 0 ? std::string("not computed (joint table too large)")
                                : number(result.joint_tv))
        << " against the product of the targets\n";
  }
  out << "verdict (exact)   " << (result.distorted ? "distorted" : "lossless") << " (largest TV "
      << number(result.distortion()) << (result.distorted ? " > " : " <= ")
      << number(kExactTolerance) << ")\n";
}

void print_sample_result(const InstanceSampleResult& s, double alpha, std::ostream& out) {
  char line[256];
  std::snprintf(line, sizeof line,
                "verdict (sampled) %s (G = %.1f, df %lld, p = %.3g, alpha = %g; %lld trials)\n",
                s.distorted ? "distorted" : "lossless", s.statistic,
                static_cast<long long>(s.degrees_of_freedom), s.p_value, alpha,
                static_cast<long long>(s.trials));
  out << line;
}

nlohmann::ordered_json exact_result_json(const ExactInstance& in, const ExactResult& result) {
  nlohmann::ordered_json j;
  j["policy"] = result.policy;
  j["verdict"] = result.distorted ? "distorted" : "lossless";
  j["max_tv"] = result.max_tv;
  j["tolerance"] = kExactTolerance;
  j["worst_request"] = result.worst_request;
  if (result.requests.size() > 1) {
    j["joint_tv"] = result.joint_tv < 0 ? nlohmann::ordered_json("not computed")
                                        : nlohmann::ordered_json(result.joint_tv);
  }
  j["outcomes_enumerated"] = result.outcomes_enumerated;
  j["tv_note"] =
      "total-variation distance between each request's committed block, extended to gamma+1 "
      "tokens by the target, and the target's own gamma+1-token paths from the anchor";
  nlohmann::ordered_json requests = nlohmann::ordered_json::array();
  for (const ExactRequestResult& rr : result.requests) {
    nlohmann::ordered_json rj;
    rj["tv"] = rr.tv;
    rj["first_token_tv"] = rr.first_tv;
    for (std::size_t y = 0; y < rr.first_target.size(); ++y) {
      rj["first_token"][in.tokens[y]] = {{"committed", rr.first_committed[y]},
                                         {"target", rr.first_target[y]}};
    }
    requests.push_back(std::move(rj));
  }
  j["requests"] = std::move(requests);
  return j;
}

nlohmann::ordered_json sample_result_json(const ExactInstance& in, const InstanceSampleResult& s,
                                          double alpha) {
  nlohmann::ordered_json j;
  j["verdict"] = s.distorted ? "distorted" : "lossless";
  j["trials"] = s.trials;
  j["statistic"] = s.statistic;
  j["degrees_of_freedom"] = s.degrees_of_freedom;
  j["p_value"] = s.p_value;
  j["alpha"] = alpha;
  nlohmann::ordered_json first = nlohmann::ordered_json::array();
  for (const auto& row : s.first_frequency) {
    nlohmann::ordered_json rj;
    for (std::size_t y = 0; y < row.size(); ++y) rj[in.tokens[y]] = row[y];
    first.push_back(std::move(rj));
  }
  j["first_token_frequency"] = std::move(first);
  return j;
}

}  // namespace sparksim
