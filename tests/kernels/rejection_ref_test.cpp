// The rejection-sampling reference: hand-computed cases of the rule, and the property that makes
// speculative decoding lossless (committed tokens follow the target distribution, whatever the
// drafter), checked statistically with a stated false-failure rate.
#include "kernels/reference/rejection_ref.hpp"

#include <cmath>

#include <catch2/catch.hpp>

#include "common/rng.hpp"

namespace sparksim::kernels {
namespace {

// One request with drafts: target rows (1 + drafts), draft rows, tokens and uniforms.
RejectionBatch one_request(std::vector<std::vector<float>> pt, std::vector<std::vector<float>> pd,
                           std::vector<int> drafts, std::vector<double> accept_u, double sample_u) {
  RejectionBatch b;
  b.vocab = static_cast<int>(pt[0].size());
  b.cu_seqlens = {0, static_cast<int>(pt.size())};
  for (const auto& row : pt) b.p_target.insert(b.p_target.end(), row.begin(), row.end());
  for (const auto& row : pd) b.p_draft.insert(b.p_draft.end(), row.begin(), row.end());
  b.draft_tokens = std::move(drafts);
  b.accept_uniforms = std::move(accept_u);
  b.sample_uniforms = {sample_u};
  return b;
}

TEST_CASE("a draft is accepted iff u is below pt over pd", "[kernels][rejection_ref]") {
  const std::vector<float> pt = {0.5f, 0.3f, 0.2f};
  const std::vector<float> pd = {0.2f, 0.6f, 0.2f};
  const std::vector<float> bonus = {0.1f, 0.2f, 0.7f};
  // Draft token 1: ratio 0.3 / 0.6 = 0.5.
  auto accepted = rejection_verify_ref(one_request({pt, bonus}, {pd}, {1}, {0.4}, 0.25));
  CHECK(accepted.accepted[0] == 1);
  CHECK(accepted.committed[0] == 1);  // bonus: cumsum 0.1, 0.3 > 0.25
  auto rejected = rejection_verify_ref(one_request({pt, bonus}, {pd}, {1}, {0.6}, 0.99));
  CHECK(rejected.accepted[0] == 0);
  CHECK(rejected.committed[0] == 0);  // residual max(0, pt - pd) = (0.3, 0, 0)
  // Draft token 0: ratio 2.5, accepted even at u = 0.999.
  auto sure = rejection_verify_ref(one_request({pt, bonus}, {pd}, {0}, {0.999}, 0.05));
  CHECK(sure.accepted[0] == 1);
  CHECK(sure.committed[0] == 0);  // bonus: 0.1 > 0.05
}

TEST_CASE("the residual draw is normalised and skips zero weights", "[kernels][rejection_ref]") {
  const std::vector<float> pt = {0.4f, 0.4f, 0.2f};
  const std::vector<float> pd = {0.1f, 0.2f, 0.7f};
  const std::vector<float> next = {1.0f, 0.0f, 0.0f};
  // Draft token 2: ratio 0.2 / 0.7; u = 0.5 rejects. Residual (0.3, 0.2, 0) of total 0.5.
  CHECK(rejection_verify_ref(one_request({pt, next}, {pd}, {2}, {0.5}, 0.5)).committed[0] == 0);
  CHECK(rejection_verify_ref(one_request({pt, next}, {pd}, {2}, {0.5}, 0.7)).committed[0] == 1);
  CHECK(rejection_verify_ref(one_request({pt, next}, {pd}, {2}, {0.5}, 0.999)).committed[0] == 1);
}

TEST_CASE("the walk stops at the first rejection", "[kernels][rejection_ref]") {
  const std::vector<float> a = {0.7f, 0.3f};
  const std::vector<float> b = {0.3f, 0.7f};
  // Drafts 0, 1, 0 against targets a, a, a, then bonus a: ratios 0.7/0.7 = 1, 0.3/0.7, 1.
  const auto r =
      rejection_verify_ref(one_request({a, a, a, a}, {a, b, a}, {0, 1, 0}, {0.9, 0.9, 0.1}, 0.5));
  CHECK(r.accepted[0] == 1);
  CHECK(r.committed[0] == 0);  // residual of (a - b) = (0.4, 0)
  // A request with no drafts commits one draw from its single target row.
  const auto none = rejection_verify_ref(one_request({b}, {}, {}, {}, 0.5));
  CHECK(none.accepted[0] == 0);
  CHECK(none.committed[0] == 1);
}

TEST_CASE("bad rejection batches are rejected", "[kernels][rejection_ref]") {
  const std::vector<float> a = {0.5f, 0.5f};
  CHECK_THROWS_AS(rejection_verify_ref(one_request({a, a}, {a}, {2}, {0.5}, 0.5)),
                  std::invalid_argument);
  CHECK_THROWS_AS(rejection_verify_ref(one_request({a, a}, {a}, {1}, {1.0}, 0.5)),
                  std::invalid_argument);
  CHECK_THROWS_AS(rejection_verify_ref(one_request({a, a}, {}, {1}, {0.5}, 0.5)),
                  std::invalid_argument);
}

// Pearson chi-square of observed counts against probabilities p.
double chi_square(const std::vector<long>& counts, const std::vector<double>& p) {
  long n = 0;
  for (long c : counts) n += c;
  double stat = 0.0;
  for (std::size_t j = 0; j < p.size(); ++j) {
    const double expected = p[j] * static_cast<double>(n);
    stat += (static_cast<double>(counts[j]) - expected) *
            (static_cast<double>(counts[j]) - expected) / expected;
  }
  return stat;
}

TEST_CASE("committed tokens follow the target distribution exactly", "[kernels][rejection_ref]") {
  // 200000 independent requests in one batch, each drafting one token x ~ pd for a target pt
  // (then a bonus row q2). The first emitted token (x if accepted, else the residual draw) must be
  // distributed as pt; the bonus token, given acceptance, as q2; the acceptance rate is
  // sum min(pt, pd) = 0.6. Chi-square (4 degrees of freedom) critical value 33.38 and |z| < 5 each
  // have a false-failure probability of about 1e-6 for a random seed; the seed here is fixed.
  const std::vector<float> pt = {0.35f, 0.25f, 0.2f, 0.15f, 0.05f};
  const std::vector<float> pd = {0.1f, 0.1f, 0.3f, 0.2f, 0.3f};
  const std::vector<float> q2 = {0.05f, 0.1f, 0.15f, 0.3f, 0.4f};
  const int n = 200000;
  const std::uint64_t key = derive_seed(2024, 1);
  RejectionBatch b;
  b.vocab = 5;
  b.cu_seqlens = {0};
  std::vector<double> pdd(pd.begin(), pd.end());
  for (int i = 0; i < n; ++i) {
    b.cu_seqlens.push_back(b.cu_seqlens.back() + 2);
    b.p_target.insert(b.p_target.end(), pt.begin(), pt.end());
    b.p_target.insert(b.p_target.end(), q2.begin(), q2.end());
    b.p_draft.insert(b.p_draft.end(), pd.begin(), pd.end());
    b.draft_tokens.push_back(sample_inverse_cdf_ref(pdd.data(), 5, counter_uniform(key, 3 * i)));
    b.accept_uniforms.push_back(counter_uniform(key, 3 * i + 1));
    b.sample_uniforms.push_back(counter_uniform(key, 3 * i + 2));
  }
  const RejectionResult r = rejection_verify_ref(b);
  std::vector<long> first(5, 0);
  std::vector<long> bonus(5, 0);
  std::vector<long> wrong(5, 0);  // a broken rule: rejections redrawn from pt, not the residual
  std::vector<double> ptd(pt.begin(), pt.end());
  long accepted = 0;
  for (int i = 0; i < n; ++i) {
    if (r.accepted[i] == 1) {
      ++accepted;
      ++first[b.draft_tokens[i]];
      ++bonus[r.committed[i]];
      ++wrong[b.draft_tokens[i]];
    } else {
      ++first[r.committed[i]];
      ++wrong[sample_inverse_cdf_ref(ptd.data(), 5, b.sample_uniforms[i])];
    }
  }
  const double rate = static_cast<double>(accepted) / n;
  const double z = (rate - 0.6) / std::sqrt(0.6 * 0.4 / n);
  INFO("acceptance rate " << rate << " z " << z);
  CHECK(std::abs(z) < 5.0);
  CHECK(chi_square(first, ptd) < 33.38);
  CHECK(chi_square(bonus, {q2.begin(), q2.end()}) < 33.38);
  // Power: the same statistic flags the broken rule (its first token has P(0) = 0.24, not 0.35).
  CHECK(chi_square(wrong, ptd) > 33.38);
}

}  // namespace
}  // namespace sparksim::kernels
