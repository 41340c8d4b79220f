// The calibrated acceptance model (`--acceptance calibrated`, the default): per-domain mean
// conditional-acceptance curves (published_curves.hpp, or a curves file) reproduced as the MEAN
// over realistic heterogeneity, and a confidence head of configurable ranking quality and
// calibration.
//
// Per request-step, on the logit scale: position k is accepted (given 1..k-1 accepted) with
// probability σ(a_k + m), m = d + x_t, where d ~ N(0, σ_d²) is the request's difficulty and x_t a
// stationary AR(1) latent state (sd σ_x, step-to-step correlation ρ) so that easy and hard spans
// persist for several steps. The offsets a_k are solved numerically so that the step-weighted
// mean conditional acceptance equals the target curve exactly (logit_offsets.hpp).
//
// Confidence head: the head observes, for each position k, a Gaussian signal s_k ~ N(±Δ/2, 1)
// whose sign follows that position's true outcome o_k (for positions after the first rejection,
// which the target never checks, o_k is drawn from σ(a_k + m) as if it had been). The Bayes
// posterior σ(a_k + m + Δ s_k) is exactly calibrated; the raw head reports it over-sharpened,
// c_k = σ(β (a_k + m + Δ s_k)) with β >= 1, as the paper's raw head is over-confident. Δ sets
// ranking quality (ROC-AUC), β calibration (ECE); STS temperatures T_k, when loaded, divide the
// logit: c_k = σ(β (a_k + m + Δ s_k) / T_k).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "sim/acceptance/acceptance_model.hpp"
#include "sim/acceptance/confidence_metrics.hpp"
#include "sim/acceptance/fast_math.hpp"
#include "sim/acceptance/logit_offsets.hpp"
#include "sim/acceptance/published_curves.hpp"

namespace sparksim {

struct ConfidenceHead {
  double signal = 0;     // Δ: separation (in sd units) of the head's per-position signal
  double sharpness = 1;  // β: raw logit multiplier; 1 = calibrated, > 1 over-confident
};

// Defaults: heterogeneity fitted to Spec-Bench (sim/acceptance/README.md has the fit) and a raw
// head in the published range (ROC-AUC 0.81-0.90, ECE 3-8%).
Heterogeneity default_heterogeneity();
ConfidenceHead default_confidence_head();

struct CalibratedModelConfig {
  MeanCurves curves;  // one curve of >= gamma positions per domain
  int gamma = 7;
  Heterogeneity heterogeneity = default_heterogeneity();
  std::array<ConfidenceHead, kDomainCount> head = {
      default_confidence_head(), default_confidence_head(), default_confidence_head()};
  std::vector<double> sts_temperatures;  // empty, or one per position
  std::uint64_t seed = 1;
};

class CalibratedAcceptanceModel final : public AcceptanceModel {
 public:
  explicit CalibratedAcceptanceModel(CalibratedModelConfig config);

  void init_request(std::uint64_t request_id, Domain domain, AcceptanceState& state) override;
  void draft(std::span<const DraftSlot> slots, int gamma, std::span<float> confidences,
             std::span<int> hidden_accepted) override;
  // The confidences draw from their own hash fields, never from the state or the outcome's.
  bool confidences_optional() const override { return true; }
  // Its tables are fixed at construction; draft() moves only the slots' states.
  bool shareable() const override { return true; }
  std::vector<std::string> notes() const override { return config_.curves.notes; }

  const CalibratedModelConfig& config() const { return config_; }
  const std::vector<double>& logit_offsets(Domain d) const { return offsets_[static_cast<int>(d)]; }

  // Full-depth request-steps of `domain`: `requests` fresh requests (ids from first_id) each
  // drafting steps 0..steps_per_request-1. For tuning and tests.
  ConfidenceSample sample(Domain domain, int requests, int steps_per_request,
                          std::uint64_t first_id) const;

 private:
  // At most kMaxCalibratedGamma positions, padded to a multiple of 4 for the vector loop.
  static constexpr int kMaxPositions = 16;
  using PerPosition = std::array<float, kMaxPositions>;
  // What draft() reads for one domain, precomputed so a request-step costs table lookups only.
  struct DomainTables {
    // Survival S_k(m) = Π_{i<=k} σ(a_i + m) at grid points m = m_lo + j/kBinsPerUnit
    // (row j holds k = 1..γ); m is rounded to the grid (spacing 1/32 on the logit scale, far
    // below any other error) and clamped to ±(6 sd + 0.1).
    // Shared by every model built from the same offsets and grid (a cluster's replicas): one copy
    // stays in cache instead of one per replica, which made the lookup a cache miss per step.
    std::shared_ptr<const std::vector<float>> survival;
    const float* survival_rows = nullptr;  // survival->data(): one load less per request-step
    float m_lo = 0;
    int bins = 1;
    // Per position k: the acceptance logit is offset_k + m; the confidence logit is
    // scale_k (offset_k + m) ± half_k + signal_k n_k = β/T_k · (a_k + m + Δ s_k), s_k = ±Δ/2 + n_k.
    alignas(16) PerPosition offset{}, scaled_offset{}, scale{}, half{}, signal{};
  };
  static constexpr int kBinsPerUnit = 32;

  // draft() for a block of kGamma positions (0: runtime_gamma), the loops' trip count fixed;
  // kConfidences false: the hidden outcomes only (confidences_optional).
  template <int kGamma, bool kConfidences>
  void draft_rows(std::span<const DraftSlot> slots, int runtime_gamma, std::span<float> confidences,
                  std::span<int> hidden_accepted);
  void set_head(int domain, const ConfidenceHead& head);
  static std::shared_ptr<const std::vector<float>> shared_survival_table(
      const std::vector<double>& offsets, int half_bins);
  // The latent state x at `step`, moved on from the state's (usually one step; replayed from x_0
  // when asked for an earlier step). The innovation of step t is normal(bits 32-41 of
  // step_hash(mix64(id), t)).
  float latent_at(AcceptanceState& s, std::uint64_t request_id, std::int64_t step) const;
  double request_difficulty(std::uint64_t request_id) const;  // d
  double initial_latent(std::uint64_t request_id) const;      // x_0
  std::uint64_t step_hash(std::uint64_t rid, std::int64_t step) const;
  static void sigmoid_arguments(const DomainTables& t, const float* noise,
                                const float* would_accept, float m, int accepted, int count,
                                std::uint32_t* index, float* fraction);

  CalibratedModelConfig config_;
  std::array<std::vector<double>, kDomainCount> offsets_;
  std::array<DomainTables, kDomainCount> tables_;
  float rho_ = 0, innovation_sd_ = 0;
  std::uint64_t key_step_, key_difficulty_;
  const fast::SigmoidPoint* sigmoid_;
  const float* normal_;
  const float* logistic_;

  friend ConfidenceHead tune_confidence_head(const CalibratedAcceptanceModel&, Domain,
                                             std::optional<double>, std::optional<double>);
};

// Head parameters for `domain` that give the raw head the requested mean (over positions)
// ROC-AUC and/or ECE on a fixed Monte Carlo sample of the model (the other parameter keeps the
// model's current value). Throws InputError when a target is out of reach (AUC below what the
// heterogeneity alone gives with no signal, or above 0.995; ECE above 0.4).
ConfidenceHead tune_confidence_head(const CalibratedAcceptanceModel& model, Domain domain,
                                    std::optional<double> auc, std::optional<double> ece);

// Curves file (`calibrated:curves=PATH`): {"gamma": γ, "domains": {"math": [p_1..p_γ], "code":
// [...], "chat": [...]}}. Every domain needs a curve of exactly γ probabilities in [0, 1];
// anything else is an InputError at the offending line.
MeanCurves load_curves_file(const std::string& path, int gamma);

}  // namespace sparksim
