// Reading the exported step sequence and timing it on a backend.
#include "kernels/calibration/step_replay.hpp"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <functional>
#include <sstream>
#include <stdexcept>

#include "kernels/calibration/sweep_plan.hpp"

namespace sparksim::kernels {

namespace {

std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> out;
  std::stringstream s(line);
  std::string field;
  while (std::getline(s, field, ',')) out.push_back(field);
  if (!line.empty() && line.back() == ',') out.emplace_back();
  return out;
}

template <typename T>
T parse_number(const std::string& text, const std::string& where, const char* column) {
  T value{};
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) {
    throw std::invalid_argument(where + ": column " + column + " is \"" + text +
                                "\", not a number");
  }
  return value;
}

}  // namespace

std::vector<ReplayStep> read_step_sequence(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::invalid_argument(path + ":0: cannot open the step sequence");
  std::string line;
  if (!std::getline(in, line) || line != kStepsCsvHeader) {
    throw std::invalid_argument(path + ":1: header must be \"" + std::string(kStepsCsvHeader) +
                                "\"");
  }
  std::vector<ReplayStep> steps;
  int line_no = 1;
  while (std::getline(in, line)) {
    ++line_no;
    if (line.empty()) continue;
    const std::string where = path + ":" + std::to_string(line_no);
    const std::vector<std::string> f = split(line);
    if (f.size() != 9) {
      throw std::invalid_argument(where + ": " + std::to_string(f.size()) +
                                  " fields; the header has 9");
    }
    const auto step = parse_number<long long>(f[0], where, "step");
    const auto duration = parse_number<double>(f[1], where, "duration_us");
    const auto gamma = parse_number<int>(f[2], where, "gamma");
    const auto context = parse_number<int>(f[6], where, "context");
    const auto width = parse_number<int>(f[7], where, "width");
    if (gamma < 1 || context < 0 || width < 1 || duration <= 0) {
      throw std::invalid_argument(where +
                                  ": gamma and width must be >= 1, context >= 0, "
                                  "duration_us > 0");
    }
    if (f[4] != "decode" && f[4] != "prefill") {
      throw std::invalid_argument(where + ": kind is \"" + f[4] + "\"; decode or prefill");
    }
    if (steps.empty() || steps.back().step != step) {
      if (!steps.empty() && step < steps.back().step) {
        throw std::invalid_argument(where + ": step ids must not decrease");
      }
      ReplayStep s;
      s.step = step;
      s.predicted_us = duration;
      s.draft.gamma = gamma;
      try {
        s.draft.family = parse_draft_family(f[3]);
      } catch (const std::invalid_argument& e) {
        throw std::invalid_argument(where + ": " + e.what());
      }
      steps.push_back(s);
    }
    ReplayStep& s = steps.back();
    const bool prefill = f[4] == "prefill";
    s.verify.segments.push_back(BatchSegment{context, width, prefill});
    if (!prefill) s.draft.contexts.push_back(context);
  }
  if (steps.empty()) throw std::invalid_argument(path + ":2: the step sequence has no steps");
  return steps;
}

ReplaySummary replay_steps(StepBackend& backend, const std::vector<ReplayStep>& steps, int repeats,
                           double time_cap_s, std::ostream& csv, int interleave_block,
                           TimingEstimator estimator) {
  const auto start = std::chrono::steady_clock::now();
  ReplaySummary summary;
  std::vector<double> noises;
  csv << "step,verify_tokens,prefill_tokens,decode_requests,verify_us,draft_us,measured_us,noise\n";
  const auto block = static_cast<std::size_t>(std::max(1, interleave_block));
  for (std::size_t begin = 0; begin < steps.size(); begin += block) {
    if (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() >
        time_cap_s) {
      summary.cut_by_time = true;
      break;
    }
    const std::size_t end = std::min(steps.size(), begin + block);
    // Samplers: each step's verify, then its drafter round when it has decodes.
    std::vector<std::function<double()>> samplers;
    std::vector<int> draft_sampler(end - begin, -1);
    for (std::size_t i = begin; i < end; ++i) {
      const ReplayStep& s = steps[i];
      samplers.emplace_back([&backend, &s] { return backend.verify_us(s.verify); });
      if (!s.draft.contexts.empty()) {
        draft_sampler[i - begin] = static_cast<int>(samplers.size());
        samplers.emplace_back([&backend, &s] { return backend.draft_us(s.draft); });
      }
    }
    const std::vector<RobustTiming> t = time_interleaved(samplers, 1, repeats);
    std::size_t at = 0;
    for (std::size_t i = begin; i < end; ++i) {
      const ReplayStep& s = steps[i];
      const RobustTiming v = t[at++];
      RobustTiming d;
      if (draft_sampler[i - begin] >= 0) d = t[at++];
      const BatchFeatures f = features_of(s.verify);
      const double verify_us = estimate_us(v, estimator);
      const double draft_us = d.samples > 0 ? estimate_us(d, estimator) : 0.0;
      const double total = verify_us + draft_us;
      const double noise = total > 0 ? (v.noise * verify_us + d.noise * draft_us) / total : 0;
      char row[160];
      std::snprintf(row, sizeof row, "%lld,%lld,%lld,%lld,%.3f,%.3f,%.3f,%.5f\n", s.step,
                    static_cast<long long>(f.verify_tokens),
                    static_cast<long long>(f.prefill_tokens), static_cast<long long>(f.requests),
                    verify_us, draft_us, total, noise);
      csv << row;
      noises.push_back(noise);
      ++summary.steps;
    }
    csv << std::flush;
  }
  summary.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!noises.empty()) {
    std::sort(noises.begin(), noises.end());
    summary.median_noise = noises[noises.size() / 2];
  }
  return summary;
}

}  // namespace sparksim::kernels
