// The serial worker's queue: one busy-until time is all the state FIFO service needs.
#include "experiments/validate/front_end_server.hpp"

#include <algorithm>

namespace sparksim {

SimTime FrontEndServer::serve(SimTime enqueue, SimTime cost) {
  busy_until_ = std::max(enqueue, busy_until_) + cost;
  busy_time_ += cost;
  ++jobs_;
  return busy_until_;
}

SimTime FrontEndServer::serve_batch(SimTime enqueue, std::int64_t count, SimTime batch,
                                    SimTime per_request) {
  return serve(enqueue, batch + count * per_request);
}

}  // namespace sparksim
