// FrontEndServer: an engine's API server as one serial worker (vLLM's API server is one Python
// process with one event loop): request intake (HTTP, chat template, tokenising) and the streaming
// of every output chunk (detokenising, building and writing the SSE event) take turns on it, in
// the order they are handed in. A busy worker queues what comes next, so it is a throughput limit:
// saturated, it completes 1 / cost jobs per second, whatever the GPU could do.
//
// Jobs must be handed in in non-decreasing enqueue time (the simulation's event order); a job is
// served at max(enqueue, when the previous job finished) for its cost.
//
// Intake comes in batches: the requests handed in together are one job of cost
// batch + count x per_request, and all of them leave it at its end. That is how an event loop
// serves many concurrent intakes: each handler runs to its next await and yields, so 1000 requests
// arriving at once advance in lockstep and reach the engine together, at about N x per_request
// (processor sharing's closed form for N equal jobs), not one every per_request (FIFO).
#pragma once

#include <cstdint>

#include "common/sim_time.hpp"

namespace sparksim {

class FrontEndServer {
 public:
  // Returns when the job finishes.
  SimTime serve(SimTime enqueue, SimTime cost);
  // A batch of `count` requests taken in together: one job of batch + count x per_request.
  SimTime serve_batch(SimTime enqueue, std::int64_t count, SimTime batch, SimTime per_request);
  // One request of an intake batch, handed in at `enqueue`: it joins the batch the previous job
  // opened when that job was a batch opened at the same instant (nothing served since), which
  // then lasts `member` longer; otherwise it opens a batch of its own, `batch` + `member`.
  // Returns when the batch (with it) finishes, and whether it joined (the batch's earlier members
  // then leave at that time too).
  struct Joined {
    SimTime done = 0;
    bool joined = false;
  };
  Joined serve_batch_member(SimTime enqueue, SimTime batch, SimTime member);
  SimTime busy_until() const { return busy_until_; }
  SimTime busy_time() const { return busy_time_; }  // sum of served costs
  std::int64_t jobs() const { return jobs_; }

 private:
  SimTime busy_until_ = 0;
  SimTime busy_time_ = 0;
  std::int64_t jobs_ = 0;
  SimTime open_batch_at_ = -1;  // enqueue time of the batch that is the last job (-1: none)
};

}  // namespace sparksim
