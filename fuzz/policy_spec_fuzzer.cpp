// libFuzzer harness: --policy and --acceptance spec strings (`name:key=value,...`) through their
// registries, for a few block sizes.
#include "fuzz/fuzz_input.hpp"
#include "policies/policy_registry.hpp"
#include "sim/acceptance/acceptance_registry.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(sparksim::fuzz::as_text(data, size));
  const int gamma = 1 + static_cast<int>(size % 7);
  sparksim::fuzz::expect_parse_or_input_error([&] {
    sparksim::make_policy(sparksim::NamedSpec::parse(text, "--policy"),
                          sparksim::PolicyContext{gamma});
  });
  // Acceptance specs may name files (curves=PATH); paths are the file parsers' harnesses' business
  // (and a device path such as /dev/zero would only test the kernel), so none are followed here.
  if (text.find('/') != std::string::npos) return 0;
  sparksim::fuzz::expect_parse_or_input_error([&] {
    sparksim::DrafterSpec drafter{sparksim::DrafterFamily::kDspark, gamma,
                                  "dspark-" + std::to_string(gamma)};
    // Head tuning (auc=, ece=) is a second of Monte Carlo sampling, not parsing: this harness
    // found it as a "timeout" (calibrated:auc=0.905 took over 10 s under the sanitizers), so it
    // checks such specs without running the tuning.
    sparksim::make_acceptance_model(
        sparksim::NamedSpec::parse(text, "--acceptance"),
        sparksim::AcceptanceContext{drafter, "qwen3-8b", 1, /*tune_heads=*/false});
  });
  return 0;
}
