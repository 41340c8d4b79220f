// The spellings the `profile` and `calibrate` groups replaced still work for one release: each
// runs the same command as its new spelling (same exit code, byte-identical stdout and files)
// and adds exactly one warning line on stderr naming the new spelling. The oracle is the new
// spelling's own run, and the table below is written out by hand, not taken from the binary.
#include <filesystem>
#include <string>

#include <catch2/catch.hpp>

#include "tests/experiments/cli_harness.hpp"

namespace sparksim::testing {
namespace {

namespace fs = std::filesystem;

struct Spelling {
  std::string old_words;  // what scripts wrote before the groups
  std::string new_words;
  std::string shown_old;  // how the warning quotes the old spelling
  std::string args;       // OUT stands for a file the command may write
};

std::string with_out(const std::string& args, const fs::path& out) {
  const auto at = args.find("OUT");
  if (at == std::string::npos) return args;
  return args.substr(0, at) + "'" + out.string() + "'" + args.substr(at + 3);
}

void check_same_command(const Spelling& s) {
  const auto dir = scratch_dir("spelling_" + s.new_words.substr(s.new_words.find(' ') + 1));
  const fs::path out = dir / "written";
  const CliStreams now = run_cli_streams(s.new_words + " " + with_out(s.args, out), dir);
  const std::string written_now = fs::exists(out) ? read_file(out) : "<nothing>";
  fs::remove(out);
  const CliStreams old = run_cli_streams(s.old_words + " " + with_out(s.args, out), dir);
  const std::string written_old = fs::exists(out) ? read_file(out) : "<nothing>";
  INFO(s.old_words << " vs " << s.new_words << "\nstderr (old): " << old.err);
  CHECK(old.exit_code == now.exit_code);
  CHECK(old.out == now.out);
  CHECK(written_old == written_now);
  const std::string warning = "sparksim: '" + s.shown_old + "' is deprecated; use '" + s.new_words +
                              "' (the old spelling goes in the next release)\n";
  CHECK(old.err == warning + now.err);
  CHECK(now.err.find("is deprecated;") == std::string::npos);
}

TEST_CASE("every deprecated spelling runs its new command and warns once", "[cli][deprecated]") {
  const std::string provenance = " --date 2026-11-25 --git-sha t --out OUT";
  const Spelling spellings[] = {
      {"profile-analytic", "profile analytic", "profile-analytic",
       "--gpu h100 --target qwen3-8b" + provenance},
      {"profile-measured-db", "profile measured-db", "profile-measured-db",
       "--gpu h100-sxm --target qwen3-8b" + provenance},
      {"profile-moe", "profile moe", "profile-moe",
       "--target deepseek-v4-flash --gpu h100 --topology dep8" + provenance},
      {"fit-telemetry", "profile telemetry", "fit-telemetry",
       "--telemetry no-such-telemetry.json --out OUT"},
      {"recalibrate-analytic", "calibrate roofline", "recalibrate-analytic", ""},
      {"calibrate-fit", "calibrate kernels-fit", "calibrate-fit",
       "--sweep no-such-sweep.csv --info no-such-info.txt --out OUT"},
      {"calibrate-fidelity", "calibrate kernels-fidelity", "calibrate-fidelity",
       "--steps no-such-steps.csv --replay no-such-replay.csv --out OUT"},
      {"heterogeneity", "calibrate heterogeneity", "heterogeneity", "--replicas 1"},
      // The two commands that became groups: followed by an option, they mean the old command.
      {"profile", "profile kernels", "profile --target ...", "--target qwen3-8b --out OUT"},
      {"calibrate", "calibrate confidence", "calibrate --acceptance-log ...",
       "--acceptance-log no-such-log.csv --out OUT"},
  };
  for (const Spelling& s : spellings) {
    SECTION(s.old_words) {
      check_same_command(s);
    }
  }
}

TEST_CASE("the groups alone, or with --help, are the new commands", "[cli][deprecated]") {
  const auto dir = scratch_dir("deprecated_groups");
  for (const std::string group : {"profile", "calibrate"}) {
    const CliStreams bare = run_cli_streams(group, dir);
    CHECK(bare.exit_code == 2);
    CHECK(bare.out.empty());
    CHECK(bare.err.find("subcommand is required") != std::string::npos);
    const CliStreams help = run_cli_streams(group + " --help", dir);
    CHECK(help.exit_code == 0);
    CHECK(help.err.empty());
    CHECK(help.out.find("Subcommands:") != std::string::npos);
  }
}

}  // namespace
}  // namespace sparksim::testing
