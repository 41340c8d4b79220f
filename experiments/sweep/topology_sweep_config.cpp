// Parsing of sparksim.v4-topologies/1 (see the header); every problem collected, then thrown once.
#include "experiments/sweep/topology_sweep_config.hpp"

#include <set>

#include "common/input_error.hpp"
#include "common/json_file.hpp"
#include "experiments/run/problem_list.hpp"
#include "profiles/moe/moe_gpu.hpp"
#include "profiles/moe/moe_target.hpp"
#include "profiles/moe/replica_topology.hpp"

namespace sparksim {

namespace {

using Pointer = JsonFile::Pointer;

std::vector<std::string> strings(const JsonFile& f, const Pointer& ptr, ProblemList& problems) {
  std::vector<std::string> out;
  problems.check([&] {
    const nlohmann::json& a = f.get_array(ptr);
    if (a.empty()) f.fail(ptr, f.name_of(ptr) + " is empty; give at least one");
    std::set<std::string> seen;
    for (std::size_t i = 0; i < a.size(); ++i) {
      const std::string s = f.get_string(ptr / i);
      if (!seen.insert(s).second) f.fail(ptr / i, f.name_of(ptr / i) + " \"" + s + "\" twice");
      out.push_back(s);
    }
  });
  return out;
}

// schema, title, about and the comparison's sweep config.
void parse_header(const JsonFile& f, TopologySweepConfig& c, ProblemList& problems) {
  problems.check([&] {
    if (f.get_string(Pointer("/schema")) != kTopologySweepSchema) {
      f.fail(Pointer("/schema"), "schema is \"" + f.get_string(Pointer("/schema")) +
                                     "\"; must be \"" + kTopologySweepSchema + "\"");
    }
  });
  problems.check([&] { c.title = f.get_string(Pointer("/title")); });
  problems.check([&] {
    if (f.has(Pointer("/about"))) c.about = f.get_string(Pointer("/about"), true);
  });
  problems.check([&] { c.sweep_path = f.get_string(Pointer("/sweep")); });
}

// The DeepSeek-V4 target; nullptr when it is not one (a problem, already recorded).
const MoeTarget* parse_target(const JsonFile& f, TopologySweepConfig& c, ProblemList& problems) {
  const MoeTarget* target = nullptr;
  problems.check([&] {
    c.target = f.get_string(Pointer("/target"));
    if (!is_moe_target(c.target)) {
      std::string names;
      for (const std::string& n : moe_target_names()) names += (names.empty() ? "" : ", ") + n;
      f.fail(Pointer("/target"),
             "target \"" + c.target + "\" is not a DeepSeek-V4 target; valid: " + names);
    }
    target = &moe_target(c.target);
  });
  return target;
}

void parse_gpus(const JsonFile& f, TopologySweepConfig& c, ProblemList& problems) {
  c.gpus = strings(f, Pointer("/gpus"), problems);
  for (std::size_t i = 0; i < c.gpus.size(); ++i) {
    problems.check([&] {
      try {
        moe_gpu(c.gpus[i]);
      } catch (const InputError&) {
        f.fail(Pointer("/gpus") / i,
               "gpu \"" + c.gpus[i] + "\" has no V4 model; valid: h100-sxm, h200-sxm");
      }
    });
  }
}

// Each topology must parse for the target and be attention data-parallel (dep<N>).
void parse_topologies(const JsonFile& f, const MoeTarget* target, TopologySweepConfig& c,
                      ProblemList& problems) {
  c.topologies = strings(f, Pointer("/topologies"), problems);
  for (std::size_t i = 0; target != nullptr && i < c.topologies.size(); ++i) {
    problems.check([&] {
      ReplicaTopology t;
      try {
        t = parse_topology(c.topologies[i], *target, ExpertFormat::kFp8, c.gpus_per_node);
      } catch (const InputError& e) {
        f.fail(Pointer("/topologies") / i, e.what());
      }
      if (t.attention != AttentionParallel::kData) {
        f.fail(Pointer("/topologies") / i,
               "topology \"" + c.topologies[i] +
                   "\": the measured-db composition covers dep<N> topologies only");
      }
    });
  }
}

void parse_routing(const JsonFile& f, TopologySweepConfig& c, ProblemList& problems) {
  c.routing = strings(f, Pointer("/routing"), problems);
  for (std::size_t i = 0; i < c.routing.size(); ++i) {
    const std::string& r = c.routing[i];
    if (r != "balanced" && r != "power_law_1.01" && r != "power_law_1.2") {
      problems.check([&] {
        f.fail(Pointer("/routing") / i,
               "routing \"" + r + "\"; valid: balanced, power_law_1.01, power_law_1.2 (moe.csv)");
      });
    }
  }
}

// The optional keys with defaults: database, extra profiles, loads and seeds.
void parse_optional_inputs(const JsonFile& f, TopologySweepConfig& c, ProblemList& problems) {
  problems.check([&] {
    if (f.has(Pointer("/database"))) c.database_dir = f.get_string(Pointer("/database"));
  });
  if (f.has(Pointer("/extra_profiles")))
    c.extra_profiles = strings(f, Pointer("/extra_profiles"), problems);
  problems.check([&] {
    if (f.has(Pointer("/loads"))) {
      c.loads = f.get_number_array(Pointer("/loads"), NumberRange::between(1, 100000), 1);
    }
  });
  problems.check([&] {
    if (f.has(Pointer("/seeds"))) {
      c.seeds = f.get_int_array(Pointer("/seeds"), 0, std::int64_t{1} << 53, 1);
    }
  });
}

// "published": the paper's figures printed beside the prediction. Throws at the first problem.
PublishedFigures parse_published(const JsonFile& f) {
  const Pointer p("/published");
  f.get_object(p);
  f.reject_unknown_keys(p, {"source", "tier_tok_s_per_user", "throughput_gain_at_tier",
                            "speed_gain_at_matched_throughput"});
  PublishedFigures pub;
  pub.source = f.get_string(p / "source");
  if (f.has(p / "tier_tok_s_per_user")) {
    pub.tier_tok_s_per_user = f.get_number(p / "tier_tok_s_per_user", NumberRange::positive());
  }
  const auto gain = [&](const char* key) -> std::optional<PublishedGain> {
    if (!f.has(p / key)) return std::nullopt;
    const std::vector<double> v = f.get_number_array(p / key, NumberRange::between(-1, 100), 2);
    if (v.size() != 2 || v[0] > v[1]) {
      f.fail(p / key, f.name_of(p / key) + " must be [low, high] with low <= high");
    }
    return PublishedGain{v[0], v[1]};
  };
  pub.throughput_gain_at_tier = gain("throughput_gain_at_tier");
  pub.speed_gain_at_matched_throughput = gain("speed_gain_at_matched_throughput");
  if (pub.throughput_gain_at_tier && !pub.tier_tok_s_per_user) {
    f.fail(p / "throughput_gain_at_tier",
           "published.throughput_gain_at_tier needs published.tier_tok_s_per_user");
  }
  return pub;
}

}  // namespace

TopologySweepConfig load_topology_sweep_config(const std::string& path) {
  const JsonFile f = JsonFile::load(path);
  ProblemList problems;
  TopologySweepConfig c;
  c.path = path;
  problems.check([&] {
    f.get_object(Pointer(""));
    f.reject_unknown_keys(
        Pointer(""),
        {"schema", "title", "about", "sweep", "target", "gpus", "topologies", "two_batch_overlap",
         "routing", "gpus_per_node", "database", "extra_profiles", "loads", "seeds", "published"});
  });
  problems.throw_if_any();
  parse_header(f, c, problems);
  const MoeTarget* target = parse_target(f, c, problems);
  problems.check([&] {
    if (f.has(Pointer("/gpus_per_node"))) {
      c.gpus_per_node = static_cast<int>(f.get_int(Pointer("/gpus_per_node"), 1, 64));
    }
  });
  parse_gpus(f, c, problems);
  parse_topologies(f, target, c, problems);
  problems.check([&] {
    const Pointer p("/two_batch_overlap");
    const nlohmann::json& a = f.get_array(p);
    if (a.empty()) f.fail(p, "two_batch_overlap is empty; give [false], [true] or both");
    for (std::size_t i = 0; i < a.size(); ++i) c.two_batch_overlap.push_back(f.get_bool(p / i));
  });
  parse_routing(f, c, problems);
  parse_optional_inputs(f, c, problems);
  if (f.has(Pointer("/published"))) {
    problems.check([&] { c.published = parse_published(f); });
  }
  problems.throw_if_any();
  return c;
}

}  // namespace sparksim
