// Staged output: nothing appears at the final path until commit; a failure leaves nothing.
#include "common/staged_directory.hpp"

#include <filesystem>
#include <fstream>

#include <catch2/catch.hpp>
#include <unistd.h>

using namespace sparksim;
namespace fs = std::filesystem;

TEST_CASE("output appears only on commit and replaces an old directory") {
  const fs::path root =
      fs::temp_directory_path() / ("sparksim_staged_" + std::to_string(::getpid()));
  fs::remove_all(root);
  const fs::path final_dir = root / "out";
  fs::create_directories(final_dir);
  std::ofstream(final_dir / "old.txt") << "old";
  {
    StagedDirectory dir(final_dir);
    std::ofstream(dir.file("summary.json")) << "{}";
    CHECK_FALSE(fs::exists(final_dir / "summary.json"));
    dir.commit();
  }
  CHECK(fs::exists(final_dir / "summary.json"));
  CHECK_FALSE(fs::exists(final_dir / "old.txt"));
  {
    StagedDirectory dir(root / "failed");
    std::ofstream(dir.file("summary.json")) << "{";
    // destroyed without commit: as if the run threw
  }
  CHECK_FALSE(fs::exists(root / "failed"));
  std::size_t leftovers = 0;
  for (const auto& entry : fs::directory_iterator(root)) leftovers += entry.path() != final_dir;
  CHECK(leftovers == 0);
  fs::remove_all(root);
}
