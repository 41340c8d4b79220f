// Formats InputError messages in the project-wide `path:line: what` shape.
#include "common/input_error.hpp"

namespace sparksim {

namespace {
std::string format_location(const std::string& path, std::int64_t line, const std::string& what) {
  if (line > 0) return path + ":" + std::to_string(line) + ": " + what;
  return path + ": " + what;
}
}  // namespace

InputError::InputError(const std::string& path, std::int64_t line, const std::string& what)
    : std::runtime_error(format_location(path, line, what)) {}

InputError::InputError(const std::string& what) : std::runtime_error(what) {}

}  // namespace sparksim
