// Profile JSON (schema "sparksim.profile/1"): the loader validates every field and cross-field
// rule before returning (errors point at the offending key's line through JsonFile); the writer
// emits the same layout in a fixed key order, so regenerated files diff cleanly.
#include "profiles/profile_io.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>

#include "common/input_error.hpp"
#include "profiles/sps_belief.hpp"

namespace sparksim {

namespace {

using Pointer = JsonFile::Pointer;
using Ordered = nlohmann::ordered_json;

constexpr std::int64_t kMaxTableTokens = std::int64_t{1} << 40;  // far above any batch

Pointer ptr(const std::string& s) {
  return Pointer(s);
}

bool is_iso_date_prefix(const std::string& s) {
  if (s.size() < 10) return false;
  for (int i : {0, 1, 2, 3, 5, 6, 8, 9}) {
    if (s[i] < '0' || s[i] > '9') return false;
  }
  if (s[4] != '-' || s[7] != '-') return false;
  const int month = (s[5] - '0') * 10 + (s[6] - '0');
  const int day = (s[8] - '0') * 10 + (s[9] - '0');
  return month >= 1 && month <= 12 && day >= 1 && day <= 31;
}

void read_provenance(const JsonFile& f, Provenance& p) {
  if (!f.has(ptr("/provenance"))) {
    f.fail(ptr(""),
           "profile has no provenance; every profile must say where its numbers come from: "
           "\"provenance\": {\"source\": \"measured\" or \"analytic\", \"gpu\", \"date\", "
           "\"tool\", \"git_sha\", \"notes\"}");
  }
  f.reject_unknown_keys(ptr("/provenance"),
                        {"source", "gpu", "date", "tool", "git_sha", "notes", "database",
                         "database_commit", "framework", "outside_grid"});
  p.source = f.get_string(ptr("/provenance/source"));
  if (p.source != "measured" && p.source != "analytic" && p.source != "measured-db" &&
      p.source != "telemetry") {
    f.fail(ptr("/provenance/source"), "provenance.source is \"" + p.source +
                                          "\"; must be \"measured\", \"measured-db\", "
                                          "\"telemetry\" or \"analytic\"");
  }
  // A measured-db profile must name the database its latencies come from; the others must not
  // (a name there would suggest measurements they do not have).
  const std::pair<const char*, std::string*> database_keys[] = {
      {"database", &p.database},
      {"database_commit", &p.database_commit},
      {"framework", &p.framework}};
  for (const auto& [key, field] : database_keys) {
    const Pointer at = ptr("/provenance") / key;
    if (p.source == "measured-db") {
      *field = f.get_string(at);
    } else if (f.has(at)) {
      f.fail(at, std::string("provenance.") + key + " is only for source \"measured-db\"");
    }
  }
  if (f.has(ptr("/provenance/outside_grid"))) {
    const nlohmann::json& list = f.get_array(ptr("/provenance/outside_grid"));
    for (std::size_t i = 0; i < list.size(); ++i) {
      p.outside_grid.push_back(f.get_string(ptr("/provenance/outside_grid") / i));
    }
  }
  p.gpu = f.get_string(ptr("/provenance/gpu"));
  p.date = f.get_string(ptr("/provenance/date"));
  if (!is_iso_date_prefix(p.date)) {
    f.fail(ptr("/provenance/date"),
           "provenance.date is \"" + p.date + "\"; must start with an ISO date YYYY-MM-DD");
  }
  p.tool = f.get_string(ptr("/provenance/tool"));
  p.git_sha = f.get_string(ptr("/provenance/git_sha"), /*allow_empty=*/true);
  p.notes = f.get_string(ptr("/provenance/notes"), /*allow_empty=*/true);
}

// Ascending tokens (strictly), reported at the first element out of order.
std::vector<std::int64_t> read_ascending_tokens(const JsonFile& f, const std::string& at,
                                                std::size_t min_size) {
  std::vector<std::int64_t> v = f.get_int_array(ptr(at), 1, kMaxTableTokens, min_size);
  for (std::size_t i = 1; i < v.size(); ++i) {
    if (v[i] <= v[i - 1]) {
      const Pointer p = ptr(at) / i;
      f.fail(p, f.name_of(p) + " is " + std::to_string(v[i]) + " after " +
                    std::to_string(v[i - 1]) + "; must be strictly ascending");
    }
  }
  return v;
}

void require_same_length(const JsonFile& f, const std::string& at, std::size_t size,
                         const std::string& other, std::size_t other_size) {
  if (size == other_size) return;
  f.fail(ptr(at), f.name_of(ptr(at)) + " has " + std::to_string(size) + " entries; " +
                      f.name_of(ptr(other)) + " has " + std::to_string(other_size) +
                      "; they must have the same length");
}

void read_memory(const JsonFile& f, Profile& p) {
  f.reject_unknown_keys(ptr("/memory"), {"hbm_bytes", "weights_bytes", "memory_utilization",
                                         "kv_bytes_per_token", "reserved_bytes"});
  p.hbm_bytes = f.get_number(ptr("/memory/hbm_bytes"), NumberRange::positive());
  p.weights_bytes = f.get_number(ptr("/memory/weights_bytes"), NumberRange::positive());
  p.memory_utilization =
      f.get_number(ptr("/memory/memory_utilization"), {0.0, 1.0, /*min_exclusive=*/true});
  p.kv_bytes_per_token = f.get_number(ptr("/memory/kv_bytes_per_token"), NumberRange::positive());
  if (f.has(ptr("/memory/reserved_bytes"))) {
    p.reserved_bytes = f.get_number(ptr("/memory/reserved_bytes"), NumberRange::at_least(0));
  }
  if (p.kv_capacity_tokens() < 1) {
    f.fail(ptr("/memory/weights_bytes"),
           "memory.weights_bytes is " + format_number(p.weights_bytes) +
               "; leaves no room for a KV cache: hbm_bytes * memory_utilization is " +
               format_number(p.hbm_bytes * p.memory_utilization) + " (reserved_bytes " +
               format_number(p.reserved_bytes) +
               ") and must exceed the weights and reserve by at least kv_bytes_per_token");
  }
}

// Upper bounds on the time-model coefficients. No GPU step takes 1000 s, and no kernel spends a
// millisecond per token; anything larger is a typo or a unit error (a "zero bandwidth" profile)
// that would otherwise overflow integer nanoseconds in the time model.
const NumberRange kMicrosecondsRange = NumberRange::between(0, 1e9);  // <= 1000 s
const NumberRange kNsPerTokenRange = NumberRange::between(0, 1e6);    // <= 1 ms per token

void read_verify(const JsonFile& f, VerifyTimeModel& v) {
  f.reject_unknown_keys(
      ptr("/verify"),
      {"fixed_us", "graph_buckets", "dense_tokens", "dense_us", "kv_read_ns_per_context_token",
       "attention_ns_per_pair", "per_request_us", "head_tokens", "head_us", "prefill_chunk_us",
       "prefill_attention_ns_per_pair", "prefill_token_ns", "decode_attention_requests",
       "decode_attention_context", "decode_attention_us"});
  v.fixed_us = f.get_number(ptr("/verify/fixed_us"), kMicrosecondsRange);
  v.graph_buckets = read_ascending_tokens(f, "/verify/graph_buckets", 0);
  v.dense_tokens = read_ascending_tokens(f, "/verify/dense_tokens", 2);
  v.dense_us = f.get_number_array(ptr("/verify/dense_us"), kMicrosecondsRange);
  require_same_length(f, "/verify/dense_us", v.dense_us.size(), "/verify/dense_tokens",
                      v.dense_tokens.size());
  for (std::size_t i = 1; i < v.dense_us.size(); ++i) {
    if (v.dense_us[i] < v.dense_us[i - 1]) {
      const Pointer p = ptr("/verify/dense_us") / i;
      f.fail(p, f.name_of(p) + " is " + format_number(v.dense_us[i]) + " after " +
                    format_number(v.dense_us[i - 1]) +
                    "; must be non-decreasing (more tokens never cost less)");
    }
  }
  v.kv_read_ns_per_context_token =
      f.get_number(ptr("/verify/kv_read_ns_per_context_token"), kNsPerTokenRange);
  v.attention_ns_per_pair = f.get_number(ptr("/verify/attention_ns_per_pair"), kNsPerTokenRange);
  // Optional (later schema additions; absent in older profiles).
  if (f.has(ptr("/verify/per_request_us"))) {
    v.per_request_us = f.get_number(ptr("/verify/per_request_us"), kMicrosecondsRange);
  }
  if (f.has(ptr("/verify/prefill_chunk_us"))) {
    v.prefill_chunk_us = f.get_number(ptr("/verify/prefill_chunk_us"), kMicrosecondsRange);
  }
  if (f.has(ptr("/verify/prefill_attention_ns_per_pair"))) {
    v.prefill_attention_ns_per_pair =
        f.get_number(ptr("/verify/prefill_attention_ns_per_pair"), kNsPerTokenRange);
  }
  if (f.has(ptr("/verify/prefill_token_ns"))) {
    v.prefill_token_ns = f.get_number(ptr("/verify/prefill_token_ns"), kNsPerTokenRange);
  }
  if (f.has(ptr("/verify/decode_attention_requests")) ||
      f.has(ptr("/verify/decode_attention_context")) || f.has(ptr("/verify/decode_attention_us"))) {
    v.decode_attention_requests = read_ascending_tokens(f, "/verify/decode_attention_requests", 2);
    v.decode_attention_context = read_ascending_tokens(f, "/verify/decode_attention_context", 2);
    const Pointer rows = ptr("/verify/decode_attention_us");
    require_same_length(f, "/verify/decode_attention_us", f.get_array(rows).size(),
                        "/verify/decode_attention_requests", v.decode_attention_requests.size());
    for (std::size_t i = 0; i < v.decode_attention_requests.size(); ++i) {
      const std::string at = "/verify/decode_attention_us/" + std::to_string(i);
      v.decode_attention_us.push_back(f.get_number_array(ptr(at), kMicrosecondsRange));
      require_same_length(f, at, v.decode_attention_us.back().size(),
                          "/verify/decode_attention_context", v.decode_attention_context.size());
    }
  }
  if (f.has(ptr("/verify/head_tokens")) || f.has(ptr("/verify/head_us"))) {
    v.head_tokens = read_ascending_tokens(f, "/verify/head_tokens", 2);
    v.head_us = f.get_number_array(ptr("/verify/head_us"), kMicrosecondsRange);
    require_same_length(f, "/verify/head_us", v.head_us.size(), "/verify/head_tokens",
                        v.head_tokens.size());
    for (std::size_t i = 1; i < v.head_us.size(); ++i) {
      if (v.head_us[i] < v.head_us[i - 1]) {
        const Pointer p = ptr("/verify/head_us") / i;
        f.fail(p, f.name_of(p) + " is " + format_number(v.head_us[i]) + " after " +
                      format_number(v.head_us[i - 1]) + "; must be non-decreasing");
      }
    }
  }
}

// A family without a key has no cost in this profile (a measured profile whose sweep did not reach
// it): it stays empty, and require_draft_cost() refuses to simulate it (never a zero cost).
void read_draft(const JsonFile& f,
                std::array<std::optional<DraftTimeModel>, kDrafterFamilyCount>& draft) {
  f.reject_unknown_keys(ptr("/draft"), {kDrafterFamilyNames[0], kDrafterFamilyNames[1],
                                        kDrafterFamilyNames[2], kDrafterFamilyNames[3]});
  for (int i = 0; i < kDrafterFamilyCount; ++i) {
    const std::string at = "/draft/" + std::string(kDrafterFamilyNames[i]);
    if (!f.has(ptr(at))) continue;
    f.get_object(ptr(at));
    f.reject_unknown_keys(
        ptr(at), {"fixed_us", "per_pass_us", "per_token_ns", "sequential_in_gamma",
                  "tokens_scale_with_gamma", "kv_read_ns_per_context_token", "kv_read_per_pass"});
    DraftTimeModel& m = draft[i].emplace();
    m.fixed_us = f.get_number(ptr(at + "/fixed_us"), kMicrosecondsRange);
    m.per_pass_us = f.get_number(ptr(at + "/per_pass_us"), kMicrosecondsRange);
    m.per_token_ns = f.get_number(ptr(at + "/per_token_ns"), kNsPerTokenRange);
    m.sequential_in_gamma = f.get_bool(ptr(at + "/sequential_in_gamma"));
    m.tokens_scale_with_gamma = f.get_bool(ptr(at + "/tokens_scale_with_gamma"));
    m.kv_read_ns_per_context_token =
        f.get_number(ptr(at + "/kv_read_ns_per_context_token"), kNsPerTokenRange);
    m.kv_read_per_pass = f.get_bool(ptr(at + "/kv_read_per_pass"));
  }
}

// An SPS table at `at` ("/sps" or "/sps_capture").
void read_sps(const JsonFile& f, const std::string& at, SpsPoints& s) {
  f.get_object(ptr(at));
  f.reject_unknown_keys(ptr(at), {"reference", "tokens", "steps_per_s"});
  s.reference = f.get_string(ptr(at + "/reference"));
  s.tokens = read_ascending_tokens(f, at + "/tokens", 1);
  if (s.tokens.front() != 1) {
    f.fail(ptr(at + "/tokens/0"), at.substr(1) + ".tokens[0] is " +
                                      std::to_string(s.tokens.front()) +
                                      "; must be 1 (the table starts at one verify token)");
  }
  s.steps_per_s = f.get_number_array(ptr(at + "/steps_per_s"), NumberRange::positive());
  require_same_length(f, at + "/steps_per_s", s.steps_per_s.size(), at + "/tokens",
                      s.tokens.size());
}

// Optional: profiles written before the section existed load unchanged, with no terms.
void read_step_terms(const JsonFile& f, StepTerms& t) {
  if (!f.has(ptr("/step_terms"))) return;
  f.get_object(ptr("/step_terms"));
  // The API server's costs belong to the engine, not the GPU: they moved to the engine presets.
  for (const char* moved : {"frontend_ms", "frontend_batch_ms", "frontend_request_ms",
                            "frontend_chunk_us", "frontend_source", "frontend_engine"}) {
    const auto at = ptr("/step_terms/" + std::string(moved));
    if (f.has(at)) {
      f.fail(at, std::string("step_terms.") + moved +
                     ": the front end's costs moved to the engine presets "
                     "(sim/engine_preset.cpp, `--engine`); remove the frontend_* keys");
    }
  }
  f.reject_unknown_keys(ptr("/step_terms"), {"source", "measurements", "tool", "notes",
                                             "per_step_us", "per_sequence_us"});
  t.present = true;
  t.source = f.get_string(ptr("/step_terms/source"));
  if (t.source != "calibrated") {
    f.fail(ptr("/step_terms/source"), "step_terms.source is \"" + t.source +
                                          "\"; must be \"calibrated\" (fitted to end-to-end "
                                          "measurements named in step_terms.measurements)");
  }
  t.measurements = f.get_string(ptr("/step_terms/measurements"));
  t.tool = f.get_string(ptr("/step_terms/tool"));
  t.notes = f.get_string(ptr("/step_terms/notes"), /*allow_empty=*/true);
  t.per_step_us = f.get_number(ptr("/step_terms/per_step_us"), NumberRange::between(0, 1e6));
  t.per_sequence_us =
      f.get_number(ptr("/step_terms/per_sequence_us"), NumberRange::between(0, 1e5));
}

// Integral values (byte counts, bucket sizes) print as JSON integers, the rest as doubles.
Ordered number(double x) {
  if (x == std::floor(x) && std::fabs(x) < 9007199254740992.0) {
    return Ordered(static_cast<std::int64_t>(x));
  }
  return Ordered(x);
}

Ordered numbers(const std::vector<double>& v) {
  Ordered a = Ordered::array();
  for (double x : v) a.push_back(number(x));
  return a;
}

Ordered profile_to_ordered(const Profile& p) {
  Ordered j;
  j["schema"] = kProfileSchema;
  j["provenance"] = {{"source", p.provenance.source},   {"gpu", p.provenance.gpu},
                     {"date", p.provenance.date},       {"tool", p.provenance.tool},
                     {"git_sha", p.provenance.git_sha}, {"notes", p.provenance.notes}};
  if (p.is_measured_db()) {
    j["provenance"]["database"] = p.provenance.database;
    j["provenance"]["database_commit"] = p.provenance.database_commit;
    j["provenance"]["framework"] = p.provenance.framework;
    j["provenance"]["outside_grid"] = p.provenance.outside_grid;
  }
  j["target"] = p.target;
  j["gpus"] = p.gpus;
  j["memory"] = {{"hbm_bytes", number(p.hbm_bytes)},
                 {"weights_bytes", number(p.weights_bytes)},
                 {"memory_utilization", number(p.memory_utilization)},
                 {"kv_bytes_per_token", number(p.kv_bytes_per_token)}};
  // Optional keys are written only when set, so dense profiles keep their exact layout.
  if (p.reserved_bytes != 0) j["memory"]["reserved_bytes"] = number(p.reserved_bytes);
  j["host_overhead_us"] = number(p.host_overhead_us);
  j["verify"] = {{"fixed_us", number(p.verify.fixed_us)},
                 {"graph_buckets", p.verify.graph_buckets},
                 {"dense_tokens", p.verify.dense_tokens},
                 {"dense_us", numbers(p.verify.dense_us)},
                 {"kv_read_ns_per_context_token", number(p.verify.kv_read_ns_per_context_token)},
                 {"attention_ns_per_pair", number(p.verify.attention_ns_per_pair)}};
  if (p.verify.per_request_us != 0) j["verify"]["per_request_us"] = number(p.verify.per_request_us);
  if (p.verify.prefill_chunk_us != 0) {
    j["verify"]["prefill_chunk_us"] = number(p.verify.prefill_chunk_us);
  }
  if (p.verify.prefill_attention_ns_per_pair) {
    j["verify"]["prefill_attention_ns_per_pair"] = number(*p.verify.prefill_attention_ns_per_pair);
  }
  if (!p.verify.head_tokens.empty()) {
    j["verify"]["head_tokens"] = p.verify.head_tokens;
    j["verify"]["head_us"] = numbers(p.verify.head_us);
  }
  if (p.verify.prefill_token_ns != 0) {
    j["verify"]["prefill_token_ns"] = number(p.verify.prefill_token_ns);
  }
  if (!p.verify.decode_attention_requests.empty()) {
    j["verify"]["decode_attention_requests"] = p.verify.decode_attention_requests;
    j["verify"]["decode_attention_context"] = p.verify.decode_attention_context;
    nlohmann::ordered_json rows = nlohmann::ordered_json::array();
    for (const std::vector<double>& row : p.verify.decode_attention_us) {
      rows.push_back(numbers(row));
    }
    j["verify"]["decode_attention_us"] = rows;
  }
  Ordered draft = Ordered::object();  // families without a cost are left out, not written as 0
  for (int i = 0; i < kDrafterFamilyCount; ++i) {
    if (!p.draft[i]) continue;
    const DraftTimeModel& m = *p.draft[i];
    draft[std::string(kDrafterFamilyNames[i])] = {
        {"fixed_us", number(m.fixed_us)},
        {"per_pass_us", number(m.per_pass_us)},
        {"per_token_ns", number(m.per_token_ns)},
        {"sequential_in_gamma", m.sequential_in_gamma},
        {"tokens_scale_with_gamma", m.tokens_scale_with_gamma},
        {"kv_read_ns_per_context_token", number(m.kv_read_ns_per_context_token)},
        {"kv_read_per_pass", m.kv_read_per_pass}};
  }
  j["draft"] = draft;
  j["sps"] = {{"reference", p.sps.reference},
              {"tokens", p.sps.tokens},
              {"steps_per_s", numbers(p.sps.steps_per_s)}};
  if (!p.sps_capture.tokens.empty()) {
    j["sps_capture"] = {{"reference", p.sps_capture.reference},
                        {"tokens", p.sps_capture.tokens},
                        {"steps_per_s", numbers(p.sps_capture.steps_per_s)}};
  }
  if (p.step_terms.present) {
    const StepTerms& t = p.step_terms;
    j["step_terms"] = {{"source", t.source},
                       {"measurements", t.measurements},
                       {"tool", t.tool},
                       {"notes", t.notes},
                       {"per_step_us", number(t.per_step_us)},
                       {"per_sequence_us", number(t.per_sequence_us)}};
  }
  return j;
}

}  // namespace

Profile profile_from_json(const JsonFile& f) {
  f.get_object(ptr(""));
  // The schema first: a file that is not a profile should say so before anything else.
  const std::string schema = f.get_string(ptr("/schema"));
  if (schema != kProfileSchema) {
    f.fail(ptr("/schema"), "schema is \"" + schema + "\"; must be \"" + kProfileSchema + "\"");
  }
  Profile p;
  read_provenance(f, p.provenance);
  f.reject_unknown_keys(
      ptr(""), {"schema", "provenance", "target", "gpus", "memory", "host_overhead_us", "verify",
                "draft", "sps", "sps_capture", "step_terms"});
  p.target = f.get_string(ptr("/target"));
  p.gpus = static_cast<int>(f.get_int(ptr("/gpus"), 1, 4096));
  f.get_object(ptr("/memory"));
  read_memory(f, p);
  p.host_overhead_us = f.get_number(ptr("/host_overhead_us"), kMicrosecondsRange);
  f.get_object(ptr("/verify"));
  read_verify(f, p.verify);
  f.get_object(ptr("/draft"));
  read_draft(f, p.draft);
  p.draft_line = f.line_of(ptr("/draft"));
  read_sps(f, "/sps", p.sps);
  if (f.has(ptr("/sps_capture"))) {
    read_sps(f, "/sps_capture", p.sps_capture);
  } else {
    // Profiles written before beliefs were named: the capture table follows from `verify`.
    try {
      p.sps_capture = build_capture_sps(p);
    } catch (const std::overflow_error& e) {
      f.fail(ptr("/verify"), std::string("verify: the capture SPS table derived from it (the file "
                                         "has no sps_capture) fails: ") +
                                 e.what());
    }
  }
  read_step_terms(f, p.step_terms);
  p.path = f.path();
  return p;
}

Profile load_profile(const std::string& path) {
  return profile_from_json(JsonFile::load(path));
}

nlohmann::json profile_to_json(const Profile& profile) {
  return nlohmann::json(profile_to_ordered(profile));
}

std::string format_profile(const Profile& profile) {
  return format_json(profile_to_ordered(profile));
}

void write_profile(const Profile& profile, const std::string& path) {
  write_file_atomically(path, format_profile(profile));
}

}  // namespace sparksim
