// The serial worker's queue: one busy-until time is all the state FIFO service needs.
#include "sim/front_end_server.hpp"

#include <algorithm>

namespace sparksim {

SimTime FrontEndServer::serve(SimTime enqueue, SimTime cost) {
  busy_until_ = std::max(enqueue, busy_until_) + cost;
  busy_time_ += cost;
  ++jobs_;
  open_batch_at_ = -1;
  return busy_until_;
}

SimTime FrontEndServer::serve_batch(SimTime enqueue, std::int64_t count, SimTime batch,
                                    SimTime per_request) {
  return serve(enqueue, batch + count * per_request);
}

FrontEndServer::Joined FrontEndServer::serve_batch_member(SimTime enqueue, SimTime batch,
                                                          SimTime member) {
  if (open_batch_at_ >= 0 && open_batch_at_ == enqueue) {
    busy_until_ += member;
    busy_time_ += member;
    return {busy_until_, true};
  }
  const SimTime done = serve(enqueue, batch + member);
  open_batch_at_ = enqueue;
  return {done, false};
}

}  // namespace sparksim
