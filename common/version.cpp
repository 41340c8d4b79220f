// Version strings baked in by CMake (see the top-level CMakeLists.txt).
#include "common/version.hpp"

#ifndef SPARKSIM_VERSION
#error "SPARKSIM_VERSION must be defined by the build"
#endif
#ifndef SPARKSIM_GIT_SHA
#define SPARKSIM_GIT_SHA "unknown"
#endif

namespace sparksim {

const std::string& sparksim_version() {
  static const std::string version = SPARKSIM_VERSION;
  return version;
}

const std::string& sparksim_git_sha() {
  static const std::string sha = SPARKSIM_GIT_SHA;
  return sha;
}

}  // namespace sparksim
