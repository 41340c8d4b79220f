// Corpus replay without libFuzzer: runs a harness's LLVMFuzzerTestOneInput once on every file
// under the directories (or files) given on the command line. Linked with each harness into the
// normal build (gcc, no coverage instrumentation), so `make test`, and its sanitizer pass, check
// the seed corpora and every fuzzer finding kept in fuzz/regressions/ on every run, without clang.
// A harness signals a finding by crashing or throwing; here that ends the process non-zero after
// naming the input.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

int main(int argc, char** argv) {
  std::vector<std::filesystem::path> inputs;
  for (int i = 1; i < argc; ++i) {
    const std::filesystem::path root(argv[i]);
    if (std::filesystem::is_directory(root)) {
      for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
        // README.md files document a folder; they are not inputs.
        if (entry.is_regular_file() && entry.path().filename() != "README.md") {
          inputs.push_back(entry.path());
        }
      }
    } else if (std::filesystem::is_regular_file(root)) {
      inputs.push_back(root);
    } else {
      std::fprintf(stderr, "%s: no such file or directory\n", argv[i]);
      return 2;
    }
  }
  std::sort(inputs.begin(), inputs.end());  // a fixed order, so a failure reproduces
  for (const auto& path : inputs) {
    std::ifstream in(path, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::fprintf(stderr, "replaying %s (%zu bytes)\n", path.c_str(), bytes.size());
    try {
      LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
    } catch (const std::exception& e) {
      std::fprintf(stderr, "FINDING: %s: uncaught %s\n", path.c_str(), e.what());
      return 1;
    }
  }
  std::printf("%zu inputs replayed, no finding\n", inputs.size());
  return inputs.empty() ? 1 : 0;  // an empty corpus would make this test pass vacuously
}
