// Gnuplot as the plotting engine (Debian's gnuplot-nox: pngcairo and svg terminals). sparksim
// writes a self-contained script (data in datablocks) next to the images, so a reader can restyle
// a plot with the same numbers, and runs it once.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace sparksim {

// The gnuplot executable: $SPARKSIM_GNUPLOT if set, else `gnuplot` found on PATH; nullopt when
// there is none.
std::optional<std::string> find_gnuplot();

// Throws InputError naming the fix (install gnuplot-nox, or --no-plots) when find_gnuplot() fails.
// Called before a sweep starts, so a missing plotter never wastes a sweep.
void require_gnuplot();

// Runs `script` (a path relative to `workdir`) with gnuplot in `workdir`; its outputs land there.
// Throws std::runtime_error with gnuplot's messages when it exits non-zero.
void run_gnuplot(const std::filesystem::path& workdir, const std::string& script);

// Quotes `text` as a gnuplot double-quoted string ("..." with \" and \\ escaped).
std::string gnuplot_string(const std::string& text);

}  // namespace sparksim
