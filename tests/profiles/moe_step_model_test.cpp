// MoeStepModel: the all-to-all terms against every measured DeepEP low-latency row of the two V4
// shapes (profiles/data/aic/<gpu>/comm_deepep_ll.csv, EP 8 on one node), and one V4-Flash verify
// step worked by hand (the arithmetic is spelled out below, recomputed outside this code base).
#include "profiles/moe/moe_step_model.hpp"

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "profiles/profile_io.hpp"
#include "profiles/time_model.hpp"

namespace sparksim {
namespace {

struct DeepEpRow {
  int tokens, hidden, top_k, experts;
  double dispatch_us, combine_us;
};

// The measured rows, read by column name (the oracle is the upstream file itself).
std::vector<DeepEpRow> deepep_rows(const std::string& gpu_folder) {
  std::ifstream in(std::string(SPARKSIM_SOURCE_DIR) + "/profiles/data/aic/" + gpu_folder +
                   "/comm_deepep_ll.csv");
  REQUIRE(in);
  std::string line;
  std::getline(in, line);
  std::vector<std::string> header;
  {
    std::stringstream s(line);
    for (std::string cell; std::getline(s, cell, ',');) header.push_back(cell);
  }
  const auto col = [&](const std::string& name) {
    for (std::size_t i = 0; i < header.size(); ++i) {
      if (header[i] == name) return i;
    }
    FAIL("no column " << name);
    return std::size_t{0};
  };
  const std::size_t t = col("num_token"), h = col("hidden_size"), k = col("num_topk"),
                    e = col("num_experts"), d = col("dispatch_avg_t_us"),
                    c = col("combine_avg_t_us"), n = col("node_num");
  std::vector<DeepEpRow> rows;
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    std::stringstream s(line);
    for (std::string cell; std::getline(s, cell, ',');) cells.push_back(cell);
    if (cells[n] != "1") continue;
    rows.push_back({std::stoi(cells[t]), std::stoi(cells[h]), std::stoi(cells[k]),
                    std::stoi(cells[e]), std::stod(cells[d]), std::stod(cells[c])});
  }
  return rows;
}

TEST_CASE("all-to-all terms reproduce every measured DeepEP row of the V4 shapes within 12.5%") {
  for (const char* gpu_name : {"h100", "h200"}) {
    const MoeGpu& gpu = moe_gpu(gpu_name);
    int checked = 0;
    for (const DeepEpRow& row : deepep_rows(gpu.aic_folder)) {
      const MoeTarget* target = nullptr;
      if (row.hidden == 4096 && row.experts == 256 && row.top_k == 6) {
        target = &moe_target("deepseek-v4-flash");
      } else if (row.hidden == 7168 && row.experts == 384 && row.top_k == 6) {
        target = &moe_target("deepseek-v4-pro");
      } else {
        continue;
      }
      const ReplicaTopology topology = parse_topology("dep8", *target, ExpertFormat::kFp4, 8);
      const MoeStepModel model(*target, gpu, topology, {});
      const StepParts s = model.step(row.tokens, row.tokens, 0);
      const double dispatch = s.dispatch_us / target->layers;
      const double combine = s.combine_us / target->layers;
      INFO(gpu.name << " " << target->name << " " << row.tokens << " tokens/GPU: dispatch "
                    << dispatch << " vs " << row.dispatch_us << ", combine " << combine << " vs "
                    << row.combine_us);
      CHECK(dispatch == Approx(row.dispatch_us).epsilon(0.125));
      CHECK(combine == Approx(row.combine_us).epsilon(0.125));
      ++checked;
    }
    CHECK(checked == 22);  // 11 token counts × 2 shapes
  }
}

// V4-Flash, dep8, FP8 experts, H200, imbalance 1.1, no overlap; B = 128 verify tokens from R = 64
// requests with 4096 cached tokens each (pairs = 128 × 4096). Streaming rate 0.63 × 4.8 TB/s,
// compute 0.30 × 1978 TFLOP/s. Per layer (µs):
//   window read 128 × 576 B / 3.024 TB/s = 0.02438 (moved from per-token to per-request)
//   CSA attention 101.18 + (0.4033 − 0.02438 + 0.3339 × 0.512) × 128 = 171.564
//   HCA (and SWA) attention 80.52 + (0.3764 − 0.02438) × 128 = 125.578
//   mHC 18.0 + 0.028 × 128 + 6.2 + 0.035 × 128 = 32.264
//   shared expert + router: (25.17 MB + 2.10 MB + 2.10 MB) / 3.024 TB/s + 20 = 31.309
//   routed: 1024 group tokens, 32 local experts all touched (31.99999999909); 1.1 × 768 hits;
//           (32 × 25.17 MB + 844.8 × 4096 × 3 B) / 3.024 TB/s + 20 = 289.738
//   dispatch 11.75 + 128 × 6 × 4096 × 1.03 B / 326 GB/s = 21.689; combine 11.0 + 2 B / 268 GB/s
//           = 34.476; the shared expert hides under dispatch + routed + combine
// Step: 21 CSA + 22 HCA/SWA layers = 22626.727; head (1.059 GB BF16 / 3.024 TB/s + 10) +
// sampling (128 × 129280 × 8 B / 3.024 TB/s + 15) = 525.670; fixed 20; requests 64 × 43 × 0.02438
// = 67.096; pairs 21 × 0.0351 ns × 524288 = 386.453. Total 23625.945 µs.
TEST_CASE("a V4-Flash verify step worked by hand") {
  const MoeTarget& flash = moe_target("deepseek-v4-flash");
  const ReplicaTopology topology = parse_topology("dep8", flash, ExpertFormat::kFp8, 8);
  const MoeStepModel model(flash, moe_gpu("h200"), topology, {});
  const StepParts s = model.step(128, 64, 128.0 * 4096);
  CHECK(s.routed_experts_us / 43 == Approx(289.7379).epsilon(1e-6));
  CHECK(s.dispatch_us / 43 == Approx(21.68896).epsilon(1e-6));
  CHECK(s.combine_us / 43 == Approx(34.47558).epsilon(1e-6));
  CHECK(s.attention_us == Approx(21 * 171.56411 + 22 * 125.57844).epsilon(1e-6));
  CHECK(s.head_us == Approx(525.66952).epsilon(1e-6));
  CHECK(s.total_us == Approx(23625.945).epsilon(1e-6));
}

TEST_CASE("the composed profile reproduces the step model through the engine's TimeModel") {
  const MoeTarget& flash = moe_target("deepseek-v4-flash");
  const ReplicaTopology topology = parse_topology("dep8", flash, ExpertFormat::kFp8, 8);
  const MoeStepModel model(flash, moe_gpu("h200"), topology, {});
  const Profile p = make_moe_profile(flash, moe_gpu("h200"), topology, {}, "2026-11-25", "");
  // Round trip through the file format (optional keys included).
  const Profile loaded = profile_from_json(JsonFile::parse(format_profile(p), "moe.json"));
  CHECK(loaded.verify.per_request_us == p.verify.per_request_us);
  CHECK(loaded.reserved_bytes == p.reserved_bytes);
  CHECK(loaded.gpus == 1);
  const TimeModel time_model(loaded);
  BatchShape shape;
  shape.verify_tokens = 128;  // a graph bucket and a dense-table point: exact up to rounding
  shape.decode_requests = 64;
  shape.verify_attention_pairs = 128 * 4096;
  const double engine_us = static_cast<double>(time_model.verify_time(shape)) * 1e-3;
  CHECK(engine_us == Approx(model.step(128, 64, 128.0 * 4096).total_us).epsilon(1e-4));
  // KV capacity from the profile equals the by-hand memory of the topology.
  CHECK(loaded.kv_capacity_tokens() == gpu_memory(flash, moe_gpu("h200"), topology, 256).kv_tokens);
}

}  // namespace
}  // namespace sparksim
