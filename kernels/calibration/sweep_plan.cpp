// Sweep planning and the appending runner.
#include "kernels/calibration/sweep_plan.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <random>

namespace sparksim::kernels {

namespace {

std::string row_label(const char* what, int requests, int context, int width) {
  return std::string(what) + " R=" + std::to_string(requests) + " ctx=" + std::to_string(context) +
         " w=" + std::to_string(width);
}

}  // namespace

std::vector<SweepPoint> plan_sweep(const SweepGrid& grid, int max_requests, int max_slot_tokens) {
  std::vector<SweepPoint> points;
  const auto fits = [&](int requests, int context, int width) {
    return requests <= max_requests && context + width <= max_slot_tokens;
  };
  for (int r : grid.requests) {
    for (int ctx : grid.contexts) {
      for (int w : grid.verify_widths) {
        if (!fits(r, ctx, w)) continue;
        SweepPoint p{"verify", row_label("decode", r, ctx, w), {}, {}};
        p.verify.segments.assign(static_cast<std::size_t>(r), BatchSegment{ctx, w, false});
        points.push_back(p);
      }
    }
  }
  // Prefill chunks, alone and beside a decode batch (chunked prefill shares the step); the
  // decodes sit at the longest context that fits a slot.
  const int decode_context = std::min(grid.contexts.back(), max_slot_tokens - 2);
  for (int chunk : grid.prefill_chunks) {
    for (int cached : {0, grid.contexts.front()}) {
      for (int decodes : {0, grid.requests.back() / 2}) {
        if (!fits(decodes + 1, cached, chunk) || decode_context < 0) continue;
        SweepPoint p{"verify", row_label("prefill", decodes + 1, cached, chunk), {}, {}};
        p.verify.segments.push_back(BatchSegment{cached, chunk, true});
        for (int d = 0; d < decodes; ++d) {
          p.verify.segments.push_back(BatchSegment{decode_context, 2, false});
        }
        points.push_back(p);
      }
    }
  }
  // Ragged mixes: what a scheduler produces, every request its own width and context.
  std::mt19937_64 rng(grid.seed);
  const int widest = *std::max_element(grid.verify_widths.begin(), grid.verify_widths.end());
  const int longest = *std::max_element(grid.contexts.begin(), grid.contexts.end());
  for (int m = 0; m < grid.ragged_mixes; ++m) {
    const int r = std::min(max_requests, 1 + static_cast<int>(rng() % grid.requests.back()));
    SweepPoint p{"verify", "ragged mix " + std::to_string(m), {}, {}};
    for (int i = 0; i < r; ++i) {
      const int w = 1 + static_cast<int>(rng() % widest);
      const int ctx = std::min(max_slot_tokens - w, 8 + static_cast<int>(rng() % longest));
      p.verify.segments.push_back(BatchSegment{ctx, w, false});
    }
    points.push_back(p);
  }
  for (DraftFamily family : grid.draft_families) {
    const char* name = draft_family_name(family);
    const std::vector<int> gammas =
        family == DraftFamily::kMtp1 ? std::vector<int>{1} : grid.draft_gammas;
    for (int r : grid.requests) {
      for (int g : gammas) {
        for (int ctx : grid.contexts) {
          if (!fits(r, ctx, g)) continue;
          SweepPoint p{name, row_label(name, r, ctx, g), {}, {}};
          p.draft.gamma = g;
          p.draft.family = family;
          p.draft.contexts.assign(static_cast<std::size_t>(r), ctx);
          points.push_back(p);
        }
      }
    }
  }
  return points;
}

BatchFeatures features_of(const VerifyBatch& batch) {
  BatchFeatures f;
  for (const BatchSegment& s : batch.segments) {
    if (s.prefill) {
      f.prefill_tokens += s.width;
      f.prefill_attention_pairs +=
          static_cast<std::int64_t>(s.width) * (s.context + (s.width + 1) / 2);
    } else {
      ++f.requests;
      f.verify_tokens += s.width;
      f.decode_context_tokens += s.context;
      f.verify_attention_pairs += static_cast<std::int64_t>(s.width) * s.context;
    }
  }
  return f;
}

const char* sweep_csv_header() {
  return "kind,label,requests,gamma,verify_tokens,prefill_tokens,decode_context_tokens,"
         "verify_attention_pairs,prefill_attention_pairs,time_us,noise,samples";
}

SweepSummary run_sweep(StepBackend& backend, const std::vector<SweepPoint>& points,
                       const SweepLimits& limits, std::ostream& csv) {
  const auto start = std::chrono::steady_clock::now();
  const auto wall = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  SweepSummary summary;
  summary.planned = static_cast<int>(points.size());
  std::vector<double> noises;
  csv << sweep_csv_header() << "\n" << std::flush;
  const auto block = static_cast<std::size_t>(std::max(1, limits.interleave_block));
  for (std::size_t begin = 0; begin < points.size(); begin += block) {
    if (wall() > limits.time_cap_s) {
      summary.cut_by_time = true;
      break;
    }
    const std::size_t end = std::min(points.size(), begin + block);
    std::vector<std::function<double()>> samplers;
    for (std::size_t i = begin; i < end; ++i) {
      const SweepPoint& p = points[i];
      samplers.emplace_back([&backend, &p] {
        return p.kind == "verify" ? backend.verify_us(p.verify) : backend.draft_us(p.draft);
      });
    }
    const std::vector<RobustTiming> timings =
        time_interleaved(samplers, limits.warmup, limits.repeats);
    for (std::size_t i = begin; i < end; ++i) {
      const SweepPoint& p = points[i];
      const RobustTiming& t = timings[i - begin];
      const bool verify = p.kind == "verify";
      BatchFeatures f;
      if (verify) {
        f = features_of(p.verify);
      } else {
        f.requests = static_cast<std::int64_t>(p.draft.contexts.size());
        for (int c : p.draft.contexts) f.decode_context_tokens += c;
      }
      char numbers[96];
      std::snprintf(numbers, sizeof numbers, "%.3f,%.5f,%d", estimate_us(t, limits.estimator),
                    t.noise, t.samples);
      csv << p.kind << "," << p.label << "," << f.requests << "," << (verify ? 0 : p.draft.gamma)
          << "," << f.verify_tokens << "," << f.prefill_tokens << "," << f.decode_context_tokens
          << "," << f.verify_attention_pairs << "," << f.prefill_attention_pairs << "," << numbers
          << "\n";
      noises.push_back(t.noise);
      ++summary.measured;
    }
    csv << std::flush;
  }
  summary.wall_s = wall();
  if (!noises.empty()) {
    std::sort(noises.begin(), noises.end());
    summary.median_noise = noises[noises.size() / 2];
  }
  return summary;
}

}  // namespace sparksim::kernels
