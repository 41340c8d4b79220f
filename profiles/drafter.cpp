// Parses drafter names of the form FAMILY-γ (or plain `mtp1`, or `none` for no speculation).
#include "profiles/drafter.hpp"

#include <charconv>

#include "common/input_error.hpp"

namespace sparksim {

namespace {
constexpr const char* kValidForms =
    "valid: none, mtp1, eagle3-G, dflash-G, dspark-G with G in 1..32";
}

DrafterSpec parse_drafter(const std::string& name) {
  if (name == kNoDrafterName) return {DrafterFamily::kNone, 0, kNoDrafterName};
  if (name == "mtp1") return {DrafterFamily::kMtp1, 1, "mtp1"};
  const auto dash = name.rfind('-');
  if (dash != std::string::npos) {
    const std::string family = name.substr(0, dash);
    for (int f = 1; f < kDrafterFamilyCount; ++f) {
      if (family != kDrafterFamilyNames[f]) continue;
      int gamma = 0;
      const char* first = name.data() + dash + 1;
      const char* last = name.data() + name.size();
      const auto [end, ec] = std::from_chars(first, last, gamma);
      if (ec != std::errc() || end != last || gamma < 1 || gamma > kMaxGamma) {
        throw InputError("--drafter: '" + name + "' has a bad block size; " + kValidForms);
      }
      return {static_cast<DrafterFamily>(f), gamma, name};
    }
  }
  throw InputError("--drafter: unknown drafter '" + name + "'; " + kValidForms);
}

}  // namespace sparksim
