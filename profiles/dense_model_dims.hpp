// DenseModelDims: the dimensions of a dense transformer target as model_shapes.json gives them,
// read in one place for the analytic generator and the measured-db step composer alike.
#pragma once

#include <cstdint>

#include "common/json_file.hpp"

namespace sparksim {

struct DenseModelDims {
  std::int64_t layers = 0, hidden = 0, q_heads = 0, kv_heads = 0, head_dim = 0, ffn = 0, vocab = 0;
};

// The dimensions under `target` (e.g. /targets/qwen3-8b), each range-checked (kv_heads at most
// q_heads); InputError naming the file and line otherwise.
DenseModelDims read_dense_model_dims(const JsonFile& shapes, const JsonFile::Pointer& target);

}  // namespace sparksim
