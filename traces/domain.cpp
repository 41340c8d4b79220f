// Domain name parsing and listing.
#include "traces/domain.hpp"

namespace sparksim {

bool parse_domain(std::string_view text, Domain& out) {
  for (int i = 0; i < kDomainCount; ++i) {
    if (text == kDomainNames[i]) {
      out = static_cast<Domain>(i);
      return true;
    }
  }
  return false;
}

std::string valid_domain_list() {
  std::string list;
  for (int i = 0; i < kDomainCount; ++i) {
    if (i > 0) list += ", ";
    list += kDomainNames[i];
  }
  return list;
}

}  // namespace sparksim
