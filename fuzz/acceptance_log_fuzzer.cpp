// libFuzzer harness: sparksim's per-step acceptance log reader.
#include <sstream>

#include "fuzz/fuzz_input.hpp"
#include "sim/acceptance/acceptance_log.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::istringstream in{std::string(sparksim::fuzz::as_text(data, size))};
  sparksim::fuzz::expect_parse_or_input_error(
      [&] { sparksim::read_acceptance_log(in, "fuzz.acceptance.log"); });
  return 0;
}
