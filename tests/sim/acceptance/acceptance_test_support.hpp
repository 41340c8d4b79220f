// Shared helpers for the acceptance-model tests: a scratch directory, and the measurement the
// published figures make (full-block verification over requests of a fixed output length, pooled
// over steps).
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "sim/acceptance/acceptance_model.hpp"

namespace sparksim::testing {

class ScratchDir {
 public:
  ScratchDir() {
    static std::atomic<int> counter{0};
    path_ = std::filesystem::temp_directory_path() /
            ("sparksim-acceptance-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~ScratchDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  // Writes `content` to a file in the directory and returns its path.
  std::string write(const std::string& name, const std::string& content) const {
    const auto p = path_ / name;
    std::ofstream(p, std::ios::binary) << content;
    return p.string();
  }
  std::filesystem::path path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// reached[k] = request-steps whose hidden outcome accepted at least k drafts (k = 0..γ).
struct FullBlockStats {
  std::vector<std::int64_t> reached;
  std::int64_t steps = 0;
  // Accepted length per step including the bonus token (Table 1's τ), before any truncation at
  // the end of an output.
  double tau() const {
    double t = 1.0;
    for (std::size_t k = 1; k < reached.size(); ++k) t += static_cast<double>(reached[k]) / steps;
    return t;
  }
  // P(position k accepted | 1..k-1 accepted), pooled over steps (Figure 2's measurement).
  double conditional(int k) const {
    return static_cast<double>(reached[static_cast<std::size_t>(k)]) /
           static_cast<double>(reached[static_cast<std::size_t>(k - 1)]);
  }
};

// `requests` requests of `output_tokens` tokens each, every step verifying all γ drafts
// (static:k=γ): a request commits min(accepted + 1, tokens left) per step until done.
inline FullBlockStats run_full_block(AcceptanceModel& model, Domain domain, int gamma, int requests,
                                     std::int64_t output_tokens, std::uint64_t first_id = 0) {
  FullBlockStats s;
  s.reached.assign(static_cast<std::size_t>(gamma) + 1, 0);
  std::vector<float> confidences(static_cast<std::size_t>(gamma));
  for (int i = 0; i < requests; ++i) {
    const std::uint64_t id = first_id + static_cast<std::uint64_t>(i);
    AcceptanceState state{};
    model.init_request(id, domain, state);
    std::int64_t generated = 0;
    for (std::int64_t step = 0; generated < output_tokens; ++step) {
      const DraftSlot slot{id, domain, step, generated, &state};
      int accepted = 0;
      model.draft(std::span<const DraftSlot>(&slot, 1), gamma, confidences,
                  std::span<int>(&accepted, 1));
      for (int k = 0; k <= accepted; ++k) ++s.reached[static_cast<std::size_t>(k)];
      ++s.steps;
      generated += std::min<std::int64_t>(accepted + 1, output_tokens - generated);
    }
  }
  return s;
}

}  // namespace sparksim::testing
