// `sparksim step-time`: what a profile says one step costs. Prints the profile's label, the
// time model's terms for the batch (R requests verifying W tokens each at L context tokens, an
// optional prefill chunk) and, on a line starting with `total`, the step time in ms; the terms
// printed are every term of that total (TimeModel::verify_terms), so they add up to it.
#include <cstdio>
#include <memory>
#include <string>

#include "common/input_error.hpp"
#include "experiments/cli/commands.hpp"
#include "profiles/profile_io.hpp"
#include "profiles/step_composition/fidelity_points.hpp"
#include "profiles/time_model.hpp"

namespace sparksim::cli {

namespace {

struct StepTimeOptions {
  std::string profile_path;
  std::int64_t requests = 0;
  std::int64_t context = 0;
  std::int64_t verify_width = 1;
  std::int64_t prefill_tokens = 0;
  std::int64_t prefill_cached = 0;
};

void run(const StepTimeOptions& o) {
  constexpr std::int64_t kMax = std::int64_t{1} << 24;
  if (o.requests < 0 || o.requests > kMax) throw InputError("--requests: must be in [0, 2^24]");
  if (o.context < 0 || o.context > kMax) throw InputError("--context: must be in [0, 2^24]");
  if (o.verify_width < 1 || o.verify_width > 64) {
    throw InputError(
        "--verify-width: must be in [1, 64] (tokens each request verifies, anchor "
        "included: 1 is a plain decode step)");
  }
  if (o.prefill_tokens < 0 || o.prefill_tokens > kMax || o.prefill_cached < 0 ||
      o.prefill_cached > kMax) {
    throw InputError("--prefill-tokens/--prefill-cached: must be in [0, 2^24]");
  }
  if (o.requests == 0 && o.prefill_tokens == 0) {
    throw InputError("--requests: 0 requests and no prefill is an empty step");
  }
  const Profile profile = load_profile(o.profile_path);
  const TimeModel model(profile);
  const BatchShape b = batch_shape_of(
      StepShape{o.requests, o.verify_width, o.context, o.prefill_tokens, o.prefill_cached});
  const VerifyTerms t = model.verify_terms(b);
  std::printf("profile  %s\n", profile.label().c_str());
  std::printf("shape    %lld requests x %lld verify tokens at %lld context tokens",
              static_cast<long long>(o.requests), static_cast<long long>(o.verify_width),
              static_cast<long long>(o.context));
  if (o.prefill_tokens > 0) {
    std::printf(" + prefill chunk of %lld after %lld cached",
                static_cast<long long>(o.prefill_tokens), static_cast<long long>(o.prefill_cached));
  }
  std::printf("\n");
  const auto term = [](const std::string& name, double us) {
    std::printf("  %-44s %10.4f ms\n", name.c_str(), us * 1e-3);
  };
  term("fixed per step", t.fixed_us);
  term("dense forward at pad(" + std::to_string(b.verify_tokens + b.prefill_tokens) +
           ") = " + std::to_string(t.padded_tokens) + " tokens",
       t.dense_us);
  if (t.head_rows > 0) term("LM head on " + std::to_string(t.head_rows) + " rows", t.head_us);
  term("per request", t.per_request_us);
  term("KV read (" + std::to_string(b.decode_context_tokens) + " context tokens)", t.kv_read_us);
  term("verify attention pairs (" + std::to_string(b.verify_attention_pairs) + ")", t.attention_us);
  if (!profile.verify.decode_attention_requests.empty()) {
    term("decode attention table at " + std::to_string(b.decode_requests) + " requests",
         t.decode_attention_us);
  }
  if (o.prefill_tokens > 0) {
    term("prefill chunk", t.prefill_chunk_us);
    if (profile.verify.prefill_token_ns != 0) term("prefill tokens", t.prefill_token_us);
    // The prefill rate defaults to the verify pairs' rate: say which one was used.
    const char* rate = profile.verify.prefill_attention_ns_per_pair ? "" : " at the verify rate";
    term("prefill attention pairs (" + std::to_string(b.prefill_attention_pairs) + ")" + rate,
         t.prefill_attention_us);
  }
  // The step terms, printed whenever they add anything, so the lines above add up to `total`.
  const StepTerms& st = profile.step_terms;
  if (st.per_step_us != 0) term("per step (step terms)", t.per_step_us);
  if (st.per_sequence_us != 0) term("per decode request (step terms)", t.per_sequence_us);
  std::printf("total    %.4f ms\n", sim_time_to_ms(model.verify_time(b)));
}

}  // namespace

void add_step_time_command(CLI::App& app) {
  auto o = std::make_shared<StepTimeOptions>();
  CLI::App* cmd =
      app.add_subcommand("step-time", "print a profile's step time (ms) for one batch, by term");
  cmd->add_option("--profile", o->profile_path, "Profile JSON")->required();
  cmd->add_option("--requests", o->requests, "R: decode requests in the step")->required();
  cmd->add_option("--context", o->context, "L: context tokens of each request")->required();
  cmd->add_option("--verify-width", o->verify_width,
                  "W: tokens each request verifies, anchor included (1 = plain decode)")
      ->capture_default_str();
  cmd->add_option("--prefill-tokens", o->prefill_tokens, "N: prefill chunk tokens in the step")
      ->capture_default_str();
  cmd->add_option("--prefill-cached", o->prefill_cached,
                  "P: prompt tokens already cached before the chunk")
      ->capture_default_str();
  cmd->callback([o] { run(*o); });
}

}  // namespace sparksim::cli
