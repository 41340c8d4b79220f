// DrafterSpec: a named drafter (`mtp1`, `eagle3-γ`, `dflash-γ`, `dspark-γ`) split into its family
// and block size γ. The family picks the draft-cost shape in a profile and the acceptance curves;
// γ is the number of draft tokens proposed per step.
#pragma once

#include <array>
#include <string>
#include <string_view>

namespace sparksim {

enum class DrafterFamily { kMtp1 = 0, kEagle3 = 1, kDflash = 2, kDspark = 3 };
inline constexpr int kDrafterFamilyCount = 4;
inline constexpr std::array<std::string_view, kDrafterFamilyCount> kDrafterFamilyNames = {
    "mtp1", "eagle3", "dflash", "dspark"};
inline constexpr int kMaxGamma = 32;  // larger blocks are outside every published figure

struct DrafterSpec {
  DrafterFamily family = DrafterFamily::kMtp1;
  int gamma = 1;     // draft tokens per step; mtp1 is always 1
  std::string name;  // canonical: "mtp1", "dspark-7"
};

// Throws InputError("--drafter: ...") listing the valid forms for an unknown name or bad γ.
DrafterSpec parse_drafter(const std::string& name);

inline std::string_view drafter_family_name(DrafterFamily f) {
  return kDrafterFamilyNames[static_cast<int>(f)];
}

}  // namespace sparksim
