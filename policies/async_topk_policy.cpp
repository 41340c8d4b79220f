// Asynchronous top-K: lagged capacity by global search, current ranking by survival.
#include "policies/async_topk_policy.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

#include "policies/admission_search.hpp"
#include "policies/survival_sort.hpp"

namespace sparksim {

namespace {
// Marks an empty ring entry; no step, however early, can be `kNever + lag`.
constexpr std::int64_t kNever = std::numeric_limits<std::int64_t>::min() / 2;
}  // namespace

AsyncTopKPolicy::AsyncTopKPolicy(int gamma, int lag, bool synchronous)
    : gamma_(gamma),
      lag_(lag),
      synchronous_(synchronous),
      ones_(static_cast<std::size_t>(gamma), 1.0f),
      orders_(static_cast<std::size_t>(lag) + 1, StepOrder{kNever, {}, {}}) {}

void AsyncTopKPolicy::schedule(const BatchView& view, const SpsTable& sps, std::span<int> lengths) {
  if (view.gamma != gamma_) {
    throw std::logic_error("async-topk built for gamma " + std::to_string(gamma_) +
                           " got a batch with gamma " + std::to_string(view.gamma));
  }
  const auto requests = static_cast<std::size_t>(view.requests);
  const auto gamma = static_cast<std::size_t>(gamma_);
  const auto ring = static_cast<std::size_t>(lag_) + 1;
  const std::int64_t step = step_++;
  const auto write = static_cast<std::size_t>(step % static_cast<std::int64_t>(ring));
  const auto read =
      static_cast<std::size_t>((step + 1) % static_cast<std::int64_t>(ring));  // ≡ step - lag

  const auto ids = view.request_ids.first(requests);
  slots_.map_batch(ids);
  if (history_step_.size() < slots_.slot_count() * ring) {
    history_.resize(slots_.slot_count() * ring * gamma);
    history_positive_.resize(slots_.slot_count() * ring);
    history_sum_.resize(slots_.slot_count() * ring);
    history_step_.resize(slots_.slot_count() * ring, kNever);
    present_.resize(slots_.slot_count(), kNever);
  }
  lagged_rows_.resize(requests);
  current_rows_.resize(requests);
  lagged_positive_.resize(requests);
  current_positive_.resize(requests);
  std::int64_t current_candidates = 0;
  PathSummary lagged;
  std::int64_t ones_rows = 0;
  lagged.max_survival = 0.0;
  lagged.min_survival = 1.0;
  for (std::size_t r = 0; r < requests; ++r) {
    const std::size_t base = slots_.slots()[r] * ring;
    std::int64_t* steps = &history_step_[base];
    if (slots_.fresh()[r]) std::fill(steps, steps + ring, kNever);
    present_[slots_.slots()[r]] = step;
    if (steps[read] == step - lag_) {
      const float* row = &history_[(base + read) * gamma];
      const int positive = history_positive_[base + read];
      lagged_rows_[r] = row;
      lagged_positive_[r] = positive;
      if (positive > 0) {
        lagged.candidates += positive;
        lagged.survival_sum += history_sum_[base + read];
        lagged.max_survival = std::max<double>(lagged.max_survival, row[0]);
        lagged.min_survival = std::min<double>(lagged.min_survival, row[positive - 1]);
      }
    } else {
      lagged_rows_[r] = ones_.data();  // too new (or back after leaving): survival 1
      lagged_positive_[r] = gamma_;
      ones_rows += 1;
      lagged.candidates += gamma_;
      lagged.survival_sum += static_cast<double>(gamma_);
      lagged.max_survival = 1.0;
    }
    float* current = &history_[(base + write) * gamma];
    double sum = 0;
    const int positive = compute_survivals(&view.confidences[r * gamma], gamma_, current, &sum);
    current_rows_[r] = current;
    current_positive_[r] = positive;
    history_positive_[base + write] = positive;
    history_sum_[base + write] = sum;
    steps[write] = step;
    current_candidates += positive;
  }

  // K: the whole lagged path when a cheap bound proves it wins (usual with slack); else a search
  // over the lagged order, reused from `lag` steps earlier when that step kept it, else merged (or
  // radix-sorted when long).
  std::int64_t capacity = lagged.candidates;
  StepOrder& earlier = orders_[read];
  // (With a kept order the walk is as cheap as the bound, and exact, so it goes first.)
  if (earlier.step == step - lag_ || !whole_path_wins(lagged, view.requests, sps)) {
    if (earlier.step == step - lag_) {
      // Which of that step's requests are still here, and the same request as then (a reused
      // slot starts with an empty history): decided once per request, not per candidate.
      const std::size_t then = earlier.slot_of_rank.size();
      still_.resize(then);
      bool all_still = true;
      for (std::size_t rank = 0; rank < then; ++rank) {
        const std::uint32_t slot = earlier.slot_of_rank[rank];
        still_[rank] = present_[slot] == step && history_step_[slot * ring + read] == step - lag_;
        all_still = all_still && still_[rank] != 0;
      }
      // The lagged path: the new requests' survival-1 candidates first, then that step's order.
      GlobalSearchWalk walk(view.requests, sps);
      for (std::int64_t i = 0; i < ones_rows * gamma_; ++i) walk.add(1.0f);
      if (all_still) {
        for (const std::uint64_t key : earlier.keys) walk.add(CandidateMerge::survival_of_key(key));
      } else {
        for (const std::uint64_t key : earlier.keys) {
          if (still_[CandidateMerge::rank_of_key(key)] != 0) {
            walk.add(CandidateMerge::survival_of_key(key));
          }
        }
      }
      capacity = walk.best_count();
      ++reused_orders_;
    } else if (lagged.candidates < static_cast<std::int64_t>(kRadixSortMin)) {
      merge_.reset(lagged_rows_, lagged_positive_, ids);
      capacity = global_search(merge_, view.requests, sps, nullptr);
    } else {
      // Only the values matter to the search: for a long path, radix-sort them instead of merging.
      lagged_order_.clear();
      for (std::size_t r = 0; r < requests; ++r) {
        lagged_order_.insert(lagged_order_.end(), lagged_rows_[r],
                             lagged_rows_[r] + lagged_positive_[r]);
      }
      sort_survivals_descending(lagged_order_, sort_scratch_);
      capacity = global_search(lagged_order_, view.requests, sps);
      ++sorted_searches_;
    }
  }
  last_capacity_ = capacity;

  StepOrder& now = orders_[write];
  now.step = kNever;
  if (capacity >= current_candidates) {
    std::copy(current_positive_.begin(), current_positive_.end(), lengths.begin());
    return;
  }
  std::fill(lengths.begin(), lengths.begin() + view.requests, 0);
  merge_.reset(current_rows_, current_positive_, ids);
  for (std::int64_t k = 0; k < capacity; ++k) {
    const Candidate c = merge_.top();
    lengths[c.request] = static_cast<int>(c.position);
    merge_.advance();
  }
  // Keep the order (keys, and each rank's slot) for the capacity search `lag` steps from now.
  const auto keys = merge_.full_order_keys();
  if (!keys.empty()) {
    now.keys.assign(keys.begin(), keys.end());
    now.slot_of_rank.resize(requests);
    const auto slots = slots_.slots();
    for (std::uint32_t rank = 0; rank < requests; ++rank) {
      now.slot_of_rank[rank] = slots[merge_.request_of_rank(rank)];
    }
    now.step = step;
  }
}

}  // namespace sparksim
