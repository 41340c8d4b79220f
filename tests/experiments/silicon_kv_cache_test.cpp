// The declared KV-cache scenario of `validate --silicon` (`--silicon-kv-cache-dtype`): which
// profile each row maps to under bf16 / fp8 / checkpoint, every bundled row still replayable
// under each, and a bad value (there and in `profile measured-db --kv-cache-dtype`) exit 2 with
// nothing written.
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include <catch2/catch.hpp>

#include "cli_harness.hpp"
#include "common/input_error.hpp"
#include "experiments/validate/silicon_sample.hpp"
#include "silicon_test_header.hpp"

using namespace sparksim;
using namespace sparksim::testing;

namespace {

const std::string kSource = SPARKSIM_SOURCE_DIR;

// A vLLM 0.12 row at TP 2, 100/3 tokens, concurrency 2.
std::string row(const std::string& id, const std::string& precision,
                const std::string& model = "Qwen/Qwen3-32B") {
  return id + ",src,vllm,0.12.0," + model + ",h100_sxm," + precision +
         ",agg,100,3,,,2,2,1,1,1,1,,,,,,,,,,,,,,,12,9\n";
}

// The 10 ms-per-step golden profile under each name a TP-2 Qwen3-32B row can map to.
std::filesystem::path profiles_folder(const std::filesystem::path& dir, bool with_kv_fp8) {
  std::filesystem::create_directories(dir / "profiles/h100-sxm");
  std::vector<std::string> names{"qwen3-32b-tp2.json", "qwen3-32b-tp2-fp8.json"};
  if (with_kv_fp8) names.push_back("qwen3-32b-tp2-fp8-kvfp8.json");
  for (const std::string& name : names) {
    std::filesystem::copy_file(kSource + "/tests/experiments/golden/two_requests/profile.json",
                               dir / "profiles/h100-sxm" / name,
                               std::filesystem::copy_options::overwrite_existing);
  }
  return dir / "profiles";
}

}  // namespace

TEST_CASE("silicon KV scenario: which profile each row maps to") {
  const auto dir = scratch_dir("silicon_kv_map");
  const auto profiles = profiles_folder(dir, true).string();
  std::ofstream(dir / "s.csv") << kSiliconHeader << row("a", "fp8") << row("b", "");
  const std::vector<SiliconRow> rows = read_silicon_sample((dir / "s.csv").string());
  REQUIRE(rows.size() == 2);
  const std::string h100 = (std::filesystem::path(profiles) / "h100-sxm").string() + "/";

  // bf16 (the default): the fp8-weight row on its bf16-KV profile, as before the option.
  const SiliconConfig bf16 = map_silicon_row(rows[0], profiles);
  CHECK(bf16.kv_cache_dtype == "bf16");
  CHECK(bf16.profile_path == h100 + "qwen3-32b-tp2-fp8.json");
  CHECK(bf16.group == "vllm 0.12.0 / qwen3-32b / fp8");

  // fp8: every fp8-weight row on its -kvfp8 profile; a bf16-weight row keeps its bf16 cache.
  const SiliconConfig fp8 = map_silicon_row(rows[0], profiles, SiliconKvCache::kFp8);
  CHECK(fp8.kv_cache_dtype == "fp8");
  CHECK(fp8.profile_path == h100 + "qwen3-32b-tp2-fp8-kvfp8.json");
  CHECK(fp8.group == "vllm 0.12.0 / qwen3-32b / fp8 / kv fp8");
  const SiliconConfig bf16_weights = map_silicon_row(rows[1], profiles, SiliconKvCache::kFp8);
  CHECK(bf16_weights.kv_cache_dtype == "bf16");
  CHECK(bf16_weights.profile_path == h100 + "qwen3-32b-tp2.json");

  // checkpoint: Qwen/Qwen3-32B is a bf16 checkpoint with no quantization config, so no FP8 KV
  // cache is declared whatever the row's weight precision.
  const SiliconConfig declared = map_silicon_row(rows[0], profiles, SiliconKvCache::kCheckpoint);
  CHECK(declared.kv_cache_dtype == "bf16");
  CHECK(declared.profile_path == h100 + "qwen3-32b-tp2-fp8.json");
  CHECK_FALSE(checkpoint_declares_fp8_kv_cache("Qwen/Qwen3-32B"));
  CHECK_FALSE(checkpoint_declares_fp8_kv_cache("nvidia/Llama-3.1-8B-Instruct-FP8"));
  CHECK_THROWS_AS(checkpoint_declares_fp8_kv_cache("Qwen/Qwen3-235B"), std::logic_error);

  // Without the -kvfp8 profile the fp8 row is skipped with the file named, never replayed on
  // the bf16-KV one.
  const auto bare = scratch_dir("silicon_kv_bare");
  const SiliconConfig missing =
      map_silicon_row(rows[0], profiles_folder(bare, false).string(), SiliconKvCache::kFp8);
  CHECK_FALSE(missing.replayable);
  CHECK_THAT(missing.skip_reason, Catch::Contains("qwen3-32b-tp2-fp8-kvfp8.json"));

  CHECK(silicon_kv_cache("checkpoint") == SiliconKvCache::kCheckpoint);
  CHECK_THROWS_AS(silicon_kv_cache("auto"), InputError);
}

TEST_CASE("silicon KV scenario: every bundled row replays under each scenario") {
  const std::string profiles = kSource + "/profiles/measured-db";
  const std::vector<SiliconRow> rows =
      read_silicon_sample(kSource + "/experiments/validate/data/silicon/silicon_dense.csv");
  std::size_t replayable = 0, kv_fp8 = 0;
  for (const SiliconRow& r : rows) {
    const SiliconConfig bf16 = map_silicon_row(r, profiles);
    if (!bf16.replayable) continue;
    ++replayable;
    const SiliconConfig fp8 = map_silicon_row(r, profiles, SiliconKvCache::kFp8);
    INFO(r.origin);
    CHECK(fp8.replayable);
    CHECK(fp8.kv_cache_dtype == bf16.precision);  // fp8 KV exactly on the fp8-weight rows
    if (fp8.kv_cache_dtype == "fp8") ++kv_fp8;
    const SiliconConfig declared = map_silicon_row(r, profiles, SiliconKvCache::kCheckpoint);
    CHECK(declared.profile_path == bf16.profile_path);  // no bundled checkpoint declares FP8 KV
  }
  // The bundled file: 477 replayable rows, 204 of them fp8 (docs/silicon-validation.md).
  CHECK(replayable == 477);
  CHECK(kv_fp8 == 204);
}

TEST_CASE("silicon KV scenario: a bad value is exit 2 before anything is written") {
  const auto dir = scratch_dir("silicon_kv_cli");
  const auto profiles = profiles_folder(dir, true);
  std::ofstream(dir / "s.csv") << kSiliconHeader << row("a", "fp8");
  const std::string base =
      "validate --silicon " + (dir / "s.csv").string() + " --silicon-profiles " + profiles.string();
  const auto good =
      run_cli(base + " --silicon-kv-cache-dtype fp8 --json " + (dir / "a.json").string(), dir);
  REQUIRE(good.exit_code == 0);
  CHECK_THAT(good.output, Catch::Contains("KV cache: fp8"));
  CHECK_THAT(good.output, Catch::Contains("qwen3-32b / fp8 / kv fp8"));
  CHECK_THAT(read_json(dir / "a.json").at("kv_cache").get<std::string>(), Catch::StartsWith("fp8"));
  const auto bad =
      run_cli(base + " --silicon-kv-cache-dtype e4m3 --json " + (dir / "b.json").string(), dir);
  CHECK(bad.exit_code == 2);
  CHECK_THAT(bad.output,
             Catch::Contains("--silicon-kv-cache-dtype: 'e4m3'; valid: bf16, fp8, checkpoint"));
  CHECK_FALSE(std::filesystem::exists(dir / "b.json"));

  const auto profile = run_cli(
      "profile measured-db --gpu h100-sxm --target llama-3.1-8b "
      "--kv-cache-dtype fp16 --out " +
          (dir / "p.json").string(),
      dir);
  CHECK(profile.exit_code == 2);
  CHECK_THAT(profile.output, Catch::Contains("--kv-cache-dtype: 'fp16'; valid: bf16, fp8"));
  CHECK_FALSE(std::filesystem::exists(dir / "p.json"));
}
