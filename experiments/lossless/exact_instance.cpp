// Exact-check instances: the Appendix A default, the JSON file format (read with line-numbered
// errors, written back exactly), and the enumeration-size guard.
#include "experiments/lossless/exact_instance.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "common/input_error.hpp"
#include "common/json_file.hpp"

namespace sparksim {

namespace {

using Pointer = JsonFile::Pointer;

constexpr double kSumTolerance = 1e-9;
constexpr const char* kFormat = "sparksim-lossless-instance/1";

std::size_t cell(int row, int col, int vocab) {
  return static_cast<std::size_t>(row) * static_cast<std::size_t>(vocab) +
         static_cast<std::size_t>(col);
}

// Reads an object {token: row} with one distribution of V entries per token.
std::vector<double> read_table(const JsonFile& file, const Pointer& ptr,
                               const std::vector<std::string>& tokens) {
  const auto vocab = static_cast<int>(tokens.size());
  const nlohmann::json& object = file.get_object(ptr);
  for (auto it = object.begin(); it != object.end(); ++it) {
    if (std::find(tokens.begin(), tokens.end(), it.key()) == tokens.end()) {
      file.fail(ptr / it.key(), "'" + it.key() + "' is not one of the instance's tokens");
    }
  }
  std::vector<double> table(static_cast<std::size_t>(vocab) * static_cast<std::size_t>(vocab));
  for (int row = 0; row < vocab; ++row) {
    const Pointer row_ptr = ptr / tokens[static_cast<std::size_t>(row)];
    if (!file.has(row_ptr)) {
      file.fail(ptr, file.name_of(ptr) + " has no row for token '" +
                         tokens[static_cast<std::size_t>(row)] + "' (every token needs one)");
    }
    const nlohmann::json& array = file.get_array(row_ptr);
    for (std::size_t i = 0; i < array.size(); ++i) {
      if (array[i].is_number() && array[i].get<double>() < 0) {
        file.fail(row_ptr / i, file.name_of(row_ptr / i) + " is " +
                                   format_number(array[i].get<double>()) +
                                   "; a probability cannot be negative");
      }
    }
    const std::vector<double> values =
        file.get_number_array(row_ptr, NumberRange::between(0.0, 1.0));
    if (values.size() != static_cast<std::size_t>(vocab)) {
      file.fail(row_ptr, file.name_of(row_ptr) + " has " + std::to_string(values.size()) +
                             " entries; the vocabulary has " + std::to_string(vocab));
    }
    double sum = 0;
    for (double v : values) sum += v;
    if (std::abs(sum - 1.0) > kSumTolerance) {
      file.fail(row_ptr, file.name_of(row_ptr) + " sums to " + format_number(sum) +
                             "; it must be a distribution (entries >= 0 summing to 1)");
    }
    std::copy(values.begin(), values.end(),
              table.begin() + static_cast<std::ptrdiff_t>(cell(row, 0, vocab)));
  }
  return table;
}

std::vector<std::vector<double>> read_draft(const JsonFile& file, const Pointer& ptr,
                                            const std::vector<std::string>& tokens, int gamma) {
  const nlohmann::json& positions = file.get_array(ptr);
  if (positions.size() != static_cast<std::size_t>(gamma)) {
    file.fail(ptr, file.name_of(ptr) + " has " + std::to_string(positions.size()) +
                       " positions; gamma is " + std::to_string(gamma));
  }
  std::vector<std::vector<double>> draft;
  draft.reserve(static_cast<std::size_t>(gamma));
  for (int k = 0; k < gamma; ++k) draft.push_back(read_table(file, ptr / k, tokens));
  return draft;
}

// "exact", or one object {previous token: c} per position.
bool read_confidence(const JsonFile& file, const Pointer& ptr,
                     const std::vector<std::string>& tokens, int gamma,
                     std::vector<std::vector<double>>& out) {
  const nlohmann::json& value = file.at(ptr);
  if (value.is_string()) {
    if (value.get<std::string>() != "exact") {
      file.fail(ptr, file.name_of(ptr) + " is \"" + value.get<std::string>() +
                         "\"; must be \"exact\" or one object {token: c} per position");
    }
    return true;
  }
  const nlohmann::json& positions = file.get_array(ptr);
  if (positions.size() != static_cast<std::size_t>(gamma)) {
    file.fail(ptr, file.name_of(ptr) + " has " + std::to_string(positions.size()) +
                       " positions; gamma is " + std::to_string(gamma));
  }
  out.assign(static_cast<std::size_t>(gamma), std::vector<double>(tokens.size()));
  for (int k = 0; k < gamma; ++k) {
    const Pointer position = ptr / k;
    const nlohmann::json& object = file.get_object(position);
    for (auto it = object.begin(); it != object.end(); ++it) {
      if (std::find(tokens.begin(), tokens.end(), it.key()) == tokens.end()) {
        file.fail(position / it.key(), "'" + it.key() + "' is not one of the instance's tokens");
      }
    }
    for (std::size_t t = 0; t < tokens.size(); ++t) {
      out[static_cast<std::size_t>(k)][t] =
          file.get_number(position / tokens[t], NumberRange::between(0.0, 1.0));
    }
  }
  return false;
}

int token_index(const JsonFile& file, const Pointer& ptr, const std::vector<std::string>& tokens) {
  const std::string name = file.get_string(ptr);
  const auto it = std::find(tokens.begin(), tokens.end(), name);
  if (it == tokens.end()) file.fail(ptr, "'" + name + "' is not one of the instance's tokens");
  return static_cast<int>(it - tokens.begin());
}

nlohmann::ordered_json table_json(const std::vector<double>& table,
                                  const std::vector<std::string>& tokens) {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  const auto vocab = static_cast<int>(tokens.size());
  for (int row = 0; row < vocab; ++row) {
    j[tokens[static_cast<std::size_t>(row)]] =
        std::vector<double>(table.begin() + static_cast<std::ptrdiff_t>(cell(row, 0, vocab)),
                            table.begin() + static_cast<std::ptrdiff_t>(cell(row + 1, 0, vocab)));
  }
  return j;
}

nlohmann::ordered_json draft_json(const ExactRequest& r, const std::vector<std::string>& tokens) {
  nlohmann::ordered_json j = nlohmann::ordered_json::array();
  for (const auto& table : r.draft) j.push_back(table_json(table, tokens));
  return j;
}

nlohmann::ordered_json confidence_json(const ExactRequest& r,
                                       const std::vector<std::string>& tokens) {
  if (r.exact_confidence) return "exact";
  nlohmann::ordered_json j = nlohmann::ordered_json::array();
  for (const auto& row : r.confidence) {
    nlohmann::ordered_json position = nlohmann::ordered_json::object();
    for (std::size_t t = 0; t < tokens.size(); ++t) position[tokens[t]] = row[t];
    j.push_back(position);
  }
  return j;
}

// "too large to enumerate exactly: (V^gamma)^R = (3^2)^1 = 9 joint outcomes, ...".
std::string too_large(int vocab, int gamma, int requests, bool sees_hidden) {
  double count = std::pow(static_cast<double>(vocab), gamma);
  if (sees_hidden) count *= gamma + 1;
  count = std::pow(count, requests);
  return "too large to enumerate exactly: (V^gamma" +
         std::string(sees_hidden ? " x (gamma+1)" : "") + ")^R = (" + std::to_string(vocab) + "^" +
         std::to_string(gamma) + (sees_hidden ? " x " + std::to_string(gamma + 1) : "") + ")^" +
         std::to_string(requests) + " = " + format_number(count) +
         " joint outcomes, each a policy decision (the limits are " +
         format_number(kMaxJointOutcomes) + " joint outcomes, " + std::to_string(kMaxExactVocab) +
         " tokens, gamma " + std::to_string(kMaxExactGamma) + ", " +
         std::to_string(kMaxExactRequests) +
         " requests); use fewer tokens, a smaller gamma or fewer requests, or the statistical "
         "validator";
}

}  // namespace

double overlap(const double* p_draft, const double* p_target, int vocab) {
  double sum = 0;
  for (int y = 0; y < vocab; ++y) sum += std::min(p_draft[y], p_target[y]);
  return std::min(sum, 1.0);
}

void refresh_exact_confidences(ExactInstance& instance) {
  const int vocab = instance.vocab();
  for (ExactRequest& r : instance.requests) {
    if (!r.exact_confidence) continue;
    r.confidence.assign(static_cast<std::size_t>(instance.gamma),
                        std::vector<double>(static_cast<std::size_t>(vocab)));
    for (int k = 0; k < instance.gamma; ++k) {
      for (int prev = 0; prev < vocab; ++prev) {
        r.confidence[static_cast<std::size_t>(k)][static_cast<std::size_t>(prev)] =
            overlap(&r.draft[static_cast<std::size_t>(k)][cell(prev, 0, vocab)],
                    &r.target[cell(prev, 0, vocab)], vocab);
      }
    }
  }
}

ExactInstance appendix_a_instance() {
  ExactInstance in;
  in.tokens = {"A", "B", "S"};
  in.gamma = 2;
  in.sps = {1.0, 0.5, 0.45};
  ExactRequest r;
  r.anchor = 2;
  r.target = {0.7, 0.3, 0.0, 1.0, 0.0, 0.0, 0.7, 0.3, 0.0};
  r.draft = {{0.5, 0.5, 0.0, 0.5, 0.5, 0.0, 0.5, 0.5, 0.0},
             {0.6, 0.4, 0.0, 0.0, 1.0, 0.0, 0.5, 0.5, 0.0}};
  in.requests.push_back(r);
  in.note = "DSpark paper, Appendix A";
  refresh_exact_confidences(in);
  return in;
}

namespace {

std::vector<std::string> read_tokens(const JsonFile& file) {
  const nlohmann::json& tokens = file.get_array(Pointer("/tokens"));
  if (tokens.size() < 2) {
    file.fail(Pointer("/tokens"), "tokens has " + std::to_string(tokens.size()) +
                                      " names; an instance needs at least 2");
  }
  std::vector<std::string> names;
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    const std::string name = file.get_string(Pointer("/tokens") / i);
    if (std::find(names.begin(), names.end(), name) != names.end()) {
      file.fail(Pointer("/tokens") / i, "token '" + name + "' is named twice");
    }
    names.push_back(name);
  }
  return names;
}

// Sizes first: an instance too large to enumerate stops here, naming the count.
void check_instance_size(const JsonFile& file, const ExactInstance& in) {
  const auto request_count =
      file.has(Pointer("/requests")) && file.at(Pointer("/requests")).is_array()
          ? static_cast<int>(file.at(Pointer("/requests")).size())
          : 1;
  const Pointer where = in.vocab() > kMaxExactVocab ? Pointer("/tokens")
                        : in.gamma > kMaxExactGamma ? Pointer("/gamma")
                                                    : Pointer("/requests");
  if (in.vocab() > kMaxExactVocab || in.gamma > kMaxExactGamma ||
      request_count > kMaxExactRequests ||
      std::pow(std::pow(static_cast<double>(in.vocab()), in.gamma), request_count) >
          kMaxJointOutcomes) {
    file.fail(where, too_large(in.vocab(), in.gamma, request_count, false));
  }
}

// The top-level tables, used by every request that gives none of its own.
struct RequestDefaults {
  std::vector<double> target;
  std::vector<std::vector<double>> draft, confidence;
  bool exact_confidence = true;
};

RequestDefaults read_request_defaults(const JsonFile& file, const ExactInstance& in) {
  RequestDefaults d;
  if (file.has(Pointer("/target"))) d.target = read_table(file, Pointer("/target"), in.tokens);
  if (file.has(Pointer("/draft"))) {
    d.draft = read_draft(file, Pointer("/draft"), in.tokens, in.gamma);
  }
  if (file.has(Pointer("/confidence"))) {
    d.exact_confidence =
        read_confidence(file, Pointer("/confidence"), in.tokens, in.gamma, d.confidence);
  }
  return d;
}

ExactRequest read_request(const JsonFile& file, const Pointer& ptr, const ExactInstance& in,
                          const RequestDefaults& defaults) {
  file.get_object(ptr);
  file.reject_unknown_keys(ptr, {"anchor", "context_tokens", "target", "draft", "confidence"});
  ExactRequest r;
  r.anchor = token_index(file, ptr / "anchor", in.tokens);
  if (file.has(ptr / "context_tokens")) {
    r.context_tokens = file.get_int(ptr / "context_tokens", 1, std::int64_t{1} << 40);
  }
  if (file.has(ptr / "target")) {
    r.target = read_table(file, ptr / "target", in.tokens);
  } else if (!defaults.target.empty()) {
    r.target = defaults.target;
  } else {
    file.fail(ptr, file.name_of(ptr) + " has no target and the file gives no top-level one");
  }
  if (file.has(ptr / "draft")) {
    r.draft = read_draft(file, ptr / "draft", in.tokens, in.gamma);
  } else if (!defaults.draft.empty()) {
    r.draft = defaults.draft;
  } else {
    file.fail(ptr, file.name_of(ptr) + " has no draft and the file gives no top-level one");
  }
  if (file.has(ptr / "confidence")) {
    r.exact_confidence =
        read_confidence(file, ptr / "confidence", in.tokens, in.gamma, r.confidence);
  } else {
    r.exact_confidence = defaults.exact_confidence;
    r.confidence = defaults.confidence;
  }
  return r;
}

// The SPS table must reach the largest step: every request verifying γ drafts and its anchor.
void check_sps_covers_step(const JsonFile& file, const ExactInstance& in) {
  const auto needed =
      static_cast<std::size_t>(in.request_count()) * static_cast<std::size_t>(in.gamma + 1);
  if (in.sps.size() < needed) {
    file.fail(Pointer("/sps"), "sps has " + std::to_string(in.sps.size()) + " entries; a step of " +
                                   std::to_string(in.request_count()) + " request(s) at gamma " +
                                   std::to_string(in.gamma) + " can verify " +
                                   std::to_string(needed) + " tokens");
  }
}

// One earlier step: a confidence row of γ entries and a context length per request.
ExactHistoryStep read_history_step(const JsonFile& file, const Pointer& ptr, int gamma,
                                   std::size_t requests) {
  file.get_object(ptr);
  file.reject_unknown_keys(ptr, {"confidences", "context_tokens"});
  ExactHistoryStep step;
  const nlohmann::json& rows = file.get_array(ptr / "confidences");
  if (rows.size() != requests) {
    file.fail(ptr / "confidences", "confidences has " + std::to_string(rows.size()) +
                                       " rows; the step has " + std::to_string(requests) +
                                       " requests");
  }
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const std::vector<double> row =
        file.get_number_array(ptr / "confidences" / r, NumberRange::between(0.0, 1.0));
    if (row.size() != static_cast<std::size_t>(gamma)) {
      file.fail(ptr / "confidences" / r,
                "a confidence row needs gamma = " + std::to_string(gamma) + " entries");
    }
    step.confidences.insert(step.confidences.end(), row.begin(), row.end());
  }
  step.context_tokens =
      file.get_int_array(ptr / "context_tokens", 1, std::int64_t{1} << 40, requests);
  if (step.context_tokens.size() != requests) {
    file.fail(ptr / "context_tokens", "context_tokens needs one entry per request");
  }
  return step;
}

}  // namespace

ExactInstance parse_exact_instance(const std::string& text, const std::string& path) {
  const JsonFile file = JsonFile::parse(text, path);
  const Pointer root("");
  file.get_object(root);
  file.reject_unknown_keys(root, {"format", "note", "policy", "tokens", "gamma", "sps", "target",
                                  "draft", "confidence", "requests", "history"});
  ExactInstance in;
  in.source = path;
  if (file.has(Pointer("/format")) && file.get_string(Pointer("/format")) != kFormat) {
    file.fail(Pointer("/format"), std::string("format must be \"") + kFormat + "\"");
  }
  if (file.has(Pointer("/note"))) in.note = file.get_string(Pointer("/note"), true);
  if (file.has(Pointer("/policy"))) in.policy = file.get_string(Pointer("/policy"));
  in.tokens = read_tokens(file);
  in.gamma = static_cast<int>(file.get_int(Pointer("/gamma"), 1, 64));
  check_instance_size(file, in);
  in.sps = file.get_number_array(Pointer("/sps"), NumberRange::positive(), 1);

  const RequestDefaults defaults = read_request_defaults(file, in);
  const nlohmann::json& requests = file.get_array(Pointer("/requests"));
  if (requests.empty()) file.fail(Pointer("/requests"), "requests is empty; give at least one");
  for (std::size_t i = 0; i < requests.size(); ++i) {
    in.requests.push_back(read_request(file, Pointer("/requests") / i, in, defaults));
  }
  check_sps_covers_step(file, in);
  if (file.has(Pointer("/history"))) {
    const nlohmann::json& history = file.get_array(Pointer("/history"));
    for (std::size_t s = 0; s < history.size(); ++s) {
      in.history.push_back(
          read_history_step(file, Pointer("/history") / s, in.gamma, requests.size()));
    }
  }
  refresh_exact_confidences(in);
  return in;
}

ExactInstance load_exact_instance(const std::string& path) {
  const JsonFile file = JsonFile::load(path);
  return parse_exact_instance(file.text(), path);
}

nlohmann::ordered_json exact_instance_json(const ExactInstance& in) {
  nlohmann::ordered_json j;
  j["format"] = kFormat;
  if (!in.note.empty()) j["note"] = in.note;
  if (!in.policy.empty()) j["policy"] = in.policy;
  j["tokens"] = in.tokens;
  j["gamma"] = in.gamma;
  j["sps"] = in.sps;
  // Request 0's tables are the defaults; other requests list only what differs.
  const ExactRequest& first = in.requests.front();
  j["target"] = table_json(first.target, in.tokens);
  j["draft"] = draft_json(first, in.tokens);
  j["confidence"] = confidence_json(first, in.tokens);
  nlohmann::ordered_json requests = nlohmann::ordered_json::array();
  for (const ExactRequest& r : in.requests) {
    nlohmann::ordered_json rj;
    rj["anchor"] = in.tokens[static_cast<std::size_t>(r.anchor)];
    rj["context_tokens"] = r.context_tokens;
    if (r.target != first.target) rj["target"] = table_json(r.target, in.tokens);
    if (r.draft != first.draft) rj["draft"] = draft_json(r, in.tokens);
    if (r.exact_confidence != first.exact_confidence ||
        (!r.exact_confidence && r.confidence != first.confidence)) {
      rj["confidence"] = confidence_json(r, in.tokens);
    }
    requests.push_back(std::move(rj));
  }
  j["requests"] = std::move(requests);
  if (!in.history.empty()) {
    nlohmann::ordered_json history = nlohmann::ordered_json::array();
    for (const ExactHistoryStep& step : in.history) {
      nlohmann::ordered_json sj;
      nlohmann::ordered_json rows = nlohmann::ordered_json::array();
      for (int r = 0; r < in.request_count(); ++r) {
        const auto begin = step.confidences.begin() + static_cast<std::ptrdiff_t>(r) * in.gamma;
        rows.push_back(std::vector<double>(begin, begin + in.gamma));
      }
      sj["confidences"] = std::move(rows);
      sj["context_tokens"] = step.context_tokens;
      history.push_back(std::move(sj));
    }
    j["history"] = std::move(history);
  }
  return j;
}

double joint_outcome_count(const ExactInstance& in, bool sees_hidden_outcome) {
  double per_request = std::pow(static_cast<double>(in.vocab()), in.gamma);
  if (sees_hidden_outcome) per_request *= in.gamma + 1;
  return std::pow(per_request, in.request_count());
}

void check_enumerable(const ExactInstance& in, bool sees_hidden_outcome) {
  if (in.vocab() <= kMaxExactVocab && in.gamma <= kMaxExactGamma &&
      in.request_count() <= kMaxExactRequests &&
      joint_outcome_count(in, sees_hidden_outcome) <= kMaxJointOutcomes) {
    return;
  }
  throw InputError(in.source, 0,
                   too_large(in.vocab(), in.gamma, in.request_count(), sees_hidden_outcome));
}

}  // namespace sparksim
