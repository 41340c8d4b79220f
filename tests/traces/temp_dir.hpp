// TempDir: a fresh directory per test for hand-written trace files, removed afterwards, so tests
// never depend on each other's files or on a shared fixed path.
#pragma once

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include <unistd.h>

namespace sparksim::testing {

class TempDir {
 public:
  TempDir() {
    static std::atomic<int> counter{0};
    const auto base = std::filesystem::temp_directory_path();
    // pid + counter + clock: unique across parallel ctest processes and within one process.
    for (int attempt = 0; attempt < 100; ++attempt) {
      const auto ticks = std::chrono::steady_clock::now().time_since_epoch().count();
      path_ = base / ("sparksim-traces-" + std::to_string(::getpid()) + "-" +
                      std::to_string(counter++) + "-" + std::to_string(ticks));
      if (std::filesystem::create_directory(path_)) return;
    }
    throw std::runtime_error("cannot create a temporary directory under " + base.string());
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  // Writes `content` byte for byte (binary: CRLF stays CRLF) and returns the file's path.
  std::string write(const std::string& name, const std::string& content) const {
    const auto file = path_ / name;
    std::ofstream out(file, std::ios::binary);
    out << content;
    if (!out) throw std::runtime_error("cannot write " + file.string());
    return file.string();
  }

  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace sparksim::testing
