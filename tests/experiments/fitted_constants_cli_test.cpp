// Fitted roofline constants through the real binary (issue 17 item 6): `profile analytic
// --constants F` writes exactly the profile make_analytic_profile gives with F's constants
// passed directly (only its tool and notes say more), a bad F exits 2 with `path:line` and writes
// nothing, and the bundled fitted file is what `calibrate roofline --write` regenerates.
#include <filesystem>
#include <fstream>

#include <catch2/catch.hpp>

#include "common/json_file.hpp"
#include "profiles/analytic_profile.hpp"
#include "profiles/fitted_roofline_constants.hpp"
#include "profiles/profile_io.hpp"
#include "tests/experiments/cli_harness.hpp"

namespace sparksim::testing {
namespace {

namespace fs = std::filesystem;
const std::string kSource = SPARKSIM_SOURCE_DIR;
const std::string kBundled = "profiles/analytic/roofline-constants-fitted-aic.json";

// Constants unlike both the defaults and the bundled fit, so a --constants the command ignored
// (or read wrongly) shows.
FittedRooflineConstants odd_constants() {
  FittedRooflineConstants f;
  f.constants.bandwidth_efficiency = 0.81;
  f.constants.gemm_efficiency = 0.62;
  f.constants.attention_efficiency = 0.44;
  f.constants.kernel_overhead_us = 3.3;
  f.constants.step_fixed_us = 11.0;
  f.database = "aiconfigurator";
  f.database_repository = "ai-dynamo/aiconfigurator";
  f.database_commit = "095f58a51c4ca8e61b66ec108d86f223f8d559ce";
  f.framework = "vLLM 0.24.0";
  f.pairs = {"h100-sxm/qwen3-8b"};
  f.rms_relative_error_before = 0.2;
  f.rms_relative_error_after = 0.05;
  f.date = "2026-11-25";
  f.tool = "sparksim recalibrate-analytic";
  return f;
}

TEST_CASE("profile analytic --constants gives the generator's profile with those constants",
          "[cli][fitted_constants]") {
  const fs::path dir = scratch_dir("fitted_constants_profile");
  const FittedRooflineConstants f = odd_constants();
  const std::string constants = (dir / "c.json").string();
  write_fitted_roofline_constants(f, constants);
  const fs::path out = dir / "h100-qwen3-8b.json";
  const CliResult r = run_cli(
      "profile analytic --gpu h100 --target qwen3-8b --date 2026-11-25 --git-sha t1 "
      "--constants '" +
          constants + "' --out '" + out.string() + "'",
      dir);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);

  const JsonFile shapes = JsonFile::load(kSource + "/profiles/model_shapes.json");
  const fs::path direct_path = dir / "direct.json";
  write_profile(make_analytic_profile(shapes, "h100", "qwen3-8b", "2026-11-25", "t1", f.constants),
                direct_path.string());
  const fs::path default_path = dir / "default.json";
  write_profile(make_analytic_profile(shapes, "h100", "qwen3-8b", "2026-11-25", "t1"),
                default_path.string());

  nlohmann::json cli = read_json(out);
  nlohmann::json direct = read_json(direct_path);
  nlohmann::json defaults = read_json(default_path);
  CHECK(cli["provenance"]["source"] == "analytic");
  CHECK(cli["provenance"]["tool"] == kAnalyticFittedTool);
  const std::string notes = cli["provenance"]["notes"];
  CHECK(notes.find("FITTED to measured-db") != std::string::npos);
  CHECK(notes.find("aiconfigurator") != std::string::npos);
  CHECK(notes.find("095f58a51c4c") != std::string::npos);
  CHECK(notes.find(constants) != std::string::npos);
  CHECK(r.output.find("ANALYTIC (fitted constants)") != std::string::npos);
  for (nlohmann::json* j : {&cli, &direct, &defaults}) {
    (*j)["provenance"].erase("tool");
    (*j)["provenance"].erase("notes");
  }
  CHECK(cli == direct);
  CHECK(cli != defaults);  // the constants did change the step times
  // The profile loads, and its label says what it is.
  const Profile loaded = load_profile(out.string());
  CHECK(loaded.label().find("ANALYTIC") == 0);
  CHECK(loaded.label().find("fitted to measured-db") != std::string::npos);
  fs::remove_all(dir);
}

TEST_CASE("profile analytic rejects a bad constants file with path:line and writes nothing",
          "[cli][fitted_constants]") {
  const fs::path dir = scratch_dir("fitted_constants_bad");
  const std::string good = format_fitted_roofline_constants(odd_constants());
  const auto bad_run = [&](const std::string& from, const std::string& to) {
    std::string text = good;
    const std::size_t at = text.find(from);
    REQUIRE(at != std::string::npos);
    text.replace(at, from.size(), to);
    const std::string path = (dir / "bad.json").string();
    std::ofstream(path) << text;
    const fs::path out = dir / "never.json";
    const CliResult r = run_cli("profile analytic --gpu h100 --target qwen3-8b --constants '" +
                                    path + "' --out '" + out.string() + "'",
                                dir);
    INFO(r.output);
    CHECK(r.exit_code == 2);
    CHECK(r.output.find(path + ":") != std::string::npos);
    CHECK_FALSE(fs::exists(out));
    return r.output;
  };
  CHECK(bad_run("\"attention_efficiency\"", "\"attn_efficiency\"").find("attn_efficiency") !=
        std::string::npos);
  bad_run("\"step_fixed_us\": 11", "\"step_fixed_us\": -11");
  bad_run("\"bandwidth_efficiency\": 0.81", "\"bandwidth_efficiency\": 0");
  bad_run(",\n    \"kernel_overhead_us\": 3.3", "");
  bad_run("\"database_commit\"", "\"commit\"");
  fs::remove_all(dir);
}

TEST_CASE("the bundled fitted constants are what calibrate roofline --write regenerates",
          "[cli][fitted_constants]") {
  const fs::path dir = scratch_dir("fitted_constants_regenerate");
  const nlohmann::json bundled = read_json(fs::path(kSource) / kBundled);
  const std::string date = bundled["provenance"]["date"];
  const std::string sha = bundled["provenance"]["git_sha"];
  const fs::path out = dir / "fitted.json";
  const CliResult r = run_cli("calibrate roofline --date " + date + " --git-sha '" + sha +
                                  "' --write '" + out.string() + "'",
                              dir);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK(read_file(out) == read_file(fs::path(kSource) / kBundled));
  // A bad --date stops before the fit and writes nothing.
  const fs::path never = dir / "never.json";
  const CliResult bad =
      run_cli("calibrate roofline --date 25/11/2026 --write '" + never.string() + "'", dir);
  CHECK(bad.exit_code == 2);
  CHECK_FALSE(fs::exists(never));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace sparksim::testing
