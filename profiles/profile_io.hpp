// Reading and writing profile JSON files (schema "sparksim.profile/1").
// The loader validates everything before returning: a missing or malformed field, a profile
// without provenance, non-monotone tables or non-positive sizes throw InputError(`path:line: ...`).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "profiles/profile.hpp"

namespace sparksim {

inline constexpr const char* kProfileSchema = "sparksim.profile/1";

Profile load_profile(const std::string& path);
nlohmann::json profile_to_json(const Profile& profile);
// Writes atomically (temporary name, then rename), pretty-printed, keys in a stable order.
void write_profile(const Profile& profile, const std::string& path);

}  // namespace sparksim
