// Staging directory with an all-or-nothing final rename.
#include "common/staged_directory.hpp"

#include <system_error>

#include <unistd.h>

namespace sparksim {

StagedDirectory::StagedDirectory(const std::filesystem::path& final_path) : final_(final_path) {
  const auto parent = final_.has_parent_path() ? final_.parent_path() : std::filesystem::path(".");
  std::filesystem::create_directories(parent);
  staging_ = parent / ("." + final_.filename().string() + ".partial-" + std::to_string(::getpid()));
  std::filesystem::remove_all(staging_);
  std::filesystem::create_directory(staging_);
}

StagedDirectory::~StagedDirectory() {
  if (committed_) return;
  std::error_code ignored;
  std::filesystem::remove_all(staging_, ignored);
}

void StagedDirectory::commit() {
  std::filesystem::remove_all(final_);
  std::filesystem::rename(staging_, final_);
  committed_ = true;
}

}  // namespace sparksim
