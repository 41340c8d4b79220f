// DeepSeek-V4 mixture-of-experts targets (`deepseek-v4-flash`, `deepseek-v4-pro`): the shapes,
// weight formats and memory sizes that a replica spanning many GPUs needs: routed-expert bytes
// by format (FP4 or FP8), the dense part every attention data-parallel rank replicates, the
// compressed-attention KV per token and the sliding-window KV per request. docs/moe.md derives
// every number.
#pragma once

#include <string>
#include <vector>

namespace sparksim {

// Storage format of the routed experts (everything else is FP8 block-scaled, o_a in BF16).
enum class ExpertFormat { kFp4, kFp8 };

// "fp4" | "fp8"; throws InputError("--expert-format: ...") otherwise.
ExpertFormat parse_expert_format(const std::string& name);
const char* expert_format_name(ExpertFormat f);
// Bytes per routed-expert parameter including block scales: MXFP4 is 4 bits plus one UE8M0
// scale byte per 32 values (0.53125); FP8 with one fp32 scale per 128×128 block is 1.0 to
// within 0.03%, taken as 1.0.
double expert_bytes_per_param(ExpertFormat f);

struct MoeTarget {
  std::string name;
  int layers = 0;      // = swa_layers + csa_layers + hca_layers
  int swa_layers = 0;  // sliding window only
  int csa_layers = 0;  // compressed (ratio 4) + top-k indexer
  int hca_layers = 0;  // heavily compressed (ratio 128), dense over the compressed entries
  int hidden = 0;
  int q_heads = 0;
  int head_dim = 0;
  int routed_experts = 0;
  int top_k = 0;
  int expert_ffn = 0;
  int shared_experts = 0;
  int vocab = 0;
  int indexer_top_k = 0;  // compressed entries each query token selects in a CSA layer
  int window_tokens = 0;  // raw sliding window every layer keeps
  int csa_ratio = 4;
  int hca_ratio = 128;
  int indexer_heads = 64;
  int indexer_head_dim = 128;
  // Attention parameters per layer (FP8) and, of those, the o_a projection that SGLang and vLLM
  // keep in BF16 (one extra byte per parameter). From aiconfigurator's V4 model configs.
  double attention_params_per_layer = 0;
  double attention_bf16_params_per_layer = 0;
  int markov_rank = 0;  // DSpark-5's Markov head rank on this target

  double expert_params() const { return 3.0 * hidden * expert_ffn; }  // gate, up, down
  double routed_weight_bytes(ExpertFormat f) const;  // all layers, all routed experts
  // Replicated on every attention data-parallel rank: attention (FP8 + BF16 o_a), shared expert
  // (FP8), router (BF16), embedding and LM head (BF16).
  double dense_weight_bytes() const;
  double embedding_bytes() const { return 2.0 * 2.0 * vocab * hidden; }  // embed + head, BF16
  // Compressed KV of one cached token, all layers: CSA keeps one latent entry (576 B) plus one
  // FP4 indexer key (68 B) per csa_ratio tokens, HCA one latent entry per hca_ratio tokens.
  double kv_bytes_per_token() const;
  // The raw sliding window of one request, all layers: window_tokens latent entries each.
  double window_bytes_per_request() const;
};

inline constexpr double kLatentEntryBytes = 576;  // 448 FP8 dims + 64 BF16 RoPE dims
inline constexpr double kIndexerKeyBytes = 68;    // 128 FP4 dims + scales

// Throws InputError("--target: ...") listing the MoE targets for an unknown name.
const MoeTarget& moe_target(const std::string& name);
bool is_moe_target(const std::string& name);
std::vector<std::string> moe_target_names();

}  // namespace sparksim
