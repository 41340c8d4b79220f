// The backend-agnostic calibration pieces: robust timing statistics, the sweep planner's caps and
// features, the appending sweep runner and the step-sequence reader, checked with a fake backend
// whose cost is a known linear function (the oracle), plus the CPU backend on one small batch.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <catch2/catch.hpp>

#include "kernels/calibration/cpu_step_backend.hpp"
#include "kernels/calibration/cuda_step_backend.hpp"
#include "kernels/calibration/step_replay.hpp"
#include "kernels/calibration/sweep_plan.hpp"

using namespace sparksim::kernels;

namespace {

// Cost = 10 + 2 per token + 0.01 per (query, context) pair, draft = 5 per request per gamma.
class LinearFakeBackend : public StepBackend {
 public:
  LinearFakeBackend() : StepBackend(4, 100) {}
  std::string device() const override { return "fake"; }
  double weights_bytes() const override { return 0; }
  double kv_bytes_per_token() const override { return 0; }
  double verify_us(const VerifyBatch& b) override {
    const BatchFeatures f = features_of(b);
    return 10 + 2.0 * (f.verify_tokens + f.prefill_tokens) +
           0.01 * static_cast<double>(f.verify_attention_pairs + f.prefill_attention_pairs);
  }
  double draft_us(const DraftBatch& b) override {
    return 5.0 * static_cast<double>(b.contexts.size()) * b.gamma;
  }
};

std::string write_temp(const std::string& name, const std::string& text) {
  const auto path = std::filesystem::temp_directory_path() / name;
  std::ofstream(path, std::ios::binary) << text;
  return path.string();
}

}  // namespace

TEST_CASE("time_robustly: median and IQR / median of the kept samples, warm-up discarded") {
  // Samples 100 (warm-up), then 5, 1, 4, 2, 3: sorted 1..5, median 3, p25 2, p75 4.
  const double samples[] = {100, 5, 1, 4, 2, 3};
  int i = 0;
  const RobustTiming t = time_robustly([&] { return samples[i++]; }, 1, 5);
  CHECK(t.median_us == Approx(3.0));
  CHECK(t.lower_half_us == Approx(2.0));  // the fastest 3 of 5: 1, 2, 3
  CHECK(estimate_us(t, TimingEstimator::kLowerHalf) == Approx(2.0));
  CHECK(estimate_us(t, TimingEstimator::kMedian) == Approx(3.0));
  CHECK(t.noise == Approx(2.0 / 3.0));
  CHECK(t.samples == 5);
  CHECK_THROWS(time_robustly([] { return 1.0; }, 0, 0));
}

TEST_CASE("time_interleaved: one sample of every item per round, warm-up rounds discarded") {
  // Item a returns 100 (warm-up), then 5, 1, 4; item b 200 (warm-up), then 9, 7, 8.
  std::string order;
  const double a[] = {100, 5, 1, 4};
  const double b[] = {200, 9, 7, 8};
  int ia = 0;
  int ib = 0;
  const std::vector<RobustTiming> t = time_interleaved({[&] {
                                                          order += 'a';
                                                          return a[ia++];
                                                        },
                                                        [&] {
                                                          order += 'b';
                                                          return b[ib++];
                                                        }},
                                                       1, 3);
  CHECK(order == "abababab");  // round-robin, not aaaabbbb
  REQUIRE(t.size() == 2);
  CHECK(t[0].median_us == Approx(4.0));
  CHECK(t[1].median_us == Approx(8.0));
  CHECK(t[0].samples == 3);
  CHECK(t[0].lower_half_us == Approx(2.5));  // the fastest 2 of 5, 1, 4
  CHECK_THROWS(time_interleaved({[] { return 1.0; }}, 0, 0));
  CHECK(parse_timing_estimator("lower-half") == TimingEstimator::kLowerHalf);
  CHECK_THROWS_WITH(parse_timing_estimator("mean"), Catch::Contains("median or lower-half"));
}

TEST_CASE("features_of counts tokens, context and pairs as the simulator's BatchShape does") {
  VerifyBatch b;
  b.segments = {{100, 3, false}, {50, 1, false}, {20, 8, true}};
  const BatchFeatures f = features_of(b);
  CHECK(f.requests == 2);
  CHECK(f.verify_tokens == 4);
  CHECK(f.decode_context_tokens == 150);
  CHECK(f.verify_attention_pairs == 3 * 100 + 1 * 50);
  CHECK(f.prefill_tokens == 8);
  CHECK(f.prefill_attention_pairs == 8 * (20 + 9 / 2));  // chunk * (cached + (chunk + 1) / 2)
}

TEST_CASE("plan_sweep keeps every point inside the backend's slots and covers each kind") {
  SweepGrid grid;
  const auto points = plan_sweep(grid, 4, 200);
  int verify = 0, prefill = 0;
  std::map<std::string, int> drafts;
  for (const SweepPoint& p : points) {
    if (p.kind == "verify") {
      ++verify;
      CHECK(static_cast<int>(p.verify.segments.size()) <= 4);
      for (const BatchSegment& s : p.verify.segments) {
        CHECK(s.context + s.width <= 200);
        prefill += s.prefill ? 1 : 0;
      }
    } else {
      ++drafts[p.kind];
      CHECK(p.kind == draft_family_name(p.draft.family));
      if (p.draft.family == DraftFamily::kMtp1) CHECK(p.draft.gamma == 1);
      CHECK(static_cast<int>(p.draft.contexts.size()) <= 4);
      for (int c : p.draft.contexts) CHECK(c + p.draft.gamma <= 200);
    }
  }
  CHECK(verify > 10);
  CHECK(prefill > 0);
  // Every family, requests x gammas x contexts; mtp1 at gamma 1 only: R {1, 2, 4} x contexts
  // {32, 128} (320 does not fit) = 6 points, the others x gammas {2, 4} = 12.
  CHECK(drafts.size() == 4u);
  CHECK(drafts["dspark"] == 12);
  CHECK(drafts["dflash"] == 12);
  CHECK(drafts["eagle3"] == 12);
  CHECK(drafts["mtp1"] == 6);
  grid.draft_families = {DraftFamily::kEagle3};
  for (const SweepPoint& p : plan_sweep(grid, 4, 200)) {
    CHECK((p.kind == "verify" || p.kind == "eagle3"));
  }
  // R = 8 does not fit 4 slots and context 320 does not fit 200 tokens: nothing planned there.
  CHECK(plan_sweep(grid, 8, 512).size() > points.size());
}

TEST_CASE("run_sweep appends one row per point with the backend's time, and obeys the time cap") {
  LinearFakeBackend backend;
  std::vector<SweepPoint> points(2);
  points[0].kind = "verify";
  points[0].label = std::string(1, 'a');
  points[0].verify.segments = {{10, 2, false}};
  points[1].kind = "dspark";
  points[1].label = std::string(1, 'b');
  points[1].draft = DraftBatch{3, DraftFamily::kDspark, {10, 20}};
  std::ostringstream csv;
  const SweepSummary s = run_sweep(backend, points, SweepLimits{30, 0, 3}, csv);
  CHECK(s.measured == 2);
  const std::string text = csv.str();
  CHECK(text.find(std::string(sweep_csv_header()) + "\n") == 0);
  CHECK(text.find("verify,a,1,0,2,0,10,20,0,14.200,0.00000,3\n") != std::string::npos);
  CHECK(text.find("dspark,b,2,3,0,0,30,0,0,30.000,0.00000,3\n") != std::string::npos);
  std::ostringstream none;
  const SweepSummary cut = run_sweep(backend, points, SweepLimits{-1, 0, 1}, none);
  CHECK(cut.cut_by_time);
  CHECK(cut.measured == 0);
}

TEST_CASE("read_step_sequence groups rows by step and reports path:line on a bad row") {
  const std::string good =
      write_temp("sparksim_steps_good.csv",
                 std::string(kStepsCsvHeader) +
                     "\n0,120.5,4,dspark,prefill,0,0,32,0\n"
                     "1,80,4,dspark,decode,0,32,3,2\n1,80,4,dspark,decode,1,40,1,1\n");
  const auto steps = read_step_sequence(good);
  REQUIRE(steps.size() == 2);
  CHECK(steps[0].draft.contexts.empty());
  CHECK(steps[0].verify.total_tokens() == 32);
  CHECK(steps[1].predicted_us == 80);
  CHECK(steps[1].draft.contexts == std::vector<int>{32, 40});
  CHECK(steps[1].verify.total_tokens() == 4);
  CHECK(steps[1].draft.family == DraftFamily::kDspark);
  const std::string ar = write_temp(
      "sparksim_steps_ar.csv", std::string(kStepsCsvHeader) +
                                   "\n0,50,1,mtp1,decode,0,9,2,1\n1,60,3,eagle3,decode,0,11,4,2\n");
  const auto ar_steps = read_step_sequence(ar);
  REQUIRE(ar_steps.size() == 2);
  CHECK(ar_steps[0].draft.family == DraftFamily::kMtp1);
  CHECK(ar_steps[1].draft.family == DraftFamily::kEagle3);
  CHECK(ar_steps[1].draft.gamma == 3);
  const std::string unknown =
      write_temp("sparksim_steps_unknown.csv",
                 std::string(kStepsCsvHeader) + "\n0,50,2,medusa,decode,0,9,2,1\n");
  CHECK_THROWS_WITH(read_step_sequence(unknown), Catch::Contains(unknown + ":2: drafter"));

  const std::string bad = write_temp("sparksim_steps_bad.csv",
                                     std::string(kStepsCsvHeader) +
                                         "\n0,10,4,dspark,decode,0,5,1,1\n0,10,4,dspark,decode,x,"
                                         "5,zero,1\n");
  try {
    read_step_sequence(bad);
    FAIL("no error");
  } catch (const std::invalid_argument& e) {
    CHECK(std::string(e.what()).find(bad + ":3:") == 0);
  }
}

TEST_CASE("replay_steps times each step as verify + draft of the fake backend") {
  LinearFakeBackend backend;
  ReplayStep s;
  s.step = 7;
  s.verify.segments = {{10, 2, false}};
  s.draft = DraftBatch{4, DraftFamily::kDspark, {10}};
  std::ostringstream csv;
  const ReplaySummary r = replay_steps(backend, {s}, 3, 30, csv);
  CHECK(r.steps == 1);
  // verify 10 + 4 + 0.2 = 14.2; draft 5 * 1 * 4 = 20.
  CHECK(csv.str().find("7,2,0,1,14.200,20.000,34.200,0.00000\n") != std::string::npos);
}

TEST_CASE("CpuStepBackend: more tokens cost more, batches beyond its slots are refused") {
  CpuStepBackend cpu(calibration_cpu_shape(), 1, 2, 64, 3);
  VerifyBatch one{{{8, 1, false}}};
  VerifyBatch many{{{8, 16, false}, {8, 16, false}}};
  const double small = time_robustly([&] { return cpu.verify_us(one); }, 1, 3).median_us;
  const double big = time_robustly([&] { return cpu.verify_us(many); }, 1, 3).median_us;
  CHECK(big > 8 * small);  // 32 tokens against 1: the dense part is linear in tokens
  CHECK(cpu.draft_us(DraftBatch{2, DraftFamily::kDspark, {8, 8}}) > 0);
  CHECK_THROWS_AS(cpu.verify_us(VerifyBatch{{{8, 1, false}, {8, 1, false}, {8, 1, false}}}),
                  std::invalid_argument);
  CHECK_THROWS_AS(cpu.draft_us(DraftBatch{4, DraftFamily::kDspark, {62}}), std::invalid_argument);
  CHECK(cpu.kv_bytes_per_token() == 2.0 * 4 * 2 * 2 * 48);
}

TEST_CASE("CpuStepBackend: MTP-1 and EAGLE-3 rounds, a pass per drafted token") {
  CpuStepBackend cpu(calibration_cpu_shape(), 1, 2, 64, 3);
  const auto median = [&](DraftFamily f, int gamma) {
    return time_robustly(
               [&] {
                 return cpu.draft_us(DraftBatch{gamma, f, {8, 8}});
               },
               1, 5)
        .median_us;
  };
  CHECK(median(DraftFamily::kMtp1, 1) > 0);
  // Six sequential passes against one: the round is the passes (each a layer and a head).
  CHECK(median(DraftFamily::kEagle3, 6) > 3 * median(DraftFamily::kEagle3, 1));
  CHECK_THROWS_AS(cpu.draft_us(DraftBatch{4, DraftFamily::kEagle3, {61}}), std::invalid_argument);
  CHECK_THROWS_AS(cpu.draft_us(DraftBatch{1, DraftFamily::kMtp1, {8, 8, 8}}),
                  std::invalid_argument);
  CHECK(parse_draft_family("eagle3") == DraftFamily::kEagle3);
  CHECK_THROWS_AS(parse_draft_family("eagle"), std::invalid_argument);
}

TEST_CASE("CudaStepBackend: NoCudaDevice without a device, positive event times with one") {
  // Both branches assert: the no-device branch is the path CI and the GPU script's "not run" take.
  const TransformerShape tiny = calibration_cpu_shape();
  if (gpu::device_count() == 0) {
    CHECK_THROWS_AS(CudaStepBackend(tiny, 2, 64, 1, 8), NoCudaDevice);
    return;
  }
  CudaStepBackend cuda(tiny, 2, 64, 1, 8);
  const VerifyBatch decode{{{8, 3, false}, {20, 1, false}}};
  const VerifyBatch prefill{{{0, 32, true}}};  // 32 tokens: beyond the 8-token graphs, eager
  CHECK(cuda.verify_us(decode) > 0);
  CHECK(cuda.verify_us(prefill) > 0);
  CHECK(cuda.draft_us(DraftBatch{4, DraftFamily::kDspark, {8, 20}}) > 0);
  CHECK(cuda.engine_step_us(DraftBatch{4, DraftFamily::kDspark, {8, 20}}, 3) > 0);
  CHECK(cuda.engine_step_us(DraftBatch{4, DraftFamily::kDspark, {8, 20}}, 3, 0.8) > 0);
  CHECK_THROWS_AS(cuda.engine_step_us(DraftBatch{4, DraftFamily::kDspark, {60}}, 3),
                  std::invalid_argument);
  CHECK_THROWS_AS(cuda.verify_us(VerifyBatch{{{0, 1, false}, {0, 1, false}, {0, 1, false}}}),
                  std::invalid_argument);
}
