// libFuzzer harness: the Mooncake JSONL trace parser, with and without bucket spreading.
#include "fuzz/fuzz_input.hpp"
#include "traces/mooncake_trace.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  sparksim::TraceOptions options;
  options.spread_buckets = size % 2 == 1;  // both paths, chosen by the input itself
  sparksim::fuzz::expect_parse_or_input_error([&] {
    sparksim::load_mooncake_trace("fuzz.jsonl", sparksim::fuzz::as_text(data, size), options);
  });
  return 0;
}
