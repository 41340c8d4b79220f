// run_in_subprocess: SimGrid allows one simulation per process (its engine is process-wide and its
// clock never resets), so a caller that simulates several clusters (a plan comparing routers or
// layouts, a test suite) runs each in a forked child and gets its result back as text.
#pragma once

#include <functional>
#include <string>

namespace sparksim {

// Forks; the child runs `body` and sends back the string it returns; the parent waits for it.
// An InputError thrown in the child is rethrown in the parent as an InputError with the same
// message, any other exception as std::runtime_error; a child that dies (signal, abort inside
// SimGrid) is a std::runtime_error naming the signal. POSIX only; call it from a single-threaded
// process (fork keeps only the calling thread).
std::string run_in_subprocess(const std::function<std::string()>& body);

}  // namespace sparksim
