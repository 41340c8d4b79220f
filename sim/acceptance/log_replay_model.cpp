// Replay of sparksim acceptance logs and Spec-Bench per-step acceptance.
#include "sim/acceptance/log_replay_model.hpp"

#include <algorithm>
#include <charconv>
#include <stdexcept>

#include "common/input_error.hpp"
#include "common/json_file.hpp"
#include "common/rng.hpp"
#include "sim/acceptance/fast_math.hpp"

namespace sparksim {

LogReplayModel::LogReplayModel(const std::string& path, const AcceptanceContext& context,
                               double signal)
    : path_(path),
      gamma_(context.drafter.gamma),
      signal_(static_cast<float>(signal)),
      half_signal_sq_(static_cast<float>(0.5 * signal * signal)),
      key_signal_(
          derive_seed(context.seed, static_cast<std::uint64_t>(StreamId::kAcceptanceSignal))) {
  if (looks_like_json_lines(path)) {
    specbench_ = true;
    const SpecBenchData data = load_specbench(path);
    const int depth = data.max_length - 1;  // drafts the recorded drafter proposed per step
    for (const auto& category : data.categories) {
      std::vector<double> curve = specbench_mean_curve(data, category, std::min(depth, gamma_));
      std::vector<float> logits(static_cast<std::size_t>(gamma_), -fast::kSigmoidRange);
      for (std::size_t k = 0; k < curve.size(); ++k) {
        logits[k] = static_cast<float>(fast::logit(curve[k]));
      }
      curve_logits_.push_back(std::move(logits));
    }
    for (const auto& q : data.questions) {
      std::vector<int> all;
      for (const auto& turn : q.turns) all.insert(all.end(), turn.begin(), turn.end());
      lengths_.push_back(std::move(all));
      curve_of_question_.push_back(
          static_cast<int>(std::find(data.categories.begin(), data.categories.end(), q.category) -
                           data.categories.begin()));
    }
    return;
  }
  log_ = read_acceptance_log_file(path);
  if (log_.header.gamma != gamma_) {
    throw InputError(path, 1,
                     "the log was written with gamma=" + std::to_string(log_.header.gamma) +
                         " but the drafter " + context.drafter.name +
                         " has γ = " + std::to_string(gamma_));
  }
  reproduces_ = log_.header.acceptance;
  if (!log_.header.drafter.empty() && log_.header.drafter != context.drafter.name) {
    drafter_note_ = "the log was written with drafter " + log_.header.drafter +
                    "; its acceptance is replayed under " + context.drafter.name + "'s draft cost";
  }
}

void LogReplayModel::init_request(std::uint64_t request_id, Domain, AcceptanceState& state) {
  if (specbench_) {
    const std::uint64_t n = lengths_.size();
    if (request_id >= n) ++requests_wrapped_;
    const std::uint64_t q = request_id % n;
    state = AcceptanceState{};
    state.first_record = q;
    state.record_count = lengths_[q].size();
    return;
  }
  const AcceptanceLog::Range* range = log_.find(request_id);
  if (range == nullptr) {
    throw InputError(path_, 0,
                     "has no records for request " + std::to_string(request_id) +
                         " (was the log written for another trace, or with --max-requests?)");
  }
  state = AcceptanceState{};
  state.first_record = range->first;
  state.record_count = range->count;
}

void LogReplayModel::draft(std::span<const DraftSlot> slots, int gamma,
                           std::span<float> confidences, std::span<int> hidden_accepted) {
  if (gamma != gamma_) throw std::logic_error("replay model built for another gamma");
  const auto g = static_cast<std::size_t>(gamma);
  for (std::size_t r = 0; r < slots.size(); ++r) {
    const DraftSlot& slot = slots[r];
    ++steps_;
    if (specbench_) {
      draft_specbench(slot, gamma, confidences.data() + r * g, hidden_accepted[r]);
      continue;
    }
    const AcceptanceState& s = *slot.state;
    const auto first = static_cast<std::size_t>(s.first_record);
    const auto count = static_cast<std::size_t>(s.record_count);
    auto step = static_cast<std::size_t>(slot.decode_step);
    if (step >= count) {
      ++steps_wrapped_;
      step %= count;
    }
    const std::size_t row = first + step;
    std::copy_n(log_.confidences.data() + row * g, g, confidences.data() + r * g);
    hidden_accepted[r] = log_.rows[row].accepted;
  }
}

void LogReplayModel::draft_specbench(const DraftSlot& slot, int gamma, float* out, int& hidden) {
  const AcceptanceState& s = *slot.state;
  const auto q = static_cast<std::size_t>(s.first_record);
  const auto count = static_cast<std::size_t>(s.record_count);
  auto step = static_cast<std::size_t>(slot.decode_step);
  if (step >= count) {
    ++steps_wrapped_;
    step %= count;
  }
  int accepted = lengths_[q][step] - 1;
  if (accepted > gamma) {
    ++steps_capped_;
    accepted = gamma;
  }
  hidden = accepted;
  const std::vector<float>& logits = curve_logits_[static_cast<std::size_t>(curve_of_question_[q])];
  const std::uint64_t rid = mix64(slot.request_id);
  const std::uint64_t base =
      mix64(key_signal_ ^ rid ^ mix64(static_cast<std::uint64_t>(slot.decode_step)));
  std::uint64_t noise_bits = 0, outcome_bits = 0;
  for (int k = 0; k < gamma; ++k) {
    const int lane = k % 6;
    if (lane == 0) {
      noise_bits = mix64(base + static_cast<std::uint64_t>(k));
      outcome_bits = mix64(base ^ (0xA5A5A5A5ULL + static_cast<std::uint64_t>(k)));
    }
    const float prior = logits[static_cast<std::size_t>(k)];
    if (prior <= -fast::kSigmoidRange) {  // beyond the recorded drafter's depth
      out[k] = 0.0f;
      continue;
    }
    bool outcome = k < accepted;
    if (k > accepted) outcome = fast::logistic_from_bits(outcome_bits, lane) < prior;
    out[k] = fast::sigmoid(prior + (outcome ? half_signal_sq_ : -half_signal_sq_) +
                           signal_ * fast::normal_from_bits(noise_bits, lane));
  }
}

std::vector<std::string> LogReplayModel::notes() const {
  std::vector<std::string> notes;
  if (!drafter_note_.empty()) notes.push_back(drafter_note_);
  if (specbench_) {
    // The float's shortest form ("1.35"), not its double expansion.
    char signal[32];
    const auto printed = std::to_chars(signal, signal + sizeof signal, signal_);
    notes.push_back("Spec-Bench replay of " + path_ + ": " + std::to_string(lengths_.size()) +
                    " questions; confidences synthesised (calibrated, head signal " +
                    std::string(signal, printed.ptr) + ")");
  }
  if (requests_wrapped_ > 0) {
    notes.push_back(std::to_string(requests_wrapped_) +
                    " requests had ids past the file's questions and replay question id mod " +
                    std::to_string(lengths_.size()));
  }
  if (steps_wrapped_ > 0) {
    notes.push_back(std::to_string(steps_wrapped_) + " of " + std::to_string(steps_) +
                    " request-steps ran past their request's recorded steps and reused its "
                    "records from step 0");
  }
  if (steps_capped_ > 0) {
    notes.push_back(std::to_string(steps_capped_) + " of " + std::to_string(steps_) +
                    " request-steps recorded more accepted drafts than γ = " +
                    std::to_string(gamma_) + " and were capped at γ");
  }
  return notes;
}

}  // namespace sparksim
