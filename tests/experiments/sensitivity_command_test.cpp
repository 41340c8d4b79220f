// `sparksim sensitivity` end to end on a tiny synthetic comparison: a bad config stops with
// `path:line: what`, exit 2 and no output directory; the same config twice gives byte-identical
// files (joint design included); the report's tornado charts render in headless Chromium.
#include <regex>

#include <catch2/catch.hpp>

#include "cli_harness.hpp"
#include "shell_harness.hpp"

using namespace sparksim::testing;
namespace fs = std::filesystem;

namespace {

const char* kSweep = R"({
  "schema": "sparksim.sweep/1",
  "title": "tiny comparison",
  "profile": "profiles/analytic/h100-sxm/qwen3-8b.json",
  "workload": {"synthetic": "prompt=lognormal:300:0.5,output=lognormal:60:0.5,domain=code,duration_s=3"},
  "load": {"concurrency": [2, 8, 32]},
  "systems": [
    {"drafter": "dspark-7", "policies": ["greedy"]},
    {"drafter": "mtp1", "policies": ["static:k=1"]}
  ],
  "seeds": [1],
  "tiers_tok_s_per_user": [100],
  "baseline": {"drafter": "mtp1", "policy": "static:k=1"}
}
)";

std::string study(const fs::path& sweep, const std::string& first_input) {
  return R"({
  "schema": "sparksim.sensitivity/1",
  "title": "tiny study",
  "experiment": ")" +
         sweep.string() + R"(",
  "inputs": [
    )" + first_input +
         R"(,
    {"input": "draft_cost_x", "low": 0.5, "high": 3}
  ],
  "break_even": true,
  "joint": {"samples": 4, "seed": 5}
}
)";
}

}  // namespace

TEST_CASE("sensitivity: a bad config stops with path:line, exit 2 and writes nothing") {
  const auto dir = scratch_dir("sensitivity_bad");
  std::ofstream(dir / "sweep.json") << kSweep;
  std::ofstream(dir / "bad.json") << study(
      dir / "sweep.json", R"({"input": "acceptance_shfit", "low": -1, "high": 1})");
  const auto r = run_cli(
      "sensitivity --config " + (dir / "bad.json").string() + " --out " + (dir / "out").string(),
      dir);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Catch::Contains("bad.json:6: unknown input 'acceptance_shfit'"));
  CHECK_FALSE(fs::exists(dir / "out"));
  // A combination sparksim run refuses (a V4 scenario on a Qwen3 target) stops before any work.
  std::ofstream(dir / "bad2.json") << study(
      dir / "sweep.json",
      R"({"input": "acceptance_scenario", "low": "v4-vllm-note", "high": "dspark-table1-qwen3"})");
  const auto r2 = run_cli(
      "sensitivity --config " + (dir / "bad2.json").string() + " --out " + (dir / "out").string(),
      dir);
  CHECK(r2.exit_code == 2);
  CHECK_THAT(r2.output, Catch::Contains("bad2.json:6: acceptance_scenario at v4-vllm-note"));
  CHECK_FALSE(fs::exists(dir / "out"));
  // Arrival burstiness on a closed loop (which has no arrivals) stops before any work too.
  std::ofstream(dir / "bad3.json")
      << study(dir / "sweep.json", R"({"input": "arrival_cv", "low": 0.5, "high": 2})");
  const auto r3 = run_cli(
      "sensitivity --config " + (dir / "bad3.json").string() + " --out " + (dir / "out").string(),
      dir);
  CHECK(r3.exit_code == 2);
  CHECK_THAT(r3.output, Catch::Contains("bad3.json:6: arrival_cv at 0.5"));
  CHECK_THAT(r3.output, Catch::Contains("a closed loop has no arrival process"));
  CHECK_FALSE(fs::exists(dir / "out"));
  // Routing imbalance on a dense target (no routed experts) is refused at its line.
  std::ofstream(dir / "bad4.json")
      << study(dir / "sweep.json", R"({"input": "routing_imbalance", "low": 1, "high": 1.5})");
  const auto r4 = run_cli(
      "sensitivity --config " + (dir / "bad4.json").string() + " --out " + (dir / "out").string(),
      dir);
  CHECK(r4.exit_code == 2);
  CHECK_THAT(r4.output,
             Catch::Contains("bad4.json:6: routing_imbalance: the profile's target 'qwen3-8b' "
                             "is dense"));
  CHECK_FALSE(fs::exists(dir / "out"));
  fs::remove_all(dir);
}

TEST_CASE(
    "sensitivity: the same config gives byte-identical outputs and a report Chromium renders") {
  const auto dir = scratch_dir("sensitivity_same");
  std::ofstream(dir / "sweep.json") << kSweep;
  std::ofstream(dir / "study.json")
      << study(dir / "sweep.json", R"({"input": "acceptance_shift", "low": -1, "high": 1})");
  for (const char* out : {"a", "b"}) {
    const auto r = run_cli("sensitivity --jobs 2 --config " + (dir / "study.json").string() +
                               " --out " + (dir / out).string(),
                           dir);
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
  }
  for (const char* file : {"sensitivity.csv", "break_even.csv", "sobol.csv", "report.html",
                           "tornado.gp", "study.json"}) {
    INFO(file);
    CHECK(read_file(dir / "a" / file) == read_file(dir / "b" / file));
  }
  const std::string csv = read_file(dir / "a" / "sensitivity.csv");
  CHECK_THAT(csv, Catch::StartsWith("output,input,low,high,output_at_nominal,output_at_low,"
                                    "output_at_high,change\n"));
  CHECK_THAT(csv, Catch::Contains("tier gain dspark-7 + greedy @ 100 tok/s/user,acceptance_shift"));

  // The report in a real browser: every tornado decodes and shows both bar colours.
  INFO("chromium must be installed: scripts/install_deps.sh --test installs Debian's chromium");
  REQUIRE(run_shell("command -v chromium", dir).exit_code == 0);
  std::string html = read_file(dir / "a" / "report.html");
  const std::regex img("<img src=\"data:image/png;base64,");
  const auto images =
      std::distance(std::sregex_iterator(html.begin(), html.end(), img), std::sregex_iterator());
  CHECK(images >= 1);
  html.insert(html.rfind("</body>"), R"(<pre id="check">pending</pre><script>
window.addEventListener('load', function () {
  var imgs = document.images, ok = 0, low = 0, high = 0;
  for (var i = 0; i < imgs.length; i++) {
    if (!(imgs[i].complete && imgs[i].naturalWidth > 0)) continue;
    ok++;
    var c = document.createElement('canvas');
    c.width = imgs[i].naturalWidth; c.height = imgs[i].naturalHeight;
    var g = c.getContext('2d'); g.drawImage(imgs[i], 0, 0);
    var d = g.getImageData(0, 0, c.width, c.height).data;
    for (var k = 0; k < d.length; k += 4) {
      var v = (d[k] << 16) | (d[k + 1] << 8) | d[k + 2];
      if (v === 0x0072b2) low++;
      if (v === 0xd55e00) high++;
    }
  }
  document.getElementById('check').textContent =
      'images=' + imgs.length + ' decoded=' + ok + ' low=' + low + ' high=' + high;
});
</script>)");
  std::ofstream(dir / "checked.html", std::ios::binary) << html;
  const auto profile = dir / "chromium-profile";
  fs::create_directories(profile);
  const auto dom = run_shell(
      "timeout 120 chromium --headless --no-sandbox --disable-gpu --no-first-run "
      "--disable-background-networking --disable-component-update --disable-sync "
      "--user-data-dir='" +
          profile.string() + "' --dump-dom 'file://" + (dir / "checked.html").string() +
          "' 2>/dev/null",
      dir);
  std::smatch m;
  const std::regex re("images=([0-9]+) decoded=([0-9]+) low=([0-9]+) high=([0-9]+)");
  REQUIRE(std::regex_search(dom.output, m, re));
  CHECK(std::stol(m[1].str()) == images);
  CHECK(std::stol(m[2].str()) == images);
  CHECK(std::stol(m[3].str()) >= 200);  // bars at the inputs' low values
  CHECK(std::stol(m[4].str()) >= 200);  // and at their high values
  fs::remove_all(dir);
}

TEST_CASE("sensitivity: arrival_cv is swept end to end on a trace replay") {
  // The demo's kind of comparison (a trace replayed at rate scales), cut to 300 requests: the
  // input is accepted and swept end to end (what the re-drawn gaps are is tested against closed
  // forms in tests/traces/arrival_burstiness_test.cpp).
  const auto dir = scratch_dir("sensitivity_arrival_cv");
  std::string sweep = kSweep;
  const std::string synthetic = sweep.substr(sweep.find("\"workload\""));
  sweep = sweep.substr(0, sweep.find("\"workload\"")) +
          R"("workload": {"trace": "traces/azure_conv_2023.csv", "max_requests": 300},
  "load": {"rate_scale": [1, 4]},)" +
          synthetic.substr(synthetic.find("\n  \"systems\""));
  std::ofstream(dir / "sweep.json") << sweep;
  std::ofstream(dir / "study.json") << R"({
  "schema": "sparksim.sensitivity/1",
  "title": "arrival burstiness",
  "experiment": ")" + (dir / "sweep.json").string() +
                                           R"(",
  "inputs": [{"input": "arrival_cv", "low": 0.5, "high": 4}]
}
)";
  const auto r = run_cli("sensitivity --jobs 2 --config " + (dir / "study.json").string() +
                             " --out " + (dir / "out").string(),
                         dir);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  const std::string csv = read_file(dir / "out" / "sensitivity.csv");
  CHECK_THAT(csv, Catch::Contains(",arrival_cv,0.5,4,"));
  fs::remove_all(dir);
}
