// libFuzzer harness: SimGrid platform loading through ClusterPlatform::create (SimGrid's XML
// parser, then sparksim's checks: the router host, replicas, routes between them).
//
// SimGrid allows one engine per process, so every input is loaded in a forked child
// (run_in_subprocess). Coverage reached inside the child never gets back to libFuzzer, so this
// harness mutates blindly from its seeds: a robustness check of platform loading, not a guided
// search. The rule is the same as for every parser: load, or InputError. Another exception, or a
// child that dies (a crash, an abort inside SimGrid, a sanitizer report), aborts this process so
// libFuzzer keeps the input.
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#include "fuzz/fuzz_input.hpp"
#include "sim/cluster/platform.hpp"
#include "sim/cluster/subprocess.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path =
      sparksim::fuzz::scratch_file(sparksim::fuzz::as_text(data, size), ".xml");
  try {
    sparksim::run_in_subprocess([&] {
      sparksim::PlatformSpec spec;
      spec.platform_path = path;
      sparksim::ClusterPlatform::create(spec);
      return std::string();
    });
  } catch (const sparksim::InputError&) {
  } catch (const std::exception& e) {
    std::fprintf(stderr, "platform loading failed outside InputError: %s\n", e.what());
    std::abort();
  }
  return 0;
}
