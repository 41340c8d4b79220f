// WindowGate: how the windowed cluster loop hands each window's tasks (its replica groups, and
// handing the previous window's completions on) to its threads: thread i runs task i, and the main
// thread takes a task whose thread has not claimed it in time.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/sim_time.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace sparksim {

// Thread i runs task i (group i), so a group's replicas stay in one core's cache; but a task goes
// to whichever thread claims it first, and the main thread claims a worker's task itself when the
// worker has not within kGrace: a worker that the operating system has not scheduled (a machine
// with fewer free cores than threads) then costs a window little. A waiter spins before it sleeps
// (std::atomic::wait), as the other side is usually microseconds away and a futex sleep and
// wake-up cost more than a window.
class WindowGate {
 public:
  // `tasks` per window; tasks 1 .. `owned` - 1 belong to workers (task 0 to the main thread), the
  // others to whichever thread is free first.
  WindowGate(std::size_t tasks, std::size_t owned)
      : tasks_(tasks), owned_(owned), claimed_(tasks) {}

  // Main thread, once the previous window is finished: opens the next one, up to `bound`.
  void open(SimTime bound) {
    bound_ = bound;
    finished_.store(0, std::memory_order_relaxed);
    round_.fetch_add(1, std::memory_order_release);
    round_.notify_all();
  }
  // Main thread: tells the workers to return (after the last window is finished).
  void close() {
    closed_.store(true, std::memory_order_relaxed);
    round_.fetch_add(1, std::memory_order_release);
    round_.notify_all();
  }

  // Worker: waits for a window after `seen`; returns its number, or 0 once closed.
  std::uint64_t wait_open(std::uint64_t seen) const {
    const std::uint64_t round = wait_while_equal(round_, seen);
    return closed_.load(std::memory_order_relaxed) ? 0 : round;
  }
  std::uint64_t round() const { return round_.load(std::memory_order_acquire); }
  // Any thread: takes `task` in window `round` unless another thread has; its window ends at
  // bound() (read after the claim). A claim only moves a task's round forward: a worker that saw
  // window k, was descheduled and wakes after the main thread took its task in windows k and
  // k + 1 must not take it again.
  bool claim(std::size_t task, std::uint64_t round) {
    std::uint64_t seen = claimed_[task].load(std::memory_order_relaxed);
    return seen < round &&
           claimed_[task].compare_exchange_strong(seen, round, std::memory_order_acq_rel);
  }
  SimTime bound() const { return bound_; }
  std::size_t tasks() const { return tasks_; }
  // Main thread, done with its own task: waits up to kGrace for the workers to claim theirs.
  void give_workers_a_chance(std::uint64_t round) const {
    const auto deadline = std::chrono::steady_clock::now() + kGrace;
    for (std::size_t g = 1; g < owned_; ++g) {
      for (int spin = 0; claimed_[g].load(std::memory_order_relaxed) != round; ++spin) {
        pause();
        if (spin % 64 == 63 && std::chrono::steady_clock::now() > deadline) return;
      }
    }
  }
  // A claimed task is done.
  void finish() {
    if (finished_.fetch_add(1, std::memory_order_acq_rel) + 1 == tasks_) finished_.notify_one();
  }
  // Main thread: waits until every task of the open window is done.
  void wait_finished() const {
    std::size_t done = finished_.load(std::memory_order_acquire);
    while (done != tasks_) done = wait_while_equal(finished_, done);
  }

 private:
  // Spins up to kSpin, then sleeps until `value` differs from `old`; returns the new value.
  template <typename T>
  static T wait_while_equal(const std::atomic<T>& value, T old) {
    const auto deadline = std::chrono::steady_clock::now() + kSpin;
    for (int spin = 0;; ++spin) {
      const T now = value.load(std::memory_order_acquire);
      if (now != old) return now;
      pause();
      if (spin % 64 == 63 && std::chrono::steady_clock::now() > deadline) break;
    }
    value.wait(old, std::memory_order_acquire);
    return value.load(std::memory_order_acquire);
  }
  static void pause() {
#if defined(__x86_64__) || defined(__i386__)
    _mm_pause();
#endif
  }
  // A worker spinning between windows claims a group within a microsecond; one that sleeps needs
  // tens of microseconds to wake, longer than a window. So a waiter spins for about as long as
  // a few windows last, and the main thread gives the workers kGrace to claim before it takes a
  // worker's task itself.
  static constexpr std::chrono::microseconds kSpin{300};
  static constexpr std::chrono::microseconds kGrace{2};

  const std::size_t tasks_, owned_;
  SimTime bound_ = 0;  // written before round_ moves on (release), read after a claim
  std::atomic<std::uint64_t> round_{0};
  std::vector<std::atomic<std::uint64_t>> claimed_;  // per task: the window that claimed it
  std::atomic<std::size_t> finished_{0};
  std::atomic<bool> closed_{false};
};

}  // namespace sparksim
