// SubprocessPool: several forked children at once from one thread. Each result comes back under
// its own tag whatever order the children finish in; a child's output larger than a pipe's buffer
// does not block the others; errors come back as run_in_subprocess reports them.
#include "sim/cluster/subprocess.hpp"

#include <chrono>
#include <map>
#include <string>
#include <thread>

#include <catch2/catch.hpp>

#include "common/input_error.hpp"

using namespace sparksim;

TEST_CASE("a pool runs children side by side and returns each result under its tag") {
  SubprocessPool pool(2);
  CHECK(pool.empty());
  // Child 0 finishes last: the pool must hand back child 1 (and then 2) first. Child 1 sends
  // 1 MB, far past a pipe's 64 kB, while child 0 still runs.
  pool.start(0, [] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    return std::string("slow");
  });
  pool.start(1, [] { return std::string(1 << 20, 'x'); });
  CHECK(pool.full());
  std::map<std::size_t, std::string> results;
  std::vector<std::size_t> order;
  auto [first, text] = pool.wait_any();
  order.push_back(first);
  results[first] = text;
  pool.start(2, [] { return std::string("third"); });
  while (!pool.empty()) {
    auto [tag, out] = pool.wait_any();
    order.push_back(tag);
    results[tag] = out;
  }
  CHECK(order.front() == 1);
  CHECK(order.back() == 0);
  CHECK(results[0] == "slow");
  CHECK(results[1] == std::string(1 << 20, 'x'));
  CHECK(results[2] == "third");
}

TEST_CASE("a pool's child errors come back as run_in_subprocess reports them") {
  SubprocessPool pool(2);
  pool.start(7, []() -> std::string { throw InputError("bad input here"); });
  CHECK_THROWS_MATCHES(pool.wait_any(), InputError, Catch::Message("bad input here"));
  pool.start(8, []() -> std::string { throw std::runtime_error("broken"); });
  CHECK_THROWS_WITH(pool.wait_any(), "broken");
  CHECK(pool.empty());
  CHECK(run_in_subprocess([] { return std::string("alone"); }) == "alone");
}
