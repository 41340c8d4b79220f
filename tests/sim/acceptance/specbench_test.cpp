// The Spec-Bench EAGLE / Vicuna-7B acceptance file: its published totals, its replay (recorded
// lengths in order, synthesised confidences that are calibrated), the heterogeneity fit's
// reproduction of its spread, and bad input.
#include "sim/acceptance/specbench.hpp"

#include <cmath>

#include <catch2/catch.hpp>

#include "acceptance_test_support.hpp"
#include "common/input_error.hpp"
#include "sim/acceptance/calibrated_model.hpp"
#include "sim/acceptance/log_replay_model.hpp"

using namespace sparksim;

namespace {
const std::string kFile =
    std::string(SPARKSIM_SOURCE_DIR) + "/traces/specbench_eagle_vicuna7b_accept.jsonl";
}

TEST_CASE("the bundled Spec-Bench file has the documented shape and totals") {
  const SpecBenchData data = load_specbench(kFile);
  CHECK(data.questions.size() == 480);
  CHECK(data.categories.size() == 13);
  CHECK(data.max_length == 6);
  std::int64_t turns = 0, steps = 0, tokens = 0;
  for (const auto& q : data.questions) {
    turns += static_cast<std::int64_t>(q.turns.size());
    steps += q.steps();
    tokens += q.output_tokens();
  }
  CHECK(turns == 560);
  CHECK(steps == 25'525);
  CHECK(static_cast<double>(tokens) / static_cast<double>(steps) == Approx(3.579).margin(0.001));
  const SpreadStats all = specbench_real_stats(data, "");
  CHECK(all.tau_mean == Approx(3.579).margin(0.001));
  double total = 0;
  for (double f : all.histogram) total += f;
  CHECK(total == Approx(1.0));
}

TEST_CASE("the simulated spread matches Spec-Bench's") {
  // The fitted heterogeneity, run over 20 copies of every question at the recorded output
  // lengths. The simulated percentiles vary by < 0.03 between seeds; the bounds below are the
  // reported fit's residuals (sim/acceptance/README.md) with room for that.
  const SpecBenchData data = load_specbench(kFile);
  const SpreadStats real = specbench_real_stats(data, "");
  const SpreadStats sim = specbench_simulated_stats(data, "", default_heterogeneity(), 20, 1);
  CHECK(sim.tau_mean == Approx(real.tau_mean).margin(0.06));
  CHECK(sim.tau_p10 == Approx(real.tau_p10).margin(0.1));
  CHECK(sim.tau_p50 == Approx(real.tau_p50).margin(0.1));
  CHECK(sim.tau_p90 == Approx(real.tau_p90).margin(0.1));
  CHECK(sim.lag1 == Approx(real.lag1).margin(0.05));
  for (std::size_t i = 0; i < real.histogram.size(); ++i) {
    CHECK(sim.histogram[i] == Approx(real.histogram[i]).margin(0.015));
  }
  // Without heterogeneity the per-request spread is far too narrow: the fit is doing work.
  const SpreadStats flat = specbench_simulated_stats(data, "", Heterogeneity{}, 20, 1);
  CHECK(flat.lag1 < 0.1);
}

TEST_CASE("a Spec-Bench replay gives back the recorded lengths with calibrated confidences") {
  const SpecBenchData data = load_specbench(kFile);
  const DrafterSpec eagle5{DrafterFamily::kEagle3, 5, "eagle3-5"};
  LogReplayModel replay(kFile, AcceptanceContext{eagle5, "vicuna-7b", 1}, 1.35);
  ConfidenceSample sample;
  sample.gamma = 5;
  std::vector<float> c(5);
  for (std::uint64_t id = 0; id < 480; ++id) {
    AcceptanceState state{};
    replay.init_request(id, Domain::kChat, state);
    std::vector<int> recorded;
    for (const auto& turn : data.questions[id].turns) {
      recorded.insert(recorded.end(), turn.begin(), turn.end());
    }
    for (std::size_t t = 0; t < recorded.size(); ++t) {
      const DraftSlot slot{id, Domain::kChat, static_cast<std::int64_t>(t), 0, &state};
      int hidden = -1;
      replay.draft(std::span<const DraftSlot>(&slot, 1), 5, c, std::span<int>(&hidden, 1));
      REQUIRE(hidden == recorded[t] - 1);
      sample.add(id, c, hidden);
    }
  }
  // 25k steps: a calibrated head's ECE from sampling alone is < 0.01 (P(false alarm) < 1e-4).
  const auto m = evaluate_confidences(sample);
  INFO("ECE " << mean_ece(m) << ", AUC " << mean_auc(m));
  CHECK(mean_ece(m) < 0.015);
  CHECK(mean_auc(m) > 0.75);
  CHECK(replay.notes().size() == 1);  // the synthesis note only

  // γ = 3 caps the recorded lengths, and ids past the file wrap around; both are reported.
  LogReplayModel capped(kFile, AcceptanceContext{{DrafterFamily::kEagle3, 3, "eagle3-3"}, "x", 1},
                        1.0);
  AcceptanceState state{};
  capped.init_request(480 + 81, Domain::kChat, state);  // question index 81: id mod 480
  std::vector<float> c3(3);
  int hidden = -1;
  const DraftSlot slot{480 + 81, Domain::kChat, 1, 0, &state};
  capped.draft(std::span<const DraftSlot>(&slot, 1), 3, c3, std::span<int>(&hidden, 1));
  CHECK(hidden == std::min(3, data.questions[81].turns[0][1] - 1));
  const auto notes = capped.notes();
  CHECK(notes.size() >= 2);
}

TEST_CASE("bad Spec-Bench lines fail at their line") {
  sparksim::testing::ScratchDir dir;
  const std::string good =
      R"({"question_id":1,"category":"math","turns":[{"new_tokens":5,"decoding_steps":2,"accept_lengths":[2,3]}]})";
  const auto category = dir.write(
      "category.jsonl",
      good + "\n" +
          R"({"question_id":2,"category":"poetry","turns":[{"new_tokens":1,"accept_lengths":[1]}]})" +
          "\n");
  CHECK_THROWS_WITH(load_specbench(category),
                    Catch::Contains(category + ":2:") && Catch::Contains("category 'poetry'"));
  const auto sum = dir.write(
      "sum.jsonl",
      R"({"question_id":1,"category":"qa","turns":[{"new_tokens":9,"accept_lengths":[2,3]}]})");
  CHECK_THROWS_WITH(load_specbench(sum),
                    Catch::Contains(sum + ":1:") && Catch::Contains("sums to 5"));
  const auto zero = dir.write(
      "zero.jsonl", R"({"question_id":1,"category":"qa","turns":[{"accept_lengths":[2,0]}]})");
  CHECK_THROWS_WITH(load_specbench(zero),
                    Catch::Contains(zero + ":1:") && Catch::Contains("1..64"));
  const auto broken = dir.write("broken.jsonl", good + "\n{\"question_id\": \n");
  CHECK_THROWS_WITH(load_specbench(broken),
                    Catch::Contains(broken + ":2:") && Catch::Contains("invalid JSON"));
}
