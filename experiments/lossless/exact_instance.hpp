// A small, fully specified decode step that the exact losslessness check enumerates: a vocabulary
// of a few tokens, γ draft positions, one to a few requests, each with its target next-token table,
// its drafter's per-position tables and the confidence head's values, the SPS curve the scheduler
// sees, and the earlier steps (confidences and contexts) replayed into the policy to set its state
// (async-topk's lagged survivals, goodput's acceptance estimate). The paper's Appendix A is the
// default instance. Read from and written to JSON (`sparksim lossless --instance FILE`); every
// problem in a file is reported as `path:line: what`.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace sparksim {

// One request of the step. Tables are V × V row-major, row = the previous token.
struct ExactRequest {
  int anchor = 0;                   // the last committed token (position 0 of the block)
  std::int64_t context_tokens = 1;  // what BatchView::context_tokens shows the policy
  std::vector<double> target;       // P(next | previous)
  // draft[k-1]: the distribution of draft position k given the previous token (the anchor for
  // k = 1), exactly what x_k is sampled from.
  std::vector<std::vector<double>> draft;
  // confidence[k-1][previous]: the confidence c_k the head shows when x_{k-1} (the anchor for
  // k = 1) is `previous`. It depends only on earlier drafted tokens, as DSpark's head does.
  std::vector<std::vector<double>> confidence;
  // true: confidence is the calibrated α_k = Σ_y min(p_d, p_t) of the tables (recomputed when
  // the tables change); false: the values are free parameters of the instance.
  bool exact_confidence = true;
};

// An earlier decode step shown to the policy before the checked one (oldest first).
struct ExactHistoryStep {
  std::vector<double> confidences;           // R × γ row-major
  std::vector<std::int64_t> context_tokens;  // R
};

struct ExactInstance {
  std::vector<std::string> tokens;  // V names
  int gamma = 1;
  std::vector<double> sps;  // SPS(B) for B = 1..n, n >= R (γ + 1)
  std::vector<ExactRequest> requests;
  std::vector<ExactHistoryStep> history;
  std::string policy;  // optional: the registry spec the instance was found for
  std::string note;    // optional free text
  std::string source = "<built-in>";

  int vocab() const { return static_cast<int>(tokens.size()); }
  int request_count() const { return static_cast<int>(requests.size()); }
};

// Instances larger than these are refused before anything is enumerated.
inline constexpr int kMaxExactVocab = 16;
inline constexpr int kMaxExactGamma = 8;
inline constexpr int kMaxExactRequests = 8;
inline constexpr double kMaxJointOutcomes = 1'000'000;

// The paper's Appendix A: tokens A, B and the prompt's last token S; γ = 2; one request anchored
// at S; target (0.7, 0.3) after S and A, A surely after B; draft (0.5, 0.5) at position 1, (0.6,
// 0.4) after A and B surely after B at position 2, so the calibrated confidences are c_1 = 0.8 and
// c_2 = 0.9 after A, 0 after B; SPS(1) = 1, SPS(2) = 0.5, SPS(3) = 0.45.
ExactInstance appendix_a_instance();

// Σ_y min(p_draft(y), p_target(y)): the acceptance probability of a draft from p_draft.
double overlap(const double* p_draft, const double* p_target, int vocab);

// Recomputes the confidences of every request whose exact_confidence is set.
void refresh_exact_confidences(ExactInstance& instance);

// Reads and validates an instance file; InputError `path:line: what` for every kind of bad input
// (not JSON, a row that is not a distribution, a confidence outside [0, 1], an SPS table too
// short, sizes beyond the limits above).
ExactInstance load_exact_instance(const std::string& path);
ExactInstance parse_exact_instance(const std::string& text, const std::string& path);

// The instance as the file format writes it (load_exact_instance reads it back exactly: numbers
// print in their shortest round-trip form).
nlohmann::ordered_json exact_instance_json(const ExactInstance& instance);

// Joint outcomes the exact check enumerates: (V^γ)^R draft outcomes, times (γ + 1)^R hidden
// acceptance counts when the policy sees the hidden outcome.
double joint_outcome_count(const ExactInstance& instance, bool sees_hidden_outcome);

// Throws InputError(source, 0, ...) naming the count when joint_outcome_count exceeds the limit.
void check_enumerable(const ExactInstance& instance, bool sees_hidden_outcome);

}  // namespace sparksim
