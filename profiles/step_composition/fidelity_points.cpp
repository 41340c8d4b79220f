// The fidelity grid (see the header).
#include "profiles/step_composition/fidelity_points.hpp"

namespace sparksim {

std::string FidelityPoint::label() const {
  std::string s = "R=" + std::to_string(shape.requests) +
                  " W=" + std::to_string(shape.verify_width) +
                  " L=" + std::to_string(shape.context);
  if (shape.prefill_tokens > 0) {
    s += " prefill " + std::to_string(shape.prefill_tokens) + " after " +
         std::to_string(shape.prefill_cached);
  }
  return s;
}

std::vector<FidelityPoint> fidelity_points(std::int64_t kv_capacity_tokens) {
  std::vector<FidelityPoint> out;
  const auto fits = [&](const StepShape& s) {
    return s.requests * (s.context + s.verify_width) + s.prefill_cached + s.prefill_tokens <=
           kv_capacity_tokens;
  };
  for (std::int64_t r : {1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512}) {
    for (std::int64_t w : {1, 2, 4, 8}) {
      for (std::int64_t l : {256, 512, 1024, 2048, 4096}) {
        const StepShape s{r, w, l, 0, 0};
        if (fits(s)) out.push_back({s, r * w <= 64 ? "decode small B" : "decode large B"});
      }
    }
  }
  for (std::int64_t l : {8192, 16384, 32768, 65536}) {
    for (std::int64_t r : {1, 2, 4, 8, 16, 32, 64}) {
      for (std::int64_t w : {1, 4}) {
        const StepShape s{r, w, l, 0, 0};
        if (fits(s)) out.push_back({s, "long context"});
      }
    }
  }
  for (std::int64_t n : {128, 256, 512, 1024, 2048, 4096, 8192}) {
    for (std::int64_t p : {0, 1024, 4096}) {
      for (std::int64_t r : {0, 8}) {
        const StepShape s{r, 1, r > 0 ? 2048 : 0, n, p};
        if (fits(s)) out.push_back({s, "prefill chunks"});
      }
    }
  }
  return out;
}

BatchShape batch_shape_of(const StepShape& s) {
  BatchShape b;
  b.decode_requests = s.requests;
  b.verify_tokens = s.requests * s.verify_width;
  b.decode_context_tokens = s.requests * s.context;
  b.verify_attention_pairs = s.requests * s.verify_width * s.context;
  b.prefill_tokens = s.prefill_tokens;
  b.prefill_attention_pairs = s.prefill_tokens * (s.prefill_cached + (s.prefill_tokens + 1) / 2);
  return b;
}

}  // namespace sparksim
