// Reads a dense target's dimensions from model_shapes.json (see the header).
#include "profiles/dense_model_dims.hpp"

namespace sparksim {

DenseModelDims read_dense_model_dims(const JsonFile& shapes, const JsonFile::Pointer& target) {
  constexpr std::int64_t kMaxDim = std::int64_t{1} << 24;
  const JsonFile::Pointer& t = target;
  DenseModelDims d;
  d.layers = shapes.get_int(t / "layers", 1, 1024);
  d.hidden = shapes.get_int(t / "hidden", 1, kMaxDim);
  d.q_heads = shapes.get_int(t / "q_heads", 1, 4096);
  d.kv_heads = shapes.get_int(t / "kv_heads", 1, d.q_heads);
  d.head_dim = shapes.get_int(t / "head_dim", 1, 4096);
  d.ffn = shapes.get_int(t / "ffn", 1, kMaxDim);
  d.vocab = shapes.get_int(t / "vocab", 1, kMaxDim);
  return d;
}

}  // namespace sparksim
