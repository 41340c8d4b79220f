// Making an output file's folder (see the header).
#include "experiments/cli/output_directory.hpp"

#include <filesystem>
#include <system_error>

#include "common/input_error.hpp"

namespace sparksim::cli {

void create_parent_directory(const std::string& path) {
  const std::filesystem::path out(path);
  if (out.has_parent_path()) {
    std::error_code ec;
    std::filesystem::create_directories(out.parent_path(), ec);
    if (ec) throw InputError(path, 0, "cannot create its directory: " + ec.message());
  }
}

}  // namespace sparksim::cli
