// KvTransport: how the cluster loop moves a request's KV cache from a prefill replica to a decode
// replica. The loop only starts transfers and asks which one lands next; how long one takes (and
// how concurrent ones slow each other down) is the transport's business: SimGrid's network model
// in KvNetwork, a fixed delay in tests of the loop itself.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

#include "common/sim_time.hpp"

namespace sparksim {

struct KvLanding {
  std::size_t transfer = 0;  // the id start() returned
  SimTime time = 0;          // when the last byte arrived
};

class KvTransport {
 public:
  virtual ~KvTransport() = default;
  // Starts moving `bytes` of request `request_id` from replica `from` to replica `to` at `now`
  // (never earlier than a previous call's `now` or a landing already returned). Returns the
  // transfer's id: 0, 1, 2, ...
  virtual std::size_t start(std::uint64_t request_id, std::size_t from, std::size_t to,
                            std::uint64_t bytes, SimTime now) = 0;
  // True while a started transfer has not been returned by next_landing().
  virtual bool busy() const = 0;
  // The next transfer to land at or before `limit` (no limit: the next one at all), or nothing if
  // none lands by then. Landings come in time order.
  virtual std::optional<KvLanding> next_landing(std::optional<SimTime> limit) = 0;
};

}  // namespace sparksim
