// `async-topk:lag=L`: DSpark's production scheduler. The capacity K (verified drafts, B = R + K)
// for the coming step comes from each request's survivals recorded L steps earlier, by a global
// search over the whole admission path with no early stop, so it can jump across a cliff of a
// staircase SPS curve. A request without survivals from exactly L steps earlier (it joined, or was
// re-admitted after preemption, fewer than L steps ago) counts as survival 1 at every position:
// an optimistic capacity that the current ranking then fills with real candidates. The step then
// admits the K current candidates with the highest survival (survival desc, earlier position,
// lower request id), which is a contiguous prefix per request. K never depends on the current
// step's drafts, so admission is non-anticipating: lossless. The capacity is ready before the
// drafts are, so the decision overlaps the previous step: asynchronous by default.
#pragma once

#include <cstdint>
#include <vector>

#include "policies/candidate_merge.hpp"
#include "policies/request_slots.hpp"
#include "policies/verification_policy.hpp"

namespace sparksim {

class AsyncTopKPolicy final : public VerificationPolicy {
 public:
  AsyncTopKPolicy(int gamma, int lag, bool synchronous);
  void schedule(const BatchView& view, const SpsTable& sps, std::span<int> lengths) override;
  bool synchronous() const override { return synchronous_; }
  void on_request_left(std::uint64_t request_id) override { slots_.release(request_id); }

  // The capacity K used by the last schedule() call (for tests and diagnostics).
  std::int64_t last_capacity() const { return last_capacity_; }
  // Capacity searches that reused an earlier step's order instead of merging (diagnostics).
  std::int64_t reused_orders() const { return reused_orders_; }
  // Capacity searches over a radix-sorted path (at least kRadixSortMin candidates; diagnostics).
  std::int64_t sorted_searches() const { return sorted_searches_; }
  // Requests whose history is held (a request leaving must be forgotten).
  std::size_t remembered_requests() const { return slots_.live(); }

 private:
  int gamma_;
  int lag_;
  bool synchronous_;
  std::int64_t step_ = 0;  // schedule() calls so far
  std::int64_t last_capacity_ = 0;
  std::int64_t reused_orders_ = 0;
  std::int64_t sorted_searches_ = 0;
  RequestSlots slots_;
  // Per slot, a ring of lag + 1 entries (entry = step % (lag + 1)): the survivals a step recorded
  // (γ each), how many of them are positive, and the step (kNever = empty). Lag + 1 entries let
  // this step's survivals be written while the ones of `lag` steps earlier are still read.
  std::vector<float> history_;
  std::vector<int> history_positive_;
  std::vector<double> history_sum_;  // Σ of the entry's survivals
  std::vector<std::int64_t> history_step_;
  std::vector<float> ones_;  // the survival-1 row of a request too new to have lagged survivals
  // Per ring entry: a step's candidates in admission order (CandidateMerge keys: survival and
  // the request's rank in that batch) and each rank's slot, kept when that step ordered them all
  // anyway, so the capacity search `lag` steps later needs no merge: it skips the requests that
  // left since and puts the new ones (survival 1) in front.
  struct StepOrder {
    std::int64_t step;
    std::vector<std::uint64_t> keys;
    std::vector<std::uint32_t> slot_of_rank;
  };
  std::vector<StepOrder> orders_;
  std::vector<std::int64_t> present_;  // per slot: the last step its request was in the batch
  std::vector<float> lagged_order_, sort_scratch_;  // scratch
  std::vector<std::uint8_t> still_;                 // scratch, per rank of a kept order
  // Scratch, per batch: row pointers into history_ (or ones_) and positive counts.
  std::vector<const float*> lagged_rows_, current_rows_;
  std::vector<int> lagged_positive_, current_positive_;
  CandidateMerge merge_;
};

}  // namespace sparksim
