// Shared by the libFuzzer harnesses: the one rule every parser must keep on arbitrary bytes is
// "parse, or throw InputError (a `path:line: what` message)". Any other exception, a crash, a hang
// or a sanitizer report is a finding; this helper runs a parse and lets only InputError through.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

#include <unistd.h>

#include "common/input_error.hpp"

namespace sparksim::fuzz {

inline std::string_view as_text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// Runs `parse`; InputError is the expected outcome for bad input, anything else propagates
// (libFuzzer reports an uncaught exception as a crash, with the input that caused it).
template <typename F>
void expect_parse_or_input_error(F&& parse) {
  try {
    parse();
  } catch (const InputError&) {
  }
}

// For loaders that only take a path: the bytes in a per-process scratch file.
inline std::string scratch_file(std::string_view text, const std::string& extension) {
  const auto path = std::filesystem::temp_directory_path() /
                    ("sparksim_fuzz_" + std::to_string(::getpid()) + extension);
  std::ofstream(path, std::ios::binary)
      .write(text.data(), static_cast<std::streamsize>(text.size()));
  return path.string();
}

}  // namespace sparksim::fuzz
