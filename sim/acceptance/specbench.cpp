// Spec-Bench acceptance data: loading, statistics, simulation and the heterogeneity fit.
#include "sim/acceptance/specbench.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <memory>

#include <nlohmann/json.hpp>

#include "common/distribution_summary.hpp"
#include "common/input_error.hpp"
#include "sim/acceptance/calibrated_model.hpp"

namespace sparksim {

namespace {

constexpr std::array<std::pair<std::string_view, Domain>, 13> kCategoryDomains = {{
    {"writing", Domain::kChat},
    {"roleplay", Domain::kChat},
    {"reasoning", Domain::kChat},
    {"math", Domain::kMath},
    {"coding", Domain::kCode},
    {"extraction", Domain::kChat},
    {"stem", Domain::kChat},
    {"humanities", Domain::kChat},
    {"translation", Domain::kChat},
    {"summarization", Domain::kChat},
    {"qa", Domain::kChat},
    {"math_reasoning", Domain::kMath},
    {"rag", Domain::kChat},
}};

bool in_category(const SpecBenchQuestion& q, const std::string& category) {
  return category.empty() || q.category == category;
}

double pearson(const std::vector<std::pair<int, int>>& pairs) {
  if (pairs.size() < 2) return 0.0;
  double mx = 0, my = 0;
  for (const auto& [x, y] : pairs) {
    mx += x;
    my += y;
  }
  mx /= static_cast<double>(pairs.size());
  my /= static_cast<double>(pairs.size());
  double sxy = 0, sxx = 0, syy = 0;
  for (const auto& [x, y] : pairs) {
    sxy += (x - mx) * (y - my);
    sxx += (x - mx) * (x - mx);
    syy += (y - my) * (y - my);
  }
  return sxx > 0 && syy > 0 ? sxy / std::sqrt(sxx * syy) : 0.0;
}

// Accumulates per-request τ, per-step lengths and lag-1 pairs.
struct StatsBuilder {
  explicit StatsBuilder(int max_length) : counts(static_cast<std::size_t>(max_length), 0) {}
  void add_request(std::int64_t tokens, std::int64_t steps) {
    taus.push_back(static_cast<double>(tokens) / static_cast<double>(steps));
    total_tokens += tokens;
    total_steps += steps;
  }
  void add_turn(const std::vector<int>& lengths) {
    for (std::size_t i = 0; i < lengths.size(); ++i) {
      const int len = std::clamp(lengths[i], 1, static_cast<int>(counts.size()));
      ++counts[static_cast<std::size_t>(len - 1)];
      if (i > 0) pairs.emplace_back(lengths[i - 1], lengths[i]);
    }
  }
  SpreadStats finish() {
    SpreadStats s;
    s.requests = static_cast<std::int64_t>(taus.size());
    s.steps = total_steps;
    s.tau_mean =
        total_steps ? static_cast<double>(total_tokens) / static_cast<double>(total_steps) : 0.0;
    std::sort(taus.begin(), taus.end());
    if (!taus.empty()) {
      s.tau_p10 = sorted_percentile(taus, 10);
      s.tau_p50 = sorted_percentile(taus, 50);
      s.tau_p90 = sorted_percentile(taus, 90);
    }
    s.lag1 = pearson(pairs);
    std::int64_t n = 0;
    for (auto c : counts) n += c;
    for (auto c : counts)
      s.histogram.push_back(n ? static_cast<double>(c) / static_cast<double>(n) : 0.0);
    return s;
  }
  std::vector<std::int64_t> counts;
  std::vector<double> taus;
  std::vector<std::pair<int, int>> pairs;
  std::int64_t total_tokens = 0, total_steps = 0;
};

}  // namespace

std::int64_t SpecBenchQuestion::output_tokens() const {
  std::int64_t n = 0;
  for (const auto& t : turns) {
    for (int x : t) n += x;
  }
  return n;
}

std::int64_t SpecBenchQuestion::steps() const {
  std::int64_t n = 0;
  for (const auto& t : turns) n += static_cast<std::int64_t>(t.size());
  return n;
}

bool specbench_domain(const std::string& category, Domain& out) {
  for (const auto& [name, domain] : kCategoryDomains) {
    if (name == category) {
      out = domain;
      return true;
    }
  }
  return false;
}

SpecBenchData load_specbench(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, 0, "cannot open the Spec-Bench acceptance file");
  SpecBenchData data;
  data.path = path;
  std::string line;
  std::int64_t line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const auto fail = [&](const std::string& what) { throw InputError(path, line_no, what); };
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(line);
    } catch (const nlohmann::json::exception& e) {  // syntax, or a number too large (out_of_range)
      fail(std::string("invalid JSON: ") + e.what());
    }
    SpecBenchQuestion q;
    q.line = line_no;
    if (!j.is_object() || !j.contains("question_id") || !j["question_id"].is_number_integer()) {
      fail("question_id is missing or not an integer");
    }
    q.question_id = j["question_id"].get<std::int64_t>();
    if (!j.contains("category") || !j["category"].is_string()) fail("category is missing");
    q.category = j["category"].get<std::string>();
    if (!specbench_domain(q.category, q.domain)) {
      fail("category '" + q.category +
           "' has no domain mapping (known: writing, roleplay, "
           "reasoning, math, coding, extraction, stem, humanities, translation, summarization, "
           "qa, math_reasoning, rag)");
    }
    if (!j.contains("turns") || !j["turns"].is_array() || j["turns"].empty()) {
      fail("turns is missing or empty");
    }
    for (std::size_t t = 0; t < j["turns"].size(); ++t) {
      const auto& turn = j["turns"][t];
      const std::string where = "turns[" + std::to_string(t) + "]";
      if (!turn.is_object() || !turn.contains("accept_lengths") ||
          !turn["accept_lengths"].is_array() || turn["accept_lengths"].empty()) {
        fail(where + ".accept_lengths is missing or empty");
      }
      std::vector<int> lengths;
      std::int64_t sum = 0;
      for (const auto& v : turn["accept_lengths"]) {
        if (!v.is_number_integer() || v.get<std::int64_t>() < 1 || v.get<std::int64_t>() > 64) {
          fail(where + ".accept_lengths holds " + v.dump() +
               "; every entry must be an integer in "
               "1..64 (tokens committed per step)");
        }
        lengths.push_back(v.get<int>());
        sum += lengths.back();
        data.max_length = std::max(data.max_length, lengths.back());
      }
      if (turn.contains("decoding_steps") &&
          turn["decoding_steps"] != static_cast<std::int64_t>(lengths.size())) {
        fail(where + ".decoding_steps is " + turn["decoding_steps"].dump() +
             " but accept_lengths has " + std::to_string(lengths.size()) + " entries");
      }
      if (turn.contains("new_tokens") && turn["new_tokens"] != sum) {
        fail(where + ".new_tokens is " + turn["new_tokens"].dump() +
             " but accept_lengths sums to " + std::to_string(sum));
      }
      q.turns.push_back(std::move(lengths));
    }
    if (std::find(data.categories.begin(), data.categories.end(), q.category) ==
        data.categories.end()) {
      data.categories.push_back(q.category);
    }
    data.questions.push_back(std::move(q));
  }
  if (data.questions.empty()) throw InputError(path, 0, "holds no questions");
  return data;
}

std::vector<double> specbench_mean_curve(const SpecBenchData& data, const std::string& category,
                                         int gamma) {
  // reached[k] = steps whose accepted drafts >= k.
  std::vector<double> reached(static_cast<std::size_t>(gamma) + 1, 0.0);
  for (const auto& q : data.questions) {
    if (!in_category(q, category)) continue;
    for (const auto& turn : q.turns) {
      // A turn's last step is cut short where the answer ended; the curve describes whole steps
      // (a simulation cuts its own last steps the same way).
      for (std::size_t i = 0; i + 1 < turn.size(); ++i) {
        for (int k = 0; k <= std::min(turn[i] - 1, gamma); ++k) {
          reached[static_cast<std::size_t>(k)] += 1;
        }
      }
    }
  }
  std::vector<double> curve(static_cast<std::size_t>(gamma), 0.0);
  for (int k = 1; k <= gamma; ++k) {
    const double before = reached[static_cast<std::size_t>(k - 1)];
    curve[static_cast<std::size_t>(k - 1)] =
        before > 0 ? reached[static_cast<std::size_t>(k)] / before : 0.0;
  }
  return curve;
}

SpreadStats specbench_real_stats(const SpecBenchData& data, const std::string& category) {
  StatsBuilder b(data.max_length);
  for (const auto& q : data.questions) {
    if (!in_category(q, category)) continue;
    for (const auto& turn : q.turns) b.add_turn(turn);
    b.add_request(q.output_tokens(), q.steps());
  }
  return b.finish();
}

SpreadStats specbench_simulated_stats(const SpecBenchData& data, const std::string& category,
                                      const Heterogeneity& heterogeneity, int replicas,
                                      std::uint64_t seed) {
  const int gamma = data.max_length - 1;
  std::map<std::string, std::unique_ptr<CalibratedAcceptanceModel>> models;
  for (const auto& c : data.categories) {
    if (!category.empty() && c != category) continue;
    CalibratedModelConfig config;
    config.gamma = gamma;
    config.heterogeneity = heterogeneity;
    config.seed = seed;
    const auto curve = specbench_mean_curve(data, c, gamma);
    for (auto& p : config.curves.p) p = curve;
    models.emplace(c, std::make_unique<CalibratedAcceptanceModel>(std::move(config)));
  }
  StatsBuilder b(data.max_length);
  std::vector<float> conf(static_cast<std::size_t>(gamma));
  std::vector<int> lengths;
  for (std::size_t qi = 0; qi < data.questions.size(); ++qi) {
    const SpecBenchQuestion& q = data.questions[qi];
    if (!in_category(q, category)) continue;
    CalibratedAcceptanceModel& model = *models.at(q.category);
    for (int rep = 0; rep < replicas; ++rep) {
      const std::uint64_t id =
          qi * static_cast<std::uint64_t>(replicas) + static_cast<std::uint64_t>(rep);
      AcceptanceState state{};
      model.init_request(id, q.domain, state);
      std::int64_t step = 0, tokens = 0;
      for (const auto& turn : q.turns) {
        std::int64_t remaining = 0;
        for (int x : turn) remaining += x;
        lengths.clear();
        while (remaining > 0) {
          int accepted = 0;
          const DraftSlot slot{id, q.domain, step++, tokens, &state};
          model.draft(std::span<const DraftSlot>(&slot, 1), gamma, conf,
                      std::span<int>(&accepted, 1));
          const auto commit = std::min<std::int64_t>(accepted + 1, remaining);
          lengths.push_back(static_cast<int>(commit));
          remaining -= commit;
          tokens += commit;
        }
        b.add_turn(lengths);
      }
      b.add_request(tokens, step);
    }
  }
  return b.finish();
}

std::vector<HeterogeneityFitPoint> fit_heterogeneity(const SpecBenchData& data, int replicas,
                                                     std::uint64_t seed) {
  std::vector<SpreadStats> real;
  for (const auto& c : data.categories) real.push_back(specbench_real_stats(data, c));
  std::vector<HeterogeneityFitPoint> points;
  for (double request_sd : {0.0, 0.1, 0.2, 0.3, 0.45, 0.6}) {
    for (double latent_sd : {0.0, 0.4, 0.55, 0.7, 0.8, 0.9, 1.0, 1.2}) {
      for (double rho : {0.5, 0.6, 0.7, 0.8, 0.9}) {
        if (latent_sd == 0.0 && rho != 0.5) continue;  // ρ is irrelevant without a latent
        HeterogeneityFitPoint p;
        p.heterogeneity = Heterogeneity{request_sd, latent_sd, rho, true};
        for (std::size_t i = 0; i < data.categories.size(); ++i) {
          const SpreadStats s =
              specbench_simulated_stats(data, data.categories[i], p.heterogeneity, replicas, seed);
          const auto sq = [](double x) { return x * x; };
          p.loss += sq(s.tau_p10 - real[i].tau_p10) + sq(s.tau_p50 - real[i].tau_p50) +
                    sq(s.tau_p90 - real[i].tau_p90) + 4.0 * sq(s.lag1 - real[i].lag1);
        }
        points.push_back(p);
      }
    }
  }
  std::stable_sort(points.begin(), points.end(),
                   [](const auto& a, const auto& b) { return a.loss < b.loss; });
  return points;
}

}  // namespace sparksim
