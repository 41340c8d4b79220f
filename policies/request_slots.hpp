// RequestSlots: dense per-request slot numbers for stateful policies (async-topk's confidence
// history, goodput's last decision). A batch is mostly the previous batch with a few requests
// removed or added, so the lookup first tries the previous step's entry at the same position
// (shifted by the offset of the last hit) and falls back to a hash map only on a miss. Requests
// are keyed by id, never by pointer, and nothing iterates the map, so no order reaches an output.
#pragma once

#include <cstdint>
#include <span>
#include <unordered_map>
#include <vector>

namespace sparksim {

class RequestSlots {
 public:
  // Maps every id of this step's batch to its slot, creating slots for ids not seen since they
  // last left. Afterwards slots()[i] is batch entry i's slot and fresh()[i] is 1 for a new slot
  // (whose per-slot state the caller must reset). Ids within one batch must be distinct.
  void map_batch(std::span<const std::uint64_t> ids);
  std::span<const std::uint32_t> slots() const { return slots_; }
  std::span<const std::uint8_t> fresh() const { return fresh_; }

  // Forgets a request; its slot may be reused by a later id. Unknown ids are ignored.
  void release(std::uint64_t id);

  // Slots ever created: per-slot arrays must hold at least this many entries.
  std::size_t slot_count() const { return slot_batch_index_.size(); }
  // Requests currently remembered.
  std::size_t live() const { return by_id_.size(); }

 private:
  static constexpr std::uint32_t kNone = 0xffffffffu;
  std::unordered_map<std::uint64_t, std::uint32_t> by_id_;
  std::vector<std::uint32_t> free_;
  std::vector<std::int64_t> slot_batch_index_;  // position in the previous batch (a hint)
  std::vector<std::uint64_t> prev_ids_;
  std::vector<std::uint32_t> prev_slots_;  // kNone where the request left since
  std::vector<std::uint32_t> slots_;
  std::vector<std::uint8_t> fresh_;
};

}  // namespace sparksim
