// Sorting-network benchmark: nanoseconds per descending sort of n survivals (per-request runs of
// 7, as async-topk and greedy hand them over) by the AVX2 network (where the CPU has it), the SSE
// network, and std::sort, each on the same 1024 inputs. Prints figures; asserts nothing.
// Usage: sparksim_sort_bench [ROUNDS]   (default 200 rounds over the 1024 inputs)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <vector>

#include "policies/sorting_network.hpp"

using namespace sparksim;

namespace {

// Nanoseconds per sort, the copy of the input included (timed alone and subtracted).
template <typename Sort>
double time_sorts(const std::vector<std::vector<float>>& inputs, int rounds, Sort sort) {
  std::vector<float> work(kNetworkSortMax);
  float sink = 0;
  const auto run = [&](bool sorting) {
    const auto start = std::chrono::steady_clock::now();
    for (int round = 0; round < rounds; ++round) {
      for (const auto& input : inputs) {
        std::copy(input.begin(), input.end(), work.begin());
        if (sorting) sort(work.data(), input.size());
        sink += work[0];
      }
    }
    return std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start)
        .count();
  };
  const double copying = run(false);
  const double sorting = run(true);
  if (sink < 0) std::printf("%f\n", static_cast<double>(sink));  // keeps the loops alive
  return (sorting - copying) / (static_cast<double>(rounds) * static_cast<double>(inputs.size()));
}

}  // namespace

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 200;
  std::mt19937_64 rng(1);
  std::printf("sort of n survivals, ns per sort (AVX2 network %s)\n",
              network_has_avx2() ? "available" : "not available on this CPU: kBest = SSE");
  std::printf("%6s %12s %12s %12s\n", "n", "best", "sse", "std::sort");
  for (const std::size_t n : {8, 16, 28, 32, 48, 64, 100, 128}) {
    std::vector<std::vector<float>> inputs(1024, std::vector<float>(n));
    for (auto& input : inputs) {
      for (auto& v : input) v = std::uniform_real_distribution<float>(0.0f, 1.0f)(rng);
      for (std::size_t at = 0; at < n; at += 7) {
        std::sort(input.begin() + static_cast<std::ptrdiff_t>(at),
                  input.begin() + static_cast<std::ptrdiff_t>(std::min(n, at + 7)),
                  std::greater<float>());
      }
    }
    const double best = time_sorts(inputs, rounds, [](float* v, std::size_t k) {
      sort_few_descending(v, k, NetworkIsa::kBest);
    });
    const double sse = time_sorts(inputs, rounds, [](float* v, std::size_t k) {
      sort_few_descending(v, k, NetworkIsa::kSse);
    });
    const double standard = time_sorts(inputs, rounds, [](float* v, std::size_t k) {
      std::sort(v, v + k, std::greater<float>());
    });
    std::printf("%6zu %12.1f %12.1f %12.1f\n", n, best, sse, standard);
  }
  return 0;
}
