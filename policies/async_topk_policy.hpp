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
  // Requests whose history is held (a request leaving must be forgotten).
  std::size_t remembered_requests() const { return slots_.live(); }

 private:
  // Copies row[0, count) to `out` and returns the end; reads and writes (not uses) up to 3 floats
  // past the row and past the copy.
  static float* append_row(const float* row, int count, float* out);
  // Sorts values[0, count) descending (the vector may be longer; it is cut to `count` only when
  // the sort needs a vector of exactly the values).
  void sort_prefix(std::vector<float>& values, std::size_t count);

  int gamma_;
  int lag_;
  bool synchronous_;
  std::int64_t step_ = 0;  // schedule() calls so far
  std::int64_t last_capacity_ = 0;
  RequestSlots slots_;
  // Per slot, a ring of lag + 1 entries (entry = step % (lag + 1)): the survivals a step recorded
  // (γ each, then 4 floats of padding at the end that count_above and append_row may read), how
  // many of them are positive, and the step (kNever = empty). Lag + 1 entries let this step's
  // survivals be written while the ones of `lag` steps earlier are still read.
  std::vector<float> history_;
  std::vector<int> history_positive_;
  std::vector<double> history_sum_;  // Σ of the entry's survivals
  std::vector<std::int64_t> history_step_;
  std::vector<float> ones_;  // the survival-1 row of a request too new to have lagged survivals
  // Per ring entry: the positive survivals of that step's whole batch, sorted descending, kept so
  // that the capacity search `lag` steps later needs no sort when every one of those requests is
  // still running (the new ones, survival 1, go in front). Only the values matter to the search.
  struct StepOrder {
    std::int64_t step;
    std::int64_t requests;
    std::vector<float> values;  // the first `count` are the survivals, the rest scratch
    std::size_t count;
  };
  std::vector<StepOrder> orders_;
  std::vector<float> lagged_order_, current_order_, sort_scratch_;  // scratch
  // Scratch, per batch (only the first R entries mean anything): row pointers into history_ (or
  // ones_) and positive counts.
  std::vector<const float*> lagged_rows_, current_rows_;
  std::vector<int> lagged_positive_, current_positive_;
  CandidateMerge merge_;  // the current ranking when the K-th best survival is tied
};

}  // namespace sparksim
