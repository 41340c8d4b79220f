// Engine presets (sim/engine_preset.hpp): the table against the published defaults kept as data
// (tests/experiments/data/engine_presets_published.json, each with the source it must cite), the
// free-memory share worked by hand, `--engine trtllm@1.0` recorded in config.json with its version,
// and an unknown version stopping with exit 2 and the valid names.
#include "sim/engine_preset.hpp"

#include <filesystem>
#include <set>
#include <string>

#include <catch2/catch.hpp>

#include "cli_harness.hpp"

using namespace sparksim;
using namespace sparksim::testing;

namespace {

const std::string kSource = SPARKSIM_SOURCE_DIR;
const std::string kGoldenProfile = "tests/experiments/golden/two_requests/profile.json";

}  // namespace

TEST_CASE("engine presets equal the published defaults kept as data, each citing its source") {
  const auto published =
      read_json(kSource + "/tests/experiments/data/engine_presets_published.json");
  std::set<std::string> names;
  for (const auto& want : published.at("presets")) {
    const std::string name = want.at("name");
    INFO(name);
    names.insert(name);
    const EnginePreset& p = find_engine_preset(name);
    CHECK(p.name == name);
    CHECK(p.engine == want.at("engine").get<std::string>());
    CHECK(p.version == want.at("version").get<std::string>());
    CHECK(p.max_running == want.at("max_running").get<std::int64_t>());
    CHECK(p.max_batch_tokens == want.at("max_batch_tokens").get<std::int64_t>());
    CHECK((p.prefill == PrefillMode::kChunked ? "chunked" : "separate") ==
          want.at("prefill").get<std::string>());
    CHECK(p.memory_share == want.at("memory_share").get<double>());
    CHECK((p.memory_share_of == MemoryShareOf::kTotal ? "total" : "free") ==
          want.at("memory_share_of").get<std::string>());
    CHECK_THAT(std::string(p.source), Catch::Contains(want.at("source_cites").get<std::string>()));
    CHECK_THAT(std::string(p.description), Catch::Contains(std::string(p.version)));
  }
  // Nothing in the table that the data does not hold.
  CHECK(engine_presets().size() == names.size());
  for (const EnginePreset& p : engine_presets()) CHECK(names.contains(std::string(p.name)));
  // The old spellings keep working, as the newest version with data.
  for (const auto& [alias, target] : published.at("aliases").items()) {
    CHECK(find_engine_preset(alias).name == target.get<std::string>());
  }
  // Versions that publish the same defaults say so.
  CHECK_THAT(std::string(find_engine_preset("vllm@0.11").source), Catch::Contains("same defaults"));
}

TEST_CASE("engine presets: an engine version picks the preset whose version is its dotted prefix") {
  CHECK(engine_preset_for_version("vllm", "0.12.0")->name == "vllm@0.12");
  CHECK(engine_preset_for_version("vllm", "0.12")->name == "vllm@0.12");
  CHECK(engine_preset_for_version("vllm", "0.11.1")->name == "vllm@0.11");
  CHECK(engine_preset_for_version("sglang", "0.5.6.post2")->name == "sglang@0.5");
  CHECK(engine_preset_for_version("trtllm", "1.0.0rc3")->name == "trtllm@1.0");
  CHECK(engine_preset_for_version("vllm", "0.120.0") == nullptr);  // not a dotted prefix
  CHECK(engine_preset_for_version("vllm", "0.1") == nullptr);
  CHECK(engine_preset_for_version("trtllm", "1.2.0rc6.post1")->name == "trtllm@1.2");
  CHECK(engine_preset_for_version("trtllm", "1.1.0") == nullptr);
  CHECK(engine_preset_for_version("vllm", "") == nullptr);
  CHECK(engine_preset_for_version("tgi", "0.12.0") == nullptr);
}

TEST_CASE("engine presets: a share of free memory becomes a share of HBM, worked by hand") {
  const EnginePreset& trt = find_engine_preset("trtllm@1.0");
  // 80 GB, 16 GB of weights, 4 GB reserved: 0.9 of the 60 GB left is KV, so the engine holds
  // 16 + 4 + 54 = 74 GB = 0.925 of HBM.
  CHECK(preset_memory_utilization(trt, 80e9, 16e9, 4e9) == Approx(0.925));
  // A share of the total is taken as it is.
  CHECK(preset_memory_utilization(find_engine_preset("vllm"), 80e9, 16e9, 4e9) == 0.9);
}

TEST_CASE("engine presets: --engine trtllm@1.0 is applied and recorded with its version") {
  const auto dir = scratch_dir("engine_preset_versions");
  const std::string run =
      "run --synthetic rate=5,prompt=fixed:20,output=fixed:5,duration_s=2 --profile " +
      kGoldenProfile + " --drafter none --quiet --out ";
  const auto t = run_cli(run + (dir / "t").string() + " --engine trtllm@1.0", dir);
  INFO(t.output);
  REQUIRE(t.exit_code == 0);
  const auto ct = read_json(dir / "t" / "config.json");
  CHECK(ct["engine_preset"] == "trtllm@1.0");
  CHECK(ct["engine_preset_name"] == "trtllm@1.0");
  CHECK(ct["engine_version"] == "1.0");
  CHECK(ct["max_running"] == 2048);
  CHECK(ct["max_batch_tokens"] == 8192);
  // KV 0.9 of what the weights leave, from the profile's own bytes.
  const auto profile = read_json(kSource + "/" + kGoldenProfile);
  const double hbm = profile["memory"]["hbm_bytes"].get<double>();
  const double weights = profile["memory"]["weights_bytes"].get<double>();
  CHECK(ct["memory_utilization"].get<double>() == Approx((weights + 0.9 * (hbm - weights)) / hbm));

  // The old spelling resolves to the newest vLLM version with data and says which.
  const auto v = run_cli(run + (dir / "v").string() + " --engine vllm", dir);
  REQUIRE(v.exit_code == 0);
  const auto cv = read_json(dir / "v" / "config.json");
  CHECK(cv["engine_preset"] == "vllm");
  CHECK(cv["engine_preset_name"] == "vllm@0.12");
  CHECK(cv["engine_version"] == "0.12");

  const auto bad = run_cli(run + (dir / "bad").string() + " --engine vllm@9.9", dir);
  CHECK(bad.exit_code == 2);
  CHECK_THAT(bad.output, Catch::Contains("--engine: unknown engine preset 'vllm@9.9'; valid: "));
  for (const char* name : {"vllm@0.11", "vllm@0.12", "sglang@0.5", "trtllm@1.0", "trtllm@1.2"}) {
    CHECK_THAT(bad.output, Catch::Contains(name));
  }
  CHECK_FALSE(std::filesystem::exists(dir / "bad"));
}
