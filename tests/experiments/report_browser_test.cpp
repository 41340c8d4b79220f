// report.html in a real browser: headless Chromium (Debian's `chromium`, installed by
// scripts/install_deps.sh --test) renders a tiny sweep's report. The test asserts that the page is
// self-contained, that every plot decodes (naturalWidth > 0, many colours), that the tables are
// there, and that the screenshot is not blank and shows the plots' curve colour. A copy of the
// screenshot is left at $TMPDIR/sparksim_report_screenshot.png for a person to look at. A V4
// sweep's report also renders its acceptance-scenario band table, the default named.
#include <regex>

#include <catch2/catch.hpp>

#include "cli_harness.hpp"
#include "common/base64.hpp"
#include "shell_harness.hpp"

using namespace sparksim::testing;
using sparksim::base64;
namespace fs = std::filesystem;

namespace {

const char* kSweep = R"({
  "schema": "sparksim.sweep/1",
  "title": "browser check <&> sweep",
  "profile": "profiles/analytic/h100-sxm/qwen3-8b.json",
  "workload": {"synthetic": "prompt=lognormal:300:0.5,output=lognormal:60:0.5,domain=code,duration_s=3"},
  "load": {"concurrency": [2, 8, 32]},
  "systems": [
    {"drafter": "dspark-7", "policies": ["static:k=4"]},
    {"drafter": "mtp1", "policies": ["static:k=1"]}
  ],
  "seeds": [1, 2],
  "tiers_tok_s_per_user": [100]
}
)";

// Headless Chromium with a fresh profile, no network chatter. `what` is the action flag
// (--screenshot=PATH or --dump-dom).
CliResult chromium(const fs::path& scratch, const std::string& what, const fs::path& page,
                   const std::string& window = "1280,3200") {
  static int run = 0;
  const auto profile = scratch / ("chromium-profile-" + std::to_string(run++));
  fs::create_directories(profile);
  return run_shell(
      "timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-quic "
      "--no-first-run --disable-background-networking --disable-component-update "
      "--disable-sync --hide-scrollbars --user-data-dir='" +
          profile.string() + "' --window-size=" + window + " " + what + " 'file://" +
          fs::absolute(page).string() + "' 2>/dev/null",
      scratch);
}

// Width and height from a PNG's IHDR chunk (0, 0 if it is not a PNG).
std::pair<std::uint32_t, std::uint32_t> png_size(const std::string& png) {
  if (png.size() < 24 || png.compare(0, 8, "\x89PNG\r\n\x1a\n") != 0) return {0, 0};
  const auto be32 = [&](std::size_t at) {
    return (static_cast<std::uint32_t>(static_cast<unsigned char>(png[at])) << 24) |
           (static_cast<std::uint32_t>(static_cast<unsigned char>(png[at + 1])) << 16) |
           (static_cast<std::uint32_t>(static_cast<unsigned char>(png[at + 2])) << 8) |
           static_cast<std::uint32_t>(static_cast<unsigned char>(png[at + 3]));
  };
  return {be32(16), be32(20)};
}

// The text the checker script left in <pre id="check">...</pre> of a dumped DOM.
std::string check_result(const std::string& dom) {
  const std::regex re("<pre id=\"check\">([^<]*)</pre>");
  std::smatch m;
  return std::regex_search(dom, m, re) ? m[1].str() : "";
}

long field(const std::string& result, const std::string& key) {
  const std::regex re(key + "=(-?[0-9]+)");
  std::smatch m;
  return std::regex_search(result, m, re) ? std::stol(m[1].str()) : -1;
}

// JavaScript that decodes an image through a canvas and counts its distinct colours and the
// pixels of one exact colour.
const char* kCountColours = R"(
function countColours(img, rgb) {
  var c = document.createElement('canvas');
  c.width = img.naturalWidth; c.height = img.naturalHeight;
  var g = c.getContext('2d');
  g.drawImage(img, 0, 0);
  var d = g.getImageData(0, 0, c.width, c.height).data;
  var seen = new Set(), match = 0;
  for (var k = 0; k < d.length; k += 4) {
    var v = (d[k] << 16) | (d[k + 1] << 8) | d[k + 2];
    seen.add(v);
    if (v === rgb) match++;
  }
  return [seen.size, match];
}
)";

}  // namespace

TEST_CASE("report.html renders its plots and tables in headless Chromium") {
  const auto dir = scratch_dir("report_browser");
  INFO("chromium must be installed: scripts/install_deps.sh --test installs Debian's chromium");
  REQUIRE(run_shell("command -v chromium", dir).exit_code == 0);
  std::ofstream(dir / "sweep.json") << kSweep;
  const auto out = dir / "out";
  const auto r = run_cli(
      "pareto --config " + (dir / "sweep.json").string() + " --jobs 2 --out " + out.string(), dir);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  const std::string html = read_file(out / "report.html");

  // Self-contained: four plots as data: URIs, nothing fetched from anywhere.
  const std::regex img("<img src=\"data:image/png;base64,");
  CHECK(std::distance(std::sregex_iterator(html.begin(), html.end(), img),
                      std::sregex_iterator()) == 4);
  CHECK(html.find("src=\"http") == std::string::npos);
  CHECK(html.find("<link") == std::string::npos);
  CHECK(html.find("<script") == std::string::npos);
  CHECK_THAT(html, Catch::Contains("ANALYTIC roofline profile"));
  CHECK_THAT(html, Catch::Contains("browser check &lt;&amp;&gt; sweep"));

  // 1. The page as a browser builds it: every image decoded and colourful, tables present.
  std::string checked = html;
  checked.insert(checked.rfind("</body>"),
                 std::string("<pre id=\"check\">pending</pre><script>") + kCountColours + R"(
window.addEventListener('load', function () {
  var imgs = document.images, ok = 0, minColours = 1e9, curvePixels = 0;
  for (var i = 0; i < imgs.length; i++) {
    if (imgs[i].complete && imgs[i].naturalWidth > 0) ok++;
    var r = countColours(imgs[i], 0x0072b2);
    minColours = Math.min(minColours, r[0]);
    curvePixels += r[1];
  }
  document.getElementById('check').textContent =
      'images=' + imgs.length + ' decoded=' + ok + ' min_colours=' + minColours +
      ' curve_pixels=' + curvePixels + ' tables=' + document.querySelectorAll('table').length +
      ' rows=' + document.querySelectorAll('tr').length;
});
</script>)");
  std::ofstream(dir / "checked.html", std::ios::binary) << checked;
  const auto dom = chromium(dir, "--dump-dom", dir / "checked.html");
  const std::string page = check_result(dom.output);
  INFO("page check: " << page);
  CHECK(field(page, "images") == 4);
  CHECK(field(page, "decoded") == 4);
  CHECK(field(page, "min_colours") >= 16);    // antialiased curves, text, grid: not a flat image
  CHECK(field(page, "curve_pixels") >= 200);  // the first system's colour, in every plot
  CHECK(field(page, "tables") >= 5);          // setup, 2 frontiers, 2 tier tables, all loads
  CHECK(field(page, "rows") >= 30);

  // 2. A screenshot of the real report, against a blank page's.
  std::ofstream(dir / "blank.html") << "<!DOCTYPE html><html><body></body></html>";
  REQUIRE(chromium(dir, "--screenshot='" + (dir / "blank.png").string() + "'", dir / "blank.html")
              .exit_code == 0);
  REQUIRE(chromium(dir, "--screenshot='" + (dir / "shot.png").string() + "'", out / "report.html")
              .exit_code == 0);
  const std::string shot = read_file(dir / "shot.png");
  const std::string blank = read_file(dir / "blank.png");
  CHECK(png_size(shot) == std::make_pair(1280u, 3200u));
  CHECK(shot.size() > 20 * blank.size());
  fs::copy_file(dir / "shot.png", fs::temp_directory_path() / "sparksim_report_screenshot.png",
                fs::copy_options::overwrite_existing);

  // 3. The screenshot decoded by the browser: many colours, and the plots' curve colour on screen.
  std::ofstream(dir / "shot.html")
      << "<!DOCTYPE html><html><body><img id=\"s\" src=\"data:image/png;base64," << base64(shot)
      << "\"><pre id=\"check\">pending</pre><script>" << kCountColours << R"(
window.addEventListener('load', function () {
  var r = countColours(document.getElementById('s'), 0x0072b2);
  document.getElementById('check').textContent = 'colours=' + r[0] + ' curve_pixels=' + r[1];
});
</script></body></html>)";
  const auto decoded = chromium(dir, "--dump-dom", dir / "shot.html");
  const std::string screen = check_result(decoded.output);
  INFO("screenshot check: " << screen);
  CHECK(field(screen, "colours") >= 64);
  CHECK(field(screen, "curve_pixels") >= 100);
  fs::remove_all(dir);
}

TEST_CASE("a V4 report's acceptance-scenario band renders in headless Chromium") {
  const auto dir = scratch_dir("report_browser_band");
  INFO("chromium must be installed: scripts/install_deps.sh --test installs Debian's chromium");
  REQUIRE(run_shell("command -v chromium", dir).exit_code == 0);
  std::ofstream(dir / "sweep.json") << R"({
  "schema": "sparksim.sweep/1",
  "title": "V4 band browser check",
  "profile": "profiles/telemetry/deepseek-v4-flash.json",
  "workload": {"synthetic": "prompt=fixed:16,output=lognormal:200:0.5,domain=code,duration_s=20"},
  "load": {"concurrency": [5, 25]},
  "systems": [
    {"drafter": "dspark-5", "policies": ["async-topk"]},
    {"drafter": "mtp1", "policies": ["static:k=1"]}
  ],
  "seeds": [1],
  "tiers_tok_s_per_user": [80],
  "baseline": {"drafter": "mtp1", "policy": "static:k=1"}
}
)";
  const auto out = dir / "out";
  const auto r = run_cli("pareto --no-plots --config " + (dir / "sweep.json").string() +
                             " --jobs 2 --out " + out.string(),
                         dir);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  std::string checked = read_file(out / "report.html");
  checked.insert(checked.rfind("</body>"), R"(<pre id="check">pending</pre><script>
window.addEventListener('load', function () {
  var t = document.querySelector('table.scenarios');
  var heads = t ? t.querySelectorAll('th') : [];
  var defaults = 0;
  for (var i = 0; i < heads.length; i++) if (heads[i].textContent.indexOf('(default)') >= 0) defaults++;
  document.getElementById('check').textContent =
      'band_tables=' + document.querySelectorAll('table.scenarios').length +
      ' band_rows=' + (t ? t.querySelectorAll('tr').length : 0) + ' columns=' + heads.length +
      ' default_columns=' + defaults;
});
</script>)");
  std::ofstream(dir / "checked.html", std::ios::binary) << checked;
  const std::string page = check_result(chromium(dir, "--dump-dom", dir / "checked.html").output);
  INFO("page check: " << page);
  CHECK(field(page, "band_tables") == 1);
  CHECK(field(page, "band_rows") == 2);  // the header and DSpark-5 at 80 tok/s/user
  CHECK(field(page, "columns") == 7);    // tier, system, 2 x 2 scenario columns, band
  CHECK(field(page, "default_columns") == 2);
  fs::remove_all(dir);
}
