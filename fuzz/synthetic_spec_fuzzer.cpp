// libFuzzer harness: the --synthetic traffic spec string, parsed and (when short) generated.
#include "fuzz/fuzz_input.hpp"
#include "traces/synthetic.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  sparksim::fuzz::expect_parse_or_input_error([&] {
    const sparksim::SyntheticSpec spec =
        sparksim::parse_synthetic_spec(std::string(sparksim::fuzz::as_text(data, size)));
    // Generation is bounded by rate × duration; only small expected counts are exercised here.
    if (spec.rate_per_s * spec.duration_s <= 1000) sparksim::generate_synthetic_trace(spec, 1);
  });
  return 0;
}
