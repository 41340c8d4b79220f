// DrafterSpec: a named drafter (`mtp1`, `eagle3-γ`, `dflash-γ`, `dspark-γ`) split into its family
// and block size γ. The family picks the draft-cost shape in a profile and the acceptance curves;
// γ is the number of draft tokens proposed per step. `none` is plain autoregressive decoding:
// γ = 0, no draft cost, one token per request and step (the baseline every study can compare to).
#pragma once

#include <array>
#include <string>
#include <string_view>

namespace sparksim {

// kNone sits past the families that have a draft cost in a profile (kDrafterFamilyCount of them):
// profiles index their draft models by family and have no entry for it.
enum class DrafterFamily { kMtp1 = 0, kEagle3 = 1, kDflash = 2, kDspark = 3, kNone = 4 };
inline constexpr int kDrafterFamilyCount = 4;
inline constexpr std::array<std::string_view, kDrafterFamilyCount> kDrafterFamilyNames = {
    "mtp1", "eagle3", "dflash", "dspark"};
inline constexpr int kMaxGamma = 32;  // larger blocks are outside every published figure

struct DrafterSpec {
  DrafterFamily family = DrafterFamily::kMtp1;
  int gamma = 1;     // draft tokens per step; mtp1 is always 1, none is 0
  std::string name;  // canonical: "mtp1", "dspark-7", "none"
  bool speculates() const { return family != DrafterFamily::kNone; }
};

inline constexpr const char* kNoDrafterName = "none";

// Throws InputError("--drafter: ...") listing the valid forms for an unknown name or bad γ.
DrafterSpec parse_drafter(const std::string& name);

inline std::string_view drafter_family_name(DrafterFamily f) {
  return f == DrafterFamily::kNone ? std::string_view(kNoDrafterName)
                                   : kDrafterFamilyNames[static_cast<int>(f)];
}

}  // namespace sparksim
