// GreedyStepRunner (gpu_kernels.hpp): one DSpark engine step across the two device models,
// greedy or sampled. The drafter's stream drafts; the target's stream waits for it, copies the
// drafts into the verify batch and verifies, then either takes the argmax per row and walks the
// acceptance (greedy) or turns every verify row into softmax(logits / temperature) and runs the
// rejection kernel on it with the drafts' own p_draft rows (sampled: lossless); the drafter's
// stream waits for that and updates its context from the captured states. Events around the
// whole give the step's device time; only R counts, R tokens and R x gamma drafts come back.
#include <algorithm>
#include <stdexcept>

#include "kernels/cuda/device_stream.cuh"
#include "kernels/cuda/launchers.cuh"
#include "kernels/gpu_kernels.hpp"

namespace sparksim::kernels::gpu {

using detail::DeviceBuffer;

struct GreedyStepRunner::Impl {
  VerifyModel& target;
  DsparkModel& drafter;
  DraftShape shape;
  detail::EventTimer timer;
  detail::OrderingEvent drafted;
  detail::StepOutcomeBuffers out;
  // Sampled steps: the target's distributions of the verify rows and the uniforms.
  DeviceBuffer<float> p_target;
  DeviceBuffer<double> accept_u, sample_u;
  int last_rows = 0;  // verify rows of the last sampled step (0: the last step was greedy)
  int last_requests = 0;
  double last_us = 0.0;

  Impl(VerifyModel& t, DsparkModel& d, const DraftShape& s) : target(t), drafter(d), shape(s) {}

  std::vector<StepOutcome> step(std::vector<SpecRequest>& requests,
                                const std::vector<int>& verify_lengths,
                                const StepSampling* sampling);
};

GreedyStepRunner::GreedyStepRunner(VerifyModel& target, DsparkModel& drafter,
                                   const DraftShape& drafter_shape) {
  drafter_shape.validate(target.shape());
  if (drafter.device_view().gamma != drafter_shape.block_size) {
    throw std::invalid_argument("GreedyStepRunner: drafter shape differs from the model's");
  }
  impl_ = std::make_unique<Impl>(target, drafter, drafter_shape);
  target.set_capture_layers(drafter_shape.target_layer_ids);
}

GreedyStepRunner::~GreedyStepRunner() = default;

double GreedyStepRunner::last_step_us() const {
  return impl_->last_us;
}

std::vector<StepOutcome> GreedyStepRunner::step(std::vector<SpecRequest>& requests,
                                                const std::vector<int>& verify_lengths) {
  return impl_->step(requests, verify_lengths, nullptr);
}

std::vector<StepOutcome> GreedyStepRunner::step(std::vector<SpecRequest>& requests,
                                                const std::vector<int>& verify_lengths,
                                                const StepSampling& sampling) {
  return impl_->step(requests, verify_lengths, &sampling);
}

GreedyStepRunner::SampledInputs GreedyStepRunner::last_sampled_inputs() const {
  const Impl& m = *impl_;
  if (m.last_rows == 0) throw std::logic_error("last_sampled_inputs: no sampled step yet");
  const auto v = static_cast<std::size_t>(m.target.shape().vocab);
  const auto drafts = static_cast<std::size_t>(m.last_requests) * m.shape.block_size;
  const DsparkModel::DeviceView dv = m.drafter.device_view();
  SampledInputs out;
  out.p_target = m.p_target.download(static_cast<std::size_t>(m.last_rows) * v);
  out.p_draft.resize(drafts * v);
  out.drafts.resize(drafts);
  SPARKSIM_CUDA(cudaMemcpy(out.p_draft.data(), dv.p_draft, out.p_draft.size() * sizeof(float),
                           cudaMemcpyDeviceToHost));
  SPARKSIM_CUDA(
      cudaMemcpy(out.drafts.data(), dv.tokens, drafts * sizeof(int), cudaMemcpyDeviceToHost));
  return out;
}

std::vector<StepOutcome> GreedyStepRunner::Impl::step(std::vector<SpecRequest>& requests,
                                                      const std::vector<int>& verify_lengths,
                                                      const StepSampling* sampling) {
  Impl& m = *this;
  const int r_count = static_cast<int>(requests.size());
  const int gamma = m.shape.block_size;
  if (r_count < 1 || static_cast<int>(verify_lengths.size()) != r_count) {
    throw std::invalid_argument("step: one verify length per request, at least one request");
  }
  if (sampling != nullptr) sampling->validate(r_count, gamma);
  // Host work first, all validated before anything is enqueued.
  DraftRequest draft;
  RaggedBatch batch;
  batch.cu_seqlens = {0};
  std::vector<int> lengths(static_cast<std::size_t>(r_count));
  for (int r = 0; r < r_count; ++r) {
    const SpecRequest& q = requests[r];
    lengths[r] = std::clamp(verify_lengths[r], 0, gamma);
    draft.anchors.push_back(q.anchor);
    draft.context_lens.push_back(q.context_len);
    draft.slots.push_back(q.slot);
    batch.tokens.push_back(q.anchor);
    batch.tokens.insert(batch.tokens.end(), static_cast<std::size_t>(lengths[r]), 0);  // drafts
    batch.cu_seqlens.push_back(static_cast<int>(batch.tokens.size()));
    batch.context_lens.push_back(q.context_len);
    batch.slots.push_back(q.slot);
  }
  if (sampling != nullptr) {
    draft.temperature = sampling->temperature;
    draft.uniforms = sampling->draft_uniforms;
  }
  m.drafter.set_draft(draft);
  m.target.set_batch(batch);  // every row gets logits: each one judges the draft after it
  const VerifyModel::DeviceView tv = m.target.device_view();
  const DsparkModel::DeviceView dv = m.drafter.device_view();
  const auto ts = static_cast<cudaStream_t>(tv.stream);
  const auto ds = static_cast<cudaStream_t>(dv.stream);
  const int t_count = batch.total_tokens();
  m.out.prepare(batch, r_count, ts);
  const int vocab = m.target.shape().vocab;
  if (sampling != nullptr) {
    m.p_target.reserve(static_cast<std::size_t>(t_count) * vocab);
    m.accept_u.reserve(sampling->accept_uniforms.size());
    m.sample_u.reserve(sampling->sample_uniforms.size());
    // Pageable sources: staged before the calls return, ordered on the target's stream.
    SPARKSIM_CUDA(cudaMemcpyAsync(m.accept_u.get(), sampling->accept_uniforms.data(),
                                  sampling->accept_uniforms.size() * sizeof(double),
                                  cudaMemcpyHostToDevice, ts));
    SPARKSIM_CUDA(cudaMemcpyAsync(m.sample_u.get(), sampling->sample_uniforms.data(),
                                  sampling->sample_uniforms.size() * sizeof(double),
                                  cudaMemcpyHostToDevice, ts));
  }

  // Draft.
  m.timer.start(ds);
  m.drafter.run();
  // Verify the drafts, accept, commit.
  m.drafted.order(ds, ts);
  detail::launch_place_drafts(dv.tokens, gamma, m.out.cu.get(), r_count, tv.tokens, ts);
  m.target.run();
  if (sampling == nullptr) {
    detail::launch_row_argmax(tv.logits, t_count, vocab, m.out.argmax.get(), ts);
    detail::launch_greedy_accept(m.out.cu.get(), tv.tokens, m.out.argmax.get(), r_count,
                                 m.out.accepted.get(), m.out.committed.get(), ts);
  } else {
    detail::launch_softmax(tv.logits, t_count, vocab,
                           static_cast<float>(1.0 / sampling->temperature), m.p_target.get(), ts);
    // The drafts and their distributions stay in the drafter's [R x gamma] rows.
    detail::launch_rejection(m.out.cu.get(), r_count, vocab, m.p_target.get(), dv.p_draft,
                             dv.tokens, m.accept_u.get(), m.sample_u.get(), gamma,
                             m.out.accepted.get(), m.out.committed.get(), ts);
  }
  // The drafter's context: every verified row's captured states, after the verify stream.
  m.drafter.context_update_device(tv.states, batch, tv.stream);
  m.timer.stop(ds);
  m.last_us = m.timer.elapsed_us();
  m.last_rows = sampling != nullptr ? t_count : 0;
  m.last_requests = r_count;

  return m.out.outcomes(dv.tokens, gamma, requests);
}

}  // namespace sparksim::kernels::gpu
