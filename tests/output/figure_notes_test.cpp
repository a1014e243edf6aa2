// The note that stands for a figure that was not drawn (output/figure_notes.hpp): its error quoted
// as code with the run folder's paths as the reader sees them, cut after 12 lines; the note numbered
// like the figure it replaces; marked and styled in report.html whatever the template, which also
// gets the sortable tables' header arrows (output/sortable_tables.hpp).
#include "output/figure_notes.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "output/report.hpp"
#include "output/report_templates.hpp"
#include "output/sortable_tables.hpp"
#include "tests/test_files.hpp"

namespace dsx {
namespace {

namespace fs = std::filesystem;

TEST(FigureNotes, TheErrorIsQuotedAsCodeWithPathsBesideTheReport) {
  const std::string run = "/tmp/some/run";
  EXPECT_EQ(figure_error_quote("gnuplot failed on /tmp/some/run/figures/a.gp (exit status 1):\n"
                               "\"/tmp/some/run/figures/a.gp\" line 3: undefined variable: x  \n\n",
                               run),
            ">     gnuplot failed on figures/a.gp (exit status 1):\n"
            ">     \"figures/a.gp\" line 3: undefined variable: x");
  EXPECT_EQ(figure_error_quote("runs/x/figures/a.gp:2:5: 'system' runs a shell command", "runs/x"),
            ">     figures/a.gp:2:5: 'system' runs a shell command");
  std::string long_error;
  for (int i = 1; i <= 20; ++i) long_error += "line " + std::to_string(i) + "\n";
  const std::string quoted = figure_error_quote(long_error, run);
  EXPECT_NE(quoted.find(">     line 12\n"), std::string::npos) << quoted;
  EXPECT_EQ(quoted.find("line 13"), std::string::npos) << quoted;
  EXPECT_TRUE(quoted.ends_with(">     ... 8 more lines, printed in full on stderr")) << quoted;
}

TEST(FigureNotes, ANoteIsNumberedAsTheFigureItStandsFor) {
  const std::string md =
      "## Break-even\n\n> **Figure 4 was not drawn.** Why:\n\n*Figure 5.* Other.\n\n"
      "## Figures\n\n### Figure 1: One\n\n*Figure 1.* See Figure 4.\n";
  EXPECT_EQ(number_figures_in_reading_order(md),
            "## Break-even\n\n> **Figure 1 was not drawn.** Why:\n\n*Figure 2.* Other.\n\n"
            "## Figures\n\n### Figure 3: One\n\n*Figure 3.* See Figure 1.\n");
}

TEST(FigureNotes, OnlyTheNoteIsMarkedInHtml) {
  const std::string html =
      "<blockquote>\n<p><strong>Figure 12 was not drawn.</strong> Why:</p>\n</blockquote>\n"
      "<blockquote>\n<p><strong>Figure 3 was drawn.</strong></p>\n</blockquote>\n"
      "<blockquote>\n<p>Figure 3 was not drawn.</p>\n</blockquote>\n";
  const std::string marked = mark_figures_not_drawn(html);
  EXPECT_EQ(marked.find("<blockquote class=\"figure-not-drawn\" role=\"note\">\n<p><strong>Figure 12 "), 0u) << marked;
  EXPECT_EQ(marked.find("class=", 20), std::string::npos) << marked;
}

// The line at the top of a report that lacks something counts every figure entry not drawn, the
// analyses' included, and every analysis that could not run.
TEST(FigureNotes, AnIncompleteReportSaysSoAtTheTop) {
  nlohmann::ordered_json ctx;
  ctx["figures"]["list"] = {{{"number", "1"}, {"not_drawn", false}}, {{"number", "2"}, {"not_drawn", true}}};
  EXPECT_EQ(incomplete_context(ctx, {})["text"], "Figure 2 was not drawn; its place below says why and what to do.");
  ctx["analyses"]["breakeven"]["list"] = {{{"figures", {{{"number", "5"}, {"not_drawn", true}}}}}};
  EXPECT_EQ(incomplete_context(ctx, {"the sensitivity analysis 'drivers'"})["text"],
            "Figure 2 and Figure 5 were not drawn and the sensitivity analysis 'drivers' could not run; their places "
            "below say why and what to do.");
  ctx["figures"]["list"][1]["not_drawn"] = false;
  ctx["analyses"]["breakeven"]["list"][0]["figures"][0]["not_drawn"] = false;
  EXPECT_EQ(incomplete_context(ctx, {})["has_missing"], false);
  EXPECT_EQ(mark_figures_not_drawn("<blockquote>\n<p><strong>This report is incomplete.</strong> x</p>"),
            "<blockquote class=\"figure-not-drawn\" role=\"note\">\n<p><strong>This report is incomplete.</strong> x</p>");
}

// A study's own report.html.mustache, without a word about sorting or notes, still shows the arrow
// on the sorted column and the note's style, before its own style so that its own wins.
TEST(FigureNotes, AStudysOwnTemplateGetsTheArrowsAndTheNotesStyle) {
  TempDir dir("own_template");
  const std::string templates = dir.path() + "/templates";
  fs::create_directories(templates + "/partials");
  std::ofstream(templates + "/report.html.mustache")
      << "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>{{title}}</title>\n"
         "<style>th { color: navy; }</style></head><body>{{{body}}}</body></html>\n";
  const std::string md = "| a | b |\n|---|---|\n| 1 | 2 |\n| 3 | 4 |\n\n> **Figure 1 was not drawn.** Why:\n";
  const std::string html = markdown_page_html(templates, "T", md, {}, "s", "h", "v", "r");
  const std::size_t dsx_style = html.find("<style>\nth[aria-sort] { cursor: pointer; }");
  const std::size_t own_style = html.find("<style>th { color: navy; }");
  ASSERT_NE(dsx_style, std::string::npos) << html;
  EXPECT_LT(dsx_style, own_style) << html;
  EXPECT_LT(html.find("<meta charset"), dsx_style) << "the charset stays first";
  EXPECT_NE(html.find("th[aria-sort=\"ascending\"]::after { content: \" \\25B2\""), std::string::npos) << html;
  EXPECT_NE(html.find("th[aria-sort=\"descending\"]::after { content: \" \\25BC\""), std::string::npos) << html;
  EXPECT_NE(html.find("blockquote.figure-not-drawn {"), std::string::npos) << html;
  EXPECT_NE(html.find("<blockquote class=\"figure-not-drawn\" role=\"note\">"), std::string::npos) << html;
  EXPECT_NE(html.find("<script>"), std::string::npos);

  // No style and no head of its own: before </head>, or at the very start.
  EXPECT_EQ(with_sortable_tables("<html><head><title>t</title></head><body></body></html>").find("<style>\nth[aria-sort]"),
            std::string("<html><head><title>t</title>").size());
  EXPECT_EQ(with_sortable_tables("<p>x</p>").find("<style>"), 0u);
}

// The analyses' figures take the same note in their sections (templates/partials/figure_not_drawn).
TEST(FigureNotes, AnAnalysisFigureNotDrawnShowsTheNoteInItsSection) {
  TempDir dir("analysis_note");
  const std::string templates = dir.path() + "/templates";
  fs::create_directories(templates);
  fs::copy(std::string(DSX_SOURCE_DIR) + "/templates/partials", templates + "/partials");
  std::ofstream(templates + "/report.md.mustache") << "{{>breakeven}}{{>pareto_groups}}";
  const nlohmann::ordered_json drawn = {{"number", "1"}, {"name", "fronts"}, {"title", "Fronts"},
                                        {"caption", "The fronts."}, {"description", "Two groups."},
                                        {"not_drawn", false}, {"error_block", ""}, {"remedy", ""}};
  nlohmann::ordered_json failed = drawn;
  failed["number"] = "2";
  failed["name"] = "breakeven_cost";
  failed["not_drawn"] = true;
  failed["error_block"] = ">     gnuplot failed on figures/breakeven_cost.gp (exit status 1):";
  failed["remedy"] = "Check gnuplot.";
  nlohmann::ordered_json ctx;
  ctx["analyses"]["breakeven"] = {{"has_breakevens", true},
                                  {"list", {{{"title", "Cost"}, {"has_error", false}, {"error", ""}, {"groups", nlohmann::ordered_json::array()},
                                             {"method", "Brent."}, {"name", "cost"}, {"figures", {failed}}}}}};
  ctx["analyses"]["fronts"] = {{"has_fronts", true}, {"how", "two fronts"}, {"groups", nlohmann::ordered_json::array()},
                               {"figures", {drawn}}};
  const std::string md = render_templates(templates, "report.md.mustache", ctx, TemplateEscape::markdown);
  EXPECT_NE(md.find("> **Figure 2 was not drawn.** Why:\n>\n>     gnuplot failed on figures/breakeven_cost.gp "
                    "(exit status 1):\n>\n> What to do: Check gnuplot.\n"),
            std::string::npos)
      << md;
  EXPECT_EQ(md.find("figures/breakeven_cost.svg"), std::string::npos) << md;
  EXPECT_NE(md.find("![Fronts](figures/fronts.svg)"), std::string::npos) << md;
  EXPECT_EQ(md.find("Figure 1 was not drawn"), std::string::npos) << md;
}

}  // namespace
}  // namespace dsx
