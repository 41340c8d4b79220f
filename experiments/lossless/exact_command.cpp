// `sparksim lossless --exact | --instance FILE | --search`: options, runs, output files.
#include "experiments/lossless/exact_command.hpp"

#include <chrono>
#include <cstdio>

#include "common/input_error.hpp"
#include "common/json_file.hpp"
#include "common/named_spec.hpp"
#include "common/staged_directory.hpp"
#include "common/version.hpp"
#include "experiments/lossless/counterexample_search.hpp"
#include "experiments/lossless/exact_checker.hpp"
#include "experiments/lossless/exact_report.hpp"
#include "experiments/lossless/instance_sampler.hpp"
#include "policies/policy_registry.hpp"

namespace sparksim {

namespace {

void validate_common(const ExactCommandOptions& o) {
  if (o.samples < 0 || o.samples > 100'000'000) {
    throw InputError("--samples must be in [0, 100000000]");
  }
  if (!(o.alpha > 0 && o.alpha < 1)) throw InputError("--alpha must be in (0, 1)");
}

void write_outputs(const ExactCommandOptions& o, const nlohmann::ordered_json& result,
                   const std::string* counterexample_name, const std::string& counterexample) {
  if (o.out_dir.empty()) return;
  StagedDirectory dir(o.out_dir);
  write_file_atomically(dir.file("result.json").string(), format_json(result));
  if (counterexample_name != nullptr) {
    write_file_atomically(dir.file(*counterexample_name).string(), counterexample);
  }
  dir.commit();
}

}  // namespace

int exact_command(const ExactCommandOptions& o, std::ostream& out) {
  validate_common(o);
  ExactInstance instance =
      o.instance_path.empty() ? appendix_a_instance() : load_exact_instance(o.instance_path);
  const std::string policy = o.policy.empty() ? instance.policy : o.policy;
  if (policy.empty()) {
    throw InputError("--policy SPEC is required (the instance names no policy)");
  }
  const auto start = std::chrono::steady_clock::now();
  const ExactResult exact = check_exact(instance, policy, true);  // InputError before any work
  print_exact_instance(instance, out);
  print_exact_result(instance, exact, out);
  nlohmann::ordered_json result;
  result["sparksim_version"] = sparksim_version();
  result["mode"] = "exact";
  result["instance"] = exact_instance_json(instance);
  result["exact"] = exact_result_json(instance, exact);
  if (o.samples > 0) {
    const InstanceSampleResult sample =
        sample_instance(instance, policy, o.samples, o.seed, o.alpha);
    print_sample_result(sample, o.alpha, out);
    if (sample.distorted != exact.distorted) {
      out << "note              the sampled check "
          << (exact.distorted ? "lacks the power to see" : "flags")
          << " what the exact one decides; the exact verdict stands (it is not a test with an "
             "error rate)\n";
    }
    result["sampled"] = sample_result_json(instance, sample, o.alpha);
    result["seed"] = o.seed;
  }
  result["wall_s"] =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  write_outputs(o, result, nullptr, "");
  if (!o.out_dir.empty()) out << "wrote             " << o.out_dir << "/result.json\n";
  return exact.distorted ? 3 : 0;
}

int search_command(const ExactCommandOptions& o, std::ostream& out) {
  validate_common(o);
  if (o.policy.empty()) throw InputError("--policy SPEC is required with --search");
  SearchOptions search;
  search.policy = o.policy;
  search.budget_s = o.budget_s;
  search.max_restarts = o.restarts;
  search.seed = o.seed;
  const std::string policy_name = NamedSpec::parse(o.policy, "--policy").name();
  std::string file = o.counterexample_path;
  const bool in_out_dir = file.empty() && !o.out_dir.empty();
  if (file.empty() && !in_out_dir) file = "counterexample_" + policy_name + ".json";
  const SearchResult found = search_counterexample(search);  // InputError before any work

  char line[512];
  std::snprintf(line, sizeof line,
                "searched          %lld restarts, %lld exact checks, %.1f s (budget %g s, seed "
                "%llu)\n",
                static_cast<long long>(found.restarts), static_cast<long long>(found.evaluations),
                found.search_s, o.budget_s, static_cast<unsigned long long>(o.seed));
  out << line;
  out << "instance space    " << search_space_description() << "\n";
  nlohmann::ordered_json result;
  result["sparksim_version"] = sparksim_version();
  result["mode"] = "search";
  result["policy"] = o.policy;
  result["seed"] = o.seed;
  result["budget_s"] = o.budget_s;
  result["restarts"] = found.restarts;
  result["exact_checks"] = found.evaluations;
  result["search_s"] = found.search_s;
  result["instance_space"] = search_space_description();
  result["found"] = found.found;
  if (!found.found) {
    out << "verdict           no counterexample found within the budget (evidence, not proof: "
           "the search covers the space above for "
        << found.restarts << " restarts)\n";
    write_outputs(o, result, nullptr, "");
    return 0;
  }
  std::snprintf(
      line, sizeof line,
      "found             %d distorting restart(s), largest TV %.6g; each shrunk (%.1f s), "
      "the simplest (TV %.6g):\n",
      found.distorting_restarts, found.worst_tv, found.shrink_s, found.shrunk_tv);
  out << line;
  ExactInstance shrunk = found.shrunk;
  shrunk.policy = o.policy;
  const ExactResult exact = check_exact(shrunk, o.policy, true);
  print_exact_instance(shrunk, out);
  print_exact_result(shrunk, exact, out);
  result["distorting_restarts"] = found.distorting_restarts;
  result["worst_tv"] = found.worst_tv;
  result["shrunk_tv"] = found.shrunk_tv;
  result["counterexample"] = exact_instance_json(shrunk);
  result["exact"] = exact_result_json(shrunk, exact);
  if (o.samples > 0) {
    const InstanceSampleResult sample =
        sample_instance(shrunk, o.policy, o.samples, o.seed, o.alpha);
    print_sample_result(sample, o.alpha, out);
    result["sampled"] = sample_result_json(shrunk, sample, o.alpha);
  }
  const std::string text = format_json(exact_instance_json(shrunk));
  const std::string name = "counterexample.json";
  if (in_out_dir) {
    write_outputs(o, result, &name, text);
    out << "wrote             " << o.out_dir << "/counterexample.json (re-check: sparksim lossless "
        << "--instance " << o.out_dir << "/counterexample.json)\n";
  } else {
    write_file_atomically(file, text);
    write_outputs(o, result, nullptr, "");
    out << "wrote             " << file << " (re-check: sparksim lossless --instance " << file
        << ")\n";
  }
  return 3;
}

}  // namespace sparksim
