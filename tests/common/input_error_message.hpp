// error_of: the message of the InputError a callable throws, so that tests of bad input compare
// messages ("path:line: what is wrong") without a try/catch each.
#pragma once

#include <string>

#include "common/input_error.hpp"

namespace sparksim::testing {

// The message of the InputError that `f` throws ("" if it throws none).
template <typename F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace sparksim::testing
