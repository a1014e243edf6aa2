// report.html in a real browser: headless Chromium (Debian's `chromium`, which `./setup.sh test`
// installs) loads the report of a study with every figure kind and dumps the DOM it built. Every
// figure must be there as an inline SVG, every table of report.md as a <table>, and the browser must
// load nothing but the report itself (so nothing can fail to load), with no console message.
//
// The suite is named Slow*: it starts a browser (about a second per page). Without Chromium the
// tests fail, unless DSX_SKIP_BROWSER_TEST=1 is set, which skips them.
//
// Chromium runs as the notes for this machine say (as root: --no-sandbox; no GPU; no background
// networking, component updates or sync, which a closed network would refuse; a fresh profile). With
// --enable-logging=stderr --v=1 it logs "FileURLLoader::Start: <url>" for every file it loads and
// "CONSOLE" for every console message; those lines are what is checked.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "output/files.hpp"
#include "output/figures.hpp"
#include "output/report.hpp"
#include "output/sortable_tables.hpp"
#include "tests/output/figure_fixture.hpp"
#include "tests/test_files.hpp"

namespace dsx {
namespace {

namespace fs = std::filesystem;

const std::string kSourceDir = DSX_SOURCE_DIR;

// The browser: the first of these on PATH, or "" when none is installed.
std::string find_chromium() {
  for (const char* name : {"chromium", "chromium-browser"}) {
    const char* path = std::getenv("PATH");
    std::istringstream dirs(path != nullptr ? path : "/usr/bin:/bin");
    for (std::string dir; std::getline(dirs, dir, ':');) {
      const fs::path candidate = fs::path(dir) / name;
      if (!dir.empty() && fs::exists(candidate) && ::access(candidate.c_str(), X_OK) == 0) return candidate.string();
    }
  }
  return "";
}

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

struct PageLoad {
  int status = -1;
  std::string dom;
  std::vector<std::string> loaded;   // every file URL the browser loaded
  std::vector<std::string> console;  // every console message
  std::string log;                   // stderr, for failure messages
};

// Loads `html_file` in headless Chromium and dumps its DOM.
PageLoad load_page(const std::string& chromium, const std::string& html_file, const std::string& work_dir) {
  const std::string profile = work_dir + "/profile", dom = work_dir + "/dom.html", err = work_dir + "/stderr.txt";
  fs::remove_all(profile);
  fs::create_directories(profile);
  const std::string command =
      "timeout 180 " + shell_quote(chromium) +
      " --headless --no-sandbox --disable-gpu --disable-background-networking --disable-component-update"
      " --disable-sync --no-first-run --disable-quic --user-data-dir=" + shell_quote(profile) +
      " --enable-logging=stderr --v=1 --dump-dom " + shell_quote("file://" + fs::absolute(html_file).string()) +
      " > " + shell_quote(dom) + " 2> " + shell_quote(err);
  PageLoad out;
  out.status = std::system(command.c_str());
  out.dom = fs::exists(dom) ? read_file(dom) : "";
  out.log = fs::exists(err) ? read_file(err) : "";
  std::istringstream lines(out.log);
  for (std::string line; std::getline(lines, line);) {
    static const std::string kStart = "FileURLLoader::Start: ";
    if (const auto p = line.find(kStart); p != std::string::npos) out.loaded.push_back(line.substr(p + kStart.size()));
    if (line.find(":CONSOLE") != std::string::npos) out.console.push_back(line);
  }
  return out;
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t p = text.find(what); p != std::string::npos; p = text.find(what, p + what.size())) ++n;
  return n;
}

// Tables in Markdown: their header separator rows, "|---|---:|".
std::size_t markdown_tables(const std::string& markdown) {
  static const std::regex separator(R"(^\|(\s*:?-{3,}:?\s*\|)+\s*$)");
  std::istringstream lines(markdown);
  std::size_t n = 0;
  for (std::string line; std::getline(lines, line);) n += std::regex_match(line, separator) ? 1 : 0;
  return n;
}

// Chromium, or the reason the test cannot run (a failure unless DSX_SKIP_BROWSER_TEST=1).
#define REQUIRE_CHROMIUM(var)                                                                            \
  const std::string var = find_chromium();                                                               \
  if (var.empty()) {                                                                                     \
    const char* skip = std::getenv("DSX_SKIP_BROWSER_TEST");                                             \
    if (skip != nullptr && std::string(skip) == "1") GTEST_SKIP() << "DSX_SKIP_BROWSER_TEST=1 and no chromium"; \
    FAIL() << "chromium is not installed (./setup.sh test installs it: apt-get install chromium); set "  \
              "DSX_SKIP_BROWSER_TEST=1 to skip this test";                                              \
  }

TEST(SlowBrowser, ReportRendersEveryFigureAndTableAndLoadsNothingElse) {
  REQUIRE_CHROMIUM(chromium);
  figure_fixture::Fixture f = figure_fixture::matmul_study(kSourceDir);
  FigureDecl scatter;
  scatter.name = "latency_intensity";
  scatter.kind = FigureKind::scatter;
  scatter.title = "Latency against intensity <fp16 & fp32>";  // markup characters in a title stay text
  scatter.caption = "Each point is one matmul.";
  scatter.x = "intensity_flop_per_byte";
  scatter.y = {"latency_s"};
  scatter.group = "precision";
  scatter.log_x = scatter.log_y = true;
  FigureDecl single_map = figure_fixture::heatmap_decl();
  single_map.name = "latency_map_single";
  single_map.width = FigureWidth::single_column;
  f.study.figures = {figure_fixture::roofline_decl(), figure_fixture::heatmap_decl(), figure_fixture::crossover_decl(),
                     figure_fixture::memory_bars_decl(), scatter, single_map};
  RunInfo info;
  info.dsx_version = "test";
  count_rows(f.results, info);

  TempDir dir("report");
  const ReportInputs in{f.study, f.results, f.pareto, info, dir.path(), kSourceDir + "/templates"};
  const std::vector<RenderedFigure> figures = render_figures(in);
  ASSERT_EQ(figures.size(), f.study.figures.size());
  render_report(in, figures);
  const std::string html_file = dir.path() + "/report.html";
  const std::string markdown = read_file(dir.path() + "/report.md");

  const PageLoad page = load_page(chromium, html_file, dir.path());
  ASSERT_EQ(page.status, 0) << page.log.substr(0, 4000);
  ASSERT_FALSE(page.dom.empty()) << page.log.substr(0, 4000);

  // Every figure, inline, labelled with its title; nothing else that could fetch a file.
  EXPECT_EQ(count(page.dom, "<svg "), figures.size());
  EXPECT_EQ(count(page.dom, "<svg role=\"img\""), figures.size());
  for (const RenderedFigure& fig : figures) {
    EXPECT_NE(page.dom.find("aria-label=\"" + html_escape(fig.title) + "\""), std::string::npos) << fig.title;
    EXPECT_NE(page.dom.find(">" + html_escape(fig.title) + "</title>"), std::string::npos) << fig.title;
  }
  for (const char* element : {"<img", "<link", "<iframe", "<object", "<embed", "<image", "<video", "<audio"}) {
    EXPECT_EQ(count(page.dom, element), 0u) << element;
  }
  // One script, dsx's own, and the policy let it run: the tables' headers are sortable.
  EXPECT_EQ(count(page.dom, "<script"), 1u);
  EXPECT_GE(count(page.dom, "aria-sort=\"none\""), 2u);
  EXPECT_EQ(count(page.dom, "url("), count(page.dom, "url(#")) << "a CSS url() outside the page";
  EXPECT_EQ(count(page.dom, "<use "), count(page.dom, "<use xlink:href=\"#")) << "an SVG <use> of another file";
  // Every table of report.md, as a table.
  const std::size_t tables = markdown_tables(markdown);
  EXPECT_GE(tables, 2u) << markdown;
  EXPECT_EQ(count(page.dom, "<table"), tables);
  for (std::size_t i = 1; i <= figures.size(); ++i) {
    EXPECT_NE(page.dom.find("<em>Figure " + std::to_string(i) + ".</em>"), std::string::npos) << "caption " << i;
  }
  // The browser loaded the report and nothing else, and said nothing on the console.
  ASSERT_EQ(page.loaded.size(), 1u) << "loaded more than the report:\n" << [&] {
    std::string all;
    for (const std::string& url : page.loaded) all += url + "\n";
    return all;
  }();
  EXPECT_NE(page.loaded.front().find("report.html"), std::string::npos) << page.loaded.front();
  EXPECT_TRUE(page.console.empty()) << page.console.front();
}

// A click on a column's header sorts the table by it, a number by its value whatever its prefix or
// calendar unit, text with its digits by value; a second click sorts the other way; empty and "n/a"
// cells stay last. The report's own script runs under its policy; the test's clicks come from a
// second script that the test adds to the policy by its hash.
TEST(SlowBrowser, ClickingAHeaderSortsTheTable) {
  REQUIRE_CHROMIUM(chromium);
  TempDir dir("sort");
  const std::string markdown =
      "# Sorting\n\n| part | latency | memory |\n|---|---:|---:|\n| b10 | 1.00 ms | 80.0 GiB |\n"
      "| a2 | 15.0 us | 40.0 GB |\n| c1 | 120 min | 1.50 TB |\n| b9 | n/a | 512 MiB |\n| d | 3.00 h | 2,048 B |\n";
  std::string html = markdown_page_html(kSourceDir + "/templates", "Sorting", markdown, {}, "sorting", "hash", "test", "rev");
  const std::string clicks =
      "(function () { var t = document.querySelector('table'), h = t.tHead.rows[0].cells, out = [];"
      " [1, 1, 0, 2].forEach(function (c) { h[c].click();"
      " out.push(Array.prototype.map.call(t.tBodies[0].rows, function (r) { return r.cells[0].textContent; })"
      ".join(' ') + '/' + h[c].getAttribute('aria-sort')); });"
      " var p = document.createElement('pre'); p.id = 'sorted'; p.textContent = out.join('|');"
      " document.body.appendChild(p); })();";
  const std::string own = "script-src " + csp_script_hash_source(sortable_tables_script());
  const std::size_t policy = html.find(own);
  ASSERT_NE(policy, std::string::npos) << html.substr(0, 600);
  html.insert(policy + own.size(), " " + csp_script_hash_source(clicks));
  html.insert(html.rfind("</body>"), "<script>" + clicks + "</script>");
  write_file_atomic(dir.path() + "/sorting.html", html);

  const PageLoad page = load_page(chromium, dir.path() + "/sorting.html", dir.path());
  ASSERT_EQ(page.status, 0) << page.log.substr(0, 4000);
  const std::size_t at = page.dom.find("<pre id=\"sorted\">");
  ASSERT_NE(at, std::string::npos) << page.log.substr(0, 4000);
  const std::size_t start = page.dom.find('>', at) + 1;
  EXPECT_EQ(page.dom.substr(start, page.dom.find("</pre>", start) - start),
            "a2 b10 c1 d b9/ascending|d c1 b10 a2 b9/descending|a2 b9 b10 c1 d/ascending|d b9 a2 b10 c1/ascending");
  EXPECT_TRUE(page.console.empty()) << page.console.front();
}

// The check above would see a page that is not self-contained: a missing image and stylesheet are
// loads of other files.
TEST(SlowBrowser, APageThatFetchesFilesIsCaught) {
  REQUIRE_CHROMIUM(chromium);
  TempDir dir("broken");
  const std::string page_file = dir.path() + "/page.html";
  write_file_atomic(page_file,
                    "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>t</title>"
                    "<link rel=\"stylesheet\" href=\"missing.css\"></head><body><img src=\"missing.png\" alt=\"x\">"
                    "<table><tr><td>1</td></tr></table></body></html>\n");
  const PageLoad page = load_page(chromium, page_file, dir.path());
  ASSERT_EQ(page.status, 0) << page.log.substr(0, 4000);
  const std::set<std::string> loaded(page.loaded.begin(), page.loaded.end());
  EXPECT_EQ(loaded.size(), 3u);
  EXPECT_EQ(loaded.count("file://" + fs::absolute(dir.path() + "/missing.png").string()), 1u);
  EXPECT_EQ(loaded.count("file://" + fs::absolute(dir.path() + "/missing.css").string()), 1u);
  EXPECT_EQ(count(page.dom, "<table"), 1u);
}

// The trust model as a browser applies it: a script a study's own template plants does not run.
TEST(SlowBrowser, AScriptInAStudysTemplateDoesNotRun) {
  REQUIRE_CHROMIUM(chromium);
  figure_fixture::Fixture f = figure_fixture::matmul_study(kSourceDir);
  f.study.figures = {};
  RunInfo info;
  count_rows(f.results, info);
  TempDir dir("csp");
  const std::string templates = dir.path() + "/templates";
  fs::create_directories(templates);
  fs::copy(kSourceDir + "/templates", templates, fs::copy_options::recursive);
  std::string html_template = read_file(templates + "/report.html.mustache");
  const std::string planted = "<script>document.title = 'script ran';</script>";
  html_template.replace(html_template.find("</body>"), 7, planted + "</body>");
  write_file_atomic(templates + "/report.html.mustache", html_template);
  ReportInputs in{f.study, f.results, f.pareto, info, dir.path(), templates};
  render_report(in, {});
  ASSERT_NE(read_file(dir.path() + "/report.html").find(planted), std::string::npos);
  PageLoad page = load_page(chromium, dir.path() + "/report.html", dir.path());
  ASSERT_EQ(page.status, 0) << page.log.substr(0, 4000);
  EXPECT_EQ(page.dom.find("<title>script ran</title>"), std::string::npos);
  EXPECT_NE(page.log.find("Content Security Policy"), std::string::npos) << page.log.substr(0, 4000);

  in.trust_study_html = true;  // the person running dsx trusts the study: the script runs
  render_report(in, {});
  page = load_page(chromium, dir.path() + "/report.html", dir.path());
  ASSERT_EQ(page.status, 0) << page.log.substr(0, 4000);
  EXPECT_NE(page.dom.find("<title>script ran</title>"), std::string::npos);
}

}  // namespace
}  // namespace dsx
