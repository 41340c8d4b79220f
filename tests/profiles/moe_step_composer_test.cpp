// MoeStepComposer against sums of named measured rows worked by hand (V4-Flash dep8 on H200 at
// 64 verify tokens per GPU, 1024 cached tokens: every row below was read from
// profiles/data/aic/h200_sxm/ by file and line, the arithmetic is done here, not by the
// composer); the committed measured-db V4 profiles are what the command produces; inputs the
// database cannot answer are refused.
#include "profiles/step_composition/moe_step_composer.hpp"

#include <algorithm>
#include <string>

#include <catch2/catch.hpp>

#include "common/input_error.hpp"
#include "profiles/profile_io.hpp"
#include "profiles/step_composition/moe_measured_db_profile.hpp"

namespace sparksim {
namespace {

const std::string kDb = std::string(SPARKSIM_SOURCE_DIR) + "/profiles/data/aic";

V4KernelShape flash_shape() {
  const MoeTarget& t = moe_target("deepseek-v4-flash");
  return {"V4-Flash", t.hidden, t.expert_ffn, t.routed_experts, t.top_k, t.q_heads};
}

bool has_rule(const std::set<std::string>& rules, const std::string& part) {
  return std::any_of(rules.begin(), rules.end(),
                     [&](const std::string& r) { return r.find(part) != std::string::npos; });
}

// Rows of profiles/data/aic/h200_sxm/, ms (DeepEP in µs as in the file).
constexpr double kCsa64At1024 = 0.1305;            // dsv4_csa_generation_module.csv:134
constexpr double kHca64At1024 = 0.0976;            // dsv4_hca_generation_module.csv:1679
constexpr double kMhcPre64 = 0.019;                // mhc_module.csv:6
constexpr double kMhcPost64 = 0.0066;              // mhc_module.csv:63
constexpr double kMoe512Ep8 = 0.2678133249282837;  // moe.csv:1669 (EP 8, balanced, 512 tokens)
constexpr double kDispatch64Us = 16.372;           // comm_deepep_ll.csv:52
constexpr double kCombine64Us = 20.882;            // comm_deepep_ll.csv:52
constexpr double kFp8Block64x4096x4096 = 0.08404266834259033;  // gemm.csv:3649
constexpr double kBf16_64x2560x4096 = 0.009855999714798397;    // gemm.csv:3654
constexpr double kBf16_64x65536x4096 = 0.16740800274742973;    // gemm.csv:3592

TEST_CASE("V4-Flash dep8 H200 layer and step equal the named rows summed by hand") {
  const MoeTarget& target = moe_target("deepseek-v4-flash");
  const ReplicaTopology topology = parse_topology("dep8", target, ExpertFormat::kFp8, 8);
  const V4KernelTables tables = V4KernelTables::load(kDb, "h200-sxm", flash_shape(), 8, "balanced");
  const MoeStepComposer composer(tables, target, moe_gpu("h200"), topology, false);

  // Shared expert: gate+up (n = 2 × 2048 = 4096, k = 4096) measured; down (n 4096, k 2048) below
  // the smallest k measured at n 4096 (4096): scaled by 2048/4096; router (n 256, k 4096, bf16)
  // below the smallest n measured at k 4096 (2560): scaled by 256/2560.
  const double shared = kFp8Block64x4096x4096 + kFp8Block64x4096x4096 * 2048.0 / 4096.0 +
                        kBf16_64x2560x4096 * 256.0 / 2560.0;
  // Routed path: 64 tokens per GPU × EP 8 = 512 tokens routed over the group.
  const double routed_path = kDispatch64Us * 1e-3 + kMoe512Ep8 + kCombine64Us * 1e-3;
  const double mhc = kMhcPre64 + kMhcPost64;
  const double csa_layer = kCsa64At1024 + mhc + std::max(shared, routed_path);
  const double hca_layer = kHca64At1024 + mhc + std::max(shared, routed_path);

  const ComposedMoeStep csa = composer.layer(64, 1, 1024);
  CHECK(csa.attention_ms == Approx(kCsa64At1024).epsilon(1e-12));
  CHECK(csa.mhc_ms == Approx(mhc).epsilon(1e-12));
  CHECK(csa.routed_ms == Approx(kMoe512Ep8).epsilon(1e-12));
  CHECK(csa.dispatch_ms == Approx(kDispatch64Us * 1e-3).epsilon(1e-12));
  CHECK(csa.combine_ms == Approx(kCombine64Us * 1e-3).epsilon(1e-12));
  CHECK(csa.shared_ms == Approx(shared).epsilon(1e-12));
  CHECK(csa.total_ms == Approx(csa_layer).epsilon(1e-12));
  CHECK(has_rule(csa.outside_grid, "k below the smallest measured k=4096"));

  // 2 SWA layers (priced by the HCA row: no SWA table), 21 CSA, 20 HCA; the LM head (n = vocab
  // 129280 above the grid's 65536 at k 4096: scaled linearly in n).
  const double head = kBf16_64x65536x4096 * 129280.0 / 65536.0;
  const double by_hand = 21 * csa_layer + 22 * hca_layer + head;
  const ComposedMoeStep step = composer.step(64, 1024);
  CHECK(step.head_ms == Approx(head).epsilon(1e-12));
  CHECK(step.total_ms == Approx(by_hand).epsilon(1e-12));
  CHECK(step.attention_ms == Approx(21 * kCsa64At1024 + 22 * kHca64At1024).epsilon(1e-12));
  CHECK(has_rule(step.outside_grid, "no SWA module table"));
  CHECK(has_rule(step.outside_grid, "n above the largest measured n=65536"));
}

TEST_CASE("an EP group across nodes takes the named analytic all-to-all, recorded") {
  const MoeTarget& target = moe_target("deepseek-v4-flash");
  const ReplicaTopology topology = parse_topology("dep16", target, ExpertFormat::kFp8, 8);
  const V4KernelTables tables =
      V4KernelTables::load(kDb, "h200-sxm", flash_shape(), 16, "balanced");
  const MoeStepComposer composer(tables, target, moe_gpu("h200"), topology, false);
  const ComposedMoeStep l = composer.layer(64, 1, 1024);
  // moe_gpu.cpp's cross-node constants: 24 µs + 64·6·4096·1.03 B / 50 GB/s; 30 µs + ·2 B.
  CHECK(l.dispatch_ms == Approx((24 + 64.0 * 6 * 4096 * 1.03 / 50e3) * 1e-3).epsilon(1e-12));
  CHECK(l.combine_ms == Approx((30 + 64.0 * 6 * 4096 * 2.0 / 50e3) * 1e-3).epsilon(1e-12));
  CHECK(has_rule(l.outside_grid, "EP 16 across nodes of 8 not measured"));
}

TEST_CASE("the measured-db V4 composition refuses what the database did not measure") {
  const MoeTarget& target = moe_target("deepseek-v4-flash");
  // A routing distribution the table does not have: the error names what it has.
  try {
    V4KernelTables::load(kDb, "h200-sxm", flash_shape(), 8, "zipf");
    FAIL("no error");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()).find("moe.csv:1: no rows") != std::string::npos);
    CHECK(std::string(e.what()).find("EP 8 power_law_1.2") != std::string::npos);
  }
  const V4KernelTables tables = V4KernelTables::load(kDb, "h200-sxm", flash_shape(), 8, "balanced");
  CHECK_THROWS_AS(MoeStepComposer(tables, target, moe_gpu("h200"),
                                  parse_topology("tp8", target, ExpertFormat::kFp8, 8), false),
                  InputError);
  CHECK_THROWS_AS(MoeStepComposer(tables, target, moe_gpu("h200"),
                                  parse_topology("dep8", target, ExpertFormat::kFp4, 8), false),
                  InputError);
}

TEST_CASE("committed V4 measured-db profiles are what the composition produces") {
  struct Case {
    const char *target, *gpu, *topology;
  };
  const Case cases[] = {{"deepseek-v4-flash", "h200", "dep8"},
                        {"deepseek-v4-flash", "h200", "dep16"},
                        {"deepseek-v4-flash", "h100", "dep8"},
                        {"deepseek-v4-flash", "h100", "dep16"},
                        {"deepseek-v4-pro", "h200", "dep32"}};
  for (const Case& c : cases) {
    const std::string path = std::string(SPARKSIM_SOURCE_DIR) + "/profiles/measured-db/" + c.gpu +
                             "-sxm/" + c.target + "-" + c.topology + "-fp8.json";
    INFO(path);
    const Profile committed = load_profile(path);
    const MoeTarget& target = moe_target(c.target);
    MoeMeasuredDbOptions options;
    options.database_dir = kDb;
    const MoeMeasuredDbBuild fresh = make_moe_measured_db_profile(
        target, moe_gpu(c.gpu), parse_topology(c.topology, target, ExpertFormat::kFp8, 8), options,
        committed.provenance.date, committed.provenance.git_sha);
    CHECK(format_profile(fresh.profile) == format_profile(committed));
    CHECK(committed.provenance.source == "measured-db");
    CHECK(committed.provenance.database_commit == "095f58a51c4ca8e61b66ec108d86f223f8d559ce");
    // The fitted context terms reproduce the held-out composed steps: mean within 5%.
    CHECK(fresh.verify_held_out.overall.mean_abs_pct < 5.0);
  }
}

}  // namespace
}  // namespace sparksim
