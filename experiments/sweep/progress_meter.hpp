// ProgressMeter: "points done, points/s, time left" for long sweeps, redrawn in place on a
// terminal and silent otherwise (logs and pipes get no carriage-return noise). Thread-safe:
// workers call tick() as they finish.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <mutex>
#include <string>

namespace sparksim {

class ProgressMeter {
 public:
  // `enabled` false makes every call a no-op; see stderr_is_terminal().
  ProgressMeter(std::string what, std::int64_t total, bool enabled, std::FILE* out = stderr);
  ~ProgressMeter();  // finish()
  ProgressMeter(const ProgressMeter&) = delete;
  ProgressMeter& operator=(const ProgressMeter&) = delete;

  // One more unit done. Redraws at most every 100 ms (and on the last unit).
  void tick();
  // Clears the line. Idempotent.
  void finish();

  // The line as it would be drawn after `done` of `total` units in `elapsed_s` seconds:
  // "pareto: 37/120 points, 12.3 points/s, 7 s left". Exposed for tests.
  static std::string format(const std::string& what, std::int64_t done, std::int64_t total,
                            double elapsed_s);

 private:
  std::string what_;
  std::int64_t total_;
  bool enabled_;
  std::FILE* out_;
  std::mutex mutex_;
  std::int64_t done_ = 0;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_draw_;
  std::size_t last_width_ = 0;
  bool finished_ = false;
};

// True when stderr is a terminal (where progress belongs).
bool stderr_is_terminal();

}  // namespace sparksim
