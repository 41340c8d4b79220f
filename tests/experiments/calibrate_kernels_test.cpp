// The fitting and comparing halves of the kernel calibration pipeline: a sweep generated from
// known coefficients must be fitted back to them (the oracle is the generator), the fidelity
// figures of a hand-worked replay, `run --write-steps` accounting for every output token, and
// the whole CPU chain (scripts/calibrate_cpu.sh) producing a well-formed fidelity.json.
#include <cmath>
#include <filesystem>
#include <fstream>

#include <catch2/catch.hpp>

#include "common/csv_table.hpp"
#include "common/input_error.hpp"
#include "experiments/calibrate/measured_profile_fit.hpp"
#include "experiments/calibrate/replay_fidelity.hpp"
#include "profiles/profile_io.hpp"
#include "tests/experiments/cli_harness.hpp"

using namespace sparksim;
using sparksim::testing::read_json;
using sparksim::testing::run_cli;
using sparksim::testing::scratch_dir;

namespace {

void write(const std::filesystem::path& p, const std::string& text) {
  std::ofstream(p, std::ios::binary) << text;
}

const char* kInfo =
    "device=test device\ntarget=tiny\nhost_overhead_us=12.5\nweights_bytes=1000\n"
    "kv_bytes_per_token=10\nkv_capacity_tokens=100\nmedian_noise=0.02\n";

// verify: 50 + 3 tok + 0.02 ctx + 0.005 pairs; dspark: 7 + 11 γ + 2 Rγ + 0.001 γ C;
// eagle3: 4 + 9 γ + 1.5 Rγ + 0.002 γ C; mtp1 (γ = 1): 6 + 2.5 R + 0.003 C.
std::string synthetic_sweep() {
  std::string s =
      "kind,label,requests,gamma,verify_tokens,prefill_tokens,decode_context_tokens,"
      "verify_attention_pairs,prefill_attention_pairs,time_us,noise,samples\n";
  for (int r : {1, 2, 4, 8}) {
    for (int ctx : {30, 200, 700}) {
      for (int w : {1, 3}) {
        const double pairs = static_cast<double>(r) * w * ctx;
        const double us = 50 + 3.0 * r * w + 0.02 * r * ctx + 0.005 * pairs;
        s += "verify,v,";
        s += std::to_string(r) + ",0," + std::to_string(r * w) + ",0," + std::to_string(r * ctx) +
             "," + std::to_string(r * w * ctx) + ",0," + std::to_string(us) + ",0.01,3\n";
      }
      for (int g : {2, 5}) {
        const double us = 7 + 11.0 * g + 2.0 * r * g + 0.001 * g * r * ctx;
        s += "dspark,d," + std::to_string(r) + "," + std::to_string(g) + ",0,0," +
             std::to_string(r * ctx) + ",0,0," + std::to_string(us) + ",0.01,3\n";
        const double eagle = 4 + 9.0 * g + 1.5 * r * g + 0.002 * g * r * ctx;
        s += "eagle3,e," + std::to_string(r) + "," + std::to_string(g) + ",0,0," +
             std::to_string(r * ctx) + ",0,0," + std::to_string(eagle) + ",0.01,3\n";
      }
      const double mtp = 6 + 2.5 * r + 0.003 * r * ctx;
      s += "mtp1,m," + std::to_string(r) + ",1,0,0," + std::to_string(r * ctx) + ",0,0," +
           std::to_string(mtp) + ",0.01,3\n";
    }
  }
  return s;
}

}  // namespace

TEST_CASE(
    "calibrate kernels-fit recovers the generating coefficients and labels the profile measured") {
  const auto dir = scratch_dir("calib_fit");
  write(dir / "sweep.csv", synthetic_sweep());
  write(dir / "info.txt", kInfo);
  MeasuredFitInputs in{(dir / "sweep.csv").string(), (dir / "info.txt").string(), "why",
                       "2026-11-25", "s"};
  const MeasuredFit fit = fit_measured_profile(in);
  const Profile& p = fit.profile;
  CHECK(p.provenance.source == "measured");
  CHECK(p.provenance.gpu == "test device");
  CHECK(p.host_overhead_us == 12.5);
  CHECK(p.hbm_bytes == 1000 + 100 * 10);
  CHECK(p.verify.fixed_us == Approx(50).epsilon(1e-4));
  CHECK(p.verify.dense_us[0] == Approx(3).epsilon(1e-4));
  CHECK(p.verify.kv_read_ns_per_context_token == Approx(20).epsilon(1e-3));
  CHECK(p.verify.attention_ns_per_pair == Approx(5).epsilon(1e-3));
  REQUIRE(p.draft[static_cast<int>(DrafterFamily::kDspark)]);
  const DraftTimeModel& d = *p.draft[static_cast<int>(DrafterFamily::kDspark)];
  CHECK(d.fixed_us == Approx(7).epsilon(1e-3));
  CHECK(d.per_pass_us == Approx(11).epsilon(1e-3));
  CHECK(d.per_token_ns == Approx(2000).epsilon(1e-3));
  CHECK(d.kv_read_ns_per_context_token == Approx(1).epsilon(1e-3));
  CHECK(fit.report["verify"]["held_out"]["mean_abs_pct"].get<double>() < 1e-3);
  // EAGLE-3: γ sequential passes over R tokens each, re-reading its KV cache every pass.
  REQUIRE(p.draft[static_cast<int>(DrafterFamily::kEagle3)]);
  const DraftTimeModel& e = *p.draft[static_cast<int>(DrafterFamily::kEagle3)];
  CHECK(e.fixed_us == Approx(4).epsilon(1e-3));
  CHECK(e.per_pass_us == Approx(9).epsilon(1e-3));
  CHECK(e.per_token_ns == Approx(1500).epsilon(1e-3));
  CHECK(e.kv_read_ns_per_context_token == Approx(2).epsilon(1e-3));
  CHECK((e.sequential_in_gamma && e.tokens_scale_with_gamma && e.kv_read_per_pass));
  // MTP-1: one pass over R tokens; what the simulator charges it is the generator's.
  REQUIRE(p.draft[static_cast<int>(DrafterFamily::kMtp1)]);
  const DraftTimeModel& m = *p.draft[static_cast<int>(DrafterFamily::kMtp1)];
  CHECK(m.fixed_us + m.per_pass_us == Approx(6).epsilon(1e-3));
  CHECK(m.per_token_ns == Approx(2500).epsilon(1e-3));
  CHECK(m.kv_read_ns_per_context_token == Approx(3).epsilon(1e-3));
  CHECK_FALSE((m.sequential_in_gamma || m.tokens_scale_with_gamma || m.kv_read_per_pass));
  CHECK_THAT(p.provenance.notes, Catch::Contains("Drafters measured: mtp1, eagle3, dspark."));
  // dflash is not in the sweep: left out of the profile (no zero entry) and named in the notes.
  CHECK_FALSE(p.draft[static_cast<int>(DrafterFamily::kDflash)].has_value());
  CHECK_THAT(p.provenance.notes,
             Catch::Contains("Not measured (not in the profile): dflash (not in the sweep)."));
  // SPS(B) at the one reference shape, ceil(B/4) requests with 2048 cached tokens each, by hand
  // from the generator (no graph buckets: points 1, 64, 128, ...): B = 64 is 16 requests,
  // 50 + 3*64 + 0.02*16*2048 + 0.005*64*2048 = 1552.72 us.
  REQUIRE(p.sps.tokens.size() >= 2);
  CHECK(p.sps.tokens[1] == 64);
  CHECK(p.sps.steps_per_s[1] == Approx(1e6 / 1552.72).epsilon(1e-4));
  CHECK(p.sps.tokens.back() == 8192);
  // The written profile loads back through the normal loader.
  write_profile(p, (dir / "profile.json").string());
  const Profile loaded = load_profile((dir / "profile.json").string());
  CHECK(loaded.provenance.source == "measured");
  CHECK_FALSE(loaded.draft[static_cast<int>(DrafterFamily::kDflash)].has_value());
  CHECK(read_json(dir / "profile.json")["draft"].size() == 3);
}

TEST_CASE("calibrate kernels-fit stops at the bad row with path:line") {
  const auto dir = scratch_dir("calib_fit_bad");
  std::string sweep = synthetic_sweep();
  sweep += "verify,v,1,0,1,0,10,10,0,-5,0.01,3\n";
  write(dir / "sweep.csv", sweep);
  write(dir / "info.txt", kInfo);
  MeasuredFitInputs in{(dir / "sweep.csv").string(), (dir / "info.txt").string(), "", "", ""};
  const auto line = std::count(sweep.begin(), sweep.end(), '\n');
  try {
    fit_measured_profile(in);
    FAIL("no error");
  } catch (const InputError& e) {
    CHECK_THAT(e.what(),
               Catch::Contains((dir / "sweep.csv").string() + ":" + std::to_string(line) + ":"));
  }
}

TEST_CASE("calibrate kernels-fit refuses an mtp1 row drafting more than one token") {
  const auto dir = scratch_dir("calib_fit_mtp1");
  std::string sweep = synthetic_sweep();
  sweep += "mtp1,m,2,2,0,0,40,0,0,30,0.01,3\n";
  write(dir / "sweep.csv", sweep);
  write(dir / "info.txt", kInfo);
  MeasuredFitInputs in{(dir / "sweep.csv").string(), (dir / "info.txt").string(), "", "2026-11-25",
                       ""};
  const auto line = std::count(sweep.begin(), sweep.end(), '\n');
  CHECK_THROWS_WITH(fit_measured_profile(in), Catch::Contains((dir / "sweep.csv").string() + ":" +
                                                              std::to_string(line) + ":") &&
                                                  Catch::Contains("gamma must be 1"));
}

TEST_CASE(
    "calibrate kernels-fit leaves a drafter with too few points out of the profile and says so") {
  const auto dir = scratch_dir("calib_fit_few");
  std::string sweep = synthetic_sweep();
  sweep += "dflash,f,1,2,0,0,40,0,0,30,0.01,3\ndflash,f,2,2,0,0,80,0,0,40,0.01,3\n";
  write(dir / "sweep.csv", sweep);
  write(dir / "info.txt", kInfo);
  MeasuredFitInputs in{(dir / "sweep.csv").string(), (dir / "info.txt").string(), "", "2026-11-25",
                       ""};
  const MeasuredFit fit = fit_measured_profile(in);
  CHECK_FALSE(fit.profile.draft[static_cast<int>(DrafterFamily::kDflash)].has_value());
  CHECK(fit.profile.draft[static_cast<int>(DrafterFamily::kDspark)].has_value());
  CHECK_THAT(
      fit.profile.provenance.notes,
      Catch::Contains("Not measured (not in the profile): dflash (2 points, too few to fit)."));
  CHECK_FALSE(fit.report.contains("dflash"));
  // The file the fit writes has no dflash key at all (a zero entry would read as a free drafter).
  write_profile(fit.profile, (dir / "profile.json").string());
  const nlohmann::json written = read_json(dir / "profile.json");
  CHECK_FALSE(written["draft"].contains("dflash"));
  CHECK(written["draft"].contains("dspark"));
}

TEST_CASE("replay_fidelity: hand-worked step, throughput and TPOT errors") {
  const auto dir = scratch_dir("calib_fidelity");
  write(dir / "steps.csv",
        "step,duration_us,gamma,drafter,kind,request,context,width,commits\n"
        "0,110,4,dspark,decode,0,10,3,2\n0,110,4,dspark,decode,1,10,1,1\n"
        "1,90,4,dspark,decode,0,12,2,1\n");
  write(dir / "replay.csv",
        "step,verify_tokens,prefill_tokens,decode_requests,verify_us,draft_us,measured_us,noise\n"
        "0,4,0,2,60,40,100,0.01\n1,2,0,1,60,40,100,0.03\n");
  const auto j = replay_fidelity((dir / "steps.csv").string(), (dir / "replay.csv").string());
  CHECK(j["step_mape"].get<double>() == Approx(10));  // +10% and -10%
  CHECK(j["step_worst"].get<double>() == Approx(10));
  CHECK(j["throughput_error_pct"].get<double>() == Approx(0).margin(1e-9));  // 200 us both
  // Request 0: 200 us / 3 tokens both ways; request 1: 110 against 100 us for 1 token.
  const double predicted = (200.0 / 3 + 110) / 2, measured = (200.0 / 3 + 100) / 2;
  CHECK(j["tpot_error_pct"].get<double>() == Approx(100 * (predicted - measured) / measured));
  write(dir / "replay_bad.csv",
        "step,verify_tokens,prefill_tokens,decode_requests,verify_us,draft_us,measured_us,noise\n"
        "9,4,0,2,60,40,100,0.01\n");
  CHECK_THROWS_WITH(
      replay_fidelity((dir / "steps.csv").string(), (dir / "replay_bad.csv").string()),
      Catch::Contains("replay_bad.csv:2: step 9 is not in"));
}

TEST_CASE("run --write-steps: decode commits plus first tokens are the run's output tokens") {
  const auto dir = scratch_dir("write_steps");
  const auto r = run_cli(
      "run --profile profiles/analytic/h100-sxm/qwen3-8b.json --synthetic "
      "rate=20,cv=1.0,prompt=lognormal:200:0.5,output=lognormal:40:0.5,domain=chat,duration_s=3 "
      "--drafter dspark-4 --policy static:k=3 --seed 3 --write-steps --quiet --out '" +
          (dir / "run").string() + "'",
      dir);
  REQUIRE(r.exit_code == 0);
  const auto summary = read_json(dir / "run" / "summary.json");
  REQUIRE(summary["preemptions"].get<int>() == 0);
  const CsvTable steps =
      CsvTable::parse(sparksim::testing::read_file(dir / "run" / "steps.csv"), "steps.csv");
  std::int64_t commits = 0, last_step = -1;
  const auto c_kind = steps.column("kind"), c_commits = steps.column("commits"),
             c_step = steps.column("step"), c_width = steps.column("width");
  for (std::size_t i = 0; i < steps.rows(); ++i) {
    if (steps.cell(i, c_kind) == "decode") {
      commits += steps.integer(i, c_commits);
      CHECK(steps.integer(i, c_width) <= 4);  // 1 + k, k = 3
    }
    last_step = steps.integer(i, c_step);
  }
  CHECK(commits + summary["requests_completed"].get<std::int64_t>() ==
        summary["output_tokens"].get<std::int64_t>());
  CHECK(last_step + 1 == summary["steps"].get<std::int64_t>());
}
