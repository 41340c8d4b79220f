// MoeGpu: the hardware facts the DeepSeek-V4 step model needs for one GPU class: memory size,
// bandwidth and FP8 peak (vendor datasheets, as in aiconfigurator's system_spec.yaml), and the
// DeepEP low-latency all-to-all constants (latency + bytes / bandwidth) fitted to the measured
// intranode rows of profiles/data/aic/<gpu>/comm_deepep_ll.csv. Only h100 and h200 exist.
#pragma once

#include <string>
#include <vector>

namespace sparksim {

struct AllToAllLink {
  double dispatch_latency_us = 0;
  double dispatch_gb_s = 0;  // GB/s of dispatched bytes (FP8 activations + scales)
  double combine_latency_us = 0;
  double combine_gb_s = 0;  // GB/s of combined bytes (BF16 activations)
};

struct MoeGpu {
  std::string name;        // "h100-sxm"
  std::string aic_folder;  // "h100_sxm" (profiles/data/aic/<folder>/)
  double hbm_bytes = 0;    // decimal GB × 1e9, as the dense analytic profiles
  double hbm_bytes_per_s = 0;
  double fp8_flops = 0;    // dense FP8 tensor-core peak
  AllToAllLink intranode;  // NVLink, one node of 8
  AllToAllLink internode;  // RDMA, EP group larger than a node
};

// "h100" | "h100-sxm" | "h200" | "h200-sxm"; throws InputError("--gpu: ...") listing them.
const MoeGpu& moe_gpu(const std::string& name);

}  // namespace sparksim
