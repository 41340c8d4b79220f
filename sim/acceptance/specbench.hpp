// Spec-Bench per-step acceptance (traces/specbench_eagle_vicuna7b_accept.jsonl, format in
// traces/README.md): the loader, the category → domain map, the spread statistics the
// heterogeneity model is fitted to (per-category p10/p50/p90 of per-request τ, lag-1
// autocorrelation of per-step accepted lengths, the accepted-length histogram), and the same
// statistics simulated by the calibrated model over requests of the same output lengths.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "sim/acceptance/logit_offsets.hpp"
#include "traces/domain.hpp"

namespace sparksim {

struct SpecBenchQuestion {
  std::int64_t question_id = 0;
  std::string category;
  Domain domain = Domain::kChat;
  std::vector<std::vector<int>> turns;  // per turn: tokens committed per step (accepted + 1)
  std::int64_t line = 0;

  std::int64_t output_tokens() const;
  std::int64_t steps() const;
};

struct SpecBenchData {
  std::string path;
  std::vector<SpecBenchQuestion> questions;  // file order
  std::vector<std::string> categories;       // first-seen order
  int max_length = 0;                        // largest tokens-per-step (depth + 1)
};

// math, math_reasoning -> math; coding -> code; the other Spec-Bench categories (writing,
// roleplay, reasoning, extraction, stem, humanities, translation, summarization, qa, rag) -> chat.
// Returns false for a category outside that list.
bool specbench_domain(const std::string& category, Domain& out);

// Loads and validates (InputError path:line for malformed JSON, a missing field, an accepted
// length outside 1..64, decoding_steps or new_tokens that disagree with accept_lengths, or an
// unknown category).
SpecBenchData load_specbench(const std::string& path);

// The category's mean conditional acceptance for positions 1..gamma from its pooled per-step
// histogram: p_k = #(length > k) / #(length > k-1); 0 where the drafter never reached k. Each
// turn's last step is left out: it is cut short where the answer ended.
std::vector<double> specbench_mean_curve(const SpecBenchData& data, const std::string& category,
                                         int gamma);

struct SpreadStats {
  std::int64_t requests = 0, steps = 0;
  double tau_mean = 0;                           // pooled: tokens / steps
  double tau_p10 = 0, tau_p50 = 0, tau_p90 = 0;  // of per-request τ
  double lag1 = 0;  // autocorrelation of consecutive per-step lengths within a request (turn)
  std::vector<double> histogram;  // fraction of steps committing 1, 2, ..., max_length tokens
};

// Real statistics of one category ("" = all questions).
SpreadStats specbench_real_stats(const SpecBenchData& data, const std::string& category);

// The calibrated model with the category's mean curve (γ = max_length - 1) and `heterogeneity`,
// run at full block depth over `replicas` copies of each question of the category, each turn a
// sequence of the recorded output length (the last step truncated to what is left, as in the
// data). Per-request τ pools a question's turns, as specbench_real_stats does.
SpreadStats specbench_simulated_stats(const SpecBenchData& data, const std::string& category,
                                      const Heterogeneity& heterogeneity, int replicas,
                                      std::uint64_t seed);

struct HeterogeneityFitPoint {
  Heterogeneity heterogeneity;
  double loss = 0;
};

// Grid search over (request_sd, latent_sd, latent_rho) minimising Σ over categories of the
// squared errors of the simulated per-request τ p10, p50, p90 and lag-1 autocorrelation (weight
// 4) against the real ones. Returns every grid point, best first.
std::vector<HeterogeneityFitPoint> fit_heterogeneity(const SpecBenchData& data, int replicas,
                                                     std::uint64_t seed);

}  // namespace sparksim
