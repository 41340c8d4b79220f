// sparksim_verify_bench: times the verify forward of a real Qwen3 shape (device-drawn random
// weights) at verify widths B = 1..64 and one context length, and prints each row's ratio to the
// memory-bandwidth floor: (streamed weight bytes + the gathered embedding rows + KV bytes read)
// over the device-to-device copy bandwidth measured in the same run (kernels/bandwidth_floor.hpp).
// Each width runs eagerly and as a CUDA graph of its token bucket; then one greedy engine step
// (draft 7 -> verify 1 + 3 per request -> accept -> context update) of 16 requests on the
// published DSpark drafter, and the Markov head's share of a 128-request drafter round. A benchmark
// that prints figures; it asserts nothing. Needs a GPU. Each row names the attention path its
// batch took (split-K decode / tensor-core prefill, attention_plan.hpp); --ragged-baseline adds
// graph rows with the one-block-per-(token, head) ragged kernel, for comparison.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <utility>
#include <vector>

#include "common/random_bits.hpp"
#include "kernels/bandwidth_floor.hpp"
#include "kernels/gpu_kernels.hpp"
#include "kernels/model_shape.hpp"

int main(int argc, char** argv) {
  using namespace sparksim::kernels;
  std::string target = "qwen3-8b";
  int context = 2048;
  int width = 4;  // verify tokens per request (1 + drafts)
  bool ragged_baseline = false;
  const char* usage =
      "usage: sparksim_verify_bench [--target T] [--context N] [--width W] [--ragged-baseline]\n";
  int argi = 1;
  for (; argi < argc && std::string(argv[argi]) == "--ragged-baseline"; ++argi) {
    ragged_baseline = true;
  }
  for (int i = argi; i + 1 < argc; i += 2) {
    const std::string arg = argv[i];
    if (arg == "--target") {
      target = argv[i + 1];
    } else if (arg == "--context") {
      context = std::atoi(argv[i + 1]);
    } else if (arg == "--width") {
      width = std::atoi(argv[i + 1]);
    } else {
      std::fprintf(stderr, "%s", usage);
      return 2;
    }
  }
  if ((argc - argi) % 2 != 0 || context < 1 || width < 1) {
    std::fprintf(stderr, "%s", usage);
    return 2;
  }
  if (gpu::device_count() == 0) {
    std::fprintf(stderr, "sparksim_verify_bench: needs a CUDA device; nothing was measured\n");
    return 2;
  }
  try {
    const TransformerShape shape = qwen3_shape(target);
    const std::vector<int> widths = {1, 2, 4, 8, 16, 32, 64};
    const int max_requests = (widths.back() + width - 1) / width;
    const KvCacheShape cs{shape.layers, max_requests, context + width, shape.kv_heads,
                          shape.head_dim};
    const SamplingOptions options;  // warm-up 3, 5..200 samples, 2% noise
    const std::size_t l2_flush_bytes = std::size_t{256} << 20;
    const gpu::CopyBandwidth copy = gpu::measure_copy_bandwidth(std::size_t{1} << 30, options);
    gpu::VerifyModel model(shape, 1, 0.02, cs);
    std::printf("device: %s\n", gpu::device_summary().c_str());
    std::printf("copy bandwidth (read + write): %.1f GB/s (noise %.3f, %d samples)\n", copy.gb_s,
                copy.stats.noise, copy.stats.samples);
    std::printf(
        "target,mode,B,requests,context,mean_us,noise,samples,converged,floor_us,ratio,"
        "attention\n");
    std::vector<std::pair<int, bool>> modes = {{0, true}, {64, true}};  // (graph bucket, planned)
    if (ragged_baseline) modes.emplace_back(64, false);
    for (const auto& [graph_bucket, planned] : modes) {
      model.use_planned_attention(planned);
      model.use_graphs(graph_bucket);
      for (int b : widths) {
        RaggedBatch batch;
        batch.cu_seqlens = {0};
        int left = b;
        for (int r = 0; left > 0; ++r) {
          const int n = left < width ? left : width;
          batch.context_lens.push_back(context);
          batch.slots.push_back(r);
          batch.cu_seqlens.push_back(batch.cu_seqlens.back() + n);
          for (int i = 0; i < n; ++i) batch.tokens.push_back((r * 131 + i * 17) % shape.vocab);
          left -= n;
        }
        model.set_batch(batch);
        const TimingStats t = model.time_run(options, l2_flush_bytes);
        // The embedding table is gathered (b rows), not streamed: bandwidth_floor.hpp.
        long long kv_positions = 0;
        for (int r = 0; r < batch.requests(); ++r) {
          kv_positions += context + (batch.cu_seqlens[r + 1] - batch.cu_seqlens[r]);
        }
        const double bytes = verify_floor_bytes(shape, b, kv_positions);
        const double floor_us = bytes / (copy.gb_s * 1e9) * 1e6;
        std::printf("%s,%s,%d,%d,%d,%.1f,%.4f,%d,%d,%.1f,%.3f,\"%s\"\n", target.c_str(),
                    graph_bucket > 0 ? "graph" : "eager", b, batch.requests(), context, t.mean_us,
                    t.noise, t.samples, t.converged ? 1 : 0, floor_us, t.mean_us / floor_us,
                    model.attention_paths().c_str());
      }
    }
    // One greedy engine step, the Markov-head loop included, event-timed (median of 9 steps
    // after 2; each step advances the requests, contexts stay inside the slots).
    DraftShape ds = dspark_shape(target);
    const KvCacheShape dcs{ds.layers, max_requests, context + 64, shape.kv_heads, shape.head_dim};
    const KvCacheShape tcs{shape.layers, max_requests, context + 64, shape.kv_heads,
                           shape.head_dim};
    gpu::VerifyModel step_target(shape, 1, 0.02, tcs);
    gpu::DsparkModel drafter(step_target, ds, 2, 0.02, dcs);
    gpu::GreedyStepRunner runner(step_target, drafter, ds);
    std::vector<SpecRequest> requests;
    for (int r = 0; r < max_requests; ++r)
      requests.push_back({r, context - 32, (r * 131) % shape.vocab});
    std::vector<double> step_us;
    for (int i = 0; i < 11; ++i) {
      runner.step(requests, std::vector<int>(requests.size(), 3));
      if (i >= 2) step_us.push_back(runner.last_step_us());
    }
    std::sort(step_us.begin(), step_us.end());
    std::printf(
        "greedy step: %d requests, gamma %d, 3 verified each, context ~%d: median %.1f us "
        "(min %.1f, max %.1f)\n",
        max_requests, ds.block_size, context, step_us[step_us.size() / 2], step_us.front(),
        step_us.back());
    // The same step sampled: rejection sampling at temperature 1 with seeded uniforms, the
    // requests restarted at the same contexts (their caches are rewritten in place).
    requests.clear();
    for (int r = 0; r < max_requests; ++r)
      requests.push_back({r, context - 32, (r * 131) % shape.vocab});
    std::vector<double> sampled_us;
    std::uint64_t counter = 0;
    for (int i = 0; i < 11; ++i) {
      StepSampling sampling;
      sampling.temperature = 1.0;
      for (int j = 0; j < max_requests * ds.block_size; ++j) {
        sampling.draft_uniforms.push_back(sparksim::counter_uniform(7, counter++));
        sampling.accept_uniforms.push_back(sparksim::counter_uniform(7, counter++));
      }
      for (int r = 0; r < max_requests; ++r)
        sampling.sample_uniforms.push_back(sparksim::counter_uniform(7, counter++));
      runner.step(requests, std::vector<int>(requests.size(), 3), sampling);
      if (i >= 2) sampled_us.push_back(runner.last_step_us());
    }
    std::sort(sampled_us.begin(), sampled_us.end());
    std::printf(
        "sampled step (temperature 1): %d requests, gamma %d, 3 verified each: median %.1f us\n",
        max_requests, ds.block_size, sampled_us[sampled_us.size() / 2]);
    // The Markov-head loop's share of a drafter round (issue 22's target: <= 2% at R = 128,
    // gamma 7): CUDA events around the loop inside each DSpark round (gather, bias GEMM,
    // confidence, softmax and draw, gamma steps) over events around the whole round, medians of
    // 9 samples after 2; beside it the same round without the head and the confidence (dflash).
    // One parseable line, which gpu_calibrate.sh keeps.
    const int round_requests = 128;
    DraftShape round_shape = ds;
    round_shape.block_size = 7;
    const KvCacheShape rcs{ds.layers, round_requests, context + 64, shape.kv_heads, shape.head_dim};
    gpu::DsparkModel round_drafter(step_target, round_shape, 3, 0.02, rcs);
    const auto median = [](std::vector<double> us) {
      std::sort(us.begin(), us.end());
      return us[us.size() / 2];
    };
    double loop_us = 0.0;
    const auto median_round_us = [&](bool markov) {
      DraftRequest request;
      for (int r = 0; r < round_requests; ++r) {
        request.anchors.push_back((r * 131) % shape.vocab);
        request.context_lens.push_back(context);
        request.slots.push_back(r);
      }
      request.markov_and_confidence = markov;
      round_drafter.set_draft(request);
      std::vector<double> us;
      std::vector<double> loop;
      for (int i = 0; i < 11; ++i) {
        const double t = round_drafter.run_timed_us();
        if (i < 2) continue;
        us.push_back(t);
        loop.push_back(round_drafter.last_markov_loop_us());
      }
      if (markov) loop_us = median(loop);
      return median(us);
    };
    const double with_head = median_round_us(true);
    const double without_head = median_round_us(false);
    std::printf(
        "markov_share: R=%d gamma=%d context=%d round_us=%.1f markov_loop_us=%.1f "
        "markov_loop_share_pct=%.2f target_pct=2 dflash_round_us=%.1f "
        "head_and_confidence_pct=%.2f (CUDA events, medians of 9)\n",
        round_requests, round_shape.block_size, context, with_head, loop_us,
        100.0 * loop_us / with_head, without_head, 100.0 * (with_head - without_head) / with_head);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "sparksim_verify_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
