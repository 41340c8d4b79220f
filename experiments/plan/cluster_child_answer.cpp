// A plan's cluster child: its run, stopped once the SLO is lost for good, and its answer as bytes.
#include "experiments/plan/cluster_child_answer.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <type_traits>
#include <utility>

#include "experiments/plan/slo_miss_watch.hpp"

namespace sparksim {

namespace {

// The answer in bytes (the child and its parent are the same binary): fixed-size fields as they
// lie in memory, then each vector and string after its length.
class AnswerBytes {
 public:
  template <typename T>
  void put(const T& value) {
    static_assert(std::is_trivially_copyable_v<T>);
    bytes_.append(reinterpret_cast<const char*>(&value), sizeof value);
  }
  void put(const std::vector<double>& values) {
    put(values.size());
    bytes_.append(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(double));
  }
  void put(const std::string& text) {
    put(text.size());
    bytes_ += text;
  }
  std::string& bytes() { return bytes_; }

 private:
  std::string bytes_;
};

class AnswerReader {
 public:
  explicit AnswerReader(const std::string& bytes) : bytes_(bytes) {}
  template <typename T>
  void get(T& value) {
    static_assert(std::is_trivially_copyable_v<T>);
    std::memcpy(&value, take(sizeof value), sizeof value);
  }
  void get(std::vector<double>& values) {
    std::size_t n = 0;
    get(n);
    values.resize(n);
    if (n > 0) std::memcpy(values.data(), take(n * sizeof(double)), n * sizeof(double));
  }
  void get(std::string& text) {
    std::size_t n = 0;
    get(n);
    text.assign(take(n), n);
  }

 private:
  const char* take(std::size_t n) {
    if (bytes_.size() - at_ < n)
      throw std::runtime_error("a plan's cluster child sent a short answer");
    const char* p = bytes_.data() + at_;
    at_ += n;
    return p;
  }
  const std::string& bytes_;
  std::size_t at_ = 0;
};

}  // namespace

std::string encode_child_answer(const ClusterChildAnswer& a) {
  AnswerBytes out;
  const ClusterSampleRun& r = a.run;
  out.put(r.requests_total);
  out.put(r.requests_completed);
  out.put(r.requests_rejected_kv);
  out.put(r.output_tokens);
  out.put(r.duration_s);
  for (const auto* v : {&r.samples.ttft_ms, &r.samples.tpot_ms, &r.samples.e2e_s,
                        &r.samples.queue_ms, &r.samples.tok_s_per_user}) {
    out.put(*v);
  }
  out.put(a.stopped_at.has_value());
  out.put(a.stopped_at.value_or(0));
  out.put(a.stop_reason);
  return std::move(out.bytes());
}

ClusterChildAnswer decode_child_answer(const std::string& bytes) {
  AnswerReader in(bytes);
  ClusterChildAnswer a;
  ClusterSampleRun& r = a.run;
  in.get(r.requests_total);
  in.get(r.requests_completed);
  in.get(r.requests_rejected_kv);
  in.get(r.output_tokens);
  in.get(r.duration_s);
  for (auto* v : {&r.samples.ttft_ms, &r.samples.tpot_ms, &r.samples.e2e_s, &r.samples.queue_ms,
                  &r.samples.tok_s_per_user}) {
    in.get(*v);
  }
  bool stopped = false;
  SimTime at = 0;
  in.get(stopped);
  in.get(at);
  if (stopped) a.stopped_at = at;
  in.get(a.stop_reason);
  return a;
}

ClusterChildAnswer run_cluster_child(const ClusterSetup& cluster,
                                     const std::vector<SloTerm>& terms) {
  ClusterChildAnswer a;
  if (terms.empty()) {
    a.run = execute_cluster_samples(cluster);
    return a;
  }
  const auto& requests = cluster.run.trace.requests;
  const auto multi_token = std::count_if(requests.begin(), requests.end(),
                                         [](const auto& r) { return r.output_tokens > 1; });
  SloMissWatch watch(terms, static_cast<std::int64_t>(requests.size()), multi_token);
  std::int64_t completed = 0;
  bool stop = false;
  ClusterSampleRun run = execute_cluster_samples(
      cluster,
      [&](const RequestSample& sample, SimTime done) {
        if (stop) return;  // the rest of the step that ended the run
        // Every completion at the instant the miss became certain counts, in any order.
        if (a.stopped_at && done > *a.stopped_at) {
          stop = true;
          return;
        }
        ++completed;
        if (watch.add(sample) && !a.stopped_at) a.stopped_at = done;
      },
      &stop);
  if (!stop) {  // it ran to the end: the samples are whole and judged as usual
    a.run = std::move(run);
    a.stopped_at.reset();
    return a;
  }
  a.run.requests_total = static_cast<std::int64_t>(requests.size());
  a.run.requests_completed = completed;
  a.stop_reason = watch.reason();
  return a;
}

}  // namespace sparksim
