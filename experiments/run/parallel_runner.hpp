// run_in_parallel: runs tasks 0..count-1 on `jobs` threads. Tasks write their results into slots
// indexed by task number, so what they produce does not depend on which thread ran them or in
// which order; sweeps are therefore byte-identical at any parallelism.
#pragma once

#include <cstddef>
#include <functional>

namespace sparksim {

// Calls task(i) once for every i in [0, count), on min(jobs, count) threads (jobs < 1 means 1).
// Threads take the next unstarted index as they free up. If a task throws, no new task starts,
// the running ones finish, and the first exception (lowest task index among those that threw) is
// rethrown here.
void run_in_parallel(std::size_t count, int jobs, const std::function<void(std::size_t)>& task);

// Worker count when the user gives none: the CPUs this process may run on (at least 1).
int default_jobs();

}  // namespace sparksim
