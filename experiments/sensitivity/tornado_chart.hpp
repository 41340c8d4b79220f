// Tornado charts: per output, one horizontal bar per input from the output at nominal to the
// output at the input's low (one colour) and high (another), largest swing on top. One gnuplot
// script (data in datablocks) draws every chart to tornado_<k>.png and .svg.
#pragma once

#include <string>
#include <vector>

#include "experiments/sensitivity/one_at_a_time.hpp"
#include "experiments/sensitivity/sensitivity_inputs.hpp"

namespace sparksim {

// Colours of the bars: the input at its low value, at its high value (Okabe-Ito blue, vermilion).
inline constexpr const char* kTornadoLowColour = "#0072b2";
inline constexpr const char* kTornadoHighColour = "#d55e00";

// False when output `output` is NaN (an unmet tier) at every low and high: no chart is drawn.
bool has_tornado(const OneAtATimeResult& result, std::size_t output);

// Charts only the outputs with has_tornado. `output_names[k]` titles chart k; `subtitle` (the
// profile label) goes under every title.
std::string tornado_gnuplot_script(const std::vector<SensitivityInput>& inputs,
                                   const std::vector<std::string>& output_names,
                                   const OneAtATimeResult& result, const std::string& subtitle);

}  // namespace sparksim
