// The kernels' shape table, generated from profiles/model_shapes.json at build time by
// cmake/model_shapes.cmake (the kernels library cannot read JSON: it builds on the GPU machine
// from CUDA alone), must equal the file as a JSON library reads it; the seeded weights must be
// reproducible and of the declared scale.
#include "kernels/model_shape.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "kernels/random_weights.hpp"

namespace sparksim::kernels {
namespace {

nlohmann::json shapes_file() {
  std::ifstream in(std::string(SPARKSIM_SOURCE_DIR) + "/profiles/model_shapes.json");
  return nlohmann::json::parse(in);
}

TEST_CASE("the Qwen3 shape table matches model_shapes.json", "[kernels][shapes]") {
  const nlohmann::json file = shapes_file();
  for (const std::string& name : qwen3_shape_names()) {
    INFO(name);
    const nlohmann::json& j = file.at("targets").at(name);
    const TransformerShape s = qwen3_shape(name);
    CHECK(s.layers == j.at("layers").get<int>());
    CHECK(s.hidden == j.at("hidden").get<int>());
    CHECK(s.q_heads == j.at("q_heads").get<int>());
    CHECK(s.kv_heads == j.at("kv_heads").get<int>());
    CHECK(s.head_dim == j.at("head_dim").get<int>());
    CHECK(s.ffn == j.at("ffn").get<int>());
    CHECK(s.vocab == j.at("vocab").get<int>());
    CHECK(s.tied_embeddings == j.at("tied_embeddings").get<bool>());
    CHECK(s.rope_theta == j.at("rope_theta").get<double>());
    CHECK_NOTHROW(s.validate());
    const DraftShape d = dspark_shape(name);
    const nlohmann::json& dj = file.at("drafters").at("dspark");
    CHECK(d.layers == dj.at("layers").get<int>());
    CHECK(d.block_size == dj.at("block_size").get<int>());
    CHECK(d.markov_rank == dj.at("markov_rank").get<int>());
    CHECK(d.target_layer_ids == dj.at("target_layer_ids").at(name).get<std::vector<int>>());
  }
  CHECK_THROWS_WITH(qwen3_shape("qwen3-9b"), Catch::Contains("valid: qwen3-4b"));
}

TEST_CASE("every qwen3 target of model_shapes.json with a DSpark drafter has a kernel shape",
          "[kernels][shapes]") {
  // cmake/model_shapes.cmake: a Qwen3 target without dspark target_layer_ids (qwen3-32b) is not
  // a kernel target.
  std::vector<std::string> in_file;
  const nlohmann::json file = shapes_file();  // kept alive: the loop iterates into it
  const nlohmann::json& layer_ids = file.at("drafters").at("dspark").at("target_layer_ids");
  for (const auto& [name, row] : file.at("targets").items()) {
    if (name.rfind("qwen3-", 0) == 0 && layer_ids.contains(name)) in_file.push_back(name);
  }
  CHECK(in_file.size() + 1 == static_cast<std::size_t>(std::count_if(
                                  file.at("targets").items().begin(),
                                  file.at("targets").items().end(), [](const auto& item) {
                                    return item.key().rfind("qwen3-", 0) == 0;
                                  })));  // qwen3-32b is the one left out
  std::vector<std::string> in_table = qwen3_shape_names();
  REQUIRE(!in_table.empty());
  CHECK(in_table.front() == "qwen3-4b");
  std::sort(in_file.begin(), in_file.end());
  std::sort(in_table.begin(), in_table.end());
  CHECK(in_table == in_file);
}

TEST_CASE("inconsistent shapes are rejected", "[kernels][shapes]") {
  TransformerShape s = tiny_qwen3_shape();
  CHECK_NOTHROW(s.validate());
  s.kv_heads = 3;
  CHECK_THROWS_AS(s.validate(), std::invalid_argument);
  s = tiny_qwen3_shape();
  s.head_dim = 31;
  CHECK_THROWS_AS(s.validate(), std::invalid_argument);
  DraftShape d = tiny_dspark_shape();
  d.target_layer_ids = {0, tiny_qwen3_shape().layers};
  CHECK_THROWS_AS(d.validate(tiny_qwen3_shape()), std::invalid_argument);
}

TEST_CASE("seeded weights are reproducible and of the declared scale", "[kernels][weights]") {
  const TransformerShape s = tiny_qwen3_shape();
  const TargetWeights a = make_random_target_weights(s, 11);
  const TargetWeights b = make_random_target_weights(s, 11);
  const TargetWeights c = make_random_target_weights(s, 12);
  CHECK(a.layers[1].wqkv == b.layers[1].wqkv);
  CHECK(a.layers[1].wqkv != c.layers[1].wqkv);
  // Different tensors draw from different streams.
  CHECK(std::vector<float>(a.layers[0].wo.begin(), a.layers[0].wo.begin() + 64) !=
        std::vector<float>(a.layers[1].wo.begin(), a.layers[1].wo.begin() + 64));
  // Standard deviation 0.02 (uniform draws): within 5% over 24576 values.
  double sum_sq = 0.0;
  for (float v : a.layers[0].w_gate_up) sum_sq += static_cast<double>(v) * v;
  CHECK(std::sqrt(sum_sq / a.layers[0].w_gate_up.size()) == Approx(0.02).epsilon(0.05));
  for (float g : a.final_norm)
    CHECK(std::abs(g - 1.0f) <= 0.1f + 0.004f);  // + half a bf16 step near 1
  const DraftWeights d = make_random_draft_weights(s, tiny_dspark_shape(), 11);
  CHECK(d.fc.size() == 2u * 64u * 64u);
  CHECK(d.markov_w1.size() == 128u * 8u);
  for (float t : d.sts_temperature) CHECK((t >= 0.49f && t <= 2.01f));
}

}  // namespace
}  // namespace sparksim::kernels
