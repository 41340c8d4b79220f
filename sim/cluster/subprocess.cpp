// fork + pipe: the child writes one tag byte ('O' ok, 'I' input error, 'E' other error) and the
// text, then exits without running the parent's atexit handlers or destructors.
#include "sim/cluster/subprocess.hpp"

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <stdexcept>

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

}  // namespace

std::string run_in_subprocess(const std::function<std::string()>& body) {
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
    write_all(fds[1], message);
    ::close(fds[1]);
    std::fflush(stdout);
    std::fflush(stderr);
    ::_exit(0);
  }
  ::close(fds[1]);
  std::string received;
  char buffer[65536];
  while (true) {
    const ssize_t n = ::read(fds[0], buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    received.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFSIGNALED(status)) {
    throw std::runtime_error("simulation child process died of signal " +
                             std::to_string(WTERMSIG(status)) + " (" + strsignal(WTERMSIG(status)) +
                             ")");
  }
  if (received.empty()) throw std::runtime_error("simulation child process sent no result");
  const std::string text = received.substr(1);
  switch (received[0]) {
    case 'O':
      return text;
    case 'I':
      throw InputError(text);
    default:
      throw std::runtime_error(text);
  }
}

}  // namespace sparksim
