// Base64 encoding, RFC 4648 section 4.
#include "common/base64.hpp"

namespace sparksim {

std::string base64(const std::string& bytes) {
  static constexpr char kTable[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  std::size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    const auto n = (static_cast<unsigned char>(bytes[i]) << 16) |
                   (static_cast<unsigned char>(bytes[i + 1]) << 8) |
                   static_cast<unsigned char>(bytes[i + 2]);
    out += kTable[(n >> 18) & 63];
    out += kTable[(n >> 12) & 63];
    out += kTable[(n >> 6) & 63];
    out += kTable[n & 63];
  }
  if (i < bytes.size()) {
    const bool two = i + 1 < bytes.size();
    const auto n = (static_cast<unsigned char>(bytes[i]) << 16) |
                   (two ? static_cast<unsigned char>(bytes[i + 1]) << 8 : 0);
    out += kTable[(n >> 18) & 63];
    out += kTable[(n >> 12) & 63];
    out += two ? kTable[(n >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

}  // namespace sparksim
