// KernelDatabase loading: identity from database.json, then the three tables with their
// provenance columns checked row by row.
#include "profiles/kernel_db/kernel_database.hpp"

#include <algorithm>
#include <cctype>

#include "common/input_error.hpp"
#include "common/json_file.hpp"

namespace sparksim {

namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

}  // namespace

// "vLLM 0.24.0" -> every row must say framework vllm (any case) and version 0.24.0.
void check_provenance_columns(const CsvTable& t, const std::string& expected_framework,
                              const std::string& device) {
  const std::size_t space = expected_framework.find(' ');
  const std::string framework = lower(expected_framework.substr(0, space));
  const std::string version =
      space == std::string::npos ? "" : expected_framework.substr(space + 1);
  const std::size_t c_framework = t.column("framework");
  const std::size_t c_version = t.column("version");
  const std::size_t c_device = t.column("device");
  for (std::size_t r = 0; r < t.rows(); ++r) {
    if (lower(t.cell(r, c_framework)) != framework || t.cell(r, c_version) != version) {
      t.fail(r, "row measured with " + t.cell(r, c_framework) + " " + t.cell(r, c_version) +
                    "; the database says " + expected_framework);
    }
    if (t.cell(r, c_device) != device) {
      t.fail(r,
             "row measured on '" + t.cell(r, c_device) + "'; the database says '" + device + "'");
    }
  }
}

std::string DatabaseIdentity::describe() const {
  return name + " " + repository + "@" + commit.substr(0, 12) + ", " + framework + ", " + device;
}

std::vector<std::string> KernelDatabase::gpu_names(const std::string& dir) {
  const JsonFile f = JsonFile::load(dir + "/database.json");
  std::vector<std::string> out;
  for (const auto& [key, value] : f.get_object(JsonFile::Pointer("/gpus")).items()) {
    out.push_back(key);
  }
  return out;
}

DatabaseIdentity KernelDatabase::load_identity(const std::string& dir, const std::string& gpu,
                                               std::string* folder,
                                               std::string* all_to_all_framework) {
  using Pointer = JsonFile::Pointer;
  const JsonFile f = JsonFile::load(dir + "/database.json");
  f.reject_unknown_keys(Pointer(""), {"_about", "name", "repository", "commit", "framework",
                                      "all_to_all_framework", "gpus"});
  DatabaseIdentity id;
  id.name = f.get_string(Pointer("/name"));
  id.repository = f.get_string(Pointer("/repository"));
  id.commit = f.get_string(Pointer("/commit"));
  if (id.commit.size() != 40 ||
      !std::all_of(id.commit.begin(), id.commit.end(),
                   [](unsigned char c) { return std::isxdigit(c) != 0; })) {
    f.fail(Pointer("/commit"), "commit is \"" + id.commit + "\"; must be 40 hex digits");
  }
  id.framework = f.get_string(Pointer("/framework"));
  f.get_object(Pointer("/gpus"));
  if (!f.has(Pointer("/gpus") / gpu)) {
    std::string names;
    for (const std::string& n : gpu_names(dir)) names += (names.empty() ? "" : ", ") + n;
    throw InputError("--gpu: the database in " + dir + " has no GPU '" + gpu +
                     "'; it has: " + names);
  }
  id.gpu = gpu;
  id.device = f.get_string(Pointer("/gpus") / gpu / "device");
  *folder = dir + "/" + f.get_string(Pointer("/gpus") / gpu / "folder");
  if (all_to_all_framework != nullptr) {
    *all_to_all_framework = f.has(Pointer("/all_to_all_framework"))
                                ? f.get_string(Pointer("/all_to_all_framework"))
                                : "";
  }
  return id;
}

KernelDatabase KernelDatabase::load(const std::string& dir, const std::string& gpu,
                                    const AttentionHeads& heads) {
  KernelDatabase db;
  std::string folder;
  db.identity_ = load_identity(dir, gpu, &folder);
  const DatabaseIdentity& id = db.identity_;

  const CsvTable gemm = CsvTable::load(folder + "/gemm.csv");
  check_provenance_columns(gemm, id.framework, id.device);
  db.gemm_.emplace(gemm, "bfloat16");
  const CsvTable decode = CsvTable::load(folder + "/attention_generation.csv");
  check_provenance_columns(decode, id.framework, id.device);
  db.decode_.emplace(decode, heads, AttentionPhase::kDecode);
  const CsvTable prefill = CsvTable::load(folder + "/attention_context.csv");
  check_provenance_columns(prefill, id.framework, id.device);
  db.prefill_.emplace(prefill, heads, AttentionPhase::kPrefill);
  return db;
}

}  // namespace sparksim
