// Staging directory with an all-or-nothing final rename.
#include "common/staged_directory.hpp"

#include <system_error>

#include <unistd.h>

namespace sparksim {

StagedDirectory::StagedDirectory(const std::filesystem::path& final_path) : final_(final_path) {
  const auto parent = final_.has_parent_path() ? final_.parent_path() : std::filesystem::path(".");
  std::filesystem::create_directories(parent);
  // Built by appends: `"literal" + std::string` trips GCC 12's false -Wrestrict (bug 105329).
  std::string name = ".";
  name += final_.filename().string();
  name += ".partial-";
  name += std::to_string(::getpid());
  staging_ = parent / name;
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
