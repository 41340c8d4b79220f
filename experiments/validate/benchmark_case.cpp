// Readers for benchmark measurements: vLLM's saved result JSON (field names as `vllm bench serve`
// writes them: num_prompts, request_rate ("inf" or a number), burstiness, max_concurrency,
// completed, total_input_tokens, total_output_tokens, output_throughput, mean_/median_/p99_
// {ttft,tpot,itl}_ms, and with --save-detailed input_lens / output_lens), and the native forms.
#include "experiments/validate/benchmark_case.hpp"

#include <cctype>
#include <cmath>
#include <fstream>
#include <numeric>

#include "common/input_error.hpp"
#include "common/json_file.hpp"
#include "common/rng.hpp"
#include "traces/length_distribution.hpp"

namespace sparksim {

namespace {

using Pointer = JsonFile::Pointer;

constexpr const char* kCaseSchema = "sparksim.benchmark/1";
constexpr const char* kSetSchema = "sparksim.validation-set/1";

std::optional<double> optional_ms(const JsonFile& f, const std::string& key) {
  const Pointer p("/" + key);
  if (!f.has(p) || f.at(p).is_null()) return std::nullopt;
  return f.get_number(p, NumberRange::at_least(0));
}

MetricStats vllm_stats(const JsonFile& f, const std::string& metric) {
  return {optional_ms(f, "mean_" + metric + "_ms"), optional_ms(f, "median_" + metric + "_ms"),
          optional_ms(f, "p99_" + metric + "_ms")};
}

double read_rate(const JsonFile& f, const Pointer& p) {
  if (!f.has(p)) return std::numeric_limits<double>::infinity();
  const auto& v = f.at(p);
  if (v.is_string()) {
    if (v.get<std::string>() == "inf") return std::numeric_limits<double>::infinity();
    f.fail(p, f.name_of(p) + " is \"" + v.get<std::string>() + "\"; must be a number or \"inf\"");
  }
  return f.get_number(p, NumberRange::positive());
}

// n requests whose lengths sum to exactly `total` (the first total % n get one token more).
std::vector<std::int64_t> even_split(std::int64_t total, std::int64_t n) {
  std::vector<std::int64_t> v(static_cast<std::size_t>(n), total / n);
  for (std::int64_t i = 0; i < total % n; ++i) ++v[static_cast<std::size_t>(i)];
  return v;
}

// Scales draws so they sum to `total`, keeping each >= 1 (largest remainders get the rounding).
void rescale_to_total(std::vector<std::int64_t>& v, std::int64_t total) {
  const double sum = std::accumulate(v.begin(), v.end(), 0.0);
  const double k = static_cast<double>(total) / sum;
  std::int64_t assigned = 0;
  for (auto& x : v) {
    x = std::max<std::int64_t>(1,
                               static_cast<std::int64_t>(std::floor(static_cast<double>(x) * k)));
    assigned += x;
  }
  for (std::size_t i = 0; assigned < total; i = (i + 1) % v.size(), ++assigned) ++v[i];
  for (std::size_t i = 0; assigned > total; i = (i + 1) % v.size()) {
    if (v[i] > 1) --v[i], --assigned;
  }
}

void fill_requests(BenchmarkWorkload& w, const std::vector<std::int64_t>& in,
                   const std::vector<std::int64_t>& out) {
  w.requests.clear();
  for (std::size_t i = 0; i < in.size(); ++i) {
    RequestSpec r;
    r.prompt_tokens = in[i];
    r.output_tokens = out[i];
    w.requests.push_back(r);
  }
}

MetricStats native_stats(const JsonFile& f, const Pointer& p) {
  if (!f.has(p)) return {};
  const std::vector<double> v = f.get_number_array(p, NumberRange::at_least(0), 3);
  if (v.size() != 3) f.fail(p, f.name_of(p) + " must be [mean, median, p99] in ms");
  return {v[0], v[1], v[2]};
}

BenchmarkCase native_case(const JsonFile& f, const Pointer& at) {
  f.get_object(at);
  // "schema" is allowed for the one-case file, whose case is the document itself.
  f.reject_unknown_keys(at, {"schema", "name", "source", "engine", "engine_version", "target",
                             "role", "calibrates", "workload", "measured", "notes"});
  BenchmarkCase c;
  c.origin = f.path() + ":" + std::to_string(f.line_of(at));
  c.name = f.get_string(at / "name");
  c.source = f.get_string(at / "source");
  c.engine = f.get_string(at / "engine");
  c.engine_version = f.has(at / "engine_version") ? f.get_string(at / "engine_version") : "";
  c.target = f.get_string(at / "target");
  const std::string role = f.get_string(at / "role");
  if (role != "check" && role != "calibration") {
    f.fail(at / "role",
           f.name_of(at / "role") + " is \"" + role + "\"; must be \"check\" or \"calibration\"");
  }
  c.role = role == "calibration" ? CaseRole::kCalibration : CaseRole::kCheck;
  if (f.has(at / "calibrates")) {
    const Pointer p = at / "calibrates";
    c.calibrates = f.get_string(p);
    if (c.calibrates != "frontend_request_ms") {
      f.fail(p, f.name_of(p) + " is \"" + c.calibrates +
                    "\"; must be \"frontend_request_ms\" (the large-chunk scale is no longer "
                    "fitted: docs/validation.md)");
    }
    if (c.role != CaseRole::kCalibration) {
      f.fail(p, f.name_of(p) + " is set on a check case: only a \"calibration\" case fits a term");
    }
  }

  const Pointer w = at / "workload";
  f.get_object(w);
  f.reject_unknown_keys(w, {"num_prompts", "input", "output", "input_total", "output_total",
                            "max_concurrency", "request_rate", "burstiness", "seed"});
  BenchmarkWorkload& wl = c.workload;
  const std::int64_t n = f.get_int(w / "num_prompts", 1, 10'000'000);
  wl.max_concurrency = f.has(w / "max_concurrency") ? f.get_int(w / "max_concurrency", 1, n) : 0;
  wl.request_rate = read_rate(f, w / "request_rate");
  wl.burstiness =
      f.has(w / "burstiness") ? f.get_number(w / "burstiness", NumberRange::positive()) : 1.0;
  wl.seed = f.has(w / "seed") ? static_cast<std::uint64_t>(f.get_int(w / "seed", 0, 1LL << 62)) : 1;
  LengthDistribution in_dist, out_dist;
  for (const char* key : {"input", "output"}) {
    const Pointer p = w / key;
    try {
      (key[0] == 'i' ? in_dist : out_dist) = parse_length_distribution(f.get_string(p), key);
    } catch (const InputError& e) {
      f.fail(p, e.what());
    }
  }
  RngStream rng(wl.seed, StreamId::kSyntheticLengths);
  std::vector<std::int64_t> in, out;
  for (std::int64_t i = 0; i < n; ++i) {
    in.push_back(sample_length(in_dist, rng));
    out.push_back(sample_length(out_dist, rng));
  }
  wl.lengths =
      std::to_string(n) + " requests, input " + in_dist.source + ", output " + out_dist.source;
  for (const char* key : {"input_total", "output_total"}) {
    if (!f.has(w / key)) continue;
    const std::int64_t total = f.get_int(w / key, n, kMaxTokensPerRequest);
    rescale_to_total(key[0] == 'i' ? in : out, total);
    wl.lengths += std::string(", scaled to ") + key + " " + std::to_string(total);
  }
  fill_requests(wl, in, out);

  const Pointer m = at / "measured";
  f.get_object(m);
  f.reject_unknown_keys(m, {"output_throughput", "ttft_ms", "tpot_ms", "itl_ms"});
  c.measured.output_throughput = f.get_number(m / "output_throughput", NumberRange::positive());
  c.measured.ttft_ms = native_stats(f, m / "ttft_ms");
  c.measured.tpot_ms = native_stats(f, m / "tpot_ms");
  c.measured.itl_ms = native_stats(f, m / "itl_ms");
  return c;
}

}  // namespace

const char* case_role_name(CaseRole role) {
  return role == CaseRole::kCalibration ? "calibration" : "check";
}

bool is_vllm_bench_result(const std::string& path) {
  const JsonFile f = JsonFile::load(path);
  return f.root().is_object() && !f.root().contains("schema") &&
         (f.root().contains("output_throughput") || f.root().contains("input_lens"));
}

BenchmarkCase read_vllm_bench_result(const std::string& path) {
  const JsonFile f = JsonFile::load(path);
  f.get_object(Pointer(""));
  BenchmarkCase c;
  c.origin = path;
  c.name = path;
  c.source = "vllm bench serve result " + path;
  if (f.has(Pointer("/backend")) && f.at(Pointer("/backend")).is_string()) {
    c.engine_version = f.at(Pointer("/backend")).get<std::string>();
  }
  if (f.has(Pointer("/model_id")) && f.at(Pointer("/model_id")).is_string()) {
    const std::string model = f.at(Pointer("/model_id")).get<std::string>();
    c.name = model + " (" + path + ")";
    // "Qwen/Qwen3-8B" -> "qwen3-8b": the profile name under --profiles DIR.
    for (char ch : model.substr(model.rfind('/') == std::string::npos ? 0 : model.rfind('/') + 1)) {
      c.target += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    }
  }
  BenchmarkWorkload& w = c.workload;
  w.request_rate = read_rate(f, Pointer("/request_rate"));
  if (f.has(Pointer("/burstiness"))) {
    w.burstiness = f.get_number(Pointer("/burstiness"), NumberRange::positive());
  }
  if (f.has(Pointer("/max_concurrency")) && !f.at(Pointer("/max_concurrency")).is_null()) {
    w.max_concurrency = f.get_int(Pointer("/max_concurrency"), 1, 10'000'000);
  }
  if (f.has(Pointer("/input_lens")) || f.has(Pointer("/output_lens"))) {
    const auto in = f.get_int_array(Pointer("/input_lens"), 1, kMaxTokensPerRequest, 1);
    const auto out = f.get_int_array(Pointer("/output_lens"), 0, kMaxTokensPerRequest, 1);
    if (in.size() != out.size()) {
      f.fail(Pointer("/output_lens"), "output_lens has " + std::to_string(out.size()) +
                                          " entries; input_lens has " + std::to_string(in.size()) +
                                          "; they must match");
    }
    std::vector<std::int64_t> kept_in, kept_out;
    for (std::size_t i = 0; i < in.size(); ++i) {
      if (out[i] == 0) continue;  // a failed request generated nothing: not replayed
      kept_in.push_back(in[i]);
      kept_out.push_back(out[i]);
    }
    if (kept_in.empty()) f.fail(Pointer("/output_lens"), "every request has output length 0");
    fill_requests(w, kept_in, kept_out);
    w.lengths = std::to_string(kept_in.size()) + " requests from input_lens/output_lens";
    if (kept_in.size() != in.size()) {
      w.lengths += " (" + std::to_string(in.size() - kept_in.size()) + " failed left out)";
    }
  } else {
    const std::int64_t n = f.get_int(Pointer("/completed"), 1, 10'000'000);
    const std::int64_t in_total = f.get_int(Pointer("/total_input_tokens"), n, 1LL << 50);
    const std::int64_t out_total = f.get_int(Pointer("/total_output_tokens"), n, 1LL << 50);
    fill_requests(w, even_split(in_total, n), even_split(out_total, n));
    w.lengths = std::to_string(n) +
                " requests of the mean lengths (no input_lens/output_lens: saved without "
                "--save-detailed)";
  }
  MeasuredMetrics& m = c.measured;
  if (f.has(Pointer("/output_throughput"))) {
    m.output_throughput = f.get_number(Pointer("/output_throughput"), NumberRange::positive());
  }
  m.ttft_ms = vllm_stats(f, "ttft");
  m.tpot_ms = vllm_stats(f, "tpot");
  m.itl_ms = vllm_stats(f, "itl");
  return c;
}

std::vector<BenchmarkCase> read_benchmark_cases(const std::string& path) {
  const JsonFile f = JsonFile::load(path);
  f.get_object(Pointer(""));
  const std::string schema = f.get_string(Pointer("/schema"));
  if (schema == kCaseSchema) {
    return {native_case(f, Pointer(""))};
  }
  if (schema != kSetSchema) {
    f.fail(Pointer("/schema"), "schema is \"" + schema + "\"; must be \"" + kCaseSchema +
                                   "\" (one case) or \"" + kSetSchema + "\" (a set)");
  }
  f.reject_unknown_keys(Pointer(""), {"schema", "about", "attribution", "spread", "cases"});
  const auto& cases = f.get_array(Pointer("/cases"));
  if (cases.empty()) f.fail(Pointer("/cases"), "cases is empty");
  std::vector<BenchmarkCase> out;
  for (std::size_t i = 0; i < cases.size(); ++i)
    out.push_back(native_case(f, Pointer("/cases") / i));
  return out;
}

}  // namespace sparksim
