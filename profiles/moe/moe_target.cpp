// The two DeepSeek-V4 targets as data: shapes from profiles/model_shapes.json's V4 entries (the
// public configs), layer mix and attention parameter counts from aiconfigurator's V4 model configs
// (summarised in docs/moe.md). Sizes are derived here, not stored, so one formula serves both.
#include "profiles/moe/moe_target.hpp"

#include <array>

#include "common/input_error.hpp"

namespace sparksim {

namespace {

MoeTarget make_flash() {
  MoeTarget t;
  t.name = "deepseek-v4-flash";
  t.swa_layers = 2;
  t.csa_layers = 21;
  t.hca_layers = 20;
  t.layers = 43;
  t.hidden = 4096;
  t.q_heads = 64;
  t.head_dim = 512;
  t.routed_experts = 256;
  t.top_k = 6;
  t.expert_ffn = 2048;
  t.shared_experts = 1;
  t.vocab = 129280;
  t.indexer_top_k = 512;
  t.window_tokens = 128;
  t.attention_params_per_layer = 107e6;
  t.attention_bf16_params_per_layer = 34e6;
  t.markov_rank = 256;
  return t;
}

MoeTarget make_pro() {
  MoeTarget t;
  t.name = "deepseek-v4-pro";
  t.swa_layers = 0;
  t.csa_layers = 30;
  t.hca_layers = 31;
  t.layers = 61;
  t.hidden = 7168;
  t.q_heads = 128;
  t.head_dim = 512;
  t.routed_experts = 384;
  t.top_k = 6;
  t.expert_ffn = 3072;
  t.shared_experts = 1;
  t.vocab = 129280;
  t.indexer_top_k = 1024;
  t.window_tokens = 128;
  t.attention_params_per_layer = 300e6;
  t.attention_bf16_params_per_layer = 67e6;
  t.markov_rank = 512;
  return t;
}

const std::array<MoeTarget, 2>& targets() {
  static const std::array<MoeTarget, 2> all = {make_flash(), make_pro()};
  return all;
}

}  // namespace

ExpertFormat parse_expert_format(const std::string& name) {
  if (name == "fp4") return ExpertFormat::kFp4;
  if (name == "fp8") return ExpertFormat::kFp8;
  throw InputError("--expert-format: '" + name + "' is not a format; valid: fp4, fp8");
}

const char* expert_format_name(ExpertFormat f) {
  return f == ExpertFormat::kFp4 ? "fp4" : "fp8";
}

double expert_bytes_per_param(ExpertFormat f) {
  return f == ExpertFormat::kFp4 ? 0.5 + 1.0 / 32.0 : 1.0;
}

double MoeTarget::routed_weight_bytes(ExpertFormat f) const {
  return static_cast<double>(layers) * routed_experts * expert_params() * expert_bytes_per_param(f);
}

double MoeTarget::dense_weight_bytes() const {
  const double attention = attention_params_per_layer + attention_bf16_params_per_layer;
  const double shared = shared_experts * expert_params();
  const double router = 2.0 * hidden * routed_experts;
  return layers * (attention + shared + router) + embedding_bytes();
}

double MoeTarget::kv_bytes_per_token() const {
  return csa_layers * (kLatentEntryBytes + kIndexerKeyBytes) / csa_ratio +
         hca_layers * kLatentEntryBytes / hca_ratio;
}

double MoeTarget::window_bytes_per_request() const {
  return static_cast<double>(layers) * window_tokens * kLatentEntryBytes;
}

const MoeTarget& moe_target(const std::string& name) {
  for (const MoeTarget& t : targets()) {
    if (t.name == name) return t;
  }
  throw InputError("--target: '" + name + "' is not a mixture-of-experts target; valid: " +
                   moe_target_names()[0] + ", " + moe_target_names()[1]);
}

bool is_moe_target(const std::string& name) {
  for (const MoeTarget& t : targets()) {
    if (t.name == name) return true;
  }
  return false;
}

std::vector<std::string> moe_target_names() {
  std::vector<std::string> names;
  for (const MoeTarget& t : targets()) names.push_back(t.name);
  return names;
}

}  // namespace sparksim
