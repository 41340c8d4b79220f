// Reading and writing a whole file as bytes: the one way every driver does it, so a missing file
// is reported the same way everywhere.
#pragma once

#include <filesystem>
#include <string>

namespace sparksim {

// The file's bytes. Throws InputError(`path: cannot open`) for a missing, unreadable or
// directory path (an ifstream "opens" a directory on Linux and reads nothing).
std::string read_file_bytes(const std::filesystem::path& path);

// Writes `bytes` to `path` (truncating). Throws std::runtime_error when the write fails.
void write_file_bytes(const std::filesystem::path& path, const std::string& bytes);

}  // namespace sparksim
