// `sparksim validate --silicon`: the assumed client (closed loop at batch_size, fixed lengths)
// against a hand-worked timeline on a 10 ms-per-step profile, the row -> configuration mapping
// (and the reasons rows are skipped), and a malformed row stopping with path:line, exit 2.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <utility>

#include <catch2/catch.hpp>

#include "cli_harness.hpp"
#include "common/input_error.hpp"
#include "experiments/validate/benchmark_replay.hpp"
#include "experiments/validate/silicon_report.hpp"
#include "experiments/validate/silicon_sample.hpp"
#include "profiles/profile_io.hpp"
#include "silicon_test_header.hpp"
#include "sim/engine_preset.hpp"

using namespace sparksim;
using namespace sparksim::testing;

namespace {

const std::string kSource = SPARKSIM_SOURCE_DIR;
const std::string kGoldenProfile = "tests/experiments/golden/two_requests/profile.json";

std::string row(const std::string& id, const std::string& backend, const std::string& isl,
                const std::string& ttft, const std::string& version = "0.12.0",
                const std::string& model = "Qwen/Qwen3-32B") {
  return id + ",src," + backend + "," + version + "," + model + ",h100_sxm,,agg," + isl +
         ",3,,,2,2,1,1,1,1,,,,,,,,,,,,,,," + ttft + ",9\n";
}

// A profiles folder holding the 10 ms-per-step golden profile as h100-sxm/qwen3-32b-tp2.json.
std::filesystem::path profiles_folder(const std::filesystem::path& dir) {
  std::filesystem::create_directories(dir / "profiles/h100-sxm");
  std::filesystem::copy_file(kSource + "/" + kGoldenProfile,
                             dir / "profiles/h100-sxm/qwen3-32b-tp2.json",
                             std::filesystem::copy_options::overwrite_existing);
  return dir / "profiles";
}

}  // namespace

TEST_CASE("silicon replay: closed loop at batch_size with fixed lengths, worked by hand") {
  const auto dir = scratch_dir("silicon_closed_loop");
  const auto profiles = profiles_folder(dir);
  std::ofstream(dir / "s.csv") << kSiliconHeader << row("a", "vllm", "100", "12")
                               << row("b", "vllm", "100", "12", "0.12.0", "Qwen/Qwen3-235B");
  const std::vector<SiliconRow> rows = read_silicon_sample((dir / "s.csv").string());
  REQUIRE(rows.size() == 2);
  const SiliconConfig config = map_silicon_row(rows[0], profiles.string());
  REQUIRE(config.replayable);
  CHECK(config.engine == "vllm@0.12");  // its own engine version's preset
  CHECK(config.precision == "bf16");    // empty precision: the bf16 checkpoint
  CHECK(config.group == "vllm 0.12.0 / qwen3-32b / bf16");
  const SiliconConfig skipped = map_silicon_row(rows[1], profiles.string());
  CHECK_FALSE(skipped.replayable);
  CHECK(skipped.skip_reason == "model Qwen/Qwen3-235B has no dense target shape");

  // 2 users, 2 requests each, 100 prompt + 3 output tokens, 10 ms per step: both first requests
  // prefill together in step 1 (first token at 10 ms), decode at 20 and 30 ms; the next two are
  // sent at 30 ms and repeat it, ending at 60 ms. TTFT 10 ms, TPOT (30 - 10) / 2 = 10 ms, output
  // 4 x 3 tokens in 60 ms = 200 tok/s.
  const BenchmarkCase c = silicon_case(rows[0], config, 2);
  CHECK(c.workload.requests.size() == 4);
  CHECK(c.workload.max_concurrency == 2);
  const SimulatedMetrics s = replay_case(c, load_profile(config.profile_path));
  CHECK(s.completed == 4);
  CHECK(*s.ttft_ms.mean == Approx(10.0));
  CHECK(*s.tpot_ms.mean == Approx(10.0));
  CHECK(s.duration_s == Approx(0.060));
  CHECK(s.output_throughput == Approx(200.0));
  // The measured throughput a closed loop of fixed lengths implies: 2 x 3 / (12 + 2 x 9) ms.
  CHECK(*c.measured.output_throughput == Approx(200.0));

  const std::vector<SiliconResult> results{{rows[0], config, s, "", std::nullopt},
                                           {rows[1], skipped, {}, "", std::nullopt}};
  const std::vector<SiliconGroupError> groups = silicon_group_errors(results);
  REQUIRE(groups.size() == 1);
  CHECK(groups[0].ttft_mean_abs == Approx(2.0 / 12.0));  // 10 predicted vs 12 measured
  CHECK(groups[0].tpot_mean_abs == Approx(1.0 / 9.0));   // 10 vs 9
  CHECK(groups[0].throughput_mean_abs == Approx(0.0).margin(1e-12));

  const auto r = run_cli("validate --silicon " + (dir / "s.csv").string() + " --silicon-profiles " +
                             profiles.string() + " --silicon-requests-per-user 2 --json " +
                             (dir / "r.json").string(),
                         dir);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.output, Catch::Contains("vllm 0.12.0 / qwen3-32b / bf16"));
  CHECK_THAT(r.output, Catch::Contains("1  model Qwen/Qwen3-235B has no dense target shape"));
  CHECK(read_json(dir / "r.json").at("groups").size() == 1);

  // With a split, each group carries its role and the check groups are pooled.
  std::ofstream(dir / "split.json")
      << R"({"schema": "sparksim.silicon-split/1", "groups": [)"
      << R"({"backend": "vllm", "backend_version": "0.12.0", "target": "qwen3-32b", "role": "check"}]})";
  const auto split =
      run_cli("validate --silicon " + (dir / "s.csv").string() + " --silicon-profiles " +
                  profiles.string() + " --silicon-requests-per-user 2 --silicon-split " +
                  (dir / "split.json").string(),
              dir);
  // Judged against issue 32's targets on the hand-worked errors above: TPOT 1/9 = 11.1% misses
  // both 5% pooled and 10% per group, TTFT 2/12 = 16.7% misses 15%, throughput (0%) meets 5%.
  CHECK(split.exit_code == 3);
  CHECK_THAT(split.output, Catch::Contains("all check groups"));
  CHECK_THAT(split.output,
             Catch::Contains("verdict on the check groups: MISS: TPOT 11.1% > 5%; worst check "
                             "group's TPOT 11.1% > 10% (vllm 0.12.0 / qwen3-32b / bf16); TTFT "
                             "16.7% > 15%"));
  std::vector<SiliconResult> judged = results;
  judged[0].role = "check";
  CHECK(silicon_targets_missed(judged).size() == 3);
  CHECK(silicon_targets_missed(judged, SiliconTargets{0.12, 0.12, 0.01, 0.17}).empty());
  CHECK(silicon_targets_missed(results).empty());  // no check role: nothing judged
  std::ofstream(dir / "bad_split.json")
      << "{\"schema\": \"sparksim.silicon-split/1\", \"groups\": [\n"
      << R"({"backend": "vllm", "backend_version": "0.12.0", "target": "qwen3-32b", "role": "fit"}]})";
  const auto bad =
      run_cli("validate --silicon " + (dir / "s.csv").string() + " --silicon-profiles " +
                  profiles.string() + " --silicon-split " + (dir / "bad_split.json").string(),
              dir);
  CHECK(bad.exit_code == 2);
  CHECK_THAT(bad.output, Catch::Contains("bad_split.json:2:"));
}

TEST_CASE("silicon replay: a malformed row stops with path:line, exit 2, no report") {
  const auto dir = scratch_dir("silicon_bad");
  const auto profiles = profiles_folder(dir);
  std::ofstream(dir / "bad.csv") << kSiliconHeader << row("a", "vllm", "100", "12")
                                 << row("b", "vllm", "many", "12");
  const auto r =
      run_cli("validate --silicon " + (dir / "bad.csv").string() + " --silicon-profiles " +
                  profiles.string() + " --json " + (dir / "r.json").string(),
              dir);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Catch::Contains("bad.csv:3:"));
  CHECK_FALSE(std::filesystem::exists(dir / "r.json"));
  std::ofstream(dir / "zero.csv") << kSiliconHeader << row("a", "vllm", "100", "0");
  CHECK_THROWS_WITH(read_silicon_sample((dir / "zero.csv").string()),
                    Catch::Contains("zero.csv:2: silicon_ttft_ms is 0; must be > 0"));
}

TEST_CASE("silicon replay: the aiperf-template client's counts, and bad client options exit 2") {
  const SiliconClient lockstep = silicon_client("lockstep", 10, false);
  CHECK(lockstep.requests_per_user == 10);
  CHECK(lockstep.warmup_per_user == 0);
  // Upstream's bench_run.sh.j2: --num-requests 50 x c, --warmup-request-count 2 x c.
  const SiliconClient aiperf = silicon_client("aiperf-template", 10, false);
  CHECK(aiperf.requests_per_user == 50);
  CHECK(aiperf.warmup_per_user == 2);
  CHECK_THROWS_AS(silicon_client("aiperf-template", 3, true), InputError);
  CHECK_THROWS_AS(silicon_client("genai-perf", 10, false), InputError);
  CHECK_THROWS_AS(silicon_client("lockstep", 0, true), InputError);

  // On the 10 ms-per-step profile the waves of 2 repeat exactly (100 prompt + 3 output tokens: a
  // prefill step and two decode steps, 30 ms): 50 waves in 1.5 s, TTFT 10 ms, TPOT 10 ms and
  // 100 x 3 / 1.5 s = 200 tok/s, as lockstep's 2 waves give; the JSON names the client.
  const auto dir = scratch_dir("silicon_client");
  const auto profiles = profiles_folder(dir);
  std::ofstream(dir / "s.csv") << kSiliconHeader << row("a", "vllm", "100", "12");
  const std::string base =
      "validate --silicon " + (dir / "s.csv").string() + " --silicon-profiles " + profiles.string();
  const auto r =
      run_cli(base + " --silicon-client aiperf-template --json " + (dir / "a.json").string(), dir);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.output, Catch::Contains("Client: aiperf-template"));
  const auto j = read_json(dir / "a.json");
  CHECK_THAT(j.at("client").get<std::string>(), Catch::Contains("50 x batch_size profiling"));
  CHECK(j["cases"][0]["ttft_ms"]["predicted"].get<double>() == Approx(10.0));
  CHECK(j["cases"][0]["tpot_ms"]["predicted"].get<double>() == Approx(10.0));
  CHECK(j["cases"][0]["output_throughput_error"].get<double>() == Approx(0.0).margin(1e-9));
  for (const std::string bad : {" --silicon-client aiperf-template --silicon-requests-per-user 3",
                                " --silicon-client genai-perf"}) {
    const auto b = run_cli(base + bad + " --json " + (dir / "b.json").string(), dir);
    CHECK(b.exit_code == 2);
    CHECK_THAT(b.output, Catch::Contains("--silicon-"));
    CHECK_FALSE(std::filesystem::exists(dir / "b.json"));
  }
}

TEST_CASE(
    "silicon replay: each row runs on its own engine version's preset, a version without one is "
    "exit 2") {
  const auto dir = scratch_dir("silicon_versions");
  const auto profiles = profiles_folder(dir);
  // The version -> preset table written out by hand from sim/engine_preset.cpp's names.
  std::ofstream(dir / "v.csv") << kSiliconHeader << row("a", "vllm", "100", "12", "0.12.0")
                               << row("b", "sglang", "100", "12", "0.5.8.post1")
                               << row("c", "trtllm", "100", "12", "1.0.0rc3")
                               << row("d", "vllm", "100", "12", "0.11.2");
  const std::vector<SiliconRow> rows = read_silicon_sample((dir / "v.csv").string());
  REQUIRE(rows.size() == 4);
  const char* expected[] = {"vllm@0.12", "sglang@0.5", "trtllm@1.0", "vllm@0.11"};
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const SiliconConfig c = map_silicon_row(rows[i], profiles.string());
    REQUIRE(c.replayable);
    CHECK(c.engine == expected[i]);
  }

  // TensorRT-LLM 1.1 and vLLM 9.9 have no preset: a row the composition could replay on another
  // version's limits is refused at load, before anything runs, with its line.
  for (const auto& [version, backend] :
       {std::pair<std::string, std::string>{"1.1.0", "trtllm"}, {"9.9.0", "vllm"}}) {
    std::ofstream(dir / "u.csv") << kSiliconHeader << row("a", "vllm", "100", "12")
                                 << row("b", backend, "100", "12", version);
    const auto r =
        run_cli("validate --silicon " + (dir / "u.csv").string() + " --silicon-profiles " +
                    profiles.string() + " --json " + (dir / "u.json").string(),
                dir);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.output, Catch::Contains("u.csv:3: engine " + backend + " " + version +
                                         " has no engine preset; valid: "));
    CHECK_THAT(r.output, Catch::Contains("trtllm@1.0"));
    CHECK_FALSE(std::filesystem::exists(dir / "u.json"));
  }
}

TEST_CASE("silicon bundle: the split gives every bundled row a role, check cases >= half") {
  // Read with a plain split on commas (the bundled file has no quoted cells), not the loader under
  // test; ids, backends and versions from the CSV against the ids the split file lists.
  const std::string base = kSource + "/experiments/validate/data/silicon/";
  std::istringstream csv(read_file(base + "silicon_dense.csv"));
  std::string line;
  std::getline(csv, line);
  const auto cells = [](const std::string& l) {
    std::vector<std::string> out;
    std::string cell;
    std::istringstream in(l);
    while (std::getline(in, cell, ',')) out.push_back(cell);
    return out;
  };
  const std::vector<std::string> header = cells(line);
  const auto col = [&](const std::string& name) {
    const auto it = std::find(header.begin(), header.end(), name);
    REQUIRE(it != header.end());
    return static_cast<std::size_t>(it - header.begin());
  };
  const std::size_t c_id = col("id"), c_backend = col("backend"),
                    c_version = col("backend_version");
  const auto split = read_json(base + "split.json");
  std::map<std::string, std::pair<std::string, std::string>> role_of;  // id -> (group, role)
  std::size_t listed = 0;
  for (const auto& g : split.at("groups")) {
    const std::string group =
        g.at("backend").get<std::string>() + " " + g.at("backend_version").get<std::string>();
    CHECK(g.at("cases").get<std::size_t>() == g.at("ids").size());
    for (const auto& id : g.at("ids")) {
      CHECK(role_of.emplace(id.get<std::string>(), std::pair{group, g.at("role")}).second);
      ++listed;
    }
  }
  std::size_t rows = 0, check = 0;
  std::set<std::string> seen;
  while (std::getline(csv, line)) {
    if (line.empty()) continue;
    const std::vector<std::string> r = cells(line);
    ++rows;
    INFO(r[c_id]);
    CHECK(seen.insert(r[c_id]).second);
    const auto it = role_of.find(r[c_id]);
    REQUIRE(it != role_of.end());
    CHECK(it->second.first == r[c_backend] + " " + r[c_version]);
    CHECK(engine_preset_for_version(r[c_backend], r[c_version]) != nullptr);
    if (it->second.second == "check") ++check;
  }
  CHECK(rows == listed);  // no role for a row that is not bundled
  CHECK(rows >= 120);
  CHECK(2 * check >= rows);
}
