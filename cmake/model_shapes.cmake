# Generates the kernels' shape table from profiles/model_shapes.json, the one place model shapes
# are kept: kernels/ builds on a GPU machine from CUDA alone (no JSON library), so the table is
# compiled in rather than read at run time. Every target whose name starts with "qwen3-" becomes
# a row (with its DSpark drafter's target_layer_ids); a Qwen3 target without target_layer_ids
# (no DSpark drafter published for it, e.g. qwen3-32b) is not a kernel target and is skipped; a
# missing shape key stops the configure/build.
#   cmake -DIN=profiles/model_shapes.json -DOUT=model_shapes_table.hpp -P model_shapes.cmake
file(READ "${IN}" json)
string(JSON target_count LENGTH "${json}" targets)
math(EXPR last "${target_count} - 1")
string(JSON draft_layers GET "${json}" drafters dspark layers)
string(JSON draft_block GET "${json}" drafters dspark block_size)
string(JSON draft_rank GET "${json}" drafters dspark markov_rank)
set(rows "")
foreach(i RANGE ${last})
  string(JSON name MEMBER "${json}" targets ${i})
  if(NOT name MATCHES "^qwen3-")
    continue()
  endif()
  string(JSON ids_type ERROR_VARIABLE no_ids TYPE "${json}" drafters dspark target_layer_ids ${name})
  if(no_ids)
    continue()
  endif()
  set(fields "")
  foreach(key layers hidden q_heads kv_heads head_dim ffn vocab rope_theta tied_embeddings)
    string(JSON value GET "${json}" targets ${name} ${key})
    if(key STREQUAL "tied_embeddings")
      string(TOLOWER "${value}" value)  # ON/OFF from CMake's JSON reader -> true/false
      if(value STREQUAL "on")
        set(value true)
      elseif(value STREQUAL "off")
        set(value false)
      endif()
    endif()
    string(APPEND fields ", ${value}")
  endforeach()
  string(JSON ids_count LENGTH "${json}" drafters dspark target_layer_ids ${name})
  math(EXPR ids_last "${ids_count} - 1")
  set(ids "")
  foreach(k RANGE ${ids_last})
    string(JSON id GET "${json}" drafters dspark target_layer_ids ${name} ${k})
    if(ids STREQUAL "")
      set(ids "${id}")
    else()
      string(APPEND ids ", ${id}")
    endif()
  endforeach()
  string(APPEND rows "    {\"${name}\"${fields}, {${ids}}},\n")
endforeach()
file(WRITE "${OUT}.tmp"
     "// Generated from profiles/model_shapes.json by cmake/model_shapes.cmake; edit the JSON.\n"
     "#pragma once\n\n"
     "#include <vector>\n\n"
     "namespace sparksim::kernels::generated {\n\n"
     "struct Qwen3ShapeRow {\n"
     "  const char* name;\n"
     "  int layers, hidden, q_heads, kv_heads, head_dim, ffn, vocab;\n"
     "  double rope_theta;\n"
     "  bool tied_embeddings;\n"
     "  std::vector<int> dspark_target_layer_ids;\n"
     "};\n\n"
     "inline const std::vector<Qwen3ShapeRow>& qwen3_shape_rows() {\n"
     "  static const std::vector<Qwen3ShapeRow> rows = {\n${rows}  };\n"
     "  return rows;\n"
     "}\n\n"
     "inline constexpr int kDsparkLayers = ${draft_layers};\n"
     "inline constexpr int kDsparkBlockSize = ${draft_block};\n"
     "inline constexpr int kDsparkMarkovRank = ${draft_rank};\n\n"
     "}  // namespace sparksim::kernels::generated\n")
file(COPY_FILE "${OUT}.tmp" "${OUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUT}.tmp")
