// A 64-replica `sparksim cluster` run writes, byte for byte, what it wrote before the fleet-speed
// work of issue 35 (event loop, router pick, metrics and start-up made cheaper; no output may
// move). The oracle is the pre-change implementation: the SHA-256 digests below were computed from
// the outputs of the sparksim binary built from main at commit 266f32b (before any issue-35
// change), with the wall-clock lines of summary.json and config.json's git sha left out. Scenarios:
// synthetic traffic, fixed seed, light load (most replicas idle: ties in the routers' picks) and
// heavy load (queues), every router, four policies, and a disaggregated fleet (KV transfers on
// SimGrid). A change that is meant to alter outputs (a model or profile change) must regenerate the
// digests from the binary before that change and say so in its commit.
#include <array>
#include <cstdio>
#include <sstream>
#include <string>

#include <catch2/catch.hpp>

#include "tests/experiments/cli_harness.hpp"

using namespace sparksim::testing;
namespace fs = std::filesystem;

namespace {

constexpr std::array<const char*, 6> kFiles = {"summary.json",  "requests.csv",  "timeseries.csv",
                                               "placement.csv", "transfers.csv", "config.json"};

struct Scenario {
  const char* name;
  int rate;        // requests per second
  int duration_s;  // of synthetic traffic
  const char* options;
  // Per file of kFiles, from commit 266f32b. config.json's were remade when the profile folder
  // h100 became h100-sxm (with the old path put back, each still has 266f32b's digest) and when
  // config.json gained engine_preset_name and engine_version (without those two lines, each
  // still has the previous digest).
  std::array<const char*, kFiles.size()> sha256;
};

// Regenerate (only with the binary from BEFORE a change):
// tests/cluster/fleet_identity_digests.sh BINARY prints every scenario's digests, made the same
// way.
const Scenario kScenarios[] = {
    {"least-loaded-static3",
     64,
     20,
     "--router least-loaded --policy static:k=3",
     {"eb7d91b08c9675dc54e24fece65742324b014a9d88e339e31c15450014848646",
      "82f18b2909dadd901ced90199cc5b13e9cb0993b40a4f6009292d6af18ab9c93",
      "066a1033e3610092593f3455479529535d4c32b0714c46c01a3f951e5aa2ce44",
      "ae3a25135672786f6788cf0564d6d301868a34f41c1c476c54d3aacf3898cc36",
      "a96f0226723da47319db74a8e46e988f62241fa73b176817cf0675b2ad86b260",
      "fc34da3b266cd4c6978d6a99351fe3817111f218072123c56267162edadfe5cb"}},
    {"kv-aware-async-topk",
     64,
     20,
     "--router kv-aware --policy async-topk",
     {"c8a111a2f337d25fd7e832c75cbc97b3bb251df9518fd7f87ffe1f6f0645419c",
      "e18ddbcb8e987735844430e0a9df87558d56feaf1b8a5b592fe8ba1021f11bd5",
      "fd3dc936112dd85771b61fc8e881eef34fe8a9da2afb27d3edfb700851f335e4",
      "11bdc8f10756914b65f6ac2381ed38942dc122941d8a8ba434bc0ffad94db928",
      "a96f0226723da47319db74a8e46e988f62241fa73b176817cf0675b2ad86b260",
      "8f9442c5892be8353580f1acff8c0c392c3e145d763c38a7fe1520be808bfef6"}},
    {"round-robin-greedy",
     64,
     20,
     "--router round-robin --policy greedy",
     {"5f7c6e6bb362579f28e0d291b42afbdbe2bab188eddb430e65abd1df7d695133",
      "a1afad9e4fb9aee4901db51be7a70baccfddc4fd414924fd1e6393e68fffc466",
      "8a3b2a5d58e8fbb365eb2b77aaf219f1697bed92302a72a59d092d95041d7f29",
      "18b47f6a76e59783760254fded3ec0a039429a666cd92b4edc51ed19f0542a5d",
      "a96f0226723da47319db74a8e46e988f62241fa73b176817cf0675b2ad86b260",
      "c1ce302c8e2e32276ef90cd6533ba6a29813d0b46d7ed58bab8184e7c1243c1c"}},
    {"least-loaded-heavy-static7",
     2500,
     4,
     "--router least-loaded --policy static:k=7",
     {"ca63a4799ec912701e652924736a8d9d5efdc2341bbfb880be9a896596adc8a1",
      "0b6cc6ebc0847710f7a9b3cf070c2d1eba5bfe35fc7e268d3fe5585fcb3ede89",
      "c9677c710b47e7be0eba0316409a09769448c957b4846eab68ca9a231b0287cc",
      "0719927a127f3fb3d7dbc15a9d862bec4e1628b0fef4a53794d442b18fdb4b80",
      "a96f0226723da47319db74a8e46e988f62241fa73b176817cf0675b2ad86b260",
      "5480cc9ee293c952ae3cacef2fea8c92f54d6a80aa4f40f44c5efa05da13f550"}},
    {"kv-aware-heavy-greedy",
     2500,
     4,
     "--router kv-aware --policy greedy",
     {"30850cf5045821b3771c296a350557f7062a43593bb78c7f49cb4408715875fa",
      "285fde94b8b06cab014896692d81ffb3dd347f266a783a7366d5a6b0be3e4e46",
      "7adee87892bc445644009340b93717e5f622d218e925f4413ea91e1da428182a",
      "71a97010a5b71591d27f86acdb5b83d739c75d4b14ce6f672bc81b98b2337989",
      "a96f0226723da47319db74a8e46e988f62241fa73b176817cf0675b2ad86b260",
      "d5a48ad4946f58445e5de3e7832109a0cae12ace754cbc3bf86eff0cd2ddfa46"}},
    {"disaggregated-least-loaded",
     64,
     20,
     "--router least-loaded --policy async-topk --prefill-replicas 16",
     {"181e37b6188c0c8f0e7aad68f585fe9078bbba90946763cb6963607175000b95",
      "de6c3047bb270d3cdcaf4ab4d7f99d56686f1d050d3674c6263d077d0da17957",
      "91d6d7ef1361cd08192c5713d5d5f30db0a9d085228df48cc4b414b7388f6fc9",
      "f14da977731cb304dfcb2906db0d94c0b0e043b60187f1fcdb84ecb62611b5e5",
      "77c7def049f6ca5483843ce31d83f318eef41db7abd331287ef91b29644a9bd4",
      "d3f38a36ac339a27a7c8dbd3ba356c69f2e6751d86803007357532c6186fdb0f"}},
};

// The file without the lines that hold wall-clock measurements or the build's git sha.
std::string without_volatile_lines(const std::string& text) {
  static const char* const kVolatileKeys[] = {
      "\"sim_wall_s\":", "\"request_steps_per_wall_s\":", "\"speedup_vs_simulated_time\":",
      "\"sparksim_git_sha\":"};
  std::string kept;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    const std::size_t first = line.find_first_not_of(" \t");
    bool drop = false;
    for (const char* key : kVolatileKeys) {
      if (first != std::string::npos && line.compare(first, std::string(key).size(), key) == 0) {
        drop = true;
      }
    }
    if (!drop) kept += line + "\n";
  }
  return kept;
}

// SHA-256 by coreutils' sha256sum (the digests above were made the same way).
std::string sha256_of(const std::string& content, const fs::path& scratch) {
  const fs::path file = scratch / "hashed.txt";
  {
    std::ofstream out(file, std::ios::binary);
    out << content;
  }
  const std::string command = "sha256sum '" + file.string() + "'";
  FILE* pipe = popen(command.c_str(), "r");
  REQUIRE(pipe != nullptr);
  char digest[65] = {};
  const std::size_t got = std::fread(digest, 1, 64, pipe);
  pclose(pipe);
  REQUIRE(got == 64);
  return std::string(digest, 64);
}

}  // namespace

// On one thread (the one-thread loop), and on two and three (the windowed loop for the colocated
// scenarios, sim/cluster/windowed_cluster_loop.hpp; three threads on a two-core machine also
// exercise a worker that is not scheduled in time): the same bytes.
TEST_CASE("64-replica cluster runs write byte for byte what the pre-change code wrote") {
  const auto scratch = scratch_dir("fleet_identity");
  for (const Scenario& s : kScenarios) {
    for (const int threads : {1, 2, 3}) {
      const fs::path out = scratch / (s.name + std::string("-") + std::to_string(threads));
      const std::string args =
          "cluster --synthetic rate=" + std::to_string(s.rate) +
          ",prompt=lognormal:1000:1.0,output=lognormal:200:0.8,domain=chat/code/math,duration_s=" +
          std::to_string(s.duration_s) +
          " --replicas 64 --profile profiles/analytic/h100-sxm/qwen3-8b.json --drafter dspark-7 "
          "--seed 7 --quiet --threads " +
          std::to_string(threads) + " " + s.options + " --out '" + out.string() + "'";
      const CliResult result = run_cli(args, scratch);
      INFO(s.name << ": " << args << "\n" << result.output);
      REQUIRE(result.exit_code == 0);
      for (std::size_t f = 0; f < kFiles.size(); ++f) {
        INFO(s.name << " " << kFiles[f] << ", " << threads << " threads");
        CHECK(sha256_of(without_volatile_lines(read_file(out / kFiles[f])), scratch) ==
              s.sha256[f]);
      }
    }
  }
  fs::remove_all(scratch);
}
