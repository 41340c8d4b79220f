// Terminal progress line for sweeps.
#include "experiments/sweep/progress_meter.hpp"

#include <cmath>

#include <unistd.h>

namespace sparksim {

bool stderr_is_terminal() {
  return ::isatty(STDERR_FILENO) == 1;
}

ProgressMeter::ProgressMeter(std::string what, std::int64_t total, bool enabled, std::FILE* out)
    : what_(std::move(what)),
      total_(total),
      enabled_(enabled && total > 0),
      out_(out),
      start_(std::chrono::steady_clock::now()),
      last_draw_(start_) {}

ProgressMeter::~ProgressMeter() {
  finish();
}

std::string ProgressMeter::format(const std::string& what, std::int64_t done, std::int64_t total,
                                  double elapsed_s) {
  char buf[160];
  const double rate = elapsed_s > 0 ? static_cast<double>(done) / elapsed_s : 0.0;
  if (done <= 0 || rate <= 0) {
    std::snprintf(buf, sizeof buf, "%s: %lld/%lld points", what.c_str(),
                  static_cast<long long>(done), static_cast<long long>(total));
  } else {
    const double left_s = static_cast<double>(total - done) / rate;
    std::snprintf(buf, sizeof buf, "%s: %lld/%lld points, %.1f points/s, %.0f s left", what.c_str(),
                  static_cast<long long>(done), static_cast<long long>(total), rate,
                  std::ceil(left_s));
  }
  return buf;
}

void ProgressMeter::tick() {
  if (!enabled_) return;
  std::lock_guard<std::mutex> lock(mutex_);
  ++done_;
  const auto now = std::chrono::steady_clock::now();
  if (done_ < total_ && now - last_draw_ < std::chrono::milliseconds(100)) return;
  last_draw_ = now;
  const std::string line =
      format(what_, done_, total_, std::chrono::duration<double>(now - start_).count());
  const std::size_t pad = last_width_ > line.size() ? last_width_ - line.size() : 0;
  std::fprintf(out_, "\r%s%*s", line.c_str(), static_cast<int>(pad), "");
  std::fflush(out_);
  last_width_ = line.size();
}

void ProgressMeter::finish() {
  if (!enabled_) return;
  std::lock_guard<std::mutex> lock(mutex_);
  if (finished_) return;
  finished_ = true;
  if (last_width_ > 0) {
    std::fprintf(out_, "\r%*s\r", static_cast<int>(last_width_), "");
    std::fflush(out_);
  }
}

}  // namespace sparksim
