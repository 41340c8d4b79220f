// Acceptance logs: the recorder writes what the model drew, bit for bit; the replay model gives
// it back per (request, step) under any batch; malformed logs fail at their line.
#include "sim/acceptance/acceptance_log.hpp"

#include <sstream>

#include <catch2/catch.hpp>

#include "acceptance_test_support.hpp"
#include "common/input_error.hpp"
#include "sim/acceptance/calibrated_model.hpp"
#include "sim/acceptance/log_replay_model.hpp"

using namespace sparksim;
using sparksim::testing::ScratchDir;

namespace {

const DrafterSpec kDspark5{DrafterFamily::kDspark, 5, "dspark-5"};

std::unique_ptr<AcceptanceModel> calibrated(std::uint64_t seed) {
  CalibratedModelConfig config;
  config.curves = published_mean_curves(kDspark5, "qwen3-8b");
  config.gamma = 5;
  config.seed = seed;
  return std::make_unique<CalibratedAcceptanceModel>(config);
}

struct Drawn {
  std::vector<float> confidences;
  std::vector<int> hidden;
};

// Drafts `requests` requests for `steps` steps in batches of all requests, verifying `length`.
Drawn drive(AcceptanceModel& model, int requests, int steps, int length) {
  Drawn out;
  std::vector<AcceptanceState> states(static_cast<std::size_t>(requests));
  for (int i = 0; i < requests; ++i) {
    model.init_request(static_cast<std::uint64_t>(i), i % 2 ? Domain::kCode : Domain::kChat,
                       states[static_cast<std::size_t>(i)]);
  }
  for (int t = 0; t < steps; ++t) {
    std::vector<DraftSlot> slots;
    for (int i = 0; i < requests; ++i) {
      slots.push_back({static_cast<std::uint64_t>(i), i % 2 ? Domain::kCode : Domain::kChat, t,
                       3 * t, &states[static_cast<std::size_t>(i)]});
    }
    std::vector<float> c(slots.size() * 5);
    std::vector<int> h(slots.size());
    model.draft(slots, 5, c, h);
    model.on_verified(slots, std::vector<int>(slots.size(), length));
    out.confidences.insert(out.confidences.end(), c.begin(), c.end());
    out.hidden.insert(out.hidden.end(), h.begin(), h.end());
  }
  return out;
}

const std::string kHeader =
    "# sparksim acceptance log v1: gamma=2 drafter=dspark-2 target=qwen3-8b seed=1 "
    "acceptance=calibrated\nrequest_id,decode_step,domain,generated,verified,first_rejected,c1,"
    "c2\n";

}  // namespace

TEST_CASE("a recorded log replays the exact draws of the model that wrote it") {
  std::stringstream log;
  AcceptanceLogRecorder recorder(calibrated(9), log,
                                 AcceptanceLogHeader{5, "dspark-5", "qwen3-8b", "calibrated", 9});
  const Drawn original = drive(recorder, 6, 30, 3);
  // The recorder changes nothing.
  const Drawn direct = drive(*calibrated(9), 6, 30, 3);
  CHECK(original.confidences == direct.confidences);
  CHECK(original.hidden == direct.hidden);

  ScratchDir dir;
  const std::string path = dir.write("log.csv", log.str());
  const AcceptanceLog parsed = read_acceptance_log_file(path);
  CHECK(parsed.header.gamma == 5);
  CHECK(parsed.header.acceptance == "calibrated");
  CHECK(parsed.rows.size() == 180);
  CHECK(parsed.requests.size() == 6);
  CHECK(parsed.rows[0].verified == 3);

  LogReplayModel replay(path, AcceptanceContext{kDspark5, "qwen3-8b", 1}, 1.0);
  const Drawn replayed = drive(replay, 6, 30, 3);
  CHECK(replayed.confidences == original.confidences);  // bit-exact floats
  CHECK(replayed.hidden == original.hidden);
  CHECK(replay.notes().empty());
  CHECK(replay.reproduces() == "calibrated");

  // Beyond the recorded steps a request reuses its records from step 0, and says so.
  LogReplayModel longer(path, AcceptanceContext{kDspark5, "qwen3-8b", 1}, 1.0);
  const Drawn extended = drive(longer, 6, 35, 3);
  CHECK(std::equal(extended.hidden.begin() + 180, extended.hidden.end(), original.hidden.begin()));
  REQUIRE(longer.notes().size() == 1);
  CHECK_THAT(longer.notes()[0], Catch::Contains("30 of 210 request-steps"));
}

TEST_CASE("replaying needs the same gamma and every request") {
  ScratchDir dir;
  const std::string path = dir.write("log.csv", kHeader + "0,0,chat,0,2,3,0.9,0.8\n");
  CHECK_THROWS_WITH(LogReplayModel(path, AcceptanceContext{kDspark5, "qwen3-8b", 1}, 1.0),
                    Catch::Contains(path + ":1:") && Catch::Contains("gamma=2"));
  LogReplayModel replay(path, AcceptanceContext{{DrafterFamily::kDspark, 2, "dspark-2"}, "x", 1},
                        1.0);
  AcceptanceState state{};
  CHECK_THROWS_WITH(replay.init_request(1, Domain::kChat, state),
                    Catch::Contains("no records for request 1"));
}

TEST_CASE("malformed logs fail at the offending line") {
  ScratchDir dir;
  const auto expect = [&](const std::string& name, const std::string& text,
                          const std::string& where, const std::string& what) {
    const std::string path = dir.write(name, text);
    INFO(name);
    CHECK_THROWS_WITH(read_acceptance_log_file(path),
                      Catch::Contains(path + where) && Catch::Contains(what));
  };
  const std::string ok = "0,0,chat,0,2,3,0.9,0.8\n";
  expect("magic.csv", "request_id,decode_step\n", ":1:", "not a sparksim acceptance log");
  expect("columns.csv",
         "# sparksim acceptance log v1: gamma=2\nrequest_id,decode_step,domain,c1,c2\n",
         ":2:", "column header");
  expect("probability.csv", kHeader + ok + "0,1,chat,3,2,2,0.9,1.5\n",
         ":4:", "c2 is 1.5; must be a probability in [0, 1]");
  expect("negative.csv", kHeader + "0,0,chat,0,2,3,-0.1,0.8\n", ":3:", "c1 is -0.1");
  expect("text.csv", kHeader + "0,0,chat,0,2,3,high,0.8\n", ":3:", "c1 is 'high'");
  expect("rejected.csv", kHeader + "0,0,chat,0,2,4,0.9,0.8\n",
         ":3:", "first_rejected is 4; must be in [1, 3]");
  expect("verified.csv", kHeader + "0,0,chat,0,3,3,0.9,0.8\n", ":3:", "verified is 3");
  expect("domain.csv", kHeader + "0,0,poetry,0,2,3,0.9,0.8\n", ":3:", "domain is 'poetry'");
  expect("short.csv", kHeader + "0,0,chat,0,2,3,0.9\n", ":3:", "has no c2 column");
  expect("long.csv", kHeader + "0,0,chat,0,2,3,0.9,0.8,0.7\n", ":3:", "more columns");
  expect("duplicate.csv", kHeader + ok + "0,1,chat,3,2,3,0.9,0.8\n" + ok,
         ":5:", "request 0 step 0 appears twice");
  expect("gap.csv", kHeader + ok + "0,2,chat,3,2,3,0.9,0.8\n", ":4:", "has no step 1");
}
