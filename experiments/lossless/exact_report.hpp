// How exact results read: the instance the way the paper's Appendix A states it (tokens, target
// and draft tables, the confidences the head shows, the SPS curve, earlier steps), the policy's
// decision for every outcome, and committed against target probabilities; plus the JSON form
// written to DIR/result.json.
#pragma once

#include <ostream>

#include <nlohmann/json.hpp>

#include "experiments/lossless/exact_checker.hpp"
#include "experiments/lossless/exact_instance.hpp"
#include "experiments/lossless/instance_sampler.hpp"

namespace sparksim {

// Prints the instance (tables restricted to the rows a step can reach).
void print_exact_instance(const ExactInstance& instance, std::ostream& out);

// Prints the decisions (check_exact with keep_outcomes; at most `max_lines` of them), the
// committed vs target first-token probabilities, the TV distances and the verdict.
void print_exact_result(const ExactInstance& instance, const ExactResult& result, std::ostream& out,
                        std::size_t max_lines = 64);

void print_sample_result(const InstanceSampleResult& sample, double alpha, std::ostream& out);

nlohmann::ordered_json exact_result_json(const ExactInstance& instance, const ExactResult& result);
nlohmann::ordered_json sample_result_json(const ExactInstance& instance,
                                          const InstanceSampleResult& sample, double alpha);

}  // namespace sparksim
