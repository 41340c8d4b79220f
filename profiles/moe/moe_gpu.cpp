// The two GPU classes. Intranode all-to-all constants: the (latency, bandwidth) pair that
// minimises the largest relative error over the 22 measured DeepEP low-latency rows of both V4
// shapes (hidden 4096 / 7168, top-6, 1..1024 tokens per GPU, EP 8, SGLang 0.5.12); every row is
// within 12% (a test checks it against the copied CSV). Internode: no H100/H200 multi-node rows
// exist in the database; 24/30 µs and 50 GB/s per GPU are the H200 EP16-64 cross-node DeepEP
// figures summarised in docs/moe.md (aiconfigurator system spec: 50 GB/s inter-node per GPU).
#include "profiles/moe/moe_gpu.hpp"

#include <array>

#include "common/input_error.hpp"

namespace sparksim {

namespace {

const std::array<MoeGpu, 2>& gpus() {
  static const std::array<MoeGpu, 2> all = {
      MoeGpu{"h100-sxm",
             "h100_sxm",
             80e9,
             3.35e12,
             1978e12,
             {13.5, 312, 12.25, 254},
             {24, 50, 30, 50}},
      MoeGpu{"h200-sxm",
             "h200_sxm",
             141e9,
             4.8e12,
             1978e12,
             {11.75, 326, 11.0, 268},
             {24, 50, 30, 50}},
  };
  return all;
}

}  // namespace

const MoeGpu& moe_gpu(const std::string& name) {
  for (const MoeGpu& g : gpus()) {
    if (g.name == name || g.name == name + "-sxm") return g;
  }
  throw InputError("--gpu: '" + name +
                   "' is not a GPU with a DeepSeek-V4 model; valid: h100-sxm, h200-sxm");
}

}  // namespace sparksim
