// The CUDA interface in a build without nvcc: no devices, and every kernel throws.
#include <stdexcept>

#include "kernels/ar_drafter_gpu.hpp"
#include "kernels/gpu_kernels.hpp"

namespace sparksim::kernels::gpu {

namespace {

[[noreturn]] void no_cuda() {
  throw std::runtime_error(
      "sparksim was built without CUDA (nvcc was not found at configure time)");
}

}  // namespace

bool built_with_cuda() {
  return false;
}
int device_count() {
  return 0;
}
std::string device_summary() {
  return "";
}
std::vector<float> rms_norm(const std::vector<float>&, const std::vector<float>&, int, int,
                            double) {
  no_cuda();
}
std::vector<float> rope(const std::vector<float>&, const std::vector<int>&, int, int, double) {
  no_cuda();
}
void kv_append(const std::vector<float>&, const std::vector<float>&, const RaggedBatch&, int,
               HostKvCache&) {
  no_cuda();
}
std::vector<float> qk_norm_rope_kv_append(const std::vector<float>&, const std::vector<float>&,
                                          const std::vector<float>&, const RaggedBatch&, int, int,
                                          double, double, HostKvCache&) {
  no_cuda();
}
std::vector<float> ragged_attention(const std::vector<float>&, const HostKvCache&, int,
                                    const RaggedBatch&, int) {
  no_cuda();
}
std::vector<float> planned_attention(const std::vector<float>&, const HostKvCache&, int,
                                     const RaggedBatch&, int, const AttentionPlanConfig&, int,
                                     std::string*) {
  no_cuda();
}
bool planned_attention_supported(int) {
  return false;
}
std::vector<float> swiglu(const std::vector<float>&, int, int) {
  no_cuda();
}
std::vector<float> gemm_bf16(const std::vector<float>&, const std::vector<float>&, int, int, int) {
  no_cuda();
}
std::vector<float> softmax(const std::vector<float>&, int, int, double) {
  no_cuda();
}
RejectionResult rejection_verify(const RejectionBatch&) {
  no_cuda();
}

struct VerifyModel::Impl {};
VerifyModel::VerifyModel(const TargetWeights&, const KvCacheShape&) {
  no_cuda();
}
VerifyModel::~VerifyModel() = default;
void VerifyModel::upload_kv(const HostKvCache&) {
  no_cuda();
}
HostKvCache VerifyModel::download_kv() const {
  no_cuda();
}
std::vector<float> VerifyModel::forward(const RaggedBatch&) {
  no_cuda();
}
const TransformerShape& VerifyModel::shape() const {
  no_cuda();
}
void VerifyModel::resize_kv(const KvCacheShape&) {
  no_cuda();
}
void VerifyModel::reserve_tokens(int) {
  no_cuda();
}
int VerifyModel::logit_row_count() const {
  no_cuda();
}
void VerifyModel::use_graphs(int) {
  no_cuda();
}
double VerifyModel::run_timed_us(std::size_t) {
  no_cuda();
}
VerifyModel::DeviceHeads VerifyModel::heads() const {
  no_cuda();
}
void VerifyModel::use_planned_attention(bool) {
  no_cuda();
}
std::string VerifyModel::attention_paths() const {
  no_cuda();
}
void VerifyModel::set_capture_layers(const std::vector<int>&) {
  no_cuda();
}
VerifyModel::DeviceView VerifyModel::device_view() const {
  no_cuda();
}
void DsparkModel::context_update_device(const void*, const RaggedBatch&, void*) {
  no_cuda();
}
DsparkModel::DeviceView DsparkModel::device_view() const {
  no_cuda();
}
struct GreedyStepRunner::Impl {};
GreedyStepRunner::GreedyStepRunner(VerifyModel&, DsparkModel&, const DraftShape&) {
  no_cuda();
}
GreedyStepRunner::~GreedyStepRunner() = default;
std::vector<StepOutcome> GreedyStepRunner::step(std::vector<SpecRequest>&,
                                                const std::vector<int>&) {
  no_cuda();
}
double GreedyStepRunner::last_step_us() const {
  no_cuda();
}
std::vector<StepOutcome> GreedyStepRunner::step(std::vector<SpecRequest>&, const std::vector<int>&,
                                                const StepSampling&) {
  no_cuda();
}
GreedyStepRunner::SampledInputs GreedyStepRunner::last_sampled_inputs() const {
  no_cuda();
}

VerifyModel::VerifyModel(const TransformerShape&, std::uint64_t, double, const KvCacheShape&) {
  no_cuda();
}
std::size_t VerifyModel::weight_bytes() const {
  no_cuda();
}
void VerifyModel::set_batch(const RaggedBatch&, const std::vector<bool>&) {
  no_cuda();
}
void VerifyModel::run() {
  no_cuda();
}
std::vector<float> VerifyModel::logits() const {
  no_cuda();
}
TimingStats VerifyModel::time_run(const SamplingOptions&, std::size_t) {
  no_cuda();
}
CopyBandwidth measure_copy_bandwidth(std::size_t, const SamplingOptions&) {
  no_cuda();
}

struct DsparkModel::Impl {};
DsparkModel::DsparkModel(const TargetWeights&, const DraftWeights&, const KvCacheShape&) {
  no_cuda();
}
DsparkModel::DsparkModel(const VerifyModel&, const DraftShape&, std::uint64_t, double,
                         const KvCacheShape&) {
  no_cuda();
}
DsparkModel::~DsparkModel() = default;
void DsparkModel::resize_kv(const KvCacheShape&) {
  no_cuda();
}
void DsparkModel::set_draft(const DraftRequest&) {
  no_cuda();
}
void DsparkModel::run() {
  no_cuda();
}
GpuDraftResult DsparkModel::results() const {
  no_cuda();
}
double DsparkModel::run_timed_us() {
  no_cuda();
}
double DsparkModel::last_markov_loop_us() const {
  no_cuda();
}
void DsparkModel::upload_kv(const HostKvCache&) {
  no_cuda();
}
HostKvCache DsparkModel::download_kv() const {
  no_cuda();
}
void DsparkModel::context_update(const std::vector<float>&, const RaggedBatch&) {
  no_cuda();
}
GpuDraftResult DsparkModel::draft(const std::vector<int>&, const std::vector<int>&,
                                  const std::vector<int>&, double, const std::vector<double>&,
                                  bool) {
  no_cuda();
}

struct ArDrafterModel::Impl {};
ArDrafterModel::ArDrafterModel(const TargetWeights&, const Mtp1Weights&, const KvCacheShape&) {
  no_cuda();
}
ArDrafterModel::ArDrafterModel(const TargetWeights&, const Eagle3Weights&, const KvCacheShape&) {
  no_cuda();
}
ArDrafterModel::ArDrafterModel(const VerifyModel&, ArFamily, std::uint64_t, double,
                               const KvCacheShape&) {
  no_cuda();
}
ArDrafterModel::~ArDrafterModel() = default;
ArFamily ArDrafterModel::family() const {
  no_cuda();
}
int ArDrafterModel::state_width() const {
  no_cuda();
}
int ArDrafterModel::head_vocab() const {
  no_cuda();
}
std::size_t ArDrafterModel::weight_bytes() const {
  no_cuda();
}
void ArDrafterModel::upload_kv(const HostKvCache&) {
  no_cuda();
}
HostKvCache ArDrafterModel::download_kv() const {
  no_cuda();
}
void ArDrafterModel::resize_kv(const KvCacheShape&) {
  no_cuda();
}
void ArDrafterModel::context_update(const std::vector<float>&, const RaggedBatch&) {
  no_cuda();
}
void ArDrafterModel::set_draft(const ArDraftRequest&) {
  no_cuda();
}
void ArDrafterModel::set_draft_device(const DraftRequest&, int, const void*) {
  no_cuda();
}
void ArDrafterModel::context_update_device(const void*, const int*, const RaggedBatch&, void*) {
  no_cuda();
}
ArDrafterModel::DeviceView ArDrafterModel::device_view() const {
  no_cuda();
}
void ArDrafterModel::run() {
  no_cuda();
}
GpuArDraftResult ArDrafterModel::results() const {
  no_cuda();
}
double ArDrafterModel::run_timed_us() {
  no_cuda();
}

struct ArStepRunner::Impl {};
ArStepRunner::ArStepRunner(VerifyModel&, ArDrafterModel&, const std::vector<int>&, int) {
  no_cuda();
}
ArStepRunner::~ArStepRunner() = default;
void ArStepRunner::set_last_states(const std::vector<float>&) {
  no_cuda();
}
std::vector<float> ArStepRunner::last_states() const {
  no_cuda();
}
std::vector<StepOutcome> ArStepRunner::step(std::vector<SpecRequest>&, const std::vector<int>&) {
  no_cuda();
}
double ArStepRunner::last_step_us() const {
  no_cuda();
}

}  // namespace sparksim::kernels::gpu
