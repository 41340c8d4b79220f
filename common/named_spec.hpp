// NamedSpec: the `name` or `name:key=value,...` strings users give on the command line (policies,
// acceptance models, routers), parsed into a name and typed parameters. Getters validate ranges and
// the key set, so a typo (`static:kk=1`) is an error listing the valid keys, never ignored.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <map>
#include <set>
#include <string>
#include <string_view>

namespace sparksim {

class NamedSpec {
 public:
  // `flag` (e.g. "--policy") prefixes every error. Throws InputError on malformed text
  // (empty name, a parameter without `=`, a key given twice).
  static NamedSpec parse(const std::string& text, const std::string& flag);

  const std::string& name() const { return name_; }
  const std::string& text() const { return text_; }

  // Typed getters: return the default when the key is absent; throw InputError when present but
  // malformed or out of [min, max]. Each call records the key as known.
  std::int64_t get_int(const std::string& key, std::int64_t fallback, std::int64_t min,
                       std::int64_t max) const;
  double get_double(const std::string& key, double fallback, double min, double max) const;
  // A word from a fixed set (`drafter=markov`): throws InputError listing `allowed` otherwise.
  std::string get_choice(const std::string& key, const std::string& fallback,
                         std::initializer_list<std::string_view> allowed) const;

  // Throws InputError if the spec holds a key no getter asked for (call after all getters).
  void reject_unknown_keys() const;

 private:
  std::string flag_;
  std::string text_;
  std::string name_;
  std::map<std::string, std::string> params_;
  mutable std::set<std::string> known_;
};

}  // namespace sparksim
