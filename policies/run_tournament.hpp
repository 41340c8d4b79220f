// RunTournament: the values of several descending runs, largest first, one at a time, by a
// tournament (winner) tree over the runs' heads. Taking the top replays only the matches on its
// run's leaf-to-root path, log2(runs) of them, each settled by conditional moves: no
// data-dependent branch, where a binary heap's sift mispredicts about every other level on random
// values. greedy walks the values left after its sure admissions with it when there are many.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace sparksim {

class RunTournament {
 public:
  // values: the runs, each non-increasing, positive and followed by a 0 (the 0 is what a spent run
  // offers, below every value); starts[k]: the index in `values` where run k begins (its 0 for an
  // empty run). `values` must stay alive and unchanged while the tournament is used.
  void reset(const float* values, std::span<const std::uint32_t> starts);
  // The largest value not yet taken; 0 once every run is spent.
  float top() const { return value_[1]; }
  // Takes top(): its run offers its next value. Requires top() > 0.
  void pop();

 private:
  const float* values_ = nullptr;
  std::size_t leaves_ = 0;  // a power of two >= the runs; leaf k is node leaves_ + k
  // Per node: the larger head below it (value_) and its run (run_); nodes 1..2·leaves_-1, the
  // root 1, node i's children 2i and 2i + 1.
  std::vector<float> value_;
  std::vector<std::uint32_t> run_;
  std::vector<std::uint32_t> next_;  // per run: the index in `values` of its head
};

}  // namespace sparksim
