// Locating and running gnuplot.
#include "experiments/report/gnuplot.hpp"

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string_view>

#include <sys/wait.h>
#include <unistd.h>

#include "common/input_error.hpp"

namespace sparksim {

namespace {

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

}  // namespace

std::optional<std::string> find_gnuplot() {
  if (const char* env = std::getenv("SPARKSIM_GNUPLOT"); env != nullptr && *env != '\0') {
    if (::access(env, X_OK) == 0) return std::string(env);
    return std::nullopt;
  }
  const char* path = std::getenv("PATH");
  std::string_view dirs = path != nullptr ? path : "/usr/local/bin:/usr/bin:/bin";
  while (!dirs.empty()) {
    const auto colon = dirs.find(':');
    const std::string dir(dirs.substr(0, colon));
    dirs = colon == std::string_view::npos ? std::string_view() : dirs.substr(colon + 1);
    if (dir.empty()) continue;
    const std::string candidate = dir + "/gnuplot";
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return std::nullopt;
}

void require_gnuplot() {
  if (find_gnuplot()) return;
  throw InputError(
      "plots need gnuplot, which is not on PATH (nor $SPARKSIM_GNUPLOT): install Debian's "
      "gnuplot-nox (scripts/install_deps.sh does), or pass --no-plots");
}

void run_gnuplot(const std::filesystem::path& workdir, const std::string& script) {
  const auto gnuplot = find_gnuplot();
  if (!gnuplot) require_gnuplot();
  // Absolute: the shell changes into `workdir` before the redirection is opened, so a relative
  // log path (an `--out out/demo` run) would be resolved twice.
  const auto log = std::filesystem::absolute(workdir) / ".gnuplot.log";
  const std::string command = "cd " + shell_quote(workdir.string()) + " && " +
                              shell_quote(*gnuplot) + " " + shell_quote(script) + " > " +
                              shell_quote(log.string()) + " 2>&1";
  const int status = std::system(command.c_str());
  std::ifstream in(log);
  std::stringstream messages;
  messages << in.rdbuf();
  in.close();
  std::filesystem::remove(log);
  if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    throw std::runtime_error("gnuplot failed on " + script + ":\n" + messages.str());
  }
}

std::string gnuplot_string(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "\"";
}

}  // namespace sparksim
