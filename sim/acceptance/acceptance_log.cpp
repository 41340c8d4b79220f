// Writing and reading acceptance logs.
#include "sim/acceptance/acceptance_log.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <numeric>
#include <ostream>
#include <sstream>
#include <string_view>

#include "common/input_error.hpp"

namespace sparksim {

namespace {

constexpr std::string_view kMagic = "# sparksim acceptance log v1:";

std::string column_header(int gamma) {
  std::string h = "request_id,decode_step,domain,generated,verified,first_rejected";
  for (int k = 1; k <= gamma; ++k) h += ",c" + std::to_string(k);
  return h;
}

void append_int(std::string& out, std::int64_t v) {
  char buf[24];
  out.append(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
}

}  // namespace

AcceptanceLogRecorder::AcceptanceLogRecorder(std::unique_ptr<AcceptanceModel> inner,
                                             std::ostream& out, const AcceptanceLogHeader& header)
    : inner_(std::move(inner)), out_(out), gamma_(header.gamma) {
  out_ << kMagic << " gamma=" << header.gamma << " drafter=" << header.drafter
       << " target=" << header.target << " seed=" << header.seed
       << " acceptance=" << header.acceptance << "\n"
       << column_header(header.gamma) << "\n";
}

void AcceptanceLogRecorder::init_request(std::uint64_t request_id, Domain domain,
                                         AcceptanceState& state) {
  inner_->init_request(request_id, domain, state);
}

void AcceptanceLogRecorder::draft(std::span<const DraftSlot> slots, int gamma,
                                  std::span<float> confidences, std::span<int> hidden_accepted) {
  inner_->draft(slots, gamma, confidences, hidden_accepted);
  confidences_.assign(confidences.begin(),
                      confidences.begin() + static_cast<std::ptrdiff_t>(
                                                slots.size() * static_cast<std::size_t>(gamma)));
  hidden_.assign(hidden_accepted.begin(),
                 hidden_accepted.begin() + static_cast<std::ptrdiff_t>(slots.size()));
}

void AcceptanceLogRecorder::on_verified(std::span<const DraftSlot> slots,
                                        std::span<const int> lengths) {
  inner_->on_verified(slots, lengths);
  const auto g = static_cast<std::size_t>(gamma_);
  buffer_.clear();
  for (std::size_t r = 0; r < slots.size(); ++r) {
    const DraftSlot& s = slots[r];
    append_int(buffer_, static_cast<std::int64_t>(s.request_id));
    buffer_ += ',';
    append_int(buffer_, s.decode_step);
    buffer_ += ',';
    buffer_ += domain_name(s.domain);
    buffer_ += ',';
    append_int(buffer_, s.generated);
    buffer_ += ',';
    append_int(buffer_, lengths[r]);
    buffer_ += ',';
    append_int(buffer_, hidden_[r] + 1);
    for (std::size_t k = 0; k < g; ++k) {
      buffer_ += ',';
      char buf[32];
      buffer_.append(buf, std::to_chars(buf, buf + sizeof buf, confidences_[r * g + k]).ptr);
    }
    buffer_ += '\n';
  }
  out_.write(buffer_.data(), static_cast<std::streamsize>(buffer_.size()));
}

void AcceptanceLogRecorder::on_request_left(std::uint64_t request_id) {
  inner_->on_request_left(request_id);
}

const AcceptanceLog::Range* AcceptanceLog::find(std::uint64_t request_id) const {
  const auto it =
      std::lower_bound(requests.begin(), requests.end(), request_id,
                       [](const Range& r, std::uint64_t id) { return r.request_id < id; });
  return it != requests.end() && it->request_id == request_id ? &*it : nullptr;
}

ConfidenceSample AcceptanceLog::to_sample() const {
  ConfidenceSample s;
  s.gamma = header.gamma;
  s.confidences = confidences;
  s.accepted.reserve(rows.size());
  s.request_ids.reserve(rows.size());
  for (const Row& r : rows) {
    s.accepted.push_back(r.accepted);
    s.request_ids.push_back(r.request_id);
  }
  return s;
}

namespace {

// Field-by-field parser of one row; every failure names the line and the column.
class RowParser {
 public:
  RowParser(std::string_view line, const std::string& path, std::int64_t line_no)
      : rest_(line), path_(path), line_(line_no) {}

  std::string_view next(const char* column) {
    if (done_) fail(std::string("has no ") + column + " column");
    const auto comma = rest_.find(',');
    std::string_view field = rest_.substr(0, comma);
    if (comma == std::string_view::npos) {
      done_ = true;
    } else {
      rest_.remove_prefix(comma + 1);
    }
    if (!field.empty() && field.back() == '\r') field.remove_suffix(1);
    return field;
  }
  template <typename T>
  T integer(const char* column, T min, T max) {
    const std::string_view f = next(column);
    T v{};
    const auto [end, ec] = std::from_chars(f.data(), f.data() + f.size(), v);
    if (ec != std::errc() || end != f.data() + f.size()) {
      fail(std::string(column) + " is '" + std::string(f) + "'; must be an integer");
    }
    if (v < min || v > max) {
      fail(std::string(column) + " is " + std::string(f) + "; must be in [" + std::to_string(min) +
           ", " + std::to_string(max) + "]");
    }
    return v;
  }
  float probability(const std::string& column) {
    const std::string_view f = next(column.c_str());
    float v = 0;
    const auto [end, ec] = std::from_chars(f.data(), f.data() + f.size(), v);
    if (ec != std::errc() || end != f.data() + f.size() || !std::isfinite(v)) {
      fail(column + " is '" + std::string(f) + "'; must be a number");
    }
    if (v < 0.0f || v > 1.0f) {
      fail(column + " is " + std::string(f) + "; must be a probability in [0, 1]");
    }
    return v;
  }
  void finish() {
    if (!done_) fail("has more columns than the header");
  }
  [[noreturn]] void fail(const std::string& what) const { throw InputError(path_, line_, what); }

 private:
  std::string_view rest_;
  const std::string& path_;
  std::int64_t line_;
  bool done_ = false;
};

AcceptanceLogHeader parse_header(const std::string& line, const std::string& path) {
  if (line.rfind(kMagic, 0) != 0) {
    throw InputError(path, 1,
                     "not a sparksim acceptance log: the first line must start with '" +
                         std::string(kMagic) +
                         "' (write one with `sparksim run "
                         "--write-acceptance-log`)");
  }
  AcceptanceLogHeader h;
  std::string rest = line.substr(kMagic.size());
  const auto acc = rest.find(" acceptance=");
  if (acc != std::string::npos) {
    h.acceptance = rest.substr(acc + 12);
    if (!h.acceptance.empty() && h.acceptance.back() == '\r') h.acceptance.pop_back();
    rest = rest.substr(0, acc);
  }
  std::istringstream words(rest);
  std::string word;
  bool have_gamma = false;
  while (words >> word) {
    const auto eq = word.find('=');
    const std::string key = word.substr(0, eq),
                      value = eq == std::string::npos ? "" : word.substr(eq + 1);
    if (key == "gamma") {
      const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), h.gamma);
      if (ec != std::errc() || end != value.data() + value.size() || h.gamma < 1 || h.gamma > 64) {
        throw InputError(path, 1, "gamma=" + value + " in the header; must be an integer in 1..64");
      }
      have_gamma = true;
    } else if (key == "drafter") {
      h.drafter = value;
    } else if (key == "target") {
      h.target = value;
    } else if (key == "seed") {
      std::from_chars(value.data(), value.data() + value.size(), h.seed);
    }
  }
  if (!have_gamma) throw InputError(path, 1, "the header has no gamma=");
  return h;
}

}  // namespace

AcceptanceLog read_acceptance_log(std::istream& in, const std::string& path) {
  AcceptanceLog log;
  log.path = path;
  std::string line;
  if (!std::getline(in, line)) throw InputError(path, 1, "is empty; expected an acceptance log");
  log.header = parse_header(line, path);
  const int gamma = log.header.gamma;
  const auto g = static_cast<std::size_t>(gamma);
  const std::string expected = column_header(gamma);
  if (!std::getline(in, line)) throw InputError(path, 2, "has no column header");
  if (!line.empty() && line.back() == '\r') line.pop_back();
  if (line != expected) {
    throw InputError(path, 2,
                     "column header is '" + line + "'; for gamma=" + std::to_string(gamma) +
                         " it must be '" + expected + "'");
  }
  std::vector<AcceptanceLog::Row> rows;
  std::vector<float> conf;
  std::int64_t line_no = 2;
  const std::vector<std::string> names = [&] {
    std::vector<std::string> n;
    for (int k = 1; k <= gamma; ++k) {
      // Appends, not `"c" + std::string`: that trips GCC 12's false -Wrestrict (bug 105329).
      std::string name = "c";
      name += std::to_string(k);
      n.push_back(std::move(name));
    }
    return n;
  }();
  while (std::getline(in, line)) {
    ++line_no;
    if (line.empty() || line == "\r") continue;
    RowParser p(line, path, line_no);
    AcceptanceLog::Row row;
    row.line = line_no;
    row.request_id = p.integer<std::uint64_t>("request_id", 0, UINT64_MAX);
    row.decode_step = p.integer<std::int64_t>("decode_step", 0, INT64_MAX);
    const std::string_view domain = p.next("domain");
    if (!parse_domain(domain, row.domain)) {
      p.fail("domain is '" + std::string(domain) + "'; valid: " + valid_domain_list());
    }
    row.generated = p.integer<std::int64_t>("generated", 0, INT64_MAX);
    row.verified = p.integer<int>("verified", 0, gamma);
    row.accepted = p.integer<int>("first_rejected", 1, gamma + 1) - 1;
    for (int k = 0; k < gamma; ++k)
      conf.push_back(p.probability(names[static_cast<std::size_t>(k)]));
    p.finish();
    rows.push_back(row);
  }
  if (in.bad()) throw InputError(path, 0, "read error");

  // Group by request, in step order; then check each request's steps are 0, 1, 2, ...
  std::vector<std::size_t> order(rows.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return rows[a].request_id != rows[b].request_id ? rows[a].request_id < rows[b].request_id
                                                    : rows[a].decode_step < rows[b].decode_step;
  });
  log.rows.reserve(rows.size());
  log.confidences.reserve(conf.size());
  for (std::size_t i = 0; i < order.size(); ++i) {
    const AcceptanceLog::Row& r = rows[order[i]];
    const bool first_of_request =
        log.requests.empty() || log.requests.back().request_id != r.request_id;
    if (first_of_request) log.requests.push_back({r.request_id, log.rows.size(), 0});
    AcceptanceLog::Range& range = log.requests.back();
    const auto expected_step = static_cast<std::int64_t>(range.count);
    if (r.decode_step != expected_step) {
      if (r.decode_step < expected_step) {
        throw InputError(path, r.line,
                         "request " + std::to_string(r.request_id) + " step " +
                             std::to_string(r.decode_step) + " appears twice (also on line " +
                             std::to_string(log.rows.back().line) + ")");
      }
      throw InputError(path, r.line,
                       "request " + std::to_string(r.request_id) + " has no step " +
                           std::to_string(expected_step) +
                           " before this one; a request's steps must run 0, 1, 2, ...");
    }
    log.rows.push_back(r);
    log.confidences.insert(log.confidences.end(),
                           conf.begin() + static_cast<std::ptrdiff_t>(order[i] * g),
                           conf.begin() + static_cast<std::ptrdiff_t>((order[i] + 1) * g));
    ++range.count;
  }
  return log;
}

AcceptanceLog read_acceptance_log_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, 0, "cannot open the acceptance log");
  return read_acceptance_log(in, path);
}

bool looks_like_json_lines(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char c = 0;
  while (in.get(c)) {
    if (c != ' ' && c != '\t' && c != '\r' && c != '\n') return c == '{';
  }
  return false;
}

}  // namespace sparksim
