// sparksim_calibrate_kernels: the measuring half of the calibration pipeline, built from the
// kernels library alone (it runs on the GPU machine without the simulator's dependencies).
//   sweep  --out SWEEP.csv [--info INFO.txt]  the planned sweep, one row appended per point
//   replay --steps STEPS.csv --out REPLAY.csv  times a `sparksim run --write-steps` sequence
// Common: --backend cpu|cuda, --time-cap-s S, --repeats N, --max-requests R, --slot-tokens T,
// --seed N; cuda only: --target qwen3-8b|qwen3-4b|qwen3-14b|calib-cpu-tiny (default qwen3-8b),
// --graphs MAX_BUCKET (CUDA graphs per token bucket up to it; 0 eager; default 512).
// --interleave N: points (steps) whose repeats are interleaved (default 16; 1: each point's
// repeats back to back, the earlier behaviour, kept for the A/B of docs/calibration.md).
// --estimator median|lower-half: the statistic of the repeats (step_backend.hpp; default median).
// --drafters LIST (sweep): the drafter families swept, comma-separated from dspark, dflash, mtp1,
// eagle3 (default all four; mtp1 at gamma 1 only).
// Bad arguments exit 2 before work; --backend cuda without a device prints "not run: ..." and
// exits 77 (ctest's and the GPU script's "skipped").
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>

#include "kernels/calibration/cpu_step_backend.hpp"
#include "kernels/calibration/cuda_step_backend.hpp"
#include "kernels/calibration/step_replay.hpp"
#include "kernels/calibration/sweep_plan.hpp"

namespace {

using namespace sparksim::kernels;

struct Args {
  std::string mode;
  std::map<std::string, std::string> options;
  std::string get(const std::string& key, const std::string& fallback) const {
    const auto it = options.find(key);
    return it == options.end() ? fallback : it->second;
  }
  double number(const std::string& key, double fallback) const {
    const auto it = options.find(key);
    if (it == options.end()) return fallback;
    char* end = nullptr;
    const double v = std::strtod(it->second.c_str(), &end);
    if (end == it->second.c_str() || *end != '\0' || v <= 0) {
      throw std::invalid_argument(key + " " + it->second + ": must be a positive number");
    }
    return v;
  }
};

// "dspark,mtp1" -> the families, in the order given; throws std::invalid_argument on an unknown
// or repeated name or an empty list.
std::vector<DraftFamily> drafter_families(const std::string& list) {
  std::vector<DraftFamily> out;
  std::size_t begin = 0;
  while (begin <= list.size()) {
    const std::size_t comma = std::min(list.find(',', begin), list.size());
    const DraftFamily f = parse_draft_family(list.substr(begin, comma - begin));
    for (DraftFamily seen : out) {
      if (seen == f) throw std::invalid_argument("--drafters: " + list + " repeats a drafter");
    }
    out.push_back(f);
    begin = comma + 1;
  }
  return out;
}

Args parse(int argc, char** argv) {
  if (argc < 2) throw std::invalid_argument("usage: sparksim_calibrate_kernels sweep|replay ...");
  Args a;
  a.mode = argv[1];
  if (a.mode != "sweep" && a.mode != "replay") {
    throw std::invalid_argument("mode \"" + a.mode + "\": sweep or replay");
  }
  static const char* known[] = {"--backend",    "--out",     "--info",         "--steps",
                                "--time-cap-s", "--repeats", "--max-requests", "--slot-tokens",
                                "--seed",       "--target",  "--graphs",       "--interleave",
                                "--estimator",  "--drafters"};
  for (int i = 2; i < argc; i += 2) {
    const std::string key = argv[i];
    bool ok = false;
    for (const char* k : known) ok = ok || key == k;
    if (!ok || i + 1 >= argc) throw std::invalid_argument("unknown or valueless option " + key);
    a.options[key] = argv[i + 1];
  }
  if (a.get("--out", "").empty()) throw std::invalid_argument("--out PATH is required");
  if (a.options.contains("--drafters")) {
    if (a.mode != "sweep") throw std::invalid_argument("--drafters applies to sweep only");
    drafter_families(a.get("--drafters", ""));  // validated before any work
  }
  if (a.mode == "replay" && a.get("--steps", "").empty()) {
    throw std::invalid_argument("replay needs --steps PATH");
  }
  const std::string backend = a.get("--backend", "cpu");
  if (backend != "cpu" && backend != "cuda") {
    throw std::invalid_argument("--backend " + backend + ": cpu or cuda");
  }
  if (backend == "cpu" && (a.options.contains("--target") || a.options.contains("--graphs"))) {
    throw std::invalid_argument("--target and --graphs apply to --backend cuda only");
  }
  return a;
}

// The host work of one step outside the kernels on this backend: assembling the ragged batch
// and its features from the scheduler's per-request lists (median of many).
double measure_host_overhead_us() {
  const RobustTiming t = time_robustly(
      [] {
        const auto start = std::chrono::steady_clock::now();
        VerifyBatch b;
        for (int r = 0; r < 8; ++r) b.segments.push_back(BatchSegment{100 + r, 1 + r % 4, false});
        volatile auto f = features_of(b).verify_attention_pairs;
        (void)f;
        return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start)
            .count();
      },
      10, 201);
  return t.median_us;
}

int run(const Args& a) {
  const int max_requests = static_cast<int>(a.number("--max-requests", 8));
  const int slot_tokens = static_cast<int>(a.number("--slot-tokens", 512));
  const auto seed = static_cast<std::uint64_t>(a.number("--seed", 1));
  const double time_cap = a.number("--time-cap-s", 30);
  const int repeats = static_cast<int>(a.number("--repeats", 5));
  const int interleave = static_cast<int>(a.number("--interleave", 16));
  const TimingEstimator estimator = parse_timing_estimator(a.get("--estimator", "median"));
  std::vector<ReplayStep> steps;
  if (a.mode == "replay") steps = read_step_sequence(a.get("--steps", ""));  // before any work

  const bool cuda = a.get("--backend", "cpu") == "cuda";
  // The CUDA target (validated before any work); the CPU backend has its one tiny shape.
  const std::string target_name = a.get("--target", "qwen3-8b");
  const TransformerShape target = !cuda || target_name == calibration_cpu_shape().name
                                      ? calibration_cpu_shape()
                                      : qwen3_shape(target_name);
  const auto graphs =
      static_cast<int>(a.options.contains("--graphs") ? a.number("--graphs", 1) : 512);
  std::unique_ptr<StepBackend> backend;
  if (cuda) {
    backend = std::make_unique<CudaStepBackend>(target, max_requests, slot_tokens, seed, graphs);
  } else {
    backend = std::make_unique<CpuStepBackend>(target, 1, max_requests, slot_tokens, seed);
  }
  const double weights_bytes = backend->weights_bytes();
  const double kv_bytes_per_token = backend->kv_bytes_per_token();
  std::ofstream out(a.get("--out", ""), std::ios::binary);
  if (!out) throw std::invalid_argument(a.get("--out", "") + ":0: cannot create");
  if (a.mode == "sweep") {
    SweepGrid grid;
    grid.seed = seed;
    if (cuda && target.name != calibration_cpu_shape().name) {
      // A real target on a GPU: serving-sized batches and contexts (plan_sweep drops what does
      // not fit the slots).
      grid.requests = {1, 2, 4, 8, 16, 32};
      grid.contexts = {256, 1024, 2048};
      grid.verify_widths = {1, 2, 4, 8};
      grid.prefill_chunks = {128, 512};
      grid.draft_gammas = {4, 7};
    }
    if (a.options.contains("--drafters"))
      grid.draft_families = drafter_families(a.get("--drafters", ""));
    const auto points = plan_sweep(grid, max_requests, slot_tokens);
    const SweepSummary s =
        run_sweep(*backend, points, SweepLimits{time_cap, 1, repeats, interleave, estimator}, out);
    std::printf("sweep: %d of %d points in %.1f s%s, median noise (IQR/median) %.3f\n", s.measured,
                s.planned, s.wall_s, s.cut_by_time ? " (cut by the time cap)" : "", s.median_noise);
    const std::string info = a.get("--info", "");
    if (!info.empty()) {
      std::ofstream f(info, std::ios::binary);
      f << "device=" << backend->device() << "\n"
        << "host_overhead_us=" << measure_host_overhead_us() << "\n"
        << "target=" << target.name << "\n"
        << "weights_bytes=" << weights_bytes << "\n"
        << "kv_bytes_per_token=" << kv_bytes_per_token << "\n"
        << "kv_capacity_tokens=" << max_requests * slot_tokens << "\n"
        << "graph_max_bucket=" << (cuda ? graphs : 0) << "\n"
        << "estimator=" << timing_estimator_name(estimator) << "\n"
        << "median_noise=" << s.median_noise << "\n"
        << "points=" << s.measured << "\n";
      if (!f) throw std::runtime_error("failed writing " + info);
    }
  } else {
    const ReplaySummary s =
        replay_steps(*backend, steps, repeats, time_cap, out, interleave, estimator);
    std::printf("replay: %d of %zu steps in %.1f s%s, median noise (IQR/median) %.3f\n", s.steps,
                steps.size(), s.wall_s, s.cut_by_time ? " (cut by the time cap)" : "",
                s.median_noise);
  }
  if (!out) throw std::runtime_error("failed writing " + a.get("--out", ""));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Args args;
  try {
    args = parse(argc, argv);
    return run(args);
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 2;
  } catch (const NoCudaDevice& e) {
    std::printf("not run: %s\n", e.what());
    return 77;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
