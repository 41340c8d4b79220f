// Acceptance logs: sparksim's own per-step record of speculation at full block depth, written by
// `sparksim run --write-acceptance-log PATH` and replayed by `--acceptance-log PATH`.
//
// Format (CSV, LF line ends):
//   # sparksim acceptance log v1: gamma=7 drafter=dspark-7 target=qwen3-8b seed=1 acceptance=SPEC
//   request_id,decode_step,domain,generated,verified,first_rejected,c1,...,c7
//   0,0,chat,1,3,4,0.93,0.88,0.91,0.72,0.85,0.8,0.77
// One row per request-step in the order the engine drafted them. `first_rejected` is the 1-based
// position of the first draft the target would reject if all γ were verified (γ + 1: none), so
// the hidden outcome is first_rejected - 1 accepted drafts; c1..cγ are the confidences the policy
// saw, in the shortest decimal form that reads back to the same float (a replay is bit-exact).
// `generated` (output tokens before the step) and `verified` (the policy's ℓ) are for analysis;
// a replay does not need them. `acceptance=` takes the rest of the header line.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include "sim/acceptance/acceptance_model.hpp"
#include "sim/acceptance/confidence_metrics.hpp"

namespace sparksim {

struct AcceptanceLogHeader {
  int gamma = 0;
  std::string drafter, target, acceptance;
  std::uint64_t seed = 0;
};

// Decorator: forwards every call to `inner` and appends one row per slot to `out` after the
// policy decided (on_verified). The header lines are written at construction.
class AcceptanceLogRecorder final : public AcceptanceModel {
 public:
  AcceptanceLogRecorder(std::unique_ptr<AcceptanceModel> inner, std::ostream& out,
                        const AcceptanceLogHeader& header);

  void init_request(std::uint64_t request_id, Domain domain, AcceptanceState& state) override;
  void draft(std::span<const DraftSlot> slots, int gamma, std::span<float> confidences,
             std::span<int> hidden_accepted) override;
  void on_verified(std::span<const DraftSlot> slots, std::span<const int> lengths) override;
  void on_request_left(std::uint64_t request_id) override;
  std::vector<std::string> notes() const override { return inner_->notes(); }
  std::string reproduces() const override { return inner_->reproduces(); }

 private:
  std::unique_ptr<AcceptanceModel> inner_;
  std::ostream& out_;
  int gamma_;
  std::vector<float> confidences_;  // the last draft() call's, until on_verified
  std::vector<int> hidden_;
  std::string buffer_;
};

// A log read into memory, rows grouped by request and ordered by decode step.
struct AcceptanceLog {
  std::string path;
  AcceptanceLogHeader header;
  struct Row {
    std::uint64_t request_id = 0;
    std::int64_t decode_step = 0;
    std::int64_t generated = 0;
    std::int64_t line = 0;
    Domain domain = Domain::kChat;
    int verified = 0;
    int accepted = 0;  // first_rejected - 1
  };
  std::vector<Row> rows;           // sorted by (request_id, decode_step)
  std::vector<float> confidences;  // rows.size() * gamma, in the same order
  struct Range {
    std::uint64_t request_id = 0;
    std::size_t first = 0, count = 0;
  };
  std::vector<Range> requests;  // ascending request_id

  // The range of `request_id`, or nullptr.
  const Range* find(std::uint64_t request_id) const;
  ConfidenceSample to_sample() const;
};

// Reads a log. Every problem is an InputError `path:line: what`: a missing or foreign header, a
// column header that does not match γ, a malformed or out-of-range field (confidences in [0, 1],
// first_rejected in 1..γ+1, verified in 0..γ), a request-step given twice, or a request whose
// steps do not run 0, 1, 2, ... without gaps.
AcceptanceLog read_acceptance_log(std::istream& in, const std::string& path);
AcceptanceLog read_acceptance_log_file(const std::string& path);

// True when the file's first non-blank character is '{' (a Spec-Bench JSONL file rather than a
// sparksim CSV log).
bool looks_like_json_lines(const std::string& path);

}  // namespace sparksim
