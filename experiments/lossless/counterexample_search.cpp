// Random instances, local search on the exact TV distance, and the shrink to the simplest
// distorting instance.
#include "experiments/lossless/counterexample_search.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <random>
#include <tuple>

#include "common/input_error.hpp"
#include "common/rng.hpp"
#include "experiments/lossless/exact_checker.hpp"
#include "policies/policy_registry.hpp"

namespace sparksim {

namespace {

// A shrink step is kept only while the distortion stays clearly above rounding.
constexpr double kShrinkThreshold = 1e-6;
constexpr int kMaxHistory = 3;
// Distorting restarts shrunk before the search keeps the simplest of them.
constexpr int kWantedFinds = 4;

using Rng = std::mt19937_64;

// Draws through common/rng.hpp's transform and Boost.Random, never the standard library's
// distributions, so a seed finds the same instances with any standard library.
double uniform(Rng& rng, double lo = 0, double hi = 1) {
  return lo + (hi - lo) * uniform01_from_bits(rng());
}
int pick(Rng& rng, int lo, int hi) {  // inclusive
  return boost::random::uniform_int_distribution<int>(lo, hi)(rng);
}

// A random distribution over `vocab` tokens: a random support, Dirichlet(1) weights on it,
// sometimes on a 0.1 grid (round numbers make distortions more likely to sit on ties).
std::vector<double> random_distribution(Rng& rng, int vocab) {
  std::vector<double> p(static_cast<std::size_t>(vocab), 0.0);
  const int support = pick(rng, 1, vocab);
  std::vector<int> order(static_cast<std::size_t>(vocab));
  for (int i = 0; i < vocab; ++i) order[static_cast<std::size_t>(i)] = i;
  // Fisher-Yates with Boost's integer draws (std::shuffle's algorithm differs between libraries).
  for (int i = vocab - 1; i > 0; --i) {
    std::swap(order[static_cast<std::size_t>(i)], order[static_cast<std::size_t>(pick(rng, 0, i))]);
  }
  double total = 0;
  for (int i = 0; i < support; ++i) {
    const double w = -std::log(1.0 - uniform(rng));
    p[static_cast<std::size_t>(order[static_cast<std::size_t>(i)])] = w;
    total += w;
  }
  for (double& x : p) x /= total;
  return p;
}

std::vector<double> random_table(Rng& rng, int vocab) {
  std::vector<double> t;
  for (int row = 0; row < vocab; ++row) {
    const auto p = random_distribution(rng, vocab);
    t.insert(t.end(), p.begin(), p.end());
  }
  return t;
}

// SPS(B) = 1 / t(B), t(1) = 1, each further token adding a little or (a cliff) a lot.
std::vector<double> random_sps(Rng& rng, std::size_t size) {
  std::vector<double> sps;
  double t = 1;
  for (std::size_t b = 0; b < size; ++b) {
    if (b > 0) t += uniform(rng) < 0.35 ? uniform(rng, 0.3, 1.5) : uniform(rng, 0.0, 0.25);
    sps.push_back(1.0 / t);
  }
  return sps;
}

double random_confidence(Rng& rng) {
  const double u = uniform(rng);
  return u < 0.1 ? 0.0 : u < 0.2 ? 1.0 : uniform(rng);
}

void randomise_history(Rng& rng, ExactInstance& in) {
  in.history.clear();
  const int steps = pick(rng, 0, kMaxHistory);
  const auto requests = static_cast<std::size_t>(in.request_count());
  for (int s = 0; s < steps; ++s) {
    ExactHistoryStep step;
    for (std::size_t i = 0; i < requests * static_cast<std::size_t>(in.gamma); ++i) {
      step.confidences.push_back(random_confidence(rng));
    }
    for (std::size_t r = 0; r < requests; ++r) {
      const std::int64_t back = static_cast<std::int64_t>(steps - s) * pick(rng, 1, in.gamma + 1);
      step.context_tokens.push_back(
          std::max<std::int64_t>(1, in.requests[r].context_tokens - back));
    }
    in.history.push_back(std::move(step));
  }
}

ExactInstance random_instance(Rng& rng) {
  ExactInstance in;
  const int vocab = pick(rng, 2, 3);
  in.gamma = pick(rng, 1, 3);
  const int sequences = static_cast<int>(std::pow(vocab, in.gamma));
  const int requests = pick(rng, 1, sequences <= 9 ? 3 : 2);
  for (int t = 0; t < vocab; ++t) in.tokens.push_back(std::string(1, static_cast<char>('A' + t)));
  for (int r = 0; r < requests; ++r) {
    ExactRequest req;
    if (r > 0 && uniform(rng) < 0.5) {
      req = in.requests.front();  // the same model as request 0, another context
    } else {
      req.target = random_table(rng, vocab);
      for (int k = 0; k < in.gamma; ++k) req.draft.push_back(random_table(rng, vocab));
      req.exact_confidence = uniform(rng) < 0.5;
      if (!req.exact_confidence) {
        req.confidence.assign(static_cast<std::size_t>(in.gamma),
                              std::vector<double>(static_cast<std::size_t>(vocab)));
        for (auto& row : req.confidence) {
          for (double& c : row) c = random_confidence(rng);
        }
      }
    }
    req.anchor = pick(rng, 0, vocab - 1);
    req.context_tokens = pick(rng, 1, 64);
    in.requests.push_back(std::move(req));
  }
  in.sps =
      random_sps(rng, static_cast<std::size_t>(requests) * static_cast<std::size_t>(in.gamma + 1));
  randomise_history(rng, in);
  refresh_exact_confidences(in);
  return in;
}

void mix_into(Rng& rng, double* row, int vocab) {
  const auto fresh = random_distribution(rng, vocab);
  const double w = uniform(rng, 0.1, 1.0);
  for (int y = 0; y < vocab; ++y)
    row[y] = (1 - w) * row[y] + w * fresh[static_cast<std::size_t>(y)];
}

// One random change of one parameter.
ExactInstance mutate(Rng& rng, const ExactInstance& in) {
  ExactInstance out = in;
  const int vocab = out.vocab();
  ExactRequest& req = out.requests[static_cast<std::size_t>(pick(rng, 0, out.request_count() - 1))];
  const int row = pick(rng, 0, vocab - 1);
  const auto offset = static_cast<std::size_t>(row) * static_cast<std::size_t>(vocab);
  switch (pick(rng, 0, 6)) {
    case 0:
    case 1:
      mix_into(rng, &req.draft[static_cast<std::size_t>(pick(rng, 0, out.gamma - 1))][offset],
               vocab);
      break;
    case 2:
      mix_into(rng, &req.target[offset], vocab);
      break;
    case 3:
      if (req.exact_confidence) {
        req.exact_confidence = false;  // from here on the head is free
      } else {
        req.confidence[static_cast<std::size_t>(pick(rng, 0, out.gamma - 1))]
                      [static_cast<std::size_t>(row)] = random_confidence(rng);
      }
      break;
    case 4: {
      const std::size_t b =
          static_cast<std::size_t>(pick(rng, 1, static_cast<int>(out.sps.size()) - 1));
      std::vector<double> t(out.sps.size());
      for (std::size_t i = 0; i < t.size(); ++i) t[i] = 1.0 / out.sps[i];
      const double step = uniform(rng) < 0.35 ? uniform(rng, 0.3, 1.5) : uniform(rng, 0.0, 0.25);
      const double change = step - (t[b] - t[b - 1]);
      for (std::size_t i = b; i < t.size(); ++i) out.sps[i] = 1.0 / (t[i] + change);
      break;
    }
    case 5:
      if (!out.history.empty()) {
        auto& step = out.history[static_cast<std::size_t>(
            pick(rng, 0, static_cast<int>(out.history.size()) - 1))];
        step.confidences[static_cast<std::size_t>(
            pick(rng, 0, static_cast<int>(step.confidences.size()) - 1))] = random_confidence(rng);
      } else {
        randomise_history(rng, out);
      }
      break;
    default:
      req.anchor = pick(rng, 0, vocab - 1);
      break;
  }
  refresh_exact_confidences(out);
  return out;
}

// ---- shrinking ----

std::vector<double> round_distribution(const double* p, int vocab, int units) {
  std::vector<double> out(static_cast<std::size_t>(vocab));
  std::vector<int> count(static_cast<std::size_t>(vocab));
  std::vector<std::pair<double, int>> remainders;
  int used = 0;
  for (int y = 0; y < vocab; ++y) {
    const double scaled = p[y] * units;
    count[static_cast<std::size_t>(y)] = static_cast<int>(std::floor(scaled));
    used += count[static_cast<std::size_t>(y)];
    remainders.emplace_back(-(scaled - std::floor(scaled)), y);
  }
  std::sort(remainders.begin(), remainders.end());  // largest remainder first, then lower token
  for (int i = 0; used < units; ++i, ++used)
    ++count[static_cast<std::size_t>(remainders[static_cast<std::size_t>(i)].second)];
  for (int y = 0; y < vocab; ++y)
    out[static_cast<std::size_t>(y)] =
        static_cast<double>(count[static_cast<std::size_t>(y)]) / units;
  return out;
}

void round_table(std::vector<double>& table, int vocab, int units) {
  for (int row = 0; row < vocab; ++row) {
    const auto rounded = round_distribution(
        &table[static_cast<std::size_t>(row) * static_cast<std::size_t>(vocab)], vocab, units);
    std::copy(rounded.begin(), rounded.end(),
              table.begin() + static_cast<std::ptrdiff_t>(row) * vocab);
  }
}

double round_value(double x, int units) {
  return std::round(x * units) / units;
}

// Every number of the instance on the grid 1 / units (SPS scaled so that SPS(1) = 1 first: the
// schedulers maximise τ · SPS, which a common scale does not change).
ExactInstance rounded(const ExactInstance& in, int units) {
  ExactInstance out = in;
  const int vocab = out.vocab();
  for (ExactRequest& r : out.requests) {
    round_table(r.target, vocab, units);
    for (auto& table : r.draft) round_table(table, vocab, units);
    for (auto& row : r.confidence) {
      for (double& c : row) c = round_value(c, units);
    }
  }
  const double scale = out.sps.front();
  for (double& s : out.sps) s = std::max(round_value(s / scale, units), 1.0 / units);
  for (ExactHistoryStep& step : out.history) {
    for (double& c : step.confidences) c = round_value(c, units);
  }
  refresh_exact_confidences(out);
  return out;
}

// Drops request r; `shift`: the smaller batch sees the curve from SPS(2) on (one anchor fewer),
// else from SPS(1).
ExactInstance without_request(const ExactInstance& in, std::size_t r, bool shift) {
  ExactInstance out = in;
  out.requests.erase(out.requests.begin() + static_cast<std::ptrdiff_t>(r));
  const auto g = static_cast<std::ptrdiff_t>(in.gamma);
  for (ExactHistoryStep& step : out.history) {
    step.confidences.erase(step.confidences.begin() + static_cast<std::ptrdiff_t>(r) * g,
                           step.confidences.begin() + static_cast<std::ptrdiff_t>(r + 1) * g);
    step.context_tokens.erase(step.context_tokens.begin() + static_cast<std::ptrdiff_t>(r));
  }
  if (shift) out.sps.erase(out.sps.begin());
  out.sps.resize(out.requests.size() * static_cast<std::size_t>(in.gamma + 1));
  return out;
}

ExactInstance shorter_block(const ExactInstance& in) {
  ExactInstance out = in;
  out.gamma = in.gamma - 1;
  for (ExactRequest& r : out.requests) {
    r.draft.pop_back();
    r.confidence.pop_back();
  }
  for (ExactHistoryStep& step : out.history) {
    std::vector<double> kept;
    for (std::size_t i = 0; i < step.confidences.size(); ++i) {
      if (static_cast<int>(i % static_cast<std::size_t>(in.gamma)) < out.gamma) {
        kept.push_back(step.confidences[i]);
      }
    }
    step.confidences = std::move(kept);
  }
  out.sps.resize(out.requests.size() * static_cast<std::size_t>(out.gamma + 1));
  return out;
}

// Drops token t from every table (rows renormalised); false if some row would be left empty or
// an anchor is t.
bool without_token(const ExactInstance& in, int t, ExactInstance& out) {
  out = in;
  const int vocab = in.vocab();
  const auto drop = [&](const std::vector<double>& table, std::vector<double>& result) {
    result.clear();
    for (int row = 0; row < vocab; ++row) {
      if (row == t) continue;
      double total = 0;
      for (int y = 0; y < vocab; ++y)
        total += y == t ? 0
                        : table[static_cast<std::size_t>(row) * static_cast<std::size_t>(vocab) +
                                static_cast<std::size_t>(y)];
      if (!(total > 0)) return false;
      for (int y = 0; y < vocab; ++y) {
        if (y != t)
          result.push_back(table[static_cast<std::size_t>(row) * static_cast<std::size_t>(vocab) +
                                 static_cast<std::size_t>(y)] /
                           total);
      }
    }
    return true;
  };
  for (ExactRequest& r : out.requests) {
    if (r.anchor == t) return false;
    if (r.anchor > t) --r.anchor;
    std::vector<double> table;
    if (!drop(r.target, table)) return false;
    r.target = table;
    for (auto& d : r.draft) {
      if (!drop(d, table)) return false;
      d = table;
    }
    for (auto& row : r.confidence) row.erase(row.begin() + t);
  }
  out.tokens.erase(out.tokens.begin() + t);
  for (int i = 0; i < out.vocab(); ++i)
    out.tokens[static_cast<std::size_t>(i)] = std::string(1, static_cast<char>('A' + i));
  refresh_exact_confidences(out);
  return true;
}

// The policy's exact TV distance on `in`, or -1 when the policy cannot be built for it (a
// parameter out of range for this instance's γ, such as static:k=3 at γ = 2).
double distortion(const ExactInstance& in, const std::string& policy) {
  try {
    return check_exact(in, policy).distortion();
  } catch (const InputError&) {
    return -1;
  }
}

// Simpler: fewer requests, tokens, positions, earlier steps, nonzero probabilities, then shorter
// as text (fewer and rounder numbers).
bool simpler(const ExactInstance& a, const ExactInstance& b) {
  const auto nonzero = [](const ExactInstance& in) {
    std::size_t n = 0;
    for (const ExactRequest& r : in.requests) {
      n += static_cast<std::size_t>(
          std::count_if(r.target.begin(), r.target.end(), [](double x) { return x > 0; }));
      for (const auto& d : r.draft)
        n += static_cast<std::size_t>(
            std::count_if(d.begin(), d.end(), [](double x) { return x > 0; }));
    }
    return n;
  };
  const auto key = [&](const ExactInstance& in) {
    return std::make_tuple(in.request_count(), in.vocab(), in.gamma, in.history.size(), nonzero(in),
                           exact_instance_json(in).dump().size());
  };
  return key(a) < key(b);
}

// The shrink's state: the simplest distorting instance so far, and the passes that try to make it
// simpler. Each pass returns whether it replaced the instance (a candidate replaces it when it
// still distorts by more than the threshold).
class Shrinker {
 public:
  Shrinker(const ExactInstance& start, const std::string& policy, double threshold)
      : best_(start), policy_(policy), threshold_(threshold) {}
  const ExactInstance& best() const { return best_; }
  std::int64_t evaluations() const { return count_; }

  // One round of every pass, in order; true when any of them changed the instance.
  bool round() {
    bool changed = drop_requests();
    changed |= drop_history();
    while (best_.gamma > 1 && try_replace(shorter_block(best_))) changed = true;
    changed |= drop_tokens();
    changed |= share_first_request_tables();
    changed |= calibrate_confidences();
    changed |= round_probabilities();
    changed |= plain_contexts();
    return changed;
  }

 private:
  bool try_replace(const ExactInstance& candidate) {
    ++count_;
    if (!(distortion(candidate, policy_) > threshold_)) return false;
    best_ = candidate;
    return true;
  }

  bool drop_requests() {
    bool changed = false;
    for (std::size_t r = best_.requests.size(); r-- > 0 && best_.requests.size() > 1;) {
      if (try_replace(without_request(best_, r, false)) ||
          try_replace(without_request(best_, r, true))) {
        changed = true;
      }
    }
    return changed;
  }

  // All earlier steps at once, then one at a time.
  bool drop_history() {
    if (best_.history.empty()) return false;
    bool changed = false;
    ExactInstance none = best_;
    none.history.clear();
    if (try_replace(none)) changed = true;
    for (std::size_t s = 0; s < best_.history.size() && best_.history.size() > 1; ++s) {
      ExactInstance fewer = best_;
      fewer.history.erase(fewer.history.begin() + static_cast<std::ptrdiff_t>(s));
      if (try_replace(fewer)) {
        changed = true;
        --s;
      }
    }
    return changed;
  }

  bool drop_tokens() {
    bool changed = false;
    for (int t = best_.vocab() - 1; t >= 0 && best_.vocab() > 2; --t) {
      ExactInstance fewer;
      if (without_token(best_, t, fewer) && try_replace(fewer)) changed = true;
    }
    return changed;
  }

  // Requests that reuse request 0's tables (written once in the instance file).
  bool share_first_request_tables() {
    bool changed = false;
    for (std::size_t r = 1; r < best_.requests.size(); ++r) {
      ExactInstance shared = best_;
      const ExactRequest& first = best_.requests.front();
      ExactRequest& req = shared.requests[r];
      if (req.target == first.target && req.draft == first.draft &&
          req.exact_confidence == first.exact_confidence && req.confidence == first.confidence) {
        continue;
      }
      req.target = first.target;
      req.draft = first.draft;
      req.exact_confidence = first.exact_confidence;
      req.confidence = first.confidence;
      if (try_replace(shared)) changed = true;
    }
    return changed;
  }

  bool calibrate_confidences() {
    bool changed = false;
    for (std::size_t r = 0; r < best_.requests.size(); ++r) {
      if (best_.requests[r].exact_confidence) continue;
      ExactInstance calibrated = best_;
      calibrated.requests[r].exact_confidence = true;
      refresh_exact_confidences(calibrated);
      if (try_replace(calibrated)) changed = true;
    }
    return changed;
  }

  // The coarsest rounding that still distorts (halves, quarters, tenths, ...).
  bool round_probabilities() {
    for (const int units : {2, 4, 10, 20, 100}) {
      const ExactInstance candidate = rounded(best_, units);
      if (exact_instance_json(candidate) == exact_instance_json(best_)) break;  // already there
      if (try_replace(candidate)) return true;
    }
    return false;
  }

  // Every context length 1.
  bool plain_contexts() {
    ExactInstance plain = best_;
    for (ExactRequest& r : plain.requests) r.context_tokens = 1;
    for (ExactHistoryStep& step : plain.history) {
      for (auto& c : step.context_tokens) c = 1;
    }
    return exact_instance_json(plain) != exact_instance_json(best_) && try_replace(plain);
  }

  ExactInstance best_;
  const std::string& policy_;
  double threshold_;
  std::int64_t count_ = 0;
};

}  // namespace

std::string search_space_description() {
  return "vocabulary of 2-3 tokens; gamma 1-3; 1-3 requests in the step (3 only when V^gamma <= "
         "9), each with its own or request 0's tables; target and draft tables random (random "
         "support, Dirichlet(1) weights); confidence head calibrated (c_k = sum_y min(p_d, p_t)) "
         "or free in [0, 1] per (position, previous token); SPS(B) = 1 / t(B) with t(1) = 1 and "
         "each token adding 0-0.25 or, 35% of the time, a 0.3-1.5 cliff; 0-3 earlier steps with "
         "free confidences (the lagged state async-topk reads) and contexts; anchors and contexts "
         "random. Local search: mutations of one table row, confidence, SPS step, history value or "
         "anchor, kept when the exact TV distance does not fall";
}

ExactInstance shrink_counterexample(const ExactInstance& start, const std::string& policy,
                                    double threshold, std::int64_t* evaluations) {
  Shrinker shrinker(start, policy, threshold);
  while (shrinker.round()) {
  }
  if (evaluations != nullptr) *evaluations += shrinker.evaluations();
  return shrinker.best();
}

SearchResult search_counterexample(const SearchOptions& o) {
  if (!(o.budget_s > 0 && o.budget_s <= 86400)) {
    throw InputError("--budget-s must be in (0, 86400]");
  }
  if (o.max_restarts < 0) throw InputError("--restarts must be >= 0");
  // Resolves the policy (InputError for an unknown one) before any work.
  make_policy(NamedSpec::parse(o.policy, "--policy"), PolicyContext{3});
  const auto start = std::chrono::steady_clock::now();
  const auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  SearchResult result;
  int finds = 0;
  while ((o.max_restarts == 0 || result.restarts < o.max_restarts) && elapsed() < o.budget_s &&
         finds < kWantedFinds) {
    Rng rng(derive_seed(o.seed, static_cast<std::uint64_t>(result.restarts)));
    ++result.restarts;
    ExactInstance current = random_instance(rng);
    current.policy = o.policy;
    double current_tv = distortion(current, o.policy);
    ++result.evaluations;
    for (int step = 0; step < o.local_steps; ++step) {
      ExactInstance candidate = mutate(rng, current);
      const double tv = distortion(candidate, o.policy);
      ++result.evaluations;
      if (tv >= current_tv && tv >= 0) {
        current = std::move(candidate);
        current_tv = tv;
      }
    }
    if (!(current_tv > kShrinkThreshold)) continue;
    ++finds;
    ++result.distorting_restarts;
    const auto shrink_start = elapsed();
    ExactInstance shrunk =
        shrink_counterexample(current, o.policy, kShrinkThreshold, &result.evaluations);
    shrunk.note = "found by sparksim lossless --search (seed " + std::to_string(o.seed) +
                  ", restart " + std::to_string(result.restarts) + "), then shrunk";
    result.shrink_s += elapsed() - shrink_start;
    if (current_tv > result.worst_tv) {
      result.worst = current;
      result.worst_tv = current_tv;
    }
    if (!result.found || simpler(shrunk, result.shrunk)) {
      result.shrunk = std::move(shrunk);
      result.shrunk_tv = check_exact(result.shrunk, o.policy).distortion();
    }
    result.found = true;
  }
  result.search_s = elapsed() - result.shrink_s;
  return result;
}

}  // namespace sparksim
