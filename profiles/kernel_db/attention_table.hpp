// AttentionTable: one head configuration's rows of a measured attention table, as a grid over
// (batch, length): decode (`attention_generation.csv`, length = `step`, the tokens cached before
// the current one) or prefill (`attention_context.csv`, length = `isl`, prompt tokens with no
// cached prefix). Lookups interpolate along length over every measured length, and at each
// length along batch over the batches measured there (grid_interpolation.hpp's rule; above the
// largest batch measured at a length, linear in batch: the database stops measuring at about
// 2^19 cached tokens per call, so large batch x context combinations are all extrapolated).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "common/csv_table.hpp"
#include "profiles/kernel_db/kernel_latency.hpp"

namespace sparksim {

struct AttentionHeads {
  std::int64_t q_heads = 0;
  std::int64_t kv_heads = 0;
  std::int64_t head_dim = 0;
  std::string kv_cache_dtype = "bfloat16";  // the rows' kv_cache_dtype: "bfloat16" or "fp8"
};

// Bytes one cached K or V element occupies for a kv_cache_dtype of the database ("bfloat16" 2,
// "fp8" 1); std::invalid_argument for any other.
double kv_cache_element_bytes(const std::string& kv_cache_dtype);

enum class AttentionPhase { kDecode, kPrefill };

class AttentionTable {
 public:
  // Reads rows with these heads, attn_dtype bfloat16, window_size 0 (full causal attention) and,
  // for prefill, step 0. Stops with `path:line: what` on a malformed or duplicate row, and at
  // line 1 naming the head configurations present when none matches.
  AttentionTable(const CsvTable& table, const AttentionHeads& heads, AttentionPhase phase);

  // Latency of one layer's call for `batch` requests at `length` (decode: cached tokens before
  // the current one; prefill: prompt tokens per request).
  KernelLatency latency(std::int64_t batch, std::int64_t length) const;

  std::vector<std::int64_t> lengths() const;
  std::vector<std::int64_t> batches_at(std::int64_t length) const;
  AttentionPhase phase() const { return phase_; }

 private:
  std::string path_;
  std::string file_;
  AttentionPhase phase_;
  std::map<std::int64_t, std::map<std::int64_t, double>> grid_;  // length -> batch -> ms
};

}  // namespace sparksim
