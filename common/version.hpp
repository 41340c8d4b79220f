// The sparksim version and the git revision it was built from, for provenance fields (profiles,
// resolved configs, summaries). The revision is read at configure time ("unknown" outside git).
#pragma once

#include <string>

namespace sparksim {

const std::string& sparksim_version();
const std::string& sparksim_git_sha();

}  // namespace sparksim
