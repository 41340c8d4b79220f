// Reading and writing profile JSON files (schema "sparksim.profile/1").
// The loader validates everything before returning: a missing or malformed field, a profile
// without provenance, non-monotone tables or non-positive sizes throw InputError(`path:line: ...`).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "common/json_file.hpp"
#include "profiles/profile.hpp"

namespace sparksim {

inline constexpr const char* kProfileSchema = "sparksim.profile/1";

Profile load_profile(const std::string& path);
// Validates an already parsed document (errors carry file.path() and the key's line); sets
// Profile::path to file.path(). load_profile() is JsonFile::load + this.
Profile profile_from_json(const JsonFile& file);
nlohmann::json profile_to_json(const Profile& profile);
// The exact text write_profile() writes: keys in schema order, numeric tables packed on lines.
std::string format_profile(const Profile& profile);
// Writes atomically (temporary name, then rename), pretty-printed, keys in a stable order.
void write_profile(const Profile& profile, const std::string& path);

}  // namespace sparksim
