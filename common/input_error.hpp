// InputError: the one error type for bad input (files, specs, names, configs).
// Its message is always `path:line: what is wrong` (or `path: what` when no line applies), and
// main() maps it to exit code 2 before any simulation work or output happens.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace sparksim {

class InputError : public std::runtime_error {
 public:
  // line <= 0 means "the whole file" (or a command-line value): the message omits the number.
  InputError(const std::string& path, std::int64_t line, const std::string& what);
  // For values that come from no file (command-line flags): `--flag: what`.
  explicit InputError(const std::string& what);
};

}  // namespace sparksim
