// Parsing and typed access for `name:key=value,...` specs.
#include "common/named_spec.hpp"

#include <charconv>
#include <cmath>

#include "common/input_error.hpp"

namespace sparksim {

NamedSpec NamedSpec::parse(const std::string& text, const std::string& flag) {
  NamedSpec spec;
  spec.flag_ = flag;
  spec.text_ = text;
  const auto colon = text.find(':');
  spec.name_ = text.substr(0, colon);
  if (spec.name_.empty()) throw InputError(flag + ": '" + text + "' has no name");
  if (colon == std::string::npos) return spec;
  std::string rest = text.substr(colon + 1);
  std::size_t pos = 0;
  while (pos <= rest.size()) {
    const auto comma = rest.find(',', pos);
    const std::string item =
        rest.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    const auto eq = item.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == item.size()) {
      throw InputError(flag + ": '" + text + "': parameter '" + item +
                       "' is not of the form key=value");
    }
    const std::string key = item.substr(0, eq);
    if (!spec.params_.emplace(key, item.substr(eq + 1)).second) {
      throw InputError(flag + ": '" + text + "': parameter '" + key + "' given twice");
    }
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return spec;
}

std::int64_t NamedSpec::get_int(const std::string& key, std::int64_t fallback, std::int64_t min,
                                std::int64_t max) const {
  known_.insert(key);
  const auto it = params_.find(key);
  if (it == params_.end()) return fallback;
  std::int64_t value = 0;
  const std::string& s = it->second;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc() || end != s.data() + s.size()) {
    throw InputError(flag_ + ": '" + text_ + "': " + key + "=" + s + " is not an integer");
  }
  if (value < min || value > max) {
    throw InputError(flag_ + ": '" + text_ + "': " + key + "=" + s + " is out of range [" +
                     std::to_string(min) + ", " + std::to_string(max) + "]");
  }
  return value;
}

double NamedSpec::get_double(const std::string& key, double fallback, double min,
                             double max) const {
  known_.insert(key);
  const auto it = params_.find(key);
  if (it == params_.end()) return fallback;
  double value = 0;
  const std::string& s = it->second;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc() || end != s.data() + s.size() || !std::isfinite(value)) {
    throw InputError(flag_ + ": '" + text_ + "': " + key + "=" + s + " is not a finite number");
  }
  if (value < min || value > max) {
    throw InputError(flag_ + ": '" + text_ + "': " + key + "=" + s + " is out of range [" +
                     std::to_string(min) + ", " + std::to_string(max) + "]");
  }
  return value;
}

std::string NamedSpec::get_choice(const std::string& key, const std::string& fallback,
                                  std::initializer_list<std::string_view> allowed) const {
  known_.insert(key);
  const auto it = params_.find(key);
  if (it == params_.end()) return fallback;
  std::string valid;
  for (std::string_view word : allowed) {
    if (word == it->second) return it->second;
    valid += (valid.empty() ? "" : ", ") + std::string(word);
  }
  throw InputError(flag_ + ": '" + text_ + "': " + key + "=" + it->second + " is not one of " +
                   valid);
}

void NamedSpec::reject_unknown_keys() const {
  for (const auto& [key, value] : params_) {
    if (known_.count(key)) continue;
    std::string valid;
    for (const auto& k : known_) valid += (valid.empty() ? "" : ", ") + k;
    throw InputError(flag_ + ": '" + text_ + "': unknown parameter '" + key + "' for '" + name_ +
                     "'; valid: " + (valid.empty() ? "(none)" : valid));
  }
}

}  // namespace sparksim
