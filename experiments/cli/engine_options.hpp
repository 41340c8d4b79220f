// The engine options every simulating command shares: `--engine NAME` copies a preset's limits
// (sim/engine_preset.hpp) into the run options before they are validated; flags given explicitly
// on the same command line (--max-running, --max-batch-tokens, --prefill) keep their values.
#pragma once

#include <CLI/CLI.hpp>

#include "experiments/run_experiment.hpp"
#include "sim/engine_preset.hpp"

namespace sparksim::cli {

inline void add_engine_option(CLI::App& cmd, RunOptions& o) {
  cmd.add_option("--engine", o.engine,
                 "engine preset: " + engine_preset_names() +
                     " (max sequences, token budget, chunked prefill, KV memory share)");
}

// Call in the command's callback, before prepare_run(). An unknown name is left for prepare_run
// to report with the other problems.
inline void apply_engine_preset(const CLI::App& cmd, RunOptions& o) {
  if (o.engine.empty()) return;
  for (const EnginePreset& p : engine_presets()) {
    if (p.name != o.engine) continue;
    if (cmd.count("--max-running") == 0) o.max_running = p.max_running;
    if (cmd.count("--max-batch-tokens") == 0) o.max_batch_tokens = p.max_batch_tokens;
    if (cmd.count("--prefill") == 0) {
      o.prefill = p.prefill == PrefillMode::kChunked ? "chunked" : "separate";
    }
  }
}

}  // namespace sparksim::cli
