// The host half of a device drafter round: validation before any upload (a repeated slot would
// let two requests write the same K/V rows) and the per-token indices, against hand-worked cases.
#include "kernels/draft_request.hpp"

#include <catch2/catch.hpp>

namespace sparksim::kernels {
namespace {

const KvCacheShape kCache{1, 4, 16, 2, 8};  // 4 slots of 16 tokens

DraftRequest two_requests() {
  DraftRequest r;
  r.anchors = {5, 7};
  r.context_lens = {3, 12};
  r.slots = {2, 0};
  return r;
}

TEST_CASE("DraftRequest::validate refuses a repeated slot and names the request") {
  DraftRequest r = two_requests();
  CHECK_NOTHROW(r.validate(kCache, 100, 4));
  r.slots = {1, 1};
  CHECK_THROWS_WITH(r.validate(kCache, 100, 4), Catch::Contains("request 1 repeats slot 1"));
}

TEST_CASE("DraftRequest::validate refuses overflow, bad anchors, slots and uniforms") {
  DraftRequest r = two_requests();
  // Context 12 + block 4 = 16 fits a 16-token slot; block 5 does not.
  CHECK_NOTHROW(r.validate(kCache, 100, 4));
  CHECK_THROWS_WITH(r.validate(kCache, 100, 5), Catch::Contains("request 1: context 12 + block 5"));
  r = two_requests();
  r.anchors[0] = 100;
  CHECK_THROWS_WITH(r.validate(kCache, 100, 4), Catch::Contains("outside the vocabulary"));
  r = two_requests();
  r.slots[1] = 4;
  CHECK_THROWS_WITH(r.validate(kCache, 100, 4), Catch::Contains("slot out of range"));
  r = two_requests();
  r.temperature = 1.0;
  r.uniforms = {0.5, 0.5, 0.5};
  CHECK_THROWS_WITH(r.validate(kCache, 100, 2), Catch::Contains("R x gamma uniforms"));
  r.uniforms.push_back(0.5);
  CHECK_NOTHROW(r.validate(kCache, 100, 2));
  r = two_requests();
  r.slots.pop_back();
  CHECK_THROWS_WITH(r.validate(kCache, 100, 4), Catch::Contains("one entry per request"));
}

TEST_CASE("draft_token_index: block rows at context + k, attending to the whole block") {
  const DraftTokenIndex i = draft_token_index(two_requests(), 3);
  // Request 0: slot 2, context 3 -> positions 3, 4, 5, length 6; request 1: slot 0, 12..14, 15.
  CHECK(i.slot == std::vector<int>{2, 2, 2, 0, 0, 0});
  CHECK(i.pos == std::vector<int>{3, 4, 5, 12, 13, 14});
  CHECK(i.kv_len == std::vector<int>{6, 6, 6, 15, 15, 15});
}

}  // namespace
}  // namespace sparksim::kernels
