// Asynchronous top-K: lagged capacity by global search, current ranking by survival.
#include "policies/async_topk_policy.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>
#include <span>
#include <stdexcept>
#include <string>

#include "common/count_above.hpp"
#include "policies/admission_search.hpp"
#include "policies/survival_sort.hpp"

namespace sparksim {

namespace {
// Marks an empty ring entry; no step, however early, can be `kNever + lag`.
constexpr std::int64_t kNever = std::numeric_limits<std::int64_t>::min() / 2;

template <typename T>
void grow(std::vector<T>& v, std::size_t size) {
  if (v.size() < size) v.resize(size);
}
}  // namespace

AsyncTopKPolicy::AsyncTopKPolicy(int gamma, int lag, bool synchronous)
    : gamma_(gamma),
      lag_(lag),
      synchronous_(synchronous),
      ones_(static_cast<std::size_t>(gamma) + 4, 1.0f),
      orders_(static_cast<std::size_t>(lag) + 1, StepOrder{kNever, 0, {}, 0}) {}

float* AsyncTopKPolicy::append_row(const float* row, int count, float* out) {
  // Four at a time, unaligned: the floats copied past `count` are overwritten by the next row or
  // left beyond the end.
  for (int k = 0; k < count; k += 4) std::memcpy(out + k, row + k, 4 * sizeof(float));
  return out + count;
}

void AsyncTopKPolicy::sort_prefix(std::vector<float>& values, std::size_t count) {
  if (count <= kNetworkSortMax) {
    sort_few_descending(values.data(), count);
    return;
  }
  values.resize(count);
  sort_survivals_descending(values, sort_scratch_);
}

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
    history_.resize(slots_.slot_count() * ring * gamma + 4);
    history_positive_.resize(slots_.slot_count() * ring);
    history_sum_.resize(slots_.slot_count() * ring);
    history_step_.resize(slots_.slot_count() * ring, kNever);
  }
  // Scratch grows only (a resize per step and vector was a measurable share of a small step).
  grow(lagged_rows_, requests);
  grow(current_rows_, requests);
  grow(lagged_positive_, requests);
  grow(current_positive_, requests);
  // Room for every row's survivals plus the γ - 1 floats the copy below may write past the last.
  grow(current_order_, requests * gamma + gamma);
  float* current_end = current_order_.data();
  std::int64_t current_candidates = 0;
  // The lagged path's summary, in locals (a struct whose address whole_path_wins takes would be
  // kept in memory, a store and reload per request), gathered into `lagged` after the loop.
  std::int64_t lagged_candidates = 0;
  double lagged_sum = 0.0;
  double lagged_max = 0.0;
  double lagged_min = 1.0;
  std::int64_t ones_rows = 0;
  std::int64_t lagged_requests = 0;  // requests with survivals from step - lag
  for (std::size_t r = 0; r < requests; ++r) {
    const std::size_t base = slots_.slots()[r] * ring;
    std::int64_t* steps = &history_step_[base];
    if (slots_.fresh()[r]) std::fill(steps, steps + ring, kNever);
    if (steps[read] == step - lag_) {
      const float* row = &history_[(base + read) * gamma];
      const int positive = history_positive_[base + read];
      lagged_rows_[r] = row;
      lagged_positive_[r] = positive;
      ++lagged_requests;
      if (positive > 0) {
        lagged_candidates += positive;
        lagged_sum += history_sum_[base + read];
        lagged_max = std::max<double>(lagged_max, row[0]);
        lagged_min = std::min<double>(lagged_min, row[positive - 1]);
      }
    } else {
      lagged_rows_[r] = ones_.data();  // too new (or back after leaving): survival 1
      lagged_positive_[r] = gamma_;
      ones_rows += 1;
      lagged_candidates += gamma_;
      lagged_sum += static_cast<double>(gamma_);
      lagged_max = 1.0;
    }
    float* current = &history_[(base + write) * gamma];
    double sum = 0;
    // Stored twice: in the history ring and, for this step's order, at the end of the copies so
    // far (all γ, so the trip count never varies; the floats past `positive` are overwritten by
    // the next row or left past the end).
    const int positive = compute_survivals(&view.confidences[r * gamma], gamma_, current, &sum,
                                           nullptr, current_end);
    current_rows_[r] = current;
    current_positive_[r] = positive;
    history_positive_[base + write] = positive;
    history_sum_[base + write] = sum;
    steps[write] = step;
    current_candidates += positive;
    current_end += positive;
  }
  const auto current_count = static_cast<std::size_t>(current_end - current_order_.data());

  // K: over the lagged path, the new requests' survival-1 candidates first. The rest is the order
  // kept `lag` steps earlier when all of that step's requests are still here (a request with
  // survivals from step - lag was in that step's batch, and a reused slot starts empty, so
  // counting them suffices); else the whole path when a cheap bound proves it wins (usual with
  // slack); else the lagged survivals, sorted.
  PathSummary lagged;
  lagged.candidates = lagged_candidates;
  lagged.survival_sum = lagged_sum;
  lagged.max_survival = lagged_max;
  lagged.min_survival = lagged_min;
  std::int64_t capacity = lagged.candidates;
  const StepOrder& earlier = orders_[read];
  const bool reuse = earlier.step == step - lag_ && earlier.requests == lagged_requests;
  // (With a kept order the walk is as cheap as the bound, and exact, so it goes first.)
  if (reuse || !whole_path_wins(lagged, view.requests, sps)) {
    GlobalSearchWalk walk(view.requests, sps);
    if (reuse) {
      walk.add_all(ones_rows * gamma_, std::span(earlier.values.data(), earlier.count));
    } else {
      grow(lagged_order_, requests * gamma + 4);
      float* lagged_end = lagged_order_.data();
      for (std::size_t r = 0; r < requests; ++r) {
        if (lagged_rows_[r] != ones_.data()) {
          lagged_end = append_row(lagged_rows_[r], lagged_positive_[r], lagged_end);
        }
      }
      const auto lagged_count = static_cast<std::size_t>(lagged_end - lagged_order_.data());
      sort_prefix(lagged_order_, lagged_count);
      walk.add_all(ones_rows * gamma_, std::span(lagged_order_.data(), lagged_count));
    }
    capacity = walk.best_count();
  }
  last_capacity_ = capacity;

  // This step's order, kept for the search `lag` steps from now and read here for the K-th best.
  sort_prefix(current_order_, current_count);
  StepOrder& now = orders_[write];
  now.step = step;
  now.requests = view.requests;
  now.values.swap(current_order_);
  now.count = current_count;
  const float* order = now.values.data();
  if (capacity >= current_candidates) {
    std::copy_n(current_positive_.begin(), requests, lengths.begin());
    return;
  }
  const auto k = static_cast<std::size_t>(capacity);
  if (k == 0) {
    std::fill(lengths.begin(), lengths.begin() + view.requests, 0);
    return;
  }
  // The K highest survivals are exactly those >= the K-th, unless the next one equals it.
  const float kth = order[k - 1];
  if (order[k] < kth) {
    // Survivals are positive, so the float just below the K-th is its bits minus one.
    const float below = std::bit_cast<float>(std::bit_cast<std::uint32_t>(kth) - 1);
    for (std::size_t r = 0; r < requests; ++r) {
      lengths[r] = count_above(current_rows_[r], gamma_, below);
    }
    return;
  }
  // A tie at the boundary: the order's tie-breaks (earlier position, then lower id) decide.
  merge_.admit_first(std::span(current_rows_.data(), requests), gamma_, ids, capacity, kth,
                     lengths);
}

}  // namespace sparksim
