// Base64 against the test vectors of RFC 4648 section 10 (every padding case), and bytes above
// 0x7f (sign extension of char would corrupt them).
#include "common/base64.hpp"

#include <catch2/catch.hpp>

using sparksim::base64;

TEST_CASE("base64 encodes the RFC 4648 test vectors") {
  CHECK(base64("") == "");
  CHECK(base64("f") == "Zg==");
  CHECK(base64("fo") == "Zm8=");
  CHECK(base64("foo") == "Zm9v");
  CHECK(base64("foob") == "Zm9vYg==");
  CHECK(base64("fooba") == "Zm9vYmE=");
  CHECK(base64("foobar") == "Zm9vYmFy");
}

TEST_CASE("base64 encodes bytes above 0x7f as unsigned") {
  // 0xff 0xfe 0xfd = 111111 111111 111011 111101 -> "//79"; the PNG signature's first bytes.
  CHECK(base64("\xff\xfe\xfd") == "//79");
  CHECK(base64("\x89PNG") == "iVBORw==");
}
