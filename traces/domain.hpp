// Domain: the workload class a request belongs to (math, code, chat). Acceptance curves are
// per domain, so every request carries one; traces without labels get one from their source.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace sparksim {

enum class Domain : std::uint8_t { kMath = 0, kCode = 1, kChat = 2 };
inline constexpr int kDomainCount = 3;
inline constexpr std::array<std::string_view, kDomainCount> kDomainNames = {"math", "code", "chat"};

inline std::string_view domain_name(Domain d) {
  return kDomainNames[static_cast<int>(d)];
}

// Parses "math" | "code" | "chat". Returns false for anything else (callers report the error
// with their own location and list kDomainNames).
bool parse_domain(std::string_view text, Domain& out);
// "math, code, chat": for error messages.
std::string valid_domain_list();

}  // namespace sparksim
