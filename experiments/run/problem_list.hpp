// ProblemList: collects every input problem of a config or command line so the user sees all of
// them in one InputError (one per line, each `path:line: what`), instead of fixing them one by one.
#pragma once

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "common/input_error.hpp"

namespace sparksim {

class ProblemList {
 public:
  // Runs `f`; an InputError it throws becomes one problem (its message kept whole).
  template <typename F>
  void check(F&& f) {
    try {
      std::forward<F>(f)();
    } catch (const InputError& e) {
      add(e.what());
    }
  }
  // The same problem found by two checks (a file read for two purposes) is listed once.
  void add(std::string message) {
    if (std::find(messages_.begin(), messages_.end(), message) == messages_.end()) {
      messages_.push_back(std::move(message));
    }
  }
  bool empty() const { return messages_.empty(); }
  const std::vector<std::string>& messages() const { return messages_; }

  // Throws one InputError whose lines are the problems, in the order found; main() prints the
  // first after "error: ", so the others are prefixed the same way here.
  void throw_if_any() const {
    if (messages_.empty()) return;
    std::string all;
    for (std::size_t i = 0; i < messages_.size(); ++i) {
      if (i > 0) all += "\nerror: ";
      all += messages_[i];
    }
    throw InputError(all);
  }

 private:
  std::vector<std::string> messages_;
};

// The problems of an InputError that ProblemList::throw_if_any (or one check) made: one per line,
// without the "error: " prefix, empty lines dropped. For a caller that re-reports another
// driver's problems in its own terms (prepare_run's, at a config file's line).
inline std::vector<std::string> problem_lines(const InputError& e) {
  std::vector<std::string> lines;
  const std::string all = e.what();
  std::size_t pos = 0;
  while (pos <= all.size()) {
    auto end = all.find('\n', pos);
    if (end == std::string::npos) end = all.size();
    std::string line = all.substr(pos, end - pos);
    if (line.rfind("error: ", 0) == 0) line = line.substr(7);
    if (!line.empty()) lines.push_back(std::move(line));
    pos = end + 1;
  }
  return lines;
}

// Drops a leading `--flag: ` from a message made for the command line, so that the same check can
// be reported at a config file's line instead ("--policy: unknown policy 'x'" → "unknown ...").
inline std::string strip_flag_prefix(const std::string& message) {
  if (message.rfind("--", 0) != 0) return message;
  const auto colon = message.find(": ");
  if (colon == std::string::npos || message.find(' ') < colon) return message;
  return message.substr(colon + 2);
}

}  // namespace sparksim
