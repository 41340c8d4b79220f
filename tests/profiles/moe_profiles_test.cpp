// The committed DeepSeek-V4 analytic profiles (profiles/moe-analytic/) are what make_moe_profile
// produces today (date and git revision aside): regenerate each in memory and compare.
#include <string>

#include <catch2/catch.hpp>

#include "profiles/moe/moe_step_model.hpp"
#include "profiles/profile_io.hpp"

namespace sparksim {
namespace {

TEST_CASE("committed V4 analytic profiles match the step model") {
  struct Case {
    const char *target, *gpu, *topology;
  };
  const Case cases[] = {{"deepseek-v4-flash", "h200", "dep8"},
                        {"deepseek-v4-flash", "h100", "dep8"},
                        {"deepseek-v4-pro", "h200", "dep32"}};
  for (const Case& c : cases) {
    const std::string path = std::string(SPARKSIM_SOURCE_DIR) + "/profiles/moe-analytic/" + c.gpu +
                             "-sxm/" + c.target + "-" + c.topology + "-fp8.json";
    INFO(path);
    const Profile committed = load_profile(path);
    const MoeTarget& target = moe_target(c.target);
    const Profile fresh = make_moe_profile(
        target, moe_gpu(c.gpu), parse_topology(c.topology, target, ExpertFormat::kFp8, 8), {},
        committed.provenance.date, committed.provenance.git_sha);
    CHECK(format_profile(fresh) == format_profile(committed));
    CHECK(committed.provenance.source == "analytic");
  }
}

}  // namespace
}  // namespace sparksim
