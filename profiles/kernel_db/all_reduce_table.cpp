// AllReduceTable: loading (with row validation) and the lookup along the message size.
#include "profiles/kernel_db/all_reduce_table.hpp"

#include <set>

#include "common/input_error.hpp"
#include "profiles/kernel_db/grid_interpolation.hpp"

namespace sparksim {

namespace {

constexpr std::int64_t kMaxElements = std::int64_t{1} << 40;

const char* mode_name(LaunchMode m) {
  return m == LaunchMode::kCudaGraph ? "vllm_graph" : "vllm_eager";
}

}  // namespace

AllReduceTable::AllReduceTable(const CsvTable& table) : path_(table.path()) {
  const std::size_t c_op = table.column("op_name");
  const std::size_t c_dtype = table.column("allreduce_dtype");
  const std::size_t c_gpus = table.column("num_gpus");
  const std::size_t c_size = table.column("message_size");
  const std::size_t c_latency = table.column("latency_ms");
  const std::size_t c_backend = table.column("backend");
  for (std::size_t r = 0; r < table.rows(); ++r) {
    if (table.cell(r, c_op) != "all_reduce" || table.cell(r, c_dtype) != "bfloat16") continue;
    const std::string& backend = table.cell(r, c_backend);
    if (backend != "vllm_graph" && backend != "vllm_eager") {
      table.fail(r, "backend is '" + backend + "'; expected vllm_graph or vllm_eager");
    }
    const LaunchMode mode = backend == "vllm_graph" ? LaunchMode::kCudaGraph : LaunchMode::kEager;
    const std::int64_t gpus = table.integer_in(r, c_gpus, 2, 1024);
    const std::int64_t size = table.integer_in(r, c_size, 1, kMaxElements);
    const double ms = table.number(r, c_latency);
    if (!(ms > 0)) table.fail(r, "latency_ms is " + table.cell(r, c_latency) + "; must be > 0");
    if (!rows_[{gpus, mode}].emplace(size, ms).second) {
      table.fail(r, "all_reduce of " + std::to_string(size) + " elements on " +
                        std::to_string(gpus) + " GPUs (" + backend + ") is measured twice");
    }
  }
  if (rows_.empty()) throw InputError(path_, 1, "no bfloat16 all_reduce rows");
}

std::vector<std::int64_t> AllReduceTable::gpu_counts() const {
  std::set<std::int64_t> out;
  for (const auto& [key, points] : rows_) out.insert(key.first);
  return {out.begin(), out.end()};
}

KernelLatency AllReduceTable::latency(std::int64_t gpus, std::int64_t elements,
                                      LaunchMode mode) const {
  const auto it = rows_.find({gpus, mode});
  if (it == rows_.end()) {
    std::string measured;
    for (std::int64_t g : gpu_counts())
      measured += (measured.empty() ? "" : ", ") + std::to_string(g);
    throw InputError(path_, 0,
                     "no " + std::string(mode_name(mode)) + " all-reduce measured on " +
                         std::to_string(gpus) + " GPUs; measured: " + measured);
  }
  const std::map<std::int64_t, double>& points = it->second;
  std::vector<std::int64_t> sizes;
  for (const auto& [size, ms] : points) sizes.push_back(size);
  return interpolate_on_grid(
      sizes, elements,
      [&](std::int64_t x) {
        return KernelLatency{points.at(x), {}};
      },
      "message_size",
      "comm_custom_allreduce.csv " + std::string(mode_name(mode)) + " on " + std::to_string(gpus) +
          " GPUs");
}

}  // namespace sparksim
