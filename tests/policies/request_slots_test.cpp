// RequestSlots: stable slots while a request stays, fresh slots after it leaves, reuse of freed
// slots, and correctness of the positional fast path when batches shift.
#include "policies/request_slots.hpp"

#include <map>
#include <random>

#include <catch2/catch.hpp>

using namespace sparksim;

TEST_CASE("request slots: stable while present, fresh after leaving, freed slots reused") {
  RequestSlots slots;
  std::vector<std::uint64_t> ids = {10, 11, 12};
  slots.map_batch(ids);
  CHECK(std::vector<std::uint32_t>(slots.slots().begin(), slots.slots().end()) ==
        std::vector<std::uint32_t>{0, 1, 2});
  CHECK(std::vector<std::uint8_t>(slots.fresh().begin(), slots.fresh().end()) ==
        std::vector<std::uint8_t>{1, 1, 1});
  // 11 leaves; 13 joins at the end and takes its slot; the others shift left but keep theirs.
  slots.release(11);
  ids = {10, 12, 13};
  slots.map_batch(ids);
  CHECK(std::vector<std::uint32_t>(slots.slots().begin(), slots.slots().end()) ==
        std::vector<std::uint32_t>{0, 2, 1});
  CHECK(std::vector<std::uint8_t>(slots.fresh().begin(), slots.fresh().end()) ==
        std::vector<std::uint8_t>{0, 0, 1});
  // 12 leaves and returns at the same position in the very next batch: it must be fresh.
  slots.release(12);
  slots.map_batch(ids);
  CHECK(slots.fresh()[1] == 1);
  CHECK(slots.live() == 3);
  CHECK(slots.slot_count() == 3);
  slots.release(999);  // unknown: ignored
  CHECK(slots.live() == 3);
}

TEST_CASE("request slots agree with a plain map under random churn and reordering") {
  std::mt19937_64 rng(3);
  RequestSlots slots;
  std::map<std::uint64_t, std::uint32_t> expected;  // id → slot seen first
  std::vector<std::uint64_t> running;
  std::uint64_t next = 0;
  for (int step = 0; step < 2000; ++step) {
    for (std::size_t i = 0; i < running.size();) {
      if (rng() % 8 == 0) {
        slots.release(running[i]);
        expected.erase(running[i]);
        running.erase(running.begin() + static_cast<std::ptrdiff_t>(i));
      } else {
        ++i;
      }
    }
    const auto joins = rng() % 4;
    for (std::uint64_t j = 0; j < joins; ++j) {
      // Insert anywhere (a request finishing prefill joins the decode batch mid-way).
      const auto at = running.empty() ? 0 : rng() % (running.size() + 1);
      running.insert(running.begin() + static_cast<std::ptrdiff_t>(at), next++);
    }
    if (step % 97 == 0) std::shuffle(running.begin(), running.end(), rng);
    slots.map_batch(running);
    std::map<std::uint32_t, int> used;
    for (std::size_t i = 0; i < running.size(); ++i) {
      const auto it = expected.find(running[i]);
      INFO("step " << step << " id " << running[i]);
      CHECK((slots.fresh()[i] == 1) == (it == expected.end()));
      if (it == expected.end()) {
        expected[running[i]] = slots.slots()[i];
      } else {
        CHECK(slots.slots()[i] == it->second);
      }
      CHECK(++used[slots.slots()[i]] == 1);  // distinct slots within a batch
    }
    CHECK(slots.live() == running.size());
  }
}
