// The measured-db profile generator: composes a (GPU, target) profile from a public kernel-
// latency database. The dense forward and the LM head are tabulated straight from the GEMM rows
// (at every CUDA-graph bucket and the database's own m grid beyond), decode attention from the
// decode rows (its (batch, context) grid); the remaining attention and per-step
// terms are fitted by least squares (profiles/fit/) to composed steps, three quarters of the
// fidelity points, and judged on the quarter held out; each drafter's linear draft model is
// fitted the same way. Provenance source "measured-db", naming the database, commit, framework
// and every term taken from outside the measured grid.
#pragma once

#include <array>
#include <string>

#include "common/json_file.hpp"
#include "profiles/fit/fit_error.hpp"
#include "profiles/fit/least_squares_fit.hpp"
#include "profiles/kernel_db/kernel_database.hpp"
#include "profiles/profile.hpp"
#include "profiles/step_composition/fidelity_points.hpp"

namespace sparksim {

// Every 4th fidelity point (offset 1) is held out of the fit.
inline constexpr std::size_t kHeldOutEvery = 4;
inline constexpr const char* kMeasuredDbTool = "sparksim profile-measured-db (composition r3)";

struct MeasuredDbBuild {
  Profile profile;
  LinearFit verify_fit;
  FitErrorReport verify_train;     // the fitted model on the points it was fitted to
  FitErrorReport verify_held_out;  // ... and on the held-out points
  std::array<LinearFit, kDrafterFamilyCount> draft_fit;
  std::array<FitErrorReport, kDrafterFamilyCount> draft_held_out;
};

// How the replica is deployed: tensor-parallel GPUs, the layers' GEMM precision ("bf16", or
// "fp8": per-tensor W8A8 rows, the LM head and attention math staying bf16 as in FP8 checkpoints)
// and the KV cache's element type ("bf16", or "fp8": decode and prefill attention from the
// database's kv_cache_dtype fp8 rows, half the KV bytes per token).
struct MeasuredDbDeployment {
  std::int64_t tensor_parallel = 1;
  std::string precision = "bf16";
  std::string kv_cache_dtype = "bf16";
};

// `database_dir` holds database.json (profiles/data/aic); `gpu` is "h100-sxm" or "h200-sxm".
// InputError (exit 2) for a TP degree the shape or the all-reduce rows do not cover, and for
// fp8 when the database has no fp8 GEMM rows for a layer projection without extrapolation.
MeasuredDbBuild make_measured_db_profile(const std::string& database_dir, const JsonFile& shapes,
                                         const std::string& gpu, const std::string& target,
                                         const std::string& date, const std::string& git_sha,
                                         const MeasuredDbDeployment& deployment = {});

// The database's gemm_dtype for a --precision ("bf16" -> "bfloat16", "fp8" -> "fp8");
// InputError for anything else.
std::string gemm_dtype_for_precision(const std::string& precision);

// The database's kv_cache_dtype for a --kv-cache-dtype ("bf16" -> "bfloat16", "fp8" -> "fp8");
// InputError for anything else.
std::string database_kv_cache_dtype(const std::string& kv_cache_dtype);

// Checks that every layer projection of `shard` (QKV, O, gate/up, down) has `db`'s GEMM rows
// without extrapolation; InputError naming the projection and the nearest measured shapes.
void require_layer_gemm_rows(const KernelDatabase& db, const DenseTargetShape& shard,
                             const std::string& precision);

// Sets the decode terms of `v` (fixed_us, per_request_us, KV read and attention per pair) from a
// verify fit with the columns fixed_us, per_request_us, kv_read_us_per_context_token and
// attention_us_per_pair (finish_profile rounds them as the files store them). The dense and the V4
// generators both fit these columns.
void set_fitted_decode_terms(VerifyTimeModel& v, const LinearFit& fit);

// Any profile's verify_time against the database composition on `points` (percent errors by
// region): the analytic generator's fidelity, or a saved measured-db profile's.
FitErrorReport profile_vs_composition(const Profile& profile, const StepComposer& composer,
                                      const std::vector<FidelityPoint>& points);

}  // namespace sparksim
