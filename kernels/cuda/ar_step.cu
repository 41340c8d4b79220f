// ArStepRunner (ar_drafter_gpu.hpp): one greedy engine step with MTP-1 or EAGLE-3 across the two
// device models. The drafter's stream drafts from the requests' pass-0 states; the target's stream
// waits for it, copies the drafts into the verify batch, verifies, takes the argmax per row and
// walks the acceptance, then builds the context update's state rows ([pass-0 state, verify rows
// but the last] per request) and gathers each request's next pass-0 state (the verify row at its
// acceptance point); the drafter's stream waits for that and updates its context from those rows
// and the verify tokens. Events around the whole give the step's device time.
#include <algorithm>
#include <stdexcept>

#include "kernels/ar_drafter_gpu.hpp"
#include "kernels/cuda/device_stream.cuh"
#include "kernels/cuda/launchers.cuh"

namespace sparksim::kernels::gpu {

using detail::bf16;
using detail::DeviceBuffer;

namespace {

constexpr int kThreads = 256;

// One block per request: row cu[r] + i of out is last[r] for i = 0, else verify row cu[r] + i - 1
// (the state at position C - 1 + i, whose next token is the verify token at cu[r] + i).
__global__ void update_rows_kernel(const bf16* last, const bf16* verify, const int* cu, int width,
                                   bf16* out) {
  const int r = blockIdx.x;
  for (int row = cu[r]; row < cu[r + 1]; ++row) {
    const bf16* src = row == cu[r] ? last + static_cast<long long>(r) * width
                                   : verify + static_cast<long long>(row - 1) * width;
    for (int c = threadIdx.x; c < width; c += blockDim.x) {
      out[static_cast<long long>(row) * width + c] = src[c];
    }
  }
}

// One block per request: the next pass-0 state is the verify row at the acceptance point.
__global__ void next_last_kernel(const bf16* verify, const int* cu, const int* accepted, int width,
                                 bf16* last) {
  const int r = blockIdx.x;
  const bf16* src = verify + static_cast<long long>(cu[r] + accepted[r]) * width;
  for (int c = threadIdx.x; c < width; c += blockDim.x) {
    last[static_cast<long long>(r) * width + c] = src[c];
  }
}

}  // namespace

struct ArStepRunner::Impl {
  VerifyModel& target;
  ArDrafterModel& drafter;
  int gamma;
  int width;
  detail::EventTimer timer;
  detail::OrderingEvent drafted;
  detail::StepOutcomeBuffers out;
  DeviceBuffer<bf16> last, update_rows;
  int requests = 0;  // rows of `last`
  double last_us = 0.0;

  Impl(VerifyModel& t, ArDrafterModel& d, int g) : target(t), drafter(d), gamma(g) {
    width = d.state_width();
  }
  std::vector<StepOutcome> step(std::vector<SpecRequest>& requests,
                                const std::vector<int>& verify_lengths);
};

ArStepRunner::ArStepRunner(VerifyModel& target, ArDrafterModel& drafter,
                           const std::vector<int>& capture_layers, int gamma) {
  if (gamma < 1) throw std::invalid_argument("ArStepRunner: gamma must be >= 1");
  if (static_cast<long long>(capture_layers.size()) * target.shape().hidden !=
      drafter.state_width()) {
    throw std::invalid_argument("ArStepRunner: capture layers x hidden must be the state width");
  }
  impl_ = std::make_unique<Impl>(target, drafter, gamma);
  target.set_capture_layers(capture_layers);
}

ArStepRunner::~ArStepRunner() = default;

double ArStepRunner::last_step_us() const {
  return impl_->last_us;
}

void ArStepRunner::set_last_states(const std::vector<float>& states) {
  Impl& m = *impl_;
  if (states.empty() || states.size() % static_cast<std::size_t>(m.width) != 0) {
    throw std::invalid_argument("ArStepRunner: last states must be requests x state width");
  }
  SPARKSIM_CUDA(cudaStreamSynchronize(static_cast<cudaStream_t>(m.target.device_view().stream)));
  detail::upload_bf16(m.last, states);
  m.requests = static_cast<int>(states.size() / m.width);
}

std::vector<float> ArStepRunner::last_states() const {
  const Impl& m = *impl_;
  SPARKSIM_CUDA(cudaStreamSynchronize(static_cast<cudaStream_t>(m.target.device_view().stream)));
  return detail::download_bf16(m.last.get(), static_cast<std::size_t>(m.requests) * m.width);
}

std::vector<StepOutcome> ArStepRunner::step(std::vector<SpecRequest>& requests,
                                            const std::vector<int>& verify_lengths) {
  return impl_->step(requests, verify_lengths);
}

std::vector<StepOutcome> ArStepRunner::Impl::step(std::vector<SpecRequest>& requests,
                                                  const std::vector<int>& verify_lengths) {
  Impl& m = *this;
  const int r_count = static_cast<int>(requests.size());
  if (r_count < 1 || static_cast<int>(verify_lengths.size()) != r_count) {
    throw std::invalid_argument("step: one verify length per request, at least one request");
  }
  if (r_count != m.requests) {
    throw std::invalid_argument("step: set_last_states must hold one state row per request");
  }
  // Host work first, all validated before anything is enqueued.
  DraftRequest draft;
  RaggedBatch batch;   // the verify rows: [anchor, drafts]
  RaggedBatch update;  // the drafter's rows: positions C-1..C+l-1 (tokens unread)
  batch.cu_seqlens = {0};
  for (int r = 0; r < r_count; ++r) {
    const SpecRequest& q = requests[r];
    if (q.context_len < 1) throw std::invalid_argument("step: context_len must be >= 1");
    const int l = std::clamp(verify_lengths[r], 0, m.gamma);
    draft.anchors.push_back(q.anchor);
    draft.context_lens.push_back(q.context_len - 1);
    draft.slots.push_back(q.slot);
    batch.tokens.push_back(q.anchor);
    batch.tokens.insert(batch.tokens.end(), static_cast<std::size_t>(l), 0);  // the drafts
    batch.cu_seqlens.push_back(static_cast<int>(batch.tokens.size()));
    batch.context_lens.push_back(q.context_len);
    batch.slots.push_back(q.slot);
    update.context_lens.push_back(q.context_len - 1);
  }
  update.tokens = batch.tokens;
  update.cu_seqlens = batch.cu_seqlens;
  update.slots = batch.slots;
  m.drafter.set_draft_device(draft, m.gamma, m.last.get());
  m.target.set_batch(batch);
  const VerifyModel::DeviceView tv = m.target.device_view();
  const ArDrafterModel::DeviceView dv = m.drafter.device_view();
  const auto ts = static_cast<cudaStream_t>(tv.stream);
  const auto ds = static_cast<cudaStream_t>(dv.stream);
  const int t_count = batch.total_tokens();
  m.update_rows.reserve(static_cast<std::size_t>(t_count) * m.width);
  m.out.prepare(batch, r_count, ts);
  const int vocab = m.target.shape().vocab;

  // Draft.
  m.timer.start(ds);
  m.drafter.run();
  // Verify the drafts, accept, commit.
  m.drafted.order(ds, ts);
  detail::launch_place_drafts(dv.tokens, m.gamma, m.out.cu.get(), r_count, tv.tokens, ts);
  m.target.run();
  detail::launch_row_argmax(tv.logits, t_count, vocab, m.out.argmax.get(), ts);
  detail::launch_greedy_accept(m.out.cu.get(), tv.tokens, m.out.argmax.get(), r_count,
                               m.out.accepted.get(), m.out.committed.get(), ts);
  // The update's rows from the old pass-0 states, then the new pass-0 states.
  const auto* states = static_cast<const bf16*>(tv.states);
  update_rows_kernel<<<r_count, kThreads, 0, ts>>>(m.last.get(), states, m.out.cu.get(), m.width,
                                                   m.update_rows.get());
  SPARKSIM_LAUNCHED();
  next_last_kernel<<<r_count, kThreads, 0, ts>>>(states, m.out.cu.get(), m.out.accepted.get(),
                                                 m.width, m.last.get());
  SPARKSIM_LAUNCHED();
  // The drafter's context, after the verify stream: next token of row t is verify token t.
  m.drafter.context_update_device(m.update_rows.get(), tv.tokens, update, tv.stream);
  m.timer.stop(ds);
  m.last_us = m.timer.elapsed_us();

  return m.out.outcomes(dv.tokens, m.gamma, requests);
}

}  // namespace sparksim::kernels::gpu
