// Where a command writes a file into a folder that may not exist yet (profiles/measured-db/<gpu>/,
// a report's folder): the folder is made first, and a folder that cannot be made stops the command
// at the output's path, before anything is written.
#pragma once

#include <string>

namespace sparksim::cli {

// Creates the folders above `path` (none for a bare file name or an empty path); throws
// InputError("path: cannot create its directory: ...") when that fails.
void create_parent_directory(const std::string& path);

}  // namespace sparksim::cli
