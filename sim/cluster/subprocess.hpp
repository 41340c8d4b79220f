// run_in_subprocess: SimGrid allows one simulation per process (its engine is process-wide and its
// clock never resets), so a caller that simulates several clusters (a plan comparing routers or
// layouts, a test suite) runs each in a forked child and gets its result back as text.
// SubprocessPool runs several such children at once from one thread (a plan's independent
// searches on both cores).
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace sparksim {

// Forks; the child runs `body` and sends back the string it returns; the parent waits for it.
// An InputError thrown in the child is rethrown in the parent as an InputError with the same
// message, any other exception as std::runtime_error; a child that dies (signal, abort inside
// SimGrid) is a std::runtime_error naming the signal. POSIX only; call it from a single-threaded
// process (fork keeps only the calling thread).
std::string run_in_subprocess(const std::function<std::string()>& body);

// Up to `jobs` children at once, each run as run_in_subprocess runs one; the parent reads every
// running child's pipe as its data comes (a child never blocks on a full pipe while the parent
// waits for another). Same rules: one thread, POSIX only. Children still running when the pool
// is destroyed (an error unwound past it) are killed and reaped.
class SubprocessPool {
 public:
  explicit SubprocessPool(int jobs);  // jobs < 1 means 1
  ~SubprocessPool();
  SubprocessPool(const SubprocessPool&) = delete;
  SubprocessPool& operator=(const SubprocessPool&) = delete;

  bool full() const { return children_.size() >= jobs_; }
  bool empty() const { return children_.empty(); }
  // Forks a child for `body`, known by `tag`. Precondition: !full().
  void start(std::size_t tag, const std::function<std::string()>& body);
  // Waits until a child has finished; returns its tag and result, or throws its error as
  // run_in_subprocess would. Precondition: !empty().
  std::pair<std::size_t, std::string> wait_any();

 private:
  struct Child {
    int pid = -1;
    int fd = -1;
    std::size_t tag = 0;
    std::string received;
    bool closed = false;  // the pipe reached its end
  };
  std::size_t jobs_;
  std::vector<Child> children_;
};

}  // namespace sparksim
