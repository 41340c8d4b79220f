// `sparksim pareto`, `merge` and `slo` end to end on tiny sweeps (static policies only, seconds of
// simulated time): determinism across worker counts, shards merged byte for byte, a point equal
// to the `sparksim run` it stands for, bad configs stopped before any point runs, progress only on
// a terminal, unmeetable tiers reported as such, and --check running nothing.
#include <map>
#include <regex>
#include <set>

#include <catch2/catch.hpp>

#include "cli_harness.hpp"
#include "common/csv_table.hpp"
#include "shell_harness.hpp"

using namespace sparksim;
using namespace sparksim::testing;
namespace fs = std::filesystem;

namespace {

// Two systems × two loads × two seeds = 8 points of 3 simulated seconds each.
const char* kTinySweep = R"({
  "schema": "sparksim.sweep/1",
  "title": "tiny sweep for tests",
  "profile": "profiles/analytic/h100-sxm/qwen3-8b.json",
  "workload": {"synthetic": "prompt=lognormal:300:0.5,output=lognormal:60:0.5,domain=code,duration_s=3"},
  "load": {"concurrency": [2, 16]},
  "systems": [
    {"drafter": "dspark-7", "policies": ["static:k=4"]},
    {"drafter": "mtp1", "policies": ["static:k=1"]}
  ],
  "seeds": [1, 2],
  "tok_s_per_user_percentile": 20,
  "tiers_tok_s_per_user": [60, 100000]
}
)";

std::string write_config(const fs::path& dir, const std::string& text,
                         const std::string& name = "sweep.json") {
  std::ofstream(dir / name) << text;
  return (dir / name).string();
}

// Every regular file under `dir`, by relative path.
std::map<std::string, std::string> tree(const fs::path& dir) {
  std::map<std::string, std::string> files;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (e.is_regular_file()) files[fs::relative(e.path(), dir).string()] = read_file(e.path());
  }
  return files;
}

}  // namespace

TEST_CASE("points.csv is byte-identical at 1 and 2 workers") {
  const auto dir = scratch_dir("pareto_jobs");
  const auto config = write_config(dir, kTinySweep);
  for (const char* jobs : {"1", "2"}) {
    const auto r = run_cli("pareto --config " + config + " --no-plots --jobs " + jobs + " --out " +
                               (dir / (std::string("j") + jobs)).string(),
                           dir);
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
  }
  const std::string points = read_file(dir / "j1" / "points.csv");
  CHECK(points == read_file(dir / "j2" / "points.csv"));
  for (const char* f : {"aggregates.csv", "frontier.csv", "sweep.json", "report.html"}) {
    INFO(f);
    CHECK(read_file(dir / "j1" / f) == read_file(dir / "j2" / f));
  }
  const CsvTable t = CsvTable::parse(points, "points.csv");
  REQUIRE(t.rows() == 8);
  for (std::size_t r = 0; r < t.rows(); ++r)
    CHECK(t.integer(r, t.column("point")) == static_cast<std::int64_t>(r));
  // Seeds differ, so their rows differ: the CI columns mean something.
  CHECK(t.cell(0, t.column("throughput_tok_s")) != t.cell(1, t.column("throughput_tok_s")));
  fs::remove_all(dir);
}

TEST_CASE("plots and report are written for an --out path relative to the working directory") {
  // Regression: `make demo` (--out out/demo) failed in a fresh clone because gnuplot's log path
  // was relative and the shell had already changed into the output directory.
  const auto dir = scratch_dir("pareto_relative_out");
  const auto config = write_config(dir, kTinySweep);
  const auto out = fs::relative(dir / "rel", SPARKSIM_SOURCE_DIR);
  REQUIRE(out.is_relative());
  const auto r = run_cli("pareto --config " + config + " --jobs 2 --out " + out.string(), dir);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK(fs::file_size(dir / "rel" / "frontier.png") > 0);
  CHECK(fs::exists(dir / "rel" / "report.html"));
  fs::remove_all(dir);
}

TEST_CASE("a sweep point is exactly the sparksim run it stands for") {
  const auto dir = scratch_dir("pareto_point");
  const auto config = write_config(dir, kTinySweep);
  REQUIRE(run_cli("pareto --config " + config + " --no-plots --jobs 2 --out " +
                      (dir / "sweep").string(),
                  dir)
              .exit_code == 0);
  // Point 3: dspark-7 + static:k=4, 16 users, seed 2.
  const auto r = run_cli(
      "run --closed-loop-users 16 --synthetic "
      "prompt=lognormal:300:0.5,output=lognormal:60:0.5,domain=code,duration_s=3 "
      "--profile profiles/analytic/h100-sxm/qwen3-8b.json --drafter dspark-7 --policy static:k=4 "
      "--seed 2 --quiet --out " +
          (dir / "run").string(),
      dir);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  const auto s = read_json(dir / "run" / "summary.json");
  const CsvTable t = CsvTable::parse(read_file(dir / "sweep" / "points.csv"), "points.csv");
  CHECK(t.cell(3, t.column("load")) == "16");
  CHECK(t.cell(3, t.column("seed")) == "2");
  CHECK(t.integer(3, t.column("output_tokens")) == s["output_tokens"].get<std::int64_t>());
  CHECK(t.number(3, t.column("throughput_tok_s_per_gpu")) ==
        Approx(s["throughput_tok_s_per_gpu"].get<double>()).margin(1e-6));
  CHECK(t.number(3, t.column("tok_s_per_user_p50")) ==
        Approx(s["tok_s_per_user"]["p50"].get<double>()).margin(1e-6));
  CHECK(t.number(3, t.column("tau_mean")) == Approx(s["tau_mean"].get<double>()).margin(1e-6));
  fs::remove_all(dir);
}

TEST_CASE("shards merged are byte for byte the single run, plots and report included") {
  const auto dir = scratch_dir("pareto_shards");
  const auto config = write_config(dir, kTinySweep);
  auto r =
      run_cli("pareto --config " + config + " --jobs 2 --out " + (dir / "single").string(), dir);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  std::string shard_dirs;
  for (int i = 1; i <= 3; ++i) {
    const auto out = dir / ("shard" + std::to_string(i));
    r = run_cli("pareto --config " + config + " --jobs 1 --shard " + std::to_string(i) +
                    "/3 --out " + out.string(),
                dir);
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    CHECK(fs::exists(out / "shard.json"));
    CHECK_FALSE(fs::exists(out / "report.html"));
    shard_dirs = out.string() + " " + shard_dirs;  // merge order must not matter
  }
  r = run_cli("merge " + shard_dirs + "--out " + (dir / "merged").string(), dir);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  const auto single = tree(dir / "single");
  const auto merged = tree(dir / "merged");
  CHECK(single.size() >= 13);  // csvs, sweep.json, 4 plots x 2 formats, script, report
  REQUIRE(single.size() == merged.size());
  for (const auto& [name, bytes] : single) {
    INFO(name);
    REQUIRE(merged.count(name));
    CHECK(merged.at(name) == bytes);
  }

  // An incomplete or doubled set of shards is refused, and nothing is written.
  r = run_cli("merge " + (dir / "shard1").string() + " " + (dir / "shard1").string() + " --out " +
                  (dir / "bad").string(),
              dir);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Catch::Contains("shard 1/3 is also in"));
  CHECK_THAT(r.output, Catch::Contains("shards 2, 3 of 3 are missing"));
  r = run_cli("merge " + (dir / "single").string() + " --out " + (dir / "bad").string(), dir);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Catch::Contains("not a shard directory"));
  CHECK_FALSE(fs::exists(dir / "bad"));
  fs::remove_all(dir);
}

TEST_CASE("a bad config fails before any point runs and lists every problem") {
  const auto dir = scratch_dir("pareto_bad");
  std::string text = kTinySweep;
  text.replace(text.find("\"static:k=4\""), 12, "\"no-such-policy\"");
  text.replace(text.find("[2, 16]"), 7, "[]");
  text.replace(text.find("\"tok_s_per_user_percentile\": 20"), 31,
               "\"tok_s_per_user_percentile\": 120, \"colour\": 1");
  // Without an mtp1 system and without "baseline", the tiers have nothing to compare against.
  text.replace(text.find("{\"drafter\": \"mtp1\""), 18, "{\"drafter\": \"dspark-7\"");
  const auto config = write_config(dir, text);
  const auto r =
      run_cli("pareto --config " + config + " --jobs 2 --out " + (dir / "out").string(), dir);
  INFO(r.output);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Catch::Contains(config + ":6: load.concurrency is empty"));
  CHECK_THAT(r.output, Catch::Contains(config + ":8: systems[0].policies[0]: unknown policy "
                                                "'no-such-policy'; valid: static"));
  CHECK_THAT(r.output, Catch::Contains(config + ":12: tok_s_per_user_percentile is 120"));
  CHECK_THAT(r.output, Catch::Contains(config + ":12: unknown key 'colour'"));
  CHECK_THAT(r.output, Catch::Contains(config + ":13: tiers_tok_s_per_user needs a baseline"));
  CHECK_FALSE(fs::exists(dir / "out"));
  for (const auto& e : fs::directory_iterator(dir)) {
    CHECK(e.path().filename().string().find("partial") == std::string::npos);
  }
  // A bad shard and a bad worker count are command-line problems, reported with the rest.
  const auto r2 = run_cli(
      "pareto --config " + config + " --shard 4/3 --jobs -1 --out " + (dir / "out").string(), dir);
  CHECK(r2.exit_code == 2);
  CHECK_THAT(r2.output, Catch::Contains("--shard: '4/3'"));
  CHECK_THAT(r2.output, Catch::Contains("--jobs must be >= 1"));
  CHECK_THAT(r2.output, Catch::Contains("unknown policy 'no-such-policy'"));
  // --check (what scripts/slurm/ runs before it queues shards) finds the same problems.
  const auto r3 =
      run_cli("pareto --config " + config + " --check --out " + (dir / "out").string(), dir);
  CHECK(r3.exit_code == 2);
  CHECK_THAT(r3.output, Catch::Contains(config + ":6: load.concurrency is empty"));
  CHECK_THAT(r3.output, Catch::Contains(config + ":13: tiers_tok_s_per_user needs a baseline"));
  CHECK_FALSE(fs::exists(dir / "out"));
  fs::remove_all(dir);
}

TEST_CASE("pareto --check counts the points a run or a shard would simulate and runs none") {
  const auto dir = scratch_dir("pareto_check");
  const auto config = write_config(dir, kTinySweep);
  // Points are dealt to shards in turn (point p to shard p mod N + 1): of 8, shard 1/3 gets 0, 3,
  // 6 and shard 3/3 gets 2, 5.
  for (const auto& [shard, expected] : std::vector<std::pair<std::string, std::string>>{
           {"", "checked   8 points would run"},
           {" --shard 1/3", "checked   3 points (shard 1/3) would run"},
           {" --shard 3/3", "checked   2 points (shard 3/3) would run"}}) {
    const auto r = run_cli(
        "pareto --config " + config + shard + " --check --out " + (dir / "out").string(), dir);
    INFO(r.output);
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.output, Catch::Contains(expected));
    CHECK(r.output.find("ran ") == std::string::npos);
    CHECK_FALSE(fs::exists(dir / "out"));
  }
  fs::remove_all(dir);
}

TEST_CASE("progress shows on a terminal and stays quiet in a pipe") {
  const auto dir = scratch_dir("pareto_progress");
  const auto config = write_config(dir, kTinySweep);
  const auto piped = run_cli(
      "pareto --config " + config + " --no-plots --jobs 1 --out " + (dir / "a").string(), dir);
  REQUIRE(piped.exit_code == 0);
  CHECK(piped.output.find('\r') == std::string::npos);
  CHECK(piped.output.find("sweep: ") == std::string::npos);
  // `script` gives the command a pseudo-terminal (util-linux, in every Debian).
  const std::string inner = std::string("'") + SPARKSIM_BINARY + "' pareto --config " + config +
                            " --no-plots --jobs 1 --out " + (dir / "b").string();
  const auto tty = run_shell("script -qec \"" + inner + "\" /dev/null", dir);
  INFO(tty.output);
  REQUIRE(tty.exit_code == 0);
  CHECK_THAT(tty.output, Catch::Contains("sweep: 8/8 points"));
  CHECK(tty.output.find('\r') != std::string::npos);
  fs::remove_all(dir);
}

TEST_CASE("slo: met tiers with ratios, unmeetable tiers said so, tiers need a baseline") {
  const auto dir = scratch_dir("slo_cli");
  const auto config = write_config(dir, kTinySweep);
  auto r = run_cli("slo --config " + config + " --tiers 60,100000 --percentile 50 --jobs 2 --out " +
                       (dir / "slo").string(),
                   dir);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.output, Catch::Contains("ANALYTIC"));
  CHECK_THAT(r.output, Catch::Contains("cannot meet at any swept load"));
  const CsvTable t = CsvTable::parse(read_file(dir / "slo" / "slo.csv"), "slo.csv");
  REQUIRE(t.rows() == 4);  // 2 tiers x 2 systems
  const auto status = t.column("status");
  const auto tput = t.column("throughput_tok_s_per_gpu");
  CHECK(t.cell(0, status) == "met");
  CHECK(t.cell(1, status) == "met");
  CHECK(t.cell(1, t.column("is_baseline")) == "1");
  CHECK(t.number(1, t.column("throughput_ratio_vs_baseline")) == Approx(1.0));
  CHECK(t.number(0, t.column("throughput_ratio_vs_baseline")) > 0);
  CHECK(t.cell(2, status) == "unmeetable");
  CHECK(t.cell(2, tput).empty());  // never a silent zero
  CHECK(t.cell(3, status) == "unmeetable");
  CHECK(t.cell(0, t.column("profile_source")) == "analytic");

  // Reusing the points of a pareto run gives the same table without simulating.
  REQUIRE(run_cli("pareto --config " + config + " --no-plots --jobs 2 --out " +
                      (dir / "sweep").string(),
                  dir)
              .exit_code == 0);
  r = run_cli("slo --points " + (dir / "sweep").string() +
                  " --tiers 60,100000 --percentile 50 --out " + (dir / "slo2").string(),
              dir);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK(read_file(dir / "slo2" / "slo.csv") == read_file(dir / "slo" / "slo.csv"));

  // Without an mtp1 system and without "baseline", tiers have nothing to compare against.
  std::string text = kTinySweep;
  const auto mtp1 = text.find(",\n    {\"drafter\": \"mtp1\"");
  text.erase(mtp1, text.find('}', mtp1) - mtp1 + 1);
  const auto no_base = write_config(dir, text, "no_base.json");
  r = run_cli(
      "slo --config " + no_base + " --tiers 60 --percentile 0 --out " + (dir / "slo3").string(),
      dir);
  INFO(r.output);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Catch::Contains("tiers_tok_s_per_user needs a baseline"));
  CHECK_THAT(r.output, Catch::Contains("--percentile is 0; must be in (0, 100)"));
  CHECK_FALSE(fs::exists(dir / "slo3"));
  fs::remove_all(dir);
}

TEST_CASE("a V4 sweep's report shows the tiers under every acceptance scenario, default named") {
  // Oracle: the same sweep run with the other scenario pinned (calibrated:scenario=...), whose
  // points and tier table must be exactly the band's column for that scenario; the default's
  // column is the report's own tier table.
  const auto dir = scratch_dir("pareto_v4_band");
  const std::string sweep = R"({
  "schema": "sparksim.sweep/1",
  "title": "tiny V4 comparison",
  "profile": "profiles/telemetry/deepseek-v4-flash.json",
  "workload": {"synthetic": "prompt=fixed:16,output=lognormal:200:0.5,domain=code,duration_s=20"},
  "load": {"concurrency": [5, 25]},
  "systems": [
    {"drafter": "dspark-5", "policies": ["async-topk"]},
    {"drafter": "mtp1", "policies": ["static:k=1"]}
  ],
  "seeds": [1],
  "acceptance": ")";
  const std::string tail = R"(",
  "tiers_tok_s_per_user": [80],
  "baseline": {"drafter": "mtp1", "policy": "static:k=1"}
}
)";
  const auto open = write_config(dir, sweep + "calibrated" + tail, "open.json");
  const auto pinned =
      write_config(dir, sweep + "calibrated:scenario=dspark-table1-qwen3" + tail, "pinned.json");
  for (const auto& [config, out] : {std::pair{open, "band"}, {pinned, "pinned"}}) {
    const auto r = run_cli(
        "pareto --no-plots --jobs 2 --config " + config + " --out " + (dir / out).string(), dir);
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    CHECK_THAT(r.output, Catch::Contains(std::string(out) == "band"
                                             ? "ran       4 points (+4 under the other acceptance "
                                               "scenarios)"
                                             : "ran       4 points in"));
  }
  CHECK(read_file(dir / "band" / "scenarios" / "dspark-table1-qwen3" / "points.csv") ==
        read_file(dir / "pinned" / "points.csv"));
  CHECK_FALSE(fs::exists(dir / "pinned" / "scenarios"));  // a pinned scenario has no band
  CHECK_FALSE(fs::exists(dir / "band" / "scenarios" / "v4-vllm-note"));  // the default is DIR's

  // tok/s per GPU and the ratio to the baseline at 80 tok/s/user, from a report's tier table.
  const auto tier_cells = [](const std::string& html) {
    const std::regex row(
        "<tr><td>80</td><td>dspark-5 \\+ async-topk</td><td>met[^<]*</td><td>([^<]*)</td>"
        "<td>[^<]*</td><td>([^<]*)x</td>");
    std::smatch m;
    REQUIRE(std::regex_search(html, m, row));
    return "<td>" + m[1].str() + "</td><td>" + m[2].str() + "</td>";
  };
  const std::string band = read_file(dir / "band" / "report.html");
  CHECK_THAT(band, Catch::Contains("<h2>Acceptance scenarios</h2>"));
  CHECK_THAT(band, Catch::Contains("<th>tok/s per GPU, v4-vllm-note (default)</th>"));
  CHECK_THAT(band, Catch::Contains("<th>vs baseline, dspark-table1-qwen3</th>"));
  CHECK_THAT(band,
             Catch::Contains("<tr><td>80</td><td>dspark-5 + async-topk</td>" + tier_cells(band) +
                             tier_cells(read_file(dir / "pinned" / "report.html"))));
  CHECK_THAT(read_file(dir / "pinned" / "report.html"),
             !Catch::Contains("<h2>Acceptance scenarios</h2>"));
  // Shards run only the default's points: the merged report says where the band comes from.
  auto r = run_cli("pareto --no-plots --jobs 1 --shard 1/1 --config " + open + " --out " +
                       (dir / "shard").string(),
                   dir);
  REQUIRE(r.exit_code == 0);
  r = run_cli(
      "merge --no-plots " + (dir / "shard").string() + " --out " + (dir / "merged").string(), dir);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(read_file(dir / "merged" / "report.html"),
             Catch::Contains("Merged shards do not run the acceptance scenario band"));
  CHECK_FALSE(fs::exists(dir / "merged" / "scenarios"));
  fs::remove_all(dir);
}
