// The published DSpark figures as test data: tests/sim/acceptance/data/dspark_published.json, a
// verbatim copy of the project's reference blocks (Table 1, Figure 2, Figure 4, MTP-1) with their
// sources. The acceptance tests compare against these numbers, read from the file, never against
// the tables compiled into sim/acceptance/published_curves.cpp, so a typo there fails a test.
#pragma once

#include <array>
#include <cstddef>
#include <fstream>
#include <stdexcept>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "profiles/drafter.hpp"
#include "traces/domain.hpp"

namespace sparksim::testing {

inline const nlohmann::json& published_data() {
  static const nlohmann::json data = [] {
    const std::string path =
        std::string(SPARKSIM_SOURCE_DIR) + "/tests/sim/acceptance/data/dspark_published.json";
    std::ifstream in(path);
    if (!in) throw std::runtime_error("cannot read " + path);
    return nlohmann::json::parse(in);
  }();
  return data;
}

// Table 1's τ for `target` and `family`, averaged over the three benchmarks of `domain`.
inline double published_table1_domain_tau(std::string_view target, DrafterFamily family,
                                          Domain domain) {
  const auto& table = published_data().at("table1_accepted_length");
  const auto& row =
      table.at("rows").at(std::string(target)).at(std::string(drafter_family_name(family)));
  const auto& benchmarks = table.at("benchmarks");
  double sum = 0;
  int count = 0;
  for (std::size_t i = 0; i < benchmarks.size(); ++i) {
    const auto name = benchmarks[i].get<std::string>();
    if (table.at("domain_of_benchmark").at(name).get<std::string>() != domain_name(domain)) {
      continue;
    }
    sum += row.at(i).get<double>();
    ++count;
  }
  if (count != 3) throw std::runtime_error("Table 1: expected three benchmarks per domain");
  return sum / count;
}

// Figure 2 (Qwen3-4B): P(position k accepted | 1..k-1 accepted), positions 1..7.
inline std::array<double, 7> published_figure2(DrafterFamily family, Domain domain) {
  const auto& row = published_data()
                        .at("fig2_conditional_acceptance")
                        .at(std::string(domain_name(domain)))
                        .at(std::string(drafter_family_name(family)));
  std::array<double, 7> out{};
  for (std::size_t k = 0; k < out.size(); ++k) out[k] = row.at(k).get<double>();
  return out;
}

// Figure 4 (Qwen3-4B): domain-mean τ at draft lengths 4, 8, 12, 16 (γ = 3, 7, 11, 15); DSpark's
// series is the Markov head's (the default drafter).
inline std::array<double, 4> published_figure4(DrafterFamily family, Domain domain) {
  const std::string series = family == DrafterFamily::kDspark ? "dspark_markov" : "dflash";
  const auto& row =
      published_data().at("block_size_scaling").at(std::string(domain_name(domain))).at(series);
  std::array<double, 4> out{};
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = row.at(i).get<double>();
  return out;
}

// DeepSeek-V3 report: the MTP second token's acceptance range, [low, high].
inline std::array<double, 2> published_mtp1_range() {
  const auto& r = published_data().at("mtp1_baseline").at("second_token_acceptance_range");
  return {r.at(0).get<double>(), r.at(1).get<double>()};
}

}  // namespace sparksim::testing
