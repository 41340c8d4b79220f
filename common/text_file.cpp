// Whole-file reading and writing.
#include "common/text_file.hpp"

#include <fstream>
#include <sstream>
#include <stdexcept>

#include "common/input_error.hpp"

namespace sparksim {

std::string read_file_bytes(const std::filesystem::path& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    throw InputError(path.string(), 0, "cannot open: is a directory");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path.string(), 0, "cannot open");
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) throw InputError(path.string(), 0, "read failed");
  return std::move(buffer).str();
}

void write_file_bytes(const std::filesystem::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out << bytes;
  if (!out) throw std::runtime_error("failed writing " + path.string());
}

}  // namespace sparksim
