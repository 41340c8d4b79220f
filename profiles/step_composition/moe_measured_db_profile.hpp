// The measured-db profile of a DeepSeek-V4 replica GPU (dep<N>): the verify step's token part
// tabulated from MoeStepComposer at every CUDA-graph bucket (and powers of two to 8192), the
// attention's context growth and a per-request term fitted by least squares (profiles/fit/) to
// composed steps (every 4th held out and reported), the drafters from composed draft steps by
// their secants; memory and host overhead as the analytic MoE profile. Provenance "measured-db"
// naming the database, its commit, the frameworks and every term taken from outside the grid.
#pragma once

#include <string>

#include "profiles/fit/fit_error.hpp"
#include "profiles/fit/least_squares_fit.hpp"
#include "profiles/moe/moe_gpu.hpp"
#include "profiles/moe/moe_target.hpp"
#include "profiles/moe/replica_topology.hpp"
#include "profiles/profile.hpp"

namespace sparksim {

struct MoeMeasuredDbOptions {
  std::string database_dir;               // holds database.json (profiles/data/aic)
  std::string distribution = "balanced";  // moe.csv routing: balanced | power_law_1.01 | _1.2
  bool two_batch_overlap = false;
  std::int64_t planned_requests = 256;
};

struct MoeMeasuredDbBuild {
  Profile profile;
  LinearFit verify_fit;
  FitErrorReport verify_train;     // the saved profile against the composition, fitted points
  FitErrorReport verify_held_out;  // ... and the held-out points
  FitErrorReport draft_mtp1;       // saved MTP-1 draft model vs composed, R = 1..512
  FitErrorReport draft_dspark5;    // saved DSpark-5 draft model vs composed, R = 1..512
};

inline constexpr const char* kMoeMeasuredDbTool =
    "sparksim profile-moe --measured-db (v4 composition r1)";

MoeMeasuredDbBuild make_moe_measured_db_profile(const MoeTarget& target, const MoeGpu& gpu,
                                                const ReplicaTopology& topology,
                                                const MoeMeasuredDbOptions& options,
                                                const std::string& date,
                                                const std::string& git_sha);

}  // namespace sparksim
