// libFuzzer harness: the Azure LLM inference trace CSV parser.
#include "fuzz/fuzz_input.hpp"
#include "traces/azure_trace.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  sparksim::fuzz::expect_parse_or_input_error(
      [&] { sparksim::load_azure_trace("fuzz.csv", sparksim::fuzz::as_text(data, size), {}); });
  return 0;
}
