// Request id → slot mapping with a positional fast path.
#include "policies/request_slots.hpp"

namespace sparksim {

void RequestSlots::map_batch(std::span<const std::uint64_t> ids) {
  const std::size_t n = ids.size();
  // Most steps run exactly the previous step's batch (requests join and leave far less often
  // than steps start): then every slot is the same, none fresh, and no request left in between
  // (release() marks a leaving request's entry kNone).
  if (n == prev_ids_.size()) {
    // Accumulated without an early exit (and not by std::equal, which becomes a memcmp call).
    std::uint64_t differ = 0;
    bool released = false;
    for (std::size_t i = 0; i < n; ++i) {
      differ |= ids[i] ^ prev_ids_[i];
      released = released || prev_slots_[i] == kNone;
    }
    if (differ == 0 && !released) {
      std::fill(fresh_.begin(), fresh_.end(), 0);
      return;
    }
  }
  slots_.resize(n);
  fresh_.resize(n);
  const auto prev_n = static_cast<std::int64_t>(prev_ids_.size());
  std::int64_t shift = 0;  // previous index - current index at the last hit
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t id = ids[i];
    const std::int64_t j = static_cast<std::int64_t>(i) + shift;
    std::uint32_t slot = kNone;
    if (j >= 0 && j < prev_n && prev_ids_[j] == id) slot = prev_slots_[j];
    fresh_[i] = 0;
    if (slot == kNone) {
      const auto [it, inserted] = by_id_.try_emplace(id, kNone);
      if (inserted) {
        if (free_.empty()) {
          it->second = static_cast<std::uint32_t>(slot_batch_index_.size());
          slot_batch_index_.push_back(-1);
        } else {
          it->second = free_.back();
          free_.pop_back();
          slot_batch_index_[it->second] = -1;
        }
        fresh_[i] = 1;
      } else if (slot_batch_index_[it->second] >= 0) {
        shift = slot_batch_index_[it->second] - static_cast<std::int64_t>(i);
      }
      slot = it->second;
    }
    slots_[i] = slot;
  }
  prev_ids_.assign(ids.begin(), ids.end());
  prev_slots_.assign(slots_.begin(), slots_.end());
  for (std::size_t i = 0; i < n; ++i) slot_batch_index_[slots_[i]] = static_cast<std::int64_t>(i);
}

void RequestSlots::release(std::uint64_t id) {
  const auto it = by_id_.find(id);
  if (it == by_id_.end()) return;
  const std::uint32_t slot = it->second;
  const std::int64_t j = slot_batch_index_[slot];
  if (j >= 0 && j < static_cast<std::int64_t>(prev_ids_.size()) && prev_ids_[j] == id) {
    prev_slots_[j] = kNone;
  }
  slot_batch_index_[slot] = -1;
  free_.push_back(slot);
  by_id_.erase(it);
}

}  // namespace sparksim
