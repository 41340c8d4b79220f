// Profile's derived quantities. Kept out of the header so the arithmetic (and its edge cases)
// lives in one place that the loader's validation and the engine's KV accounting both call.
#include "profiles/profile.hpp"

#include <cmath>

#include "common/input_error.hpp"
#include "profiles/fitted_roofline_constants.hpp"

namespace sparksim {

std::int64_t Profile::kv_capacity_tokens() const {
  // A profile that leaves no room (the loader rejects those) or has no KV size reports 0, never a
  // negative or infinite capacity.
  if (!(kv_bytes_per_token > 0)) return 0;
  const double room = hbm_bytes * memory_utilization - weights_bytes - reserved_bytes;
  if (!(room > 0)) return 0;
  return static_cast<std::int64_t>(std::floor(room / kv_bytes_per_token));
}

std::string Profile::label() const {
  std::string label;
  if (is_analytic()) {
    label = "ANALYTIC roofline profile for " + provenance.gpu + " / " + target +
            " (not measured on a GPU" +
            (provenance.tool == kAnalyticFittedTool
                 ? "; roofline constants fitted to measured-db compositions, see its notes"
                 : "") +
            ")";
  } else if (is_telemetry()) {
    label = "TELEMETRY-fitted profile for " + provenance.gpu + " / " + target +
            " (step times fitted to a deployment's measured curve, not kernel timings)";
  } else {
    label =
        "measured profile for " + provenance.gpu + " / " + target + " (" + provenance.date + ")";
  }
  if (is_measured_db()) {
    const std::string commit = provenance.database_commit.substr(0, 12);
    label = "MEASURED-DB profile for " + provenance.gpu + " / " + target +
            ": kernel latencies measured by the public database " + provenance.database + "@" +
            commit + " (" + provenance.framework + "), composed by sparksim, not measured by us";
  }
  if (step_terms.present) label += " + step terms calibrated on " + step_terms.measurements;
  return label;
}

void require_draft_cost(const Profile& profile, const DrafterSpec& drafter) {
  if (!drafter.speculates() || profile.draft[static_cast<int>(drafter.family)]) return;
  const std::string family(drafter_family_name(drafter.family));
  std::string what = "the profile has no draft cost for " + family + " (drafter " + drafter.name +
                     "), so it cannot simulate it; ";
  what += profile.provenance.source == "measured"
              ? "the calibration sweep did not measure it (see provenance.notes); rerun "
                "sparksim_calibrate_kernels sweep with --drafters including " +
                    family + ", or choose another drafter"
              : "add draft." + family + " or choose another drafter";
  if (profile.path.empty()) throw InputError("profile for " + profile.target + ": " + what);
  throw InputError(profile.path, profile.draft_line, what);
}

}  // namespace sparksim
