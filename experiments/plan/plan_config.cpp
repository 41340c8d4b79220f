// Reading a `sparksim.plan/1` file into PlanOptions: one reader per key (the plan option of the
// same name), then the plan's own checks, each problem placed at the line of the key it is about.
#include "experiments/plan/plan_config.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>
#include <limits>
#include <string_view>
#include <utility>
#include <vector>

#include "common/input_error.hpp"
#include "common/json_file.hpp"
#include "experiments/run/problem_list.hpp"
#include "profiles/drafter.hpp"
#include "sim/engine_preset.hpp"

namespace sparksim {

namespace {

using Pointer = JsonFile::Pointer;
using Reader = std::function<void(const JsonFile&, const Pointer&, PlanOptions&)>;

constexpr std::int64_t kIntMax = std::int64_t{1} << 53;  // exact in a JSON double

std::vector<std::string> strings(const JsonFile& f, const Pointer& p) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < f.get_array(p).size(); ++i) out.push_back(f.get_string(p / i));
  return out;
}

// A whole number; its range is check_plan's to judge (with the option's own message).
std::int64_t integer(const JsonFile& f, const Pointer& p) {
  const double x = f.get_number(p);
  if (x != std::floor(x) || std::fabs(x) > static_cast<double>(kIntMax)) {
    f.fail(p, f.name_of(p) + " must be a whole number");
  }
  return static_cast<std::int64_t>(x);
}

int small_integer(const JsonFile& f, const Pointer& p) {
  const std::int64_t x = integer(f, p);
  if (x < std::numeric_limits<int>::min() || x > std::numeric_limits<int>::max()) {
    f.fail(p, f.name_of(p) + " is out of range");
  }
  return static_cast<int>(x);
}

// The keys besides schema, title, about and baseline: `sparksim plan`'s options (less --jobs,
// --out, --quiet, the study's own --uncertain*, and --date/--git-sha, which only label written
// profiles). Types only here; values are check_plan's to judge.
const std::vector<std::pair<std::string_view, Reader>>& plan_keys() {
  using F = const JsonFile&;
  using P = const Pointer&;
  using O = PlanOptions&;
  static const std::vector<std::pair<std::string_view, Reader>> keys = {
      {"trace", [](F f, P p, O o) { o.run.trace_path = f.get_string(p); }},
      {"trace_format", [](F f, P p, O o) { o.run.trace_format = f.get_string(p, true); }},
      {"domain", [](F f, P p, O o) { o.run.domain = f.get_string(p, true); }},
      {"spread_buckets", [](F f, P p, O o) { o.run.spread_buckets = f.get_bool(p); }},
      {"synthetic", [](F f, P p, O o) { o.run.synthetic = f.get_string(p); }},
      {"rate_scale", [](F f, P p, O o) { o.run.rate_scale = f.get_number(p); }},
      {"prompt_length_scale", [](F f, P p, O o) { o.run.prompt_length_scale = f.get_number(p); }},
      {"output_length_scale", [](F f, P p, O o) { o.run.output_length_scale = f.get_number(p); }},
      {"arrival_cv", [](F f, P p, O o) { o.run.arrival_cv = f.get_number(p); }},
      {"max_requests", [](F f, P p, O o) { o.run.max_requests = integer(f, p); }},
      {"profile", [](F f, P p, O o) { o.run.profile_path = f.get_string(p); }},
      {"slo", [](F f, P p, O o) { o.slo = f.get_string(p); }},
      {"policies", [](F f, P p, O o) { o.policies = strings(f, p); }},
      {"drafter", [](F f, P p, O o) { o.default_drafter = f.get_string(p); }},
      {"acceptance", [](F f, P p, O o) { o.run.acceptance = f.get_string(p); }},
      {"acceptance_log", [](F f, P p, O o) { o.run.acceptance_log = f.get_string(p); }},
      {"seed",
       [](F f, P p, O o) { o.run.seed = static_cast<std::uint64_t>(f.get_int(p, 0, kIntMax)); }},
      {"engine", [](F f, P p, O o) { o.run.engine = f.get_string(p); }},
      {"max_running", [](F f, P p, O o) { o.run.max_running = integer(f, p); }},
      {"max_batch_tokens", [](F f, P p, O o) { o.run.max_batch_tokens = integer(f, p); }},
      {"prefill", [](F f, P p, O o) { o.run.prefill = f.get_string(p); }},
      {"sps", [](F f, P p, O o) { o.run.sps = f.get_string(p); }},
      {"kv_capacity_tokens", [](F f, P p, O o) { o.run.kv_capacity_tokens = integer(f, p); }},
      {"host_overhead_us", [](F f, P p, O o) { o.run.host_overhead_us = f.get_number(p); }},
      {"router", [](F f, P p, O o) { o.routers = strings(f, p); }},
      {"prefill_share", [](F f, P p, O o) { o.prefill_shares = f.get_number_array(p); }},
      {"max_replicas", [](F f, P p, O o) { o.max_replicas = integer(f, p); }},
      {"finish_misses", [](F f, P p, O o) { o.finish_misses = f.get_bool(p); }},
      {"topologies", [](F f, P p, O o) { o.topology.topologies = strings(f, p); }},
      {"topology_profile", [](F f, P p, O o) { o.topology.topology_profiles = strings(f, p); }},
      {"target", [](F f, P p, O o) { o.topology.target = f.get_string(p); }},
      {"gpu", [](F f, P p, O o) { o.topology.gpu = f.get_string(p); }},
      {"expert_format", [](F f, P p, O o) { o.topology.expert_format = f.get_string(p); }},
      {"gpus_per_node", [](F f, P p, O o) { o.topology.gpus_per_node = small_integer(f, p); }},
      {"expert_imbalance", [](F f, P p, O o) { o.topology.expert_imbalance = f.get_number(p); }},
      {"two_batch_overlap", [](F f, P p, O o) { o.topology.two_batch_overlap = f.get_bool(p); }},
      {"planned_requests", [](F f, P p, O o) { o.topology.planned_requests = integer(f, p); }},
      {"max_gpus", [](F f, P p, O o) { o.topology.max_gpus = integer(f, p); }},
  };
  return keys;
}

// "--max-replicas" -> "max_replicas".
std::string key_of_flag(std::string_view flag) {
  std::string key(flag.substr(2));
  for (char& ch : key) ch = ch == '-' ? '_' : ch;
  return key;
}

// A problem check_plan words for the command line ("--max-replicas must be ...", "--policies
// 'x': ...") placed at its key's line with the key's name; one naming no option (or one the file
// leaves at its default) at the document's first line.
std::string at_key_line(const JsonFile& f, const std::string& message) {
  if (message.rfind("--", 0) == 0) {
    const std::size_t end = message.find_first_of(" :/=", 2);
    const std::string key = key_of_flag(std::string_view(message).substr(0, end));
    const std::string rest = end == std::string::npos ? "" : message.substr(end);
    const Pointer ptr = Pointer("/" + key);
    return InputError(f.path(), f.has(ptr) ? f.line_of(ptr) : 1, key + rest).what();
  }
  return InputError(f.path(), 1, message).what();
}

// As the CLI's --engine: the preset's limits unless the file sets them itself.
void apply_engine_preset(const JsonFile& f, RunOptions& run) {
  const EnginePreset* p = run.engine.empty() ? nullptr : lookup_engine_preset(run.engine);
  if (p == nullptr) return;  // an unknown name is check_plan's to report
  if (!f.has(Pointer("/max_running"))) run.max_running = p->max_running;
  if (!f.has(Pointer("/max_batch_tokens"))) run.max_batch_tokens = p->max_batch_tokens;
  if (!f.has(Pointer("/prefill"))) {
    run.prefill = p->prefill == PrefillMode::kChunked ? "chunked" : "separate";
  }
}

// "baseline": one of the policies as written; without it the only entry whose drafter is mtp1.
void resolve_baseline(const JsonFile& f, PlanConfig& c, ProblemList& problems) {
  const auto& policies = c.options.policies;
  if (f.has(Pointer("/baseline"))) {
    problems.check([&] {
      const std::string baseline = f.get_string(Pointer("/baseline"));
      for (std::size_t i = 0; i < policies.size(); ++i) {
        if (policies[i] == baseline) c.baseline = i;
      }
      if (!c.baseline) {
        f.fail(Pointer("/baseline"), "baseline '" + baseline + "' is not one of the policies");
      }
    });
    return;
  }
  int mtp1 = 0;
  for (std::size_t i = 0; i < policies.size(); ++i) {
    const auto plus = policies[i].find('+');
    const std::string drafter =
        plus == std::string::npos ? c.options.default_drafter : policies[i].substr(0, plus);
    if (parse_drafter(drafter).name == "mtp1") {
      c.baseline = i;
      ++mtp1;
    }
  }
  if (mtp1 != 1) c.baseline.reset();
}

}  // namespace

PlanConfig load_plan_config(const std::string& path) {
  const JsonFile f = JsonFile::load(path);
  PlanConfig c;
  c.path = path;
  c.document = f.root();
  ProblemList problems;
  if (!f.root().is_object()) f.fail(Pointer(""), "a plan config is a JSON object");
  std::vector<std::string_view> known = {"schema", "title", "about", "baseline"};
  for (const auto& [key, read] : plan_keys()) known.push_back(key);
  for (const auto& item : f.root().items()) {
    if (std::find(known.begin(), known.end(), item.key()) != known.end()) continue;
    std::string valid;
    for (std::string_view k : known) valid += (valid.empty() ? "" : ", ") + std::string(k);
    problems.add(InputError(f.path(), f.line_of(Pointer("/" + item.key())),
                            "unknown key '" + item.key() + "'; valid keys: " + valid)
                     .what());
  }
  problems.check([&] {
    if (f.get_string(Pointer("/schema")) != kPlanSchema) {
      f.fail(Pointer("/schema"), std::string("schema must be \"") + kPlanSchema + "\"");
    }
  });
  c.title = std::filesystem::path(path).stem().string();
  if (f.has(Pointer("/title"))) problems.check([&] { c.title = f.get_string(Pointer("/title")); });
  if (f.has(Pointer("/about"))) {
    problems.check([&] { c.about = f.get_string(Pointer("/about"), true); });
  }
  for (const auto& [key, read] : plan_keys()) {
    const Pointer ptr("/" + std::string(key));
    if (f.has(ptr)) problems.check([&] { read(f, ptr, c.options); });
  }
  problems.throw_if_any();
  apply_engine_preset(f, c.options.run);
  // Composed topology profiles need a provenance date; plan's CLI stamps today's, a file a fixed
  // one (same config, same bytes; the profiles stay in memory).
  c.options.topology.date = "(composed in memory for a sparksim.plan/1 config)";
  c.options.out_dir = "-";  // check_plan asks for one; a study's plans write nothing
  try {
    check_plan(c.options);
  } catch (const InputError& e) {
    for (const std::string& line : problem_lines(e)) problems.add(at_key_line(f, line));
  }
  problems.throw_if_any();
  resolve_baseline(f, c, problems);
  problems.throw_if_any();
  return c;
}

}  // namespace sparksim
