// Base64 (RFC 4648, standard alphabet, '=' padding): how the HTML report embeds its PNG plots as
// data: URIs, so the page is one self-contained file.
#pragma once

#include <string>

namespace sparksim {

std::string base64(const std::string& bytes);

}  // namespace sparksim
