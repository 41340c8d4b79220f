// fork + pipe: the child writes one tag byte ('O' ok, 'I' input error, 'E' other error) and the
// text, then exits without running the parent's atexit handlers or destructors. The pool polls
// its children's pipes and hands back whichever child finishes first.
#include "sim/cluster/subprocess.hpp"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/input_error.hpp"

namespace sparksim {

namespace {

void write_all(int fd, const std::string& data) {
  std::size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    done += static_cast<std::size_t>(n);
  }
}

// The child's side: runs `body`, sends the tagged result down `fd`, exits.
[[noreturn]] void run_child(int fd, const std::function<std::string()>& body) {
  // A crash in the child is the parent's to report: drop handlers inherited from it (a test
  // framework's, say), so the child dies of the signal and the parent names it.
  for (int sig : {SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL}) std::signal(sig, SIG_DFL);
  std::string message;
  try {
    // Appended, not `"O" + body()`: GCC 12 warns falsely (-Wrestrict) on literal + temporary.
    message = "O";
    message += body();
  } catch (const InputError& e) {
    message = std::string("I") + e.what();
  } catch (const std::exception& e) {
    message = std::string("E") + e.what();
  } catch (...) {
    message = "Eunknown exception";
  }
  write_all(fd, message);
  ::close(fd);
  std::fflush(stdout);
  std::fflush(stderr);
  ::_exit(0);
}

// The parent's side once the pipe is at its end: reaps the child and decodes what it sent.
std::string finish_child(int pid, const std::string& received) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFSIGNALED(status)) {
    throw std::runtime_error("simulation child process died of signal " +
                             std::to_string(WTERMSIG(status)) + " (" + strsignal(WTERMSIG(status)) +
                             ")");
  }
  if (received.empty()) throw std::runtime_error("simulation child process sent no result");
  std::string text = received.substr(1);
  switch (received[0]) {
    case 'O':
      return text;
    case 'I':
      throw InputError(text);
    default:
      throw std::runtime_error(text);
  }
}

}  // namespace

std::string run_in_subprocess(const std::function<std::string()>& body) {
  SubprocessPool one(1);
  one.start(0, body);
  return one.wait_any().second;
}

SubprocessPool::SubprocessPool(int jobs) : jobs_(static_cast<std::size_t>(std::max(jobs, 1))) {}

SubprocessPool::~SubprocessPool() {
  for (Child& c : children_) {
    ::kill(c.pid, SIGKILL);
    ::close(c.fd);
    int status = 0;
    while (::waitpid(c.pid, &status, 0) < 0 && errno == EINTR) {
    }
  }
}

void SubprocessPool::start(std::size_t tag, const std::function<std::string()>& body) {
  if (full()) throw std::logic_error("SubprocessPool::start on a full pool");
  int fds[2];
  if (::pipe(fds) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  }
  if (pid == 0) {
    ::close(fds[0]);
    for (const Child& c : children_) ::close(c.fd);  // the other children's pipes are not ours
    run_child(fds[1], body);
  }
  ::close(fds[1]);
  children_.push_back(Child{pid, fds[0], tag, {}, false});
}

std::pair<std::size_t, std::string> SubprocessPool::wait_any() {
  if (empty()) throw std::logic_error("SubprocessPool::wait_any on an empty pool");
  std::vector<pollfd> polled(children_.size());
  char buffer[65536];
  while (true) {
    // The earliest started child whose pipe has ended is done (its result is all here).
    const auto done =
        std::find_if(children_.begin(), children_.end(), [](const Child& c) { return c.closed; });
    if (done != children_.end()) {
      const Child child = std::move(*done);
      children_.erase(done);
      ::close(child.fd);
      return {child.tag, finish_child(child.pid, child.received)};
    }
    polled.resize(children_.size());
    for (std::size_t i = 0; i < children_.size(); ++i) polled[i] = {children_[i].fd, POLLIN, 0};
    if (::poll(polled.data(), polled.size(), -1) < 0) {
      if (errno == EINTR) continue;
      throw std::runtime_error(std::string("poll: ") + std::strerror(errno));
    }
    for (std::size_t i = 0; i < children_.size(); ++i) {
      if (polled[i].revents == 0) continue;
      const ssize_t n = ::read(children_[i].fd, buffer, sizeof buffer);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        children_[i].closed = true;
      } else {
        children_[i].received.append(buffer, static_cast<std::size_t>(n));
      }
    }
  }
}

}  // namespace sparksim
