// StagedDirectory: writes a run's output into a hidden sibling directory and renames it into place
// only when every file is complete, so a failed or interrupted run never leaves a directory that
// looks finished. An existing output directory is replaced only at that final rename.
#pragma once

#include <filesystem>
#include <string>

namespace sparksim {

class StagedDirectory {
 public:
  explicit StagedDirectory(const std::filesystem::path& final_path);
  ~StagedDirectory();  // removes the staging directory unless commit() succeeded
  StagedDirectory(const StagedDirectory&) = delete;
  StagedDirectory& operator=(const StagedDirectory&) = delete;

  // Where to write files now.
  const std::filesystem::path& path() const { return staging_; }
  std::filesystem::path file(const std::string& name) const { return staging_ / name; }
  // Moves the staging directory to the final path (replacing an old one).
  void commit();

 private:
  std::filesystem::path final_;
  std::filesystem::path staging_;
  bool committed_ = false;
};

}  // namespace sparksim
