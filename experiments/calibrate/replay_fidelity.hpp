// Fidelity of a profile against the backend it was measured on: the simulator's predicted step
// times (a `sparksim run --write-steps` sequence) beside the same steps executed on the backend
// (sparksim_calibrate_kernels replay). The steps were never in the sweep, so every error here
// is held out.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace sparksim {

// step_mape / step_worst: mean and worst |predicted - measured| / measured in percent;
// bias_by_bucket: mean signed error per verify-token bucket; throughput_error_pct: committed
// tokens over Σ step time, predicted against measured; tpot_error_pct: the requests' mean time
// per output token (Σ time of the steps a request decodes in / its committed tokens), the same.
// Throws InputError (path:line) for malformed inputs or replayed steps missing from the run.
nlohmann::ordered_json replay_fidelity(const std::string& steps_csv, const std::string& replay_csv);

}  // namespace sparksim
