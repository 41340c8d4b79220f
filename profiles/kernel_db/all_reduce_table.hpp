// AllReduceTable: the measured tensor-parallel all-reduce of one framework
// (`comm_custom_allreduce.csv`: vLLM's `tensor_model_parallel_all_reduce`, bf16, whatever vLLM
// dispatches at that size: its custom all-reduce or NCCL), by GPU count, message size in
// elements and launch mode: `vllm_graph` rows were captured in a CUDA graph (a padded decode
// step), `vllm_eager` rows include the host launch (a step above the largest graph bucket).
// Lookups follow grid_interpolation.hpp's rule along the message size.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "common/csv_table.hpp"
#include "profiles/kernel_db/kernel_latency.hpp"

namespace sparksim {

enum class LaunchMode { kCudaGraph, kEager };

class AllReduceTable {
 public:
  // Reads the bfloat16 all_reduce rows. Stops with `path:line: what` on a malformed, non-positive
  // or duplicate row, an unknown backend, and at line 1 when no row has this dtype.
  explicit AllReduceTable(const CsvTable& table);

  // One all-reduce of `elements` bf16 values on each of `gpus` GPUs. InputError naming the GPU
  // counts measured when `gpus` is not one of them.
  KernelLatency latency(std::int64_t gpus, std::int64_t elements, LaunchMode mode) const;

  std::vector<std::int64_t> gpu_counts() const;

 private:
  std::string path_;
  // (gpus, mode) -> message size (elements) -> ms
  std::map<std::pair<std::int64_t, LaunchMode>, std::map<std::int64_t, double>> rows_;
};

}  // namespace sparksim
