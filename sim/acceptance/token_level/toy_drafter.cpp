// Construction of the toy drafters: the perturbed copy, its matrix powers, the Markov head's
// low-rank bias, and the per-position draft distributions.
#include "sim/acceptance/token_level/toy_drafter.hpp"

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>
#include <string>

#include "common/rng.hpp"

namespace sparksim {

namespace {

constexpr std::uint64_t kDrafterStream = 0x746F795F6466;  // "toy_df"
constexpr double kLogFloor = 1e-300;                      // log of an exact zero
// The Markov head's logits: kBackboneWeight · log T̂^k[anchor] + B[x_{k-1}]. With weight 1 the
// head would count the anchor twice once the bias carries the previous token; 0.5 is our choice
// (it keeps the anchor's information without letting the broad marginal dominate), not a
// published value.
constexpr double kBackboneWeight = 0.5;

using Matrix = std::vector<double>;  // V × V row-major

Matrix multiply(const Matrix& a, const Matrix& b, std::size_t v) {
  Matrix c(v * v, 0.0);
  for (std::size_t i = 0; i < v; ++i) {
    for (std::size_t k = 0; k < v; ++k) {
      const double aik = a[i * v + k];
      if (aik == 0) continue;
      for (std::size_t j = 0; j < v; ++j) c[i * v + j] += aik * b[k * v + j];
    }
  }
  return c;
}

// Orthonormalises the r columns of q (V × r, row-major) in place (modified Gram-Schmidt, twice).
void orthonormalise(std::vector<double>& q, std::size_t v, std::size_t r) {
  for (int pass = 0; pass < 2; ++pass) {
    for (std::size_t c = 0; c < r; ++c) {
      for (std::size_t p = 0; p < c; ++p) {
        double dot = 0;
        for (std::size_t i = 0; i < v; ++i) dot += q[i * r + c] * q[i * r + p];
        for (std::size_t i = 0; i < v; ++i) q[i * r + c] -= dot * q[i * r + p];
      }
      double norm = 0;
      for (std::size_t i = 0; i < v; ++i) norm += q[i * r + c] * q[i * r + c];
      norm = std::sqrt(norm);
      // A column that vanished (rank(M) < r) is replaced by a unit vector; it adds nothing.
      for (std::size_t i = 0; i < v; ++i) {
        q[i * r + c] = norm > 1e-300 ? q[i * r + c] / norm : (i == c ? 1.0 : 0.0);
      }
    }
  }
}

// The rank-r approximation Q Qᵀ M of m, Q spanning its top-r left singular subspace (subspace
// iteration; 200 rounds are ample for V <= 512, and the result need only be a good bias).
Matrix low_rank(const Matrix& m, std::size_t v, std::size_t r, std::mt19937_64& rng) {
  if (r >= v) return m;
  std::normal_distribution<double> normal;
  std::vector<double> q(v * r), z(v * r);
  for (double& x : q) x = normal(rng);
  orthonormalise(q, v, r);
  for (int iteration = 0; iteration < 200; ++iteration) {
    std::fill(z.begin(), z.end(), 0.0);  // z = Mᵀ q
    for (std::size_t i = 0; i < v; ++i) {
      for (std::size_t j = 0; j < v; ++j) {
        const double mij = m[i * v + j];
        for (std::size_t c = 0; c < r; ++c) z[j * r + c] += mij * q[i * r + c];
      }
    }
    std::fill(q.begin(), q.end(), 0.0);  // q = M z
    for (std::size_t i = 0; i < v; ++i) {
      for (std::size_t j = 0; j < v; ++j) {
        const double mij = m[i * v + j];
        for (std::size_t c = 0; c < r; ++c) q[i * r + c] += mij * z[j * r + c];
      }
    }
    orthonormalise(q, v, r);
  }
  // Qᵀ M (r × V), then Q (Qᵀ M).
  std::vector<double> qt_m(r * v, 0.0);
  for (std::size_t i = 0; i < v; ++i) {
    for (std::size_t c = 0; c < r; ++c) {
      const double qic = q[i * r + c];
      for (std::size_t j = 0; j < v; ++j) qt_m[c * v + j] += qic * m[i * v + j];
    }
  }
  Matrix out(v * v, 0.0);
  for (std::size_t i = 0; i < v; ++i) {
    for (std::size_t c = 0; c < r; ++c) {
      const double qic = q[i * r + c];
      for (std::size_t j = 0; j < v; ++j) out[i * v + j] += qic * qt_m[c * v + j];
    }
  }
  return out;
}

void check_distribution(std::span<const double> row, const std::string& what) {
  double sum = 0;
  for (double p : row) {
    if (!(p >= 0.0 && p <= 1.0)) throw std::invalid_argument(what + " has an entry outside [0,1]");
    sum += p;
  }
  if (std::abs(sum - 1.0) > 1e-9) throw std::invalid_argument(what + " does not sum to 1");
}

}  // namespace

ToyDrafterKind parse_toy_drafter(std::string_view name) {
  if (name == "parallel") return ToyDrafterKind::kParallel;
  if (name == "markov") return ToyDrafterKind::kMarkov;
  if (name == "autoregressive") return ToyDrafterKind::kAutoregressive;
  if (name == "adversarial") return ToyDrafterKind::kAdversarial;
  throw std::invalid_argument("unknown toy drafter '" + std::string(name) + "'");
}

std::string_view toy_drafter_name(ToyDrafterKind kind) {
  switch (kind) {
    case ToyDrafterKind::kParallel:
      return "parallel";
    case ToyDrafterKind::kMarkov:
      return "markov";
    case ToyDrafterKind::kAutoregressive:
      return "autoregressive";
    case ToyDrafterKind::kAdversarial:
      return "adversarial";
    case ToyDrafterKind::kTabular:
      return "tabular";
  }
  return "?";
}

ToyDrafter ToyDrafter::build(const ToyTargetLm& target, int gamma, const ToyDrafterOptions& o) {
  if (gamma < 1) throw std::invalid_argument("toy drafter: gamma must be >= 1");
  if (o.kind == ToyDrafterKind::kTabular) throw std::invalid_argument("use ToyDrafter::tabular");
  if (!(o.noise >= 0)) throw std::invalid_argument("toy drafter: noise must be >= 0");
  const int vocab = target.vocab();
  if (o.rank < 1 || o.rank > vocab) throw std::invalid_argument("toy drafter: rank not in [1, V]");
  ToyDrafter d;
  d.kind_ = o.kind;
  d.vocab_ = vocab;
  d.gamma_ = gamma;
  const auto v = static_cast<std::size_t>(vocab);
  std::mt19937_64 rng(derive_seed(o.seed, kDrafterStream));
  std::normal_distribution<double> normal;

  // The drafter's copy T̂ of the target: the target's dense logits, perturbed, untruncated.
  d.copy_.assign(v * v, 0.0);
  std::vector<double> noisy(v * v);
  for (std::size_t s = 0; s < v; ++s) {
    double top = -1e300;
    for (std::size_t t = 0; t < v; ++t) {
      noisy[s * v + t] = target.logits()[s * v + t] + o.noise * normal(rng);
      top = std::max(top, noisy[s * v + t]);
    }
    double total = 0;
    for (std::size_t t = 0; t < v; ++t)
      total += d.copy_[s * v + t] = std::exp(noisy[s * v + t] - top);
    for (std::size_t t = 0; t < v; ++t) d.copy_[s * v + t] /= total;
  }

  if (o.kind == ToyDrafterKind::kParallel || o.kind == ToyDrafterKind::kMarkov) {
    d.power_.push_back(d.copy_);
    for (int k = 2; k <= gamma; ++k) d.power_.push_back(multiply(d.power_.back(), d.copy_, v));
  }
  if (o.kind == ToyDrafterKind::kMarkov) {
    Matrix centred(v * v);
    for (std::size_t s = 0; s < v; ++s) {
      double mean = 0;
      for (std::size_t t = 0; t < v; ++t) mean += noisy[s * v + t] / static_cast<double>(v);
      for (std::size_t t = 0; t < v; ++t) centred[s * v + t] = noisy[s * v + t] - mean;
    }
    d.bias_ = low_rank(centred, v, static_cast<std::size_t>(o.rank), rng);
  }
  if (o.kind == ToyDrafterKind::kAdversarial) {
    d.adversarial_.assign(v * v, 0.0);
    for (int s = 0; s < vocab; ++s) {
      const auto support = target.support(s);
      int least = support.front();
      for (int t : support) {
        if (target.prob(s, t) < target.prob(s, least)) least = t;
      }
      const double off = static_cast<double>(v - support.size());
      double* row = d.adversarial_.data() + static_cast<std::size_t>(s) * v;
      row[least] = off > 0 ? 0.2 : 1.0;
      if (off > 0) {
        for (int t = 0; t < vocab; ++t) {
          if (target.prob(s, t) == 0) row[t] = 0.8 / off;
        }
      }
    }
  }
  return d;
}

ToyDrafter ToyDrafter::tabular(std::vector<std::vector<double>> tables, int vocab) {
  if (tables.empty()) throw std::invalid_argument("tabular drafter: no positions");
  const auto v = static_cast<std::size_t>(vocab);
  for (std::size_t k = 0; k < tables.size(); ++k) {
    if (tables[k].size() != v * v) throw std::invalid_argument("tabular drafter: not V x V");
    for (std::size_t r = 0; r < v; ++r) {
      check_distribution(
          {tables[k].data() + r * v, v},
          "tabular drafter position " + std::to_string(k + 1) + " row " + std::to_string(r));
    }
  }
  ToyDrafter d;
  d.kind_ = ToyDrafterKind::kTabular;
  d.vocab_ = vocab;
  d.gamma_ = static_cast<int>(tables.size());
  d.tables_ = std::move(tables);
  return d;
}

void ToyDrafter::distribution(int k, int anchor, int previous, std::span<double> out) const {
  const auto v = static_cast<std::size_t>(vocab_);
  std::span<const double> source;
  switch (kind_) {
    case ToyDrafterKind::kParallel:
      source = row(power_[k - 1], anchor);
      break;
    case ToyDrafterKind::kAutoregressive:
      source = row(copy_, previous);
      break;
    case ToyDrafterKind::kAdversarial:
      source = row(adversarial_, previous);
      break;
    case ToyDrafterKind::kTabular:
      source = row(tables_[k - 1], previous);
      break;
    case ToyDrafterKind::kMarkov: {
      if (k == 1) {
        source = row(power_[0], anchor);
        break;
      }
      const auto marginal = row(power_[k - 1], anchor);
      const auto bias = row(bias_, previous);
      double top = -1e300;
      for (std::size_t t = 0; t < v; ++t) {
        out[t] = kBackboneWeight * std::log(std::max(marginal[t], kLogFloor)) + bias[t];
        top = std::max(top, out[t]);
      }
      double total = 0;
      for (std::size_t t = 0; t < v; ++t) total += out[t] = std::exp(out[t] - top);
      for (std::size_t t = 0; t < v; ++t) out[t] /= total;
      return;
    }
  }
  std::copy(source.begin(), source.end(), out.begin());
}

}  // namespace sparksim
