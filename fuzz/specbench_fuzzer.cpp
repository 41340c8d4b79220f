// libFuzzer harness: the Spec-Bench per-step acceptance JSONL reader (it takes a path, so the
// bytes go through a scratch file).
#include "fuzz/fuzz_input.hpp"
#include "sim/acceptance/specbench.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path =
      sparksim::fuzz::scratch_file(sparksim::fuzz::as_text(data, size), ".jsonl");
  sparksim::fuzz::expect_parse_or_input_error([&] { sparksim::load_specbench(path); });
  return 0;
}
