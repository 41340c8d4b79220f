// A small hand-written profile shared by the profile tests: round numbers so that time-model
// results can be computed by hand, and one key per line so loader errors have known lines.
#pragma once

#include <filesystem>
#include <fstream>
#include <string>

#include "common/input_error.hpp"
#include "profiles/profile_io.hpp"
#include "profiles/time_model.hpp"
#include "tests/common/input_error_message.hpp"

namespace sparksim::testing {

inline const std::string kFixtureProfile = R"({
  "schema": "sparksim.profile/1",
  "provenance": {
    "source": "measured",
    "gpu": "test-gpu",
    "date": "2025-01-02",
    "tool": "hand-written test fixture",
    "git_sha": "abc123",
    "notes": ""
  },
  "target": "tiny",
  "gpus": 1,
  "memory": {
    "hbm_bytes": 1000,
    "weights_bytes": 400,
    "memory_utilization": 0.9,
    "kv_bytes_per_token": 7
  },
  "host_overhead_us": 150,
  "verify": {
    "fixed_us": 10,
    "graph_buckets": [1, 2, 4, 8],
    "dense_tokens": [1, 4, 8, 16],
    "dense_us": [100, 130, 170, 250],
    "kv_read_ns_per_context_token": 2,
    "attention_ns_per_pair": 0.5
  },
  "draft": {
    "mtp1": {"fixed_us": 0, "per_pass_us": 100, "per_token_ns": 1000,
      "sequential_in_gamma": false, "tokens_scale_with_gamma": false,
      "kv_read_ns_per_context_token": 0.5, "kv_read_per_pass": false},
    "eagle3": {"fixed_us": 10, "per_pass_us": 50, "per_token_ns": 200,
      "sequential_in_gamma": true, "tokens_scale_with_gamma": true,
      "kv_read_ns_per_context_token": 0.25, "kv_read_per_pass": true},
    "dflash": {"fixed_us": 20, "per_pass_us": 300, "per_token_ns": 100,
      "sequential_in_gamma": false, "tokens_scale_with_gamma": true,
      "kv_read_ns_per_context_token": 1, "kv_read_per_pass": false},
    "dspark": {"fixed_us": 320, "per_pass_us": 40, "per_token_ns": 150,
      "sequential_in_gamma": true, "tokens_scale_with_gamma": true,
      "kv_read_ns_per_context_token": 1, "kv_read_per_pass": false}
  },
  "sps": {
    "reference": "hand-written",
    "tokens": [1, 3, 5],
    "steps_per_s": [100, 80, 50]
  }
}
)";

// The fixture, loaded.
inline Profile fixture_profile() {
  return profile_from_json(JsonFile::parse(kFixtureProfile, "fixture.json"));
}

// `tokens` decode requests verifying one token each at no context: only the fixed and dense terms
// count.
inline BatchShape tokens_only(std::int64_t tokens) {
  BatchShape s;
  s.decode_requests = tokens;
  s.verify_tokens = tokens;
  return s;
}

// 1-based line of the first line containing `needle` (a plain text search: the tests' oracle).
inline std::int64_t line_containing(const std::string& text, const std::string& needle) {
  const std::size_t at = text.find(needle);
  if (at == std::string::npos) return -1;
  std::int64_t line = 1;
  for (std::size_t i = 0; i < at; ++i) line += text[i] == '\n';
  return line;
}

// A fresh, empty directory under the system temporary directory.
inline std::filesystem::path fresh_dir(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() / ("sparksim_profiles_test_" + name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

inline std::string write_text(const std::filesystem::path& path, const std::string& text) {
  std::ofstream(path) << text;
  return path.string();
}

}  // namespace sparksim::testing
