// The calibrated acceptance model: draws, head tuning and the curves file.
#include "sim/acceptance/calibrated_model.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <mutex>
#include <stdexcept>
#include <utility>

#include "common/count_above.hpp"
#include "common/input_error.hpp"
#include "common/json_file.hpp"
#include "common/rng.hpp"
#include "sim/acceptance/fast_math.hpp"

namespace sparksim {

Heterogeneity default_heterogeneity() {
  // Fitted to the Spec-Bench EAGLE / Vicuna-7B per-step acceptance (`sparksim heterogeneity
  // --fit`; the comparison table is in sim/acceptance/README.md). Assumption: the same
  // logit-scale spreads hold for every drafter and target (no other per-request data exists).
  Heterogeneity h;
  h.request_sd = 0.10;
  h.latent_sd = 0.90;
  h.latent_rho = 0.60;
  h.step_weighted = true;
  return h;
}

ConfidenceHead default_confidence_head() {
  // Chosen so that the raw head of the default run (dspark-7 on Qwen3-8B) shows a mean ROC-AUC
  // of about 0.85 and a mean ECE of about 5% per domain: the middle of the published ranges
  // (0.81-0.90, 3-8%); README.md lists the values measured for every drafter.
  return ConfidenceHead{1.35, 1.3};
}

namespace {

// Survival S_k(m) at m = (j - half_bins) / kBinsPerUnit, row j, k = 1..γ (γ = offsets' size).
// Padded by 4: draft() counts a row with count_above, which reads up to 3 past it.
std::vector<float> survival_table(const std::vector<double>& offsets, int half_bins,
                                  int bins_per_unit) {
  const std::size_t g = offsets.size();
  const int bins = 2 * half_bins + 1;
  std::vector<float> table(static_cast<std::size_t>(bins) * g + 4);
  for (int j = 0; j < bins; ++j) {
    const double m = static_cast<double>(j - half_bins) / bins_per_unit;
    double survival = 1.0;
    for (std::size_t k = 0; k < g; ++k) {
      survival *= 1.0 / (1.0 + std::exp(-(offsets[k] + m)));
      table[static_cast<std::size_t>(j) * g + k] = static_cast<float>(survival);
    }
  }
  return table;
}

}  // namespace

// Tables already built in this process, by exact offsets and grid: a table is a pure function of
// them, so sharing one changes no draw.
std::shared_ptr<const std::vector<float>> CalibratedAcceptanceModel::shared_survival_table(
    const std::vector<double>& offsets, int half_bins) {
  struct Entry {
    std::vector<double> offsets;
    int half_bins;
    std::shared_ptr<const std::vector<float>> table;
  };
  static std::mutex mutex;
  static std::vector<Entry> entries;
  constexpr std::size_t kCapacity = 64;
  const auto same_bits = [](double a, double b) {
    return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b);
  };
  const std::lock_guard<std::mutex> lock(mutex);
  for (const Entry& e : entries) {
    if (e.half_bins == half_bins && e.offsets.size() == offsets.size() &&
        std::equal(offsets.begin(), offsets.end(), e.offsets.begin(), same_bits)) {
      return e.table;
    }
  }
  auto table =
      std::make_shared<const std::vector<float>>(survival_table(offsets, half_bins, kBinsPerUnit));
  if (entries.size() == kCapacity) entries.erase(entries.begin());  // oldest first
  entries.push_back(Entry{offsets, half_bins, table});
  return table;
}

CalibratedAcceptanceModel::CalibratedAcceptanceModel(CalibratedModelConfig config)
    : config_(std::move(config)),
      key_step_(derive_seed(config_.seed, static_cast<std::uint64_t>(StreamId::kAcceptance))),
      key_difficulty_(
          derive_seed(config_.seed, static_cast<std::uint64_t>(StreamId::kAcceptanceDifficulty))),
      sigmoid_(fast::sigmoid_table().data()),
      normal_(fast::normal_table().data()),
      logistic_(fast::logistic_table().data()) {
  const auto g = static_cast<std::size_t>(config_.gamma);
  if (config_.gamma < 1 || config_.gamma > kMaxPositions) {
    throw std::invalid_argument("calibrated model: gamma out of range");
  }
  if (!config_.sts_temperatures.empty() && config_.sts_temperatures.size() != g) {
    throw std::invalid_argument("STS temperatures must have one entry per position");
  }
  const Heterogeneity& h = config_.heterogeneity;
  const double reach =
      6.0 * std::sqrt(h.request_sd * h.request_sd + h.latent_sd * h.latent_sd) + 0.1;
  for (int d = 0; d < kDomainCount; ++d) {
    const std::vector<double>& curve = config_.curves.p[d];
    if (curve.size() < g) throw std::invalid_argument("acceptance curve shorter than gamma");
    offsets_[d] = solve_logit_offsets(std::span<const double>(curve.data(), g), h);
    DomainTables& t = tables_[d];
    const int half_bins = static_cast<int>(std::ceil(reach * kBinsPerUnit));
    t.bins = 2 * half_bins + 1;
    t.m_lo = static_cast<float>(-half_bins) / kBinsPerUnit;
    t.survival = shared_survival_table(offsets_[d], half_bins);
    t.survival_rows = t.survival->data();
    set_head(d, config_.head[static_cast<std::size_t>(d)]);
  }
  rho_ = static_cast<float>(h.latent_rho);
  innovation_sd_ = static_cast<float>(h.latent_sd * std::sqrt(1.0 - h.latent_rho * h.latent_rho));
}

void CalibratedAcceptanceModel::set_head(int domain, const ConfidenceHead& head) {
  config_.head[static_cast<std::size_t>(domain)] = head;
  DomainTables& t = tables_[domain];
  for (std::size_t k = 0; k < static_cast<std::size_t>(config_.gamma); ++k) {
    const double temperature = config_.sts_temperatures.empty() ? 1.0 : config_.sts_temperatures[k];
    const double scale = head.sharpness / temperature;
    const double offset = offsets_[domain][k];
    t.offset[k] = static_cast<float>(offset);
    t.scaled_offset[k] = static_cast<float>(scale * offset);
    t.scale[k] = static_cast<float>(scale);
    t.half[k] = static_cast<float>(scale * 0.5 * head.signal * head.signal);
    t.signal[k] = static_cast<float>(scale * head.signal);
  }
}

void CalibratedAcceptanceModel::init_request(std::uint64_t request_id, Domain,
                                             AcceptanceState& state) {
  state = AcceptanceState{};
  state.difficulty = request_difficulty(request_id);
  state.latent = initial_latent(request_id);
  state.latent_step = 0;
  state.id_hash = mix64(request_id);  // cached: the per-step hash needs it
}

double CalibratedAcceptanceModel::request_difficulty(std::uint64_t request_id) const {
  return config_.heterogeneity.request_sd *
         fast::inverse_normal_cdf(counter_uniform(key_difficulty_, 2 * request_id));
}

double CalibratedAcceptanceModel::initial_latent(std::uint64_t request_id) const {
  return config_.heterogeneity.latent_sd *
         fast::inverse_normal_cdf(counter_uniform(key_difficulty_, 2 * request_id + 1));
}

// 64 random bits per (request, step): bits 0-31 the outcome uniform, 32-43 the latent
// innovation; mix64(hash + j) feeds the head's signals.
std::uint64_t CalibratedAcceptanceModel::step_hash(std::uint64_t rid, std::int64_t step) const {
  return mix64(key_step_ ^ rid ^ (static_cast<std::uint64_t>(step) * 0x9E3779B97F4A7C15ULL));
}

float CalibratedAcceptanceModel::latent_at(AcceptanceState& s, std::uint64_t request_id,
                                           std::int64_t step) const {
  std::int64_t t = s.latent_step;
  double x = s.latent;
  if (step < t) {  // asked for an earlier step: replay the chain from x_0
    x = initial_latent(request_id);
    t = 0;
  }
  while (t < step) {  // the engine's case: one step on
    ++t;
    x = rho_ * x +
        innovation_sd_ * normal_[(step_hash(s.id_hash, t) >> 32) & (fast::kNormalEntries - 1)];
  }
  s.latent = x;
  s.latent_step = t;
  return static_cast<float>(x);
}

// The middle pass of draft(): for positions k < `count` (a multiple of 4), the confidence logit
// z_k = scale_k (a_k + m) + sign_k half_k + signal_k noise_k, with sign_k = +1 when position k is
// accepted (k < accepted) or would have been (k > accepted and would_accept_k < a_k + m), else
// -1; then σ's table index and offset as fast::sigmoid computes them. SSE2 intrinsics because
// GCC leaves the scalar loop unvectorised (under -ftrapping-math it will not if-convert the float
// compares); the fallback does the same operations in the same order.
inline void CalibratedAcceptanceModel::sigmoid_arguments(const DomainTables& t, const float* noise,
                                                         const float* would_accept, float m,
                                                         int accepted, int count,
                                                         std::uint32_t* index, float* fraction) {
  constexpr float kPerUnit = static_cast<float>(fast::kSigmoidPerUnit);
  constexpr float kShift = fast::kSigmoidRange * kPerUnit;
  constexpr float kTop = static_cast<float>(fast::kSigmoidPoints - 1);
  const auto accepted_f = static_cast<float>(accepted);
#if defined(__SSE2__)
  const __m128 vm = _mm_set1_ps(m), va = _mm_set1_ps(accepted_f);
  const __m128 magic = _mm_set1_ps(fast::kRoundMagic), sign_bit = _mm_set1_ps(-0.0f);
  __m128 kf = _mm_setr_ps(0.0f, 1.0f, 2.0f, 3.0f);
  // The draws were just stored one float at a time, and a 16-byte load of four fresh 4-byte stores
  // cannot be forwarded from them (it waits for them to reach the cache): each lane is loaded on
  // its own and the vector assembled in registers.
  const auto gather4 = [](const float* p) {
    return _mm_movelh_ps(_mm_unpacklo_ps(_mm_load_ss(p), _mm_load_ss(p + 1)),
                         _mm_unpacklo_ps(_mm_load_ss(p + 2), _mm_load_ss(p + 3)));
  };
  for (int k = 0; k < count; k += 4, kf = _mm_add_ps(kf, _mm_set1_ps(4.0f))) {
    const __m128 would =
        _mm_cmplt_ps(gather4(would_accept + k), _mm_add_ps(_mm_load_ps(t.offset.data() + k), vm));
    const __m128 positive =
        _mm_or_ps(_mm_cmplt_ps(kf, va), _mm_and_ps(_mm_cmpgt_ps(kf, va), would));
    const __m128 half =
        _mm_xor_ps(_mm_load_ps(t.half.data() + k), _mm_andnot_ps(positive, sign_bit));
    const __m128 z = _mm_add_ps(
        _mm_add_ps(_mm_load_ps(t.scaled_offset.data() + k),
                   _mm_mul_ps(_mm_load_ps(t.scale.data() + k), vm)),
        _mm_add_ps(half, _mm_mul_ps(_mm_load_ps(t.signal.data() + k), gather4(noise + k))));
    const __m128 y =
        _mm_min_ps(_mm_max_ps(_mm_add_ps(_mm_mul_ps(z, _mm_set1_ps(kPerUnit)), _mm_set1_ps(kShift)),
                              _mm_setzero_ps()),
                   _mm_set1_ps(kTop));
    const __m128 shifted = _mm_add_ps(y, magic);
    _mm_store_si128(reinterpret_cast<__m128i*>(index + k),
                    _mm_and_si128(_mm_castps_si128(shifted),
                                  _mm_set1_epi32(static_cast<int>(fast::kRoundMask))));
    _mm_store_ps(fraction + k, _mm_sub_ps(y, _mm_sub_ps(shifted, magic)));
  }
#else
  for (int k = 0; k < count; ++k) {
    const auto kf = static_cast<float>(k);
    const bool positive = kf < accepted_f || (kf > accepted_f && would_accept[k] < t.offset[k] + m);
    const float half = positive ? t.half[k] : -t.half[k];
    const float z = (t.scaled_offset[k] + t.scale[k] * m) + (half + t.signal[k] * noise[k]);
    const float y = std::min(std::max(z * kPerUnit + kShift, 0.0f), kTop);
    const float shifted = y + fast::kRoundMagic;
    index[k] = std::bit_cast<std::uint32_t>(shifted) & fast::kRoundMask;
    fraction[k] = y - (shifted - fast::kRoundMagic);
  }
#endif
}

void CalibratedAcceptanceModel::draft(std::span<const DraftSlot> slots, int gamma,
                                      std::span<float> confidences,
                                      std::span<int> hidden_accepted) {
  if (gamma != config_.gamma) throw std::logic_error("calibrated model built for another gamma");
  // The common block sizes get a copy with γ known at compile time (its position loops unroll);
  // every copy does the same arithmetic in the same order, so the outputs are identical. A kept
  // optimisation: sim/acceptance/README.md has its figure.
  // Without confidences (nobody reads them) a copy that draws the hidden outcomes only: a test
  // per row in the shared copy cost 15 instructions per request-step of the full draw.
  if (confidences.empty()) {
    switch (gamma) {
      case 7:
        return draft_rows<7, false>(slots, gamma, confidences, hidden_accepted);
      default:
        return draft_rows<0, false>(slots, gamma, confidences, hidden_accepted);
    }
  }
  switch (gamma) {
    case 5:
      return draft_rows<5, true>(slots, gamma, confidences, hidden_accepted);
    case 7:
      return draft_rows<7, true>(slots, gamma, confidences, hidden_accepted);
    default:
      return draft_rows<0, true>(slots, gamma, confidences, hidden_accepted);
  }
}

template <int kGamma, bool kConfidences>
void CalibratedAcceptanceModel::draft_rows(std::span<const DraftSlot> slots, int runtime_gamma,
                                           std::span<float> confidences,
                                           std::span<int> hidden_accepted) {
  const int gamma = kGamma > 0 ? kGamma : runtime_gamma;
  const auto g = static_cast<std::size_t>(gamma);
  constexpr std::uint64_t kMask = fast::kNormalEntries - 1;
  for (std::size_t r = 0; r < slots.size(); ++r) {
    const DraftSlot& slot = slots[r];
    const DomainTables& t = tables_[static_cast<int>(slot.domain)];
    AcceptanceState& s = *slot.state;
    const std::uint64_t h = step_hash(s.id_hash, slot.decode_step);
    // The latent state at this step; the engine's case (one step on) inline, reusing h.
    float latent;
    if (s.latent_step + 1 == slot.decode_step) {
      s.latent = rho_ * s.latent + innovation_sd_ * normal_[(h >> 32) & kMask];
      s.latent_step = slot.decode_step;
      latent = static_cast<float>(s.latent);
    } else {
      latent = latent_at(s, slot.request_id, slot.decode_step);
    }
    const float m_exact = static_cast<float>(s.difficulty) + latent;
    const float bin_f =
        fast::clamp((m_exact - t.m_lo) * kBinsPerUnit + 0.5f, 0.0f, static_cast<float>(t.bins - 1));
    const int bin = static_cast<int>(bin_f);
    const float m = t.m_lo + static_cast<float>(bin) * (1.0f / kBinsPerUnit);

    // Hidden outcome: accepted = #{k : u < S_k(m)} (S is non-increasing, so this is the number
    // of leading acceptances).
    const float u = static_cast<float>(static_cast<std::int64_t>(h & 0xFFFFFFFFULL)) * 0x1.0p-32f;
    const float* survival = t.survival_rows + static_cast<std::size_t>(bin) * g;
    // (u < S_k is S_k > u; the table is padded for the lanes past γ.)
    const int accepted = count_above(survival, gamma, u);
    hidden_accepted[r] = accepted;
    if constexpr (!kConfidences) continue;  // nobody reads them (confidences_optional)

    // Confidences: σ(β/T_k · (a_k + m + Δ s_k)), s_k = ±Δ/2 + n_k by position k's outcome: the
    // record's for k <= accepted, a draw from σ(a_k + m) after the first rejection. Three passes
    // so the middle one (all the arithmetic) vectorises: gather the random draws, compute every
    // position's table index and offset, gather σ. 2γ draws of 10 bits, six per 64-bit hash:
    // field k < γ is position k's noise n_k, field γ + k its would-be outcome. Padding positions
    // (up to a multiple of 4) are set to 0 and never read back.
    alignas(16) float noise[kMaxPositions], would_accept[kMaxPositions];
    for (int k = gamma; k < ((gamma + 3) & ~3); ++k) noise[k] = would_accept[k] = 0.0f;
    std::uint64_t bits[(2 * kMaxPositions + 5) / 6];
    for (int b = 0; b < (2 * gamma + 5) / 6; ++b) {
      bits[b] = mix64(h + static_cast<std::uint64_t>(b + 1));
    }
    const auto draw = [&](int field) {
      return (bits[field / 6] >> (fast::kNormalBits * (field % 6))) & kMask;
    };
    for (int k = 0; k < gamma; ++k) noise[k] = normal_[draw(k)];
    for (int k = 0; k < gamma; ++k) would_accept[k] = logistic_[draw(gamma + k)];
    alignas(16) std::uint32_t index[kMaxPositions];
    alignas(16) float fraction[kMaxPositions];
    sigmoid_arguments(t, noise, would_accept, m, accepted, (gamma + 3) & ~3, index, fraction);
    float* out = confidences.data() + r * g;
    for (int k = 0; k < gamma; ++k) {
      const fast::SigmoidPoint& p = sigmoid_[index[k]];
      out[k] = p.value + fraction[k] * p.slope;
    }
  }
}

ConfidenceSample CalibratedAcceptanceModel::sample(Domain domain, int requests,
                                                   int steps_per_request,
                                                   std::uint64_t first_id) const {
  CalibratedAcceptanceModel copy = *this;
  ConfidenceSample out;
  out.gamma = config_.gamma;
  const auto g = static_cast<std::size_t>(config_.gamma);
  std::vector<float> c(g);
  int accepted = 0;
  for (int i = 0; i < requests; ++i) {
    const std::uint64_t id = first_id + static_cast<std::uint64_t>(i);
    AcceptanceState state{};
    copy.init_request(id, domain, state);
    for (int t = 0; t < steps_per_request; ++t) {
      const DraftSlot slot{id, domain, t, 0, &state};
      copy.draft(std::span<const DraftSlot>(&slot, 1), config_.gamma, c,
                 std::span<int>(&accepted, 1));
      out.add(id, c, accepted);
    }
  }
  return out;
}

namespace {

// Solves f(x) = goal for a non-decreasing f on [lo, hi] by bisection (f is a Monte Carlo estimate
// on common random numbers, so monotone up to sampling noise).
template <typename F>
double bisect(F&& f, double goal, double lo, double hi, int iterations) {
  for (int i = 0; i < iterations; ++i) {
    const double mid = 0.5 * (lo + hi);
    (f(mid) < goal ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

std::string fmt(double x) {
  return format_number(std::round(x * 1000) / 1000);
}

}  // namespace

ConfidenceHead tune_confidence_head(const CalibratedAcceptanceModel& model, Domain domain,
                                    std::optional<double> auc, std::optional<double> ece) {
  // A fixed sample, independent of the run's seed: 600 requests x 16 steps.
  CalibratedModelConfig config = model.config();
  config.seed = derive_seed(0, static_cast<std::uint64_t>(StreamId::kAcceptanceTuning));
  config.sts_temperatures.clear();
  CalibratedAcceptanceModel probe(config);
  const int d = static_cast<int>(domain);
  ConfidenceHead head = config.head[static_cast<std::size_t>(d)];
  const auto measure = [&](const ConfidenceHead& h, bool want_auc) {
    probe.set_head(d, h);
    const auto m = evaluate_confidences(probe.sample(domain, 600, 16, 0), {}, want_auc);
    return want_auc ? mean_auc(m) : mean_ece(m);
  };
  const std::string where = std::string(domain_name(domain));
  for (int round = 0; round < (auc && ece ? 2 : 1); ++round) {
    if (auc) {
      const double floor = measure({0.0, head.sharpness}, true);
      const double ceiling = measure({8.0, head.sharpness}, true);
      if (*auc < floor || *auc > ceiling) {
        throw InputError("--acceptance: auc=" + fmt(*auc) + " is out of reach for " + where +
                         " (this drafter's heterogeneity alone gives " + fmt(floor) +
                         ", the strongest head signal " + fmt(ceiling) + ")");
      }
      head.signal = bisect(
          [&](double s) {
            return measure({s, head.sharpness}, true);
          },
          *auc, 0.0, 8.0, 16);
    }
    if (ece) {
      const double floor = measure({head.signal, 1.0}, false);
      const double ceiling = measure({head.signal, 25.0}, false);
      if (*ece > ceiling) {
        throw InputError("--acceptance: ece=" + fmt(*ece) + " is out of reach for " + where +
                         " (the most over-confident head gives " + fmt(ceiling) + ")");
      }
      head.sharpness = *ece <= floor ? 1.0
                                     : bisect(
                                           [&](double b) {
                                             return measure({head.signal, b}, false);
                                           },
                                           *ece, 1.0, 25.0, 18);
    }
  }
  return head;
}

MeanCurves load_curves_file(const std::string& path, int gamma) {
  const JsonFile f = JsonFile::load(path);
  using P = JsonFile::Pointer;
  f.reject_unknown_keys(P(""), {"gamma", "domains", "source"});
  const auto file_gamma = f.get_int(P("/gamma"), 1, kMaxGamma);
  if (file_gamma != gamma) {
    f.fail(P("/gamma"), "the curves are for γ = " + std::to_string(file_gamma) +
                            " but the drafter has γ = " + std::to_string(gamma));
  }
  const auto& domains = f.get_object(P("/domains"));
  for (const auto& [name, value] : domains.items()) {
    Domain d;
    if (!parse_domain(name, d)) {
      f.fail(P("/domains") / name, "unknown domain '" + name + "'; valid: " + valid_domain_list());
    }
  }
  MeanCurves curves;
  for (int d = 0; d < kDomainCount; ++d) {
    const std::string name(kDomainNames[static_cast<std::size_t>(d)]);
    const P ptr = P("/domains") / name;
    if (!f.has(ptr)) {
      f.fail(P("/domains"), "has no curve for domain '" + name + "'; every domain (" +
                                valid_domain_list() + ") needs one");
    }
    curves.p[d] = f.get_number_array(ptr, NumberRange::between(0.0, 1.0));
    if (curves.p[d].size() != static_cast<std::size_t>(gamma)) {
      f.fail(ptr, "domains." + name + " has " + std::to_string(curves.p[d].size()) +
                      " probabilities; γ = " + std::to_string(gamma) + " needs exactly that many");
    }
  }
  return curves;
}

}  // namespace sparksim
