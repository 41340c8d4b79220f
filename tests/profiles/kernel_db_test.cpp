// The measured-database reader: CSV parsing errors at `path:line`, the interpolation and
// extrapolation rules on small hand-made tables (expected values worked by hand), refusals that
// name the nearest shapes, and lookups on the real aiconfigurator tables checked against the
// rows quoted in the data's README worked example (profiles/data/aic, H100 SXM).
#include <filesystem>
#include <fstream>

#include <catch2/catch.hpp>

#include "common/csv_table.hpp"
#include "common/input_error.hpp"
#include "profiles/kernel_db/attention_table.hpp"
#include "profiles/kernel_db/gemm_table.hpp"
#include "profiles/kernel_db/kernel_database.hpp"
#include "tests/profiles/profile_fixture.hpp"

namespace sparksim {
namespace {

using testing::error_of;

const std::string kGemmHeader = "gemm_dtype,m,n,k,latency_ms\n";

// m in {1, 3}, n in {1024, 2048} at k = 512; n = 1024 also at k = 1024.
const std::string kGemm = kGemmHeader +
                          "bfloat16,1,1024,512,0.010\n"
                          "bfloat16,3,1024,512,0.030\n"
                          "bfloat16,1,2048,512,0.020\n"
                          "bfloat16,3,2048,512,0.050\n"
                          "bfloat16,1,1024,1024,0.016\n"
                          "bfloat16,3,1024,1024,0.040\n"
                          "fp8,1,1024,512,0.001\n";

TEST_CASE("gemm table: measured points, interpolation in m, n and k (hand-worked)") {
  const GemmTable g(CsvTable::parse(kGemm, "g.csv"), "bfloat16");
  CHECK(g.latency(1, 1024, 512).ms == Approx(0.010));
  CHECK_FALSE(g.latency(1, 1024, 512).extrapolated());
  CHECK(g.latency(2, 1024, 512).ms == Approx(0.020));                // halfway in m
  CHECK(g.latency(2, 1536, 512).ms == Approx((0.020 + 0.035) / 2));  // halfway in m and n
  CHECK(g.latency(1, 1024, 768).ms == Approx(0.013));                // halfway in k at n = 1024
  CHECK(g.shapes().size() == 3);
}

TEST_CASE("gemm table: extrapolation is linear and recorded, or refused naming the nearest") {
  const GemmTable g(CsvTable::parse(kGemm, "g.csv"), "bfloat16");
  const KernelLatency big_m = g.latency(6, 1024, 512);
  CHECK(big_m.ms == Approx(0.060));  // 0.030 x 6 / 3
  REQUIRE(big_m.extrapolated());
  CHECK(big_m.outside_grid.begin()->find("m above the largest measured m=3") != std::string::npos);
  const KernelLatency big_n = g.latency(1, 4096, 512);
  CHECK(big_n.ms == Approx(0.040));  // 0.020 x 4096 / 2048
  CHECK(big_n.outside_grid.begin()->find("n above the largest measured n=2048") !=
        std::string::npos);
  // Below the smallest measured n (a work axis): scaled linearly too, and recorded.
  const KernelLatency small_n = g.latency(1, 512, 512);
  CHECK(small_n.ms == Approx(0.005));  // 0.010 x 512 / 1024
  CHECK(small_n.outside_grid.begin()->find("n below the smallest measured n=1024") !=
        std::string::npos);
  const std::string refused = error_of([&] { g.latency(1, 4096, 512, false); });
  CHECK(refused.find("g.csv: no measured bfloat16 GEMM covers m=1 (n=4096, k=512)") == 0);
  CHECK(refused.find("nearest shapes measured: (n=2048, k=512)") != std::string::npos);
}

TEST_CASE("csv and gemm rows: malformed input stops at path:line") {
  CHECK(error_of([] { CsvTable::parse(kGemmHeader + "bfloat16,1,2,3\n", "x.csv"); }) ==
        "x.csv:2: row has 4 cells; the header has 5");
  CHECK(error_of([] {
          GemmTable(
              CsvTable::parse(kGemmHeader + "bfloat16,1,2,3,0.1\nbfloat16,1,2,3,abc\n", "x.csv"),
              "bfloat16");
        }) == "x.csv:3: latency_ms is 'abc'; must be a finite number");
  CHECK(error_of([] {
          GemmTable(CsvTable::parse(kGemmHeader + "bfloat16,1,2,3,-0.1\n", "x.csv"), "bfloat16");
        }) == "x.csv:2: latency_ms is -0.1; must be > 0");
  CHECK(error_of([] {
          GemmTable(CsvTable::parse(kGemmHeader + "bfloat16,0,2,3,0.1\n", "x.csv"), "bfloat16");
        }).find("x.csv:2: column m is 0, outside [1, ") == 0);
  CHECK(error_of([] {
          GemmTable(
              CsvTable::parse(kGemmHeader + "bfloat16,1,2,3,0.1\nbfloat16,1,2,3,0.2\n", "x.csv"),
              "bfloat16");
        }) == "x.csv:3: bfloat16 GEMM m=1 (n=2, k=3) is measured twice (also at x.csv:2)");
  CHECK(error_of([] {
          GemmTable(CsvTable::parse("m,n,k,latency_ms\n", "x.csv"), "bfloat16");
        }).find("x.csv:1: no column 'gemm_dtype'") == 0);
  CHECK(error_of([] { CsvTable::parse("m,n,m\n", "x.csv"); }) ==
        "x.csv:1: empty or repeated column name 'm'");
}

const std::string kAttention =
    "num_heads,num_key_value_heads,head_dim,attn_dtype,kv_cache_dtype,window_size,batch_size,"
    "isl,step,latency_ms\n"
    "32,8,128,bfloat16,bfloat16,0,1,1,1,0.010\n"
    "32,8,128,bfloat16,bfloat16,0,2,1,1,0.012\n"
    "32,8,128,bfloat16,bfloat16,0,1,1,3,0.014\n"
    "32,8,128,bfloat16,bfloat16,0,2,1,3,0.020\n"
    "32,8,128,bfloat16,bfloat16,0,1,1,7,0.030\n"
    "32,8,128,bfloat16,fp8,0,1,1,7,0.001\n";

TEST_CASE("attention table: (batch, length) grid, batch scaled linearly past the measured") {
  const AttentionHeads heads{32, 8, 128, "bfloat16"};
  const AttentionTable t(CsvTable::parse(kAttention, "a.csv"), heads, AttentionPhase::kDecode);
  CHECK(t.latency(2, 1).ms == Approx(0.012));
  CHECK(t.latency(1, 2).ms == Approx(0.012));  // halfway between step 1 and 3
  CHECK(t.latency(2, 2).ms == Approx(0.016));
  const KernelLatency far = t.latency(4, 7);  // only batch 1 measured at step 7
  CHECK(far.ms == Approx(0.120));
  CHECK(far.extrapolated());
  CHECK(error_of([&] {
          AttentionTable(CsvTable::parse(kAttention, "a.csv"), AttentionHeads{40, 8, 128},
                         AttentionPhase::kDecode);
        }).find("a.csv:1: no rows for 40/8/128") == 0);
}

// README worked example, H100 SXM, batch 1 and 256 (profiles/data/aic/README.md's source, the
// reference subset's README): QKV 0.01990, DOWN 0.03728 ms at m = 1; ATTN 0.01538 ms at batch 1
// and 0.71301 ms at batch 256 (= 2 x the batch-128 row, extrapolated).
TEST_CASE("real database: H100 rows quoted by the worked example") {
  const std::string dir = std::string(SPARKSIM_SOURCE_DIR) + "/profiles/data/aic";
  const KernelDatabase db = KernelDatabase::load(dir, "h100-sxm", AttentionHeads{32, 8, 128});
  CHECK(db.identity().commit == "095f58a51c4ca8e61b66ec108d86f223f8d559ce");
  CHECK(db.identity().framework == "vLLM 0.24.0");
  CHECK(db.gemm().latency(1, 6144, 4096).ms == Approx(0.01990).margin(5e-6));
  CHECK(db.gemm().latency(1, 4096, 12288).ms == Approx(0.03728).margin(5e-6));
  CHECK(db.decode_attention().latency(1, 2047).ms == Approx(0.01538).margin(5e-6));
  const KernelLatency b256 = db.decode_attention().latency(256, 2047);
  CHECK(b256.ms == Approx(0.71301).margin(5e-6));
  CHECK(b256.extrapolated());
  CHECK(error_of([&] {
          KernelDatabase::load(dir, "a100", AttentionHeads{32, 8, 128});
        }).find("has no GPU 'a100'; it has: h100-sxm, h200-sxm") != std::string::npos);
}

}  // namespace
}  // namespace sparksim
