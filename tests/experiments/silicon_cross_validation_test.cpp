// The per-step host term and the leave-one-group-out report on data whose true terms are known:
// the bounded least squares against its closed form (exact and with noise), and `validate
// --silicon --cross-validate groups` on a synthetic silicon file replayed on the 10 ms-per-step
// golden profile, where a step with host cost h lasts 10 ms + h, so TTFT and TPOT are 10 ms + h
// exactly (silicon_replay_test.cpp works that timeline by hand).
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "cli_harness.hpp"
#include "experiments/validate/host_term_fit.hpp"
#include "silicon_test_header.hpp"

using namespace sparksim;
using namespace sparksim::testing;

namespace {

const std::string kSource = SPARKSIM_SOURCE_DIR;
const std::string kGoldenProfile = "tests/experiments/golden/two_requests/profile.json";

// Three rows of one group (prompts 100, 120, 140; 3 output tokens; 2 users; TP 2), measured
// TTFT = TPOT = `ms` (what a 10 ms step plus a host cost gives).
std::string group_rows(const std::string& id, const std::string& backend,
                       const std::string& version, const std::string& model, double ms) {
  std::ostringstream out;
  for (int isl : {100, 120, 140}) {
    out << id << isl << ",src," << backend << "," << version << "," << model << ",h100_sxm,,agg,"
        << isl << ",3,,,2,2,1,1,1,1,,,,,,,,,,,,,,," << ms << "," << ms << "\n";
  }
  return out.str();
}

std::string split_group(const std::string& backend, const std::string& version,
                        const std::string& target, const std::string& role) {
  return R"({"backend": ")" + backend + R"(", "backend_version": ")" + version +
         R"(", "target": ")" + target + R"(", "role": ")" + role + R"("})";
}

// Rows of a CSV by their first cell.
std::map<std::string, std::vector<std::string>> csv_rows(const std::string& text) {
  std::map<std::string, std::vector<std::string>> rows;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    std::string cell;
    std::istringstream l(line);
    while (std::getline(l, cell, ',')) cells.push_back(cell);
    rows[cells.front()] = cells;
  }
  return rows;
}

double cell(const std::map<std::string, std::vector<std::string>>& rows, const std::string& group,
            std::size_t column) {
  return std::stod(rows.at(group).at(column));
}

}  // namespace

TEST_CASE("host term: bounded least squares in relative error, per engine and pooled") {
  // Cases replayed at 0 and at a 1000 us probe, TPOT moving one for one (d = 1): engine a's true
  // cost 500 us over a 10 ms step, b's 1500 us.
  const auto one = [](const std::string& engine, double measured) {
    return HostFitCase{engine, measured, 10.0, 11.0, 1000};
  };
  std::vector<HostFitCase> cases;
  for (int i = 0; i < 3; ++i) cases.push_back(one("a", 10.5));
  for (int i = 0; i < 3; ++i) cases.push_back(one("b", 11.5));
  const HostTermFit fit = fit_host_terms(cases);
  CHECK(fit.by_engine.at("a").per_step_us == Approx(500));
  CHECK(fit.by_engine.at("b").per_step_us == Approx(1500));
  // Pooled: h = sum(r / m^2) / sum(1 / m^2) with r = m - 10 (the normal equation, d = 1).
  const double wa = 1 / (10.5 * 10.5), wb = 1 / (11.5 * 11.5);
  CHECK(fit.pooled.per_step_us == Approx(1e3 * (3 * wa * 0.5 + 3 * wb * 1.5) / (3 * wa + 3 * wb)));
  CHECK(fit.for_engine("c").per_step_us == fit.pooled.per_step_us);
  CHECK_THAT(fit.for_engine("c").basis, Catch::Contains("pooled over 6 cases"));

  SECTION("a slope other than one: the fit divides by it") {
    // TPOT moving half as fast as the host cost (d = 0.5): 0.25 ms of residual is 500 us.
    std::vector<HostFitCase> half(3, HostFitCase{"a", 10.25, 10.0, 10.5, 1000});
    CHECK(fit_host_terms(half).by_engine.at("a").per_step_us == Approx(500));
  }
  SECTION("bounds: below 0 is 0, above the ceiling is the ceiling, the value before is kept") {
    std::vector<HostFitCase> fast(3, one("a", 9.0));
    const HostTermFit f = fit_host_terms(fast);
    CHECK(f.by_engine.at("a").per_step_us == 0);
    CHECK(f.by_engine.at("a").unclamped_us == Approx(-1000));
    std::vector<HostFitCase> slow(3, one("a", 20.0));
    CHECK(fit_host_terms(slow).by_engine.at("a").per_step_us == 3000);
  }
  SECTION("fewer than three cases identify nothing") {
    std::vector<HostFitCase> two(2, one("a", 10.5));
    const HostTermFit f = fit_host_terms(two);
    CHECK(f.by_engine.empty());
    CHECK(f.for_engine("a").basis == "not identified");
    CHECK(f.for_engine("a").per_step_us == 0);
  }
  SECTION("noise: the estimate stays within the noise's reach of the true value") {
    // Measured = (10 ms + 800 us)(1 + e_i), |e_i| <= 3%: the estimate is a weighted mean of the
    // residuals m_i - 10, each within 0.03 x 10.8 ms of 0.8 ms, so within 324 us of 800 us.
    const double noise[] = {0.03, -0.02, 0.01, -0.03, 0.0, 0.02, -0.01};
    std::vector<HostFitCase> noisy;
    for (double e : noise) noisy.push_back(one("a", 10.8 * (1 + e)));
    const double h = fit_host_terms(noisy).by_engine.at("a").per_step_us;
    CHECK(h == Approx(800).margin(0.03 * 10.8e3));
    CHECK(h != Approx(800).margin(1e-6));  // the noise did move it: the bound above is the test
  }
}

TEST_CASE(
    "validate --silicon --cross-validate groups: known terms recovered, held-out errors "
    "in closed form, check cases never reach a fit") {
  const auto dir = scratch_dir("silicon_cross_validation");
  std::filesystem::create_directories(dir / "profiles/h100-sxm");
  for (const char* name : {"qwen3-32b-tp2.json", "llama-3.1-8b-tp2.json"}) {
    std::filesystem::copy_file(kSource + "/" + kGoldenProfile, dir / "profiles/h100-sxm" / name,
                               std::filesystem::copy_options::overwrite_existing);
  }
  // True terms: vLLM 0.12 500 us (two calibration groups), SGLang 0.5 1500 us (one), TensorRT-LLM
  // 1.0 2000 us (a check group; no calibration case of its engine).
  const auto write_sample =
      [&](double trtllm_ms) {
        std::ofstream(dir / "s.csv")
            << kSiliconHeader << group_rows("a", "vllm", "0.12.0", "Qwen/Qwen3-32B", 10.5)
            << group_rows("b", "vllm", "0.12.0", "meta-llama/Llama-3.1-8B-Instruct", 10.5)
            << group_rows("c", "sglang", "0.5.8.post1", "Qwen/Qwen3-32B", 11.5)
            << group_rows("d", "trtllm", "1.0.0rc3", "meta-llama/Llama-3.1-8B-Instruct", trtllm_ms);
      };
  std::ofstream(dir / "split.json")
      << R"({"schema": "sparksim.silicon-split/1", "groups": [)"
      << split_group("vllm", "0.12.0", "qwen3-32b", "calibration") << ", "
      << split_group("vllm", "0.12.0", "llama-3.1-8b", "calibration") << ", "
      << split_group("sglang", "0.5.8.post1", "qwen3-32b", "calibration") << ", "
      << split_group("trtllm", "1.0.0rc3", "llama-3.1-8b", "check") << "]}";
  const auto run = [&](const std::string& tag) {
    return run_cli(
        "validate --silicon " + (dir / "s.csv").string() + " --silicon-profiles " +
            (dir / "profiles").string() + " --silicon-requests-per-user 2 --silicon-split " +
            (dir / "split.json").string() + " --cross-validate groups " + "--cross-validate-csv " +
            (dir / (tag + ".csv")).string() + " --json " + (dir / (tag + ".json")).string(),
        dir);
  };
  write_sample(12.0);
  const auto r = run("a");
  INFO(r.output);
  REQUIRE((r.exit_code == 0 || r.exit_code == 3));
  const auto terms = read_json(dir / "a.json").at("host_terms");
  CHECK(terms["by_engine"]["vllm@0.12"]["per_step_us"].get<double>() == Approx(500));
  CHECK(terms["by_engine"]["sglang@0.5"]["per_step_us"].get<double>() == Approx(1500));
  CHECK_FALSE(terms["by_engine"].contains("trtllm@1.0"));
  const double wa = 1 / (10.5 * 10.5), wc = 1 / (11.5 * 11.5);
  const double pooled_ms = (6 * wa * 0.5 + 3 * wc * 1.5) / (6 * wa + 3 * wc);
  CHECK(terms["pooled"]["per_step_us"].get<double>() == Approx(1e3 * pooled_ms));

  const auto rows = csv_rows(read_file(dir / "a.csv"));
  // Columns: group, role, cases, engine, per_step_us, unclamped_us, fit_cases, term_basis,
  // ttft, tpot, throughput (mean |error|), tpot_bias.
  // Held out, each vLLM group is predicted by the other's 500 us: no error.
  for (const char* g : {"vllm 0.12.0 / qwen3-32b", "vllm 0.12.0 / llama-3.1-8b"}) {
    CHECK(cell(rows, g, 4) == Approx(500));
    CHECK(cell(rows, g, 6) == 3);
    CHECK(cell(rows, g, 9) == Approx(0).margin(1e-6));
    CHECK(cell(rows, g, 10) == Approx(0).margin(1e-6));
  }
  // Held out, SGLang has no case left: the pooled 500 us of the vLLM groups predicts 10.5 ms
  // against 11.5 measured; throughput (3 tokens per 3 steps per user) is off by 11.5 / 10.5 - 1.
  const std::string sglang = "sglang 0.5.8.post1 / qwen3-32b";
  CHECK(cell(rows, sglang, 4) == Approx(500));
  CHECK(cell(rows, sglang, 8) == Approx(1.0 / 11.5).epsilon(1e-5));
  CHECK(cell(rows, sglang, 9) == Approx(1.0 / 11.5).epsilon(1e-5));
  CHECK(cell(rows, sglang, 11) == Approx(-1.0 / 11.5).epsilon(1e-5));
  CHECK(cell(rows, sglang, 10) == Approx(11.5 / 10.5 - 1).epsilon(1e-5));
  // The check group: TensorRT-LLM gets the pooled term of every calibration case.
  const std::string trtllm = "trtllm 1.0.0rc3 / llama-3.1-8b";
  CHECK(rows.at(trtllm).at(1) == "check");
  CHECK(cell(rows, trtllm, 4) == Approx(1e3 * pooled_ms).epsilon(1e-4));
  CHECK(cell(rows, trtllm, 11) == Approx((10 + pooled_ms - 12) / 12).epsilon(1e-4));

  // A check case's measurement never reaches a fit: change it and the terms do not move.
  write_sample(30.0);
  const auto changed = run("b");
  INFO(changed.output);
  CHECK(read_json(dir / "b.json").at("host_terms") == terms);
  const auto rows_b = csv_rows(read_file(dir / "b.csv"));
  CHECK(rows_b.at(sglang) == rows.at(sglang));
  CHECK(rows_b.at(trtllm).at(4) == rows.at(trtllm).at(4));
  CHECK(rows_b.at(trtllm).at(11) != rows.at(trtllm).at(11));  // its own error does move

  // Without a split there is nothing to hold out: exit 2 before any replay.
  const auto no_split =
      run_cli("validate --silicon " + (dir / "s.csv").string() + " --silicon-profiles " +
                  (dir / "profiles").string() + " --cross-validate groups",
              dir);
  CHECK(no_split.exit_code == 2);
  CHECK_THAT(no_split.output, Catch::Contains("--cross-validate needs --silicon-split"));
  const auto bad_mode =
      run_cli("validate --silicon " + (dir / "s.csv").string() + " --silicon-split " +
                  (dir / "split.json").string() + " --cross-validate cases",
              dir);
  CHECK(bad_mode.exit_code == 2);
  CHECK_THAT(bad_mode.output, Catch::Contains("the only mode is 'groups'"));
}
