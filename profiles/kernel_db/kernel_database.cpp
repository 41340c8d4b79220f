// KernelDatabase loading: identity from database.json, then the three tables with their
// provenance columns checked row by row.
#include "profiles/kernel_db/kernel_database.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <vector>

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
                                      "all_to_all_framework", "added_gemm", "gpus"});
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

std::string KernelDatabase::added_gemm_file(const std::string& dir, const std::string& target) {
  using Pointer = JsonFile::Pointer;
  const JsonFile f = JsonFile::load(dir + "/database.json");
  const Pointer added("/added_gemm");
  if (target.empty() || !f.has(added)) return "";
  f.reject_unknown_keys(added, {"_why", "file", "targets"});
  const nlohmann::json& targets = f.get_array(added / "targets");
  for (const auto& t : targets) {
    if (t.is_string() && t.get<std::string>() == target) return f.get_string(added / "file");
  }
  return "";
}

KernelDatabase KernelDatabase::load(const std::string& dir, const std::string& gpu,
                                    const AttentionHeads& heads, const std::string& gemm_dtype,
                                    const std::string& target) {
  KernelDatabase db;
  std::string folder;
  db.identity_ = load_identity(dir, gpu, &folder);
  const DatabaseIdentity& id = db.identity_;

  // gemm.csv plus, for a target database.json's added_gemm names, the rows added for its shapes:
  // one grid. Other targets read gemm.csv alone, so their compositions stay as they were.
  std::vector<CsvTable> gemm_files{CsvTable::load(folder + "/gemm.csv")};
  const std::string added = added_gemm_file(dir, target);
  if (!added.empty()) gemm_files.push_back(CsvTable::load(folder + "/" + added));
  std::vector<const CsvTable*> gemm;
  for (const CsvTable& t : gemm_files) {
    check_provenance_columns(t, id.framework, id.device);
    gemm.push_back(&t);
  }
  db.gemm_.emplace(gemm, gemm_dtype);
  if (gemm_dtype != "bfloat16") db.bf16_gemm_.emplace(gemm, "bfloat16");
  const CsvTable decode = CsvTable::load(folder + "/attention_generation.csv");
  check_provenance_columns(decode, id.framework, id.device);
  db.decode_.emplace(decode, heads, AttentionPhase::kDecode);
  const CsvTable prefill = CsvTable::load(folder + "/attention_context.csv");
  check_provenance_columns(prefill, id.framework, id.device);
  db.prefill_.emplace(prefill, heads, AttentionPhase::kPrefill);
  db.kv_cache_dtype_ = heads.kv_cache_dtype;
  const std::string all_reduce_path = folder + "/comm_custom_allreduce.csv";
  if (std::filesystem::exists(all_reduce_path)) {
    const CsvTable all_reduce = CsvTable::load(all_reduce_path);
    check_provenance_columns(all_reduce, id.framework, id.device);
    db.all_reduce_.emplace(all_reduce);
  }
  return db;
}

}  // namespace sparksim
