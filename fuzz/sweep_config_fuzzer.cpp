// libFuzzer harness: the experiment (sweep) config JSON, parsed and expanded into points.
#include "common/json_file.hpp"
#include "experiments/sweep/sweep_config.hpp"
#include "fuzz/fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  sparksim::fuzz::expect_parse_or_input_error([&] {
    const auto file =
        sparksim::JsonFile::parse(std::string(sparksim::fuzz::as_text(data, size)), "fuzz.json");
    const sparksim::SweepConfig config = sparksim::parse_sweep_config(file);
    // Expansion multiplies the sweep's lists; a config small enough to parse must expand.
    sparksim::expand_points(config);
  });
  return 0;
}
