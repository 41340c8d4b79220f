// libFuzzer harness: the profile JSON schema (syntax, then every field's type and range).
#include "common/json_file.hpp"
#include "fuzz/fuzz_input.hpp"
#include "profiles/profile_io.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  sparksim::fuzz::expect_parse_or_input_error([&] {
    const auto file =
        sparksim::JsonFile::parse(std::string(sparksim::fuzz::as_text(data, size)), "fuzz.json");
    sparksim::profile_from_json(file);
  });
  return 0;
}
