#include "output/report.hpp"

#include <gtest/gtest.h>
#include <md4c-html.h>
#include <unistd.h>

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "dse/pareto.hpp"
#include "engine/fusion.hpp"
#include "engine/registry.hpp"
#include "engine/solvers/inference.hpp"
#include "output/files.hpp"
#include "output/sortable_tables.hpp"
#include "tests/test_files.hpp"

namespace dsx {
namespace {

namespace fs = std::filesystem;

const std::string kSourceDir = DSX_SOURCE_DIR;
const std::string kTemplates = kSourceDir + "/templates";
const std::string kGolden = kSourceDir + "/tests/output/golden/small_report.md";

// Launch overhead of the fixture: the low end of the 5-20 us eager range (seeds/000 lab_07 Act 1).
constexpr double kLaunchOverhead = 5e-6;

// `html` without dsx's own sortable-tables script, which must be there exactly once: what is left
// holds no script unless something else planted one.
std::string without_own_script(const std::string& html) {
  const std::string own = "<script>" + std::string(sortable_tables_script()) + "</script>";
  const std::size_t at = html.find(own);
  EXPECT_NE(at, std::string::npos) << "the sortable-tables script is missing";
  if (at == std::string::npos) return html;
  EXPECT_EQ(html.find(own, at + 1), std::string::npos) << "the sortable-tables script is there twice";
  return html.substr(0, at) + html.substr(at + own.size());
}

// A two-layer MLP (256 -> 512 -> 10) with a bias add and a ReLU after the first layer: 4 eager
// kernels; compiled mode fuses bias and ReLU into the first matmul (engine/fusion.hpp), 2 kernels.
ModelGraph tiny_mlp() {
  ModelGraph g;
  g.id = "tiny_mlp";
  g.name = "Tiny MLP";
  g.parameter_count = 256.0 * 512 + 512 + 512.0 * 10;
  g.ops = {
      Op{"fc1", OpKind::matmul, 2.0 * 256 * 512, 256, 512, 256.0 * 512, 1, 1},
      Op{"bias", OpKind::elementwise, 512, 512, 512, 512, 1, 1},
      Op{"relu", OpKind::elementwise, 512, 512, 512, 0, 1, 1},
      Op{"fc2", OpKind::matmul, 2.0 * 512 * 10, 512, 10, 512.0 * 10, 1, 1},
  };
  return g;
}

struct Small {
  ResolvedStudy study;
  ResultTable results;
  std::vector<std::size_t> pareto;
  RunInfo info;
};

// precision {fp16, int8} x batch {1, 8, 64} x execution {eager, compiled} on one accelerator that
// has no int8 peak, so half the grid is infeasible. Rows come from the real inference solver.
Small small_study() {
  Small s;
  ResolvedStudy& st = s.study;
  st.file = "studies/small.yaml";
  st.name = "small";
  st.title = "Small study: a tiny MLP on one accelerator";
  st.question = "How do batch size and compilation trade latency against energy per sample for a tiny MLP?";
  st.content_hash = "0123456789abcdef";
  st.solver = find_solver("inference");

  HardwareSpec gpu;
  gpu.id = "gpu_a";
  gpu.name = "Accelerator A (A100-like)";
  gpu.peak_flops_per_s[index_of(Precision::fp32)] = 19.5e12;
  gpu.peak_flops_per_s[index_of(Precision::fp16)] = 312e12;
  gpu.memory_bytes = 80.0 * 1024 * 1024 * 1024;
  gpu.memory_bandwidth_bytes_per_s = 2.039e12;
  gpu.host_link_bandwidth_bytes_per_s = 32e9;
  gpu.accelerator_link_bandwidth_bytes_per_s = 300e9;
  gpu.tdp_w = 400;
  gpu.idle_power_fraction = 0.3;
  gpu.price_usd = 15000;
  gpu.source = "NVIDIA A100 datasheet values (fp16 312 TFLOP/s, 2,039 GB/s, 400 W); no int8 on purpose";
  st.catalog.hardware.push_back(gpu);
  CatalogModel model;
  model.id = "tiny_mlp";
  model.name = "Tiny MLP | two layers";
  model.source = "hand-built test model: 256 -> 512 -> 10 with bias and ReLU";
  model.architecture = "hand-built";
  model.params = {{"hidden", "512"}, {"classes", "10"}};
  model.prepared = prepare_model(tiny_mlp());
  st.catalog.models.push_back(std::move(model));

  using P = InferenceSolver::Param;
  st.axes = {Axis{"precision", P::precision, {{"fp16", static_cast<double>(index_of(Precision::fp16))},
                                               {"int8", static_cast<double>(index_of(Precision::int8))}}},
             Axis{"batch", P::batch, {{"1", 1}, {"8", 8}, {"64", 64}}},
             Axis{"execution", P::execution, {{"eager", 0}, {"compiled", 1}}}};
  for (const Axis& a : st.axes) st.is_axis[a.param_index] = true;
  st.fixed_labels[P::hardware] = "gpu_a";
  st.fixed_labels[P::model] = "tiny_mlp";
  st.fixed_labels[P::launch_overhead] = "5 us";
  st.fixed_values[P::launch_overhead] = kLaunchOverhead;
  st.fixed_labels[P::eta] = "0.5";
  st.fixed_values[P::eta] = 0.5;
  st.fixed_labels[P::memory_efficiency] = "1";
  st.fixed_values[P::memory_efficiency] = 1;
  st.objectives = {Objective{"latency_s", InferenceSolver::latency_s, Direction::minimize, {}, {}},
                   Objective{"energy_per_sample_j", InferenceSolver::energy_per_sample_j, Direction::minimize, {}, {}}};

  // dispatch_s = kernels x t_launch (seeds/000 lab_07 Act 1): 4 eager kernels x 5 us.
  const double eager_kernels = static_cast<double>(tiny_mlp().ops.size());
  st.comparisons.push_back(Comparison{"Dispatch tax, eager, batch 1",
                                      {{"precision", "fp16"}, {"batch", "1"}, {"execution", "eager"}},
                                      "dispatch_s", eager_kernels * kLaunchOverhead, 0.01,
                                      "seeds/000 lab_07 Act 1: kernels x launch overhead", ""});
  // The seed's KWS utilization, 1,000 x 5 us / (1,000 x (5 us + 10 us)) = 1/3, set against a model
  // whose kernels are far shorter than 5 us: it must differ, with the explanation shown.
  st.comparisons.push_back(Comparison{
      "KWS-like utilization", {{"precision", "fp16"}, {"batch", "1"}, {"execution", "eager"}}, "gpu_utilization",
      1000 * 5e-6 / (1000 * (5e-6 + 10e-6)), 0.05, "seeds/000 lab_07 Act 1: KWS eager 33%",
      "The tiny MLP's kernels last well under 1 us, not KWS's 5 us, so launches dominate even more."});
  st.comparisons.push_back(Comparison{"int8 latency", {{"precision", "int8"}, {"batch", "1"}, {"execution", "eager"}},
                                      "latency_s", 20e-6, 0.1, "a made-up int8 claim | with a pipe", ""});

  FigureDecl scatter;
  scatter.name = "latency_energy";
  scatter.kind = FigureKind::scatter;
  scatter.title = "Latency against energy per sample";
  scatter.caption = "Larger batches spread the idle power over more samples.";
  scatter.x = "latency_s";
  scatter.y = {"energy_per_sample_j"};
  scatter.group = "batch";
  scatter.pareto = true;
  FigureDecl bars;
  bars.name = "waterfall";
  bars.kind = FigureKind::bars;
  bars.title = "Where the time goes (fp16)";
  bars.caption = "Compute, exposed memory and dispatch time of one forward pass.";
  bars.x = "batch";
  bars.y = {"compute_s", "memory_s", "dispatch_s"};
  bars.group = "execution";
  bars.where = {{"precision", "fp16"}};
  st.figures = {scatter, bars};

  ResultTable& t = s.results;
  t.axis_names = {"precision", "batch", "execution"};
  for (const MetricSpec& m : st.solver->metrics()) t.metric_names.emplace_back(m.name);
  for (std::string_view r : st.solver->reasons()) t.reasons.emplace_back(r);
  std::vector<double> out(t.metric_names.size());
  std::uint64_t point = 0;
  for (const AxisValue& p : st.axes[0].values) {
    for (const AxisValue& b : st.axes[1].values) {
      for (const AxisValue& e : st.axes[2].values) {
        PointInputs in;
        in.hardware = &st.catalog.hardware[0];
        in.model = &st.catalog.models[0].prepared;
        in.values = st.fixed_values;
        in.values[P::precision] = p.value;
        in.values[P::batch] = b.value;
        in.values[P::execution] = e.value;
        const PointResult r = st.solver->evaluate(in, out);
        t.point_index.push_back(point++);
        t.push_labels({p.label, b.label, e.label});
        t.status.push_back(r.status);
        t.push_detail(r.status == PointStatus::ok ? "" : std::string(st.solver->reasons()[r.reason]));
        t.metrics.insert(t.metrics.end(), out.begin(), out.end());
      }
    }
  }
  s.pareto = pareto_front(s.results, st.objectives);
  s.info.dsx_version = "0.1.0";
  s.info.git_revision = "abcdef012345";
  s.info.study_hash = st.content_hash;
  s.info.catalog_hash = "fedcba9876543210";
  count_rows(t, s.info);
  return s;
}

void copy_templates(const std::string& to) {
  fs::create_directories(to + "/partials");
  fs::copy(kTemplates, to, fs::copy_options::recursive | fs::copy_options::overwrite_existing);
}

void replace_once(const std::string& path, const std::string& from, const std::string& to) {
  std::string text = read_file(path);
  const auto p = text.find(from);
  ASSERT_NE(p, std::string::npos) << from << " not in " << path;
  text.replace(p, from.size(), to);
  write_file_atomic(path, text);
}

// file:line:col of `needle` in `text` (1-based), computed independently of the renderer.
std::string where_in(const std::string& file, const std::string& text, const std::string& needle) {
  const auto offset = text.find(needle);
  int line = 1;
  std::size_t line_start = 0;
  for (std::size_t i = 0; i < offset; ++i) {
    if (text[i] == '\n') {
      ++line;
      line_start = i + 1;
    }
  }
  return file + ":" + std::to_string(line) + ":" + std::to_string(offset - line_start + 1);
}

std::string render_error(const ReportInputs& in, const std::vector<RenderedFigure>& figures) {
  try {
    render_report(in, figures);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

TEST(Report, SmallStudyMatchesTheGoldenMarkdown) {
  const Small s = small_study();
  TempDir dir("golden");
  const ReportInputs in{s.study, s.results, s.pareto, s.info, dir.path(), kTemplates};
  const auto figures = render_figures(in);
  const std::string markdown = render_report_markdown(in, figures);
  if (std::getenv("DSX_UPDATE_GOLDEN") != nullptr) write_file_atomic(kGolden, markdown);
  const std::string golden = read_file(kGolden);
  EXPECT_EQ(markdown, golden) << "set DSX_UPDATE_GOLDEN=1 to rewrite " << kGolden << " after reviewing the change";
  // A comparison's design point names the chip and the model as the catalog does; its catalog
  // entries add the ids the appendix lists them by.
  EXPECT_NE(markdown.find("; at hardware = Accelerator A (A100-like), model = Tiny MLP"), std::string::npos) << markdown;
  EXPECT_EQ(markdown.find("hardware = gpu_a"), std::string::npos);
  EXPECT_NE(markdown.find("catalog entries hardware Accelerator A (A100-like) (gpu_a), model Tiny MLP"), std::string::npos);
  EXPECT_NE(markdown.find(" (tiny_mlp) (sources in the appendix)"), std::string::npos);
}

// In print a wide table is not clipped at its screen scroll box, a long table breaks between rows
// with its header repeated instead of leaving half a page blank, and a figure stays on one page with
// its caption under it.
TEST(Report, PrintStyleKeepsTablesWholeAndFiguresWithTheirCaptions) {
  const Small s = small_study();
  TempDir dir("print_css");
  const ReportInputs in{s.study, s.results, s.pareto, s.info, dir.path(), kTemplates};
  render_report(in, render_figures(in));
  const std::string html = read_file(dir.path() + "/report.html");
  const std::size_t print = html.rfind("@media print {");
  ASSERT_NE(print, std::string::npos);
  const std::string block = html.substr(print, html.find("\n  }\n", print) - print);
  for (const char* rule : {"table { display: table; overflow: visible; break-inside: auto; }",
                           "thead { display: table-header-group; }", "tr, li { break-inside: avoid; }",
                           "svg, p:has(> svg) { break-inside: avoid; }", "svg { max-height: 230mm; }",
                           "p:has(> svg) + p { break-before: avoid; }"}) {
    EXPECT_NE(block.find(rule), std::string::npos) << rule << "\n" << block;
  }
  EXPECT_EQ(block.find("table, svg, li { break-inside: avoid; }"), std::string::npos) << block;
  // The figure's paragraph is the one the caption rule names: the inline SVG sits alone in a <p>.
  EXPECT_NE(html.find("<p><svg role=\"img\""), std::string::npos);
}

TEST(Report, ComparisonsCarryVerdictsAndExplanations) {
  const Small s = small_study();
  TempDir dir("verdicts");
  const ReportInputs in{s.study, s.results, s.pareto, s.info, dir.path(), kTemplates};
  const std::string md = render_report_markdown(in, {});
  // 4 kernels x 5 us = 20.0 us, dsx agrees; the KWS utilization differs and says why; the int8
  // point is infeasible on a device without int8.
  // The metric column names the quantity in words; each value keeps its unit on its line (U+00A0).
  const std::string nbsp = "\xC2\xA0";
  EXPECT_NE(md.find("| Dispatch tax, eager, batch 1 | [1] lab_07 Act 1: kernels x launch overhead | "
                    "dispatch | 20.0" + nbsp + "\u00b5s | 20.0" + nbsp + "\u00b5s | +0.0" + nbsp + "% | agrees |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| GPU utilization | 33.3" + nbsp + "% |"), std::string::npos) << md;
  EXPECT_NE(md.find("**differs** | The tiny MLP's kernels last well under 1 us"), std::string::npos);
  EXPECT_NE(md.find("a made-up int8 claim \\| with a pipe"), std::string::npos);
  EXPECT_NE(md.find("| infeasible | n/a | **differs** | dsx finds this design point infeasible: "
                    "precision not supported by the hardware |"),
            std::string::npos);
  EXPECT_NE(md.find("1 of 3 numbers agree"), std::string::npos);
}

// Values the study wrote in its own spelling ("5 us") read in the report's units, as its computed
// numbers do; results.csv keeps the study's labels.
TEST(Report, StudySpellingsReadInTheReportsUnits) {
  const Small s = small_study();
  TempDir dir("spelling");
  const ReportInputs in{s.study, s.results, s.pareto, s.info, dir.path(), kTemplates};
  const std::string md = render_report_markdown(in, {});
  EXPECT_NE(md.find("| launch_overhead | 5\xC2\xA0\u00b5s |"), std::string::npos) << md;
  EXPECT_NE(md.find("launch_overhead = 5 \u00b5s"), std::string::npos) << md;
  EXPECT_EQ(md.find("launch_overhead = 5 us"), std::string::npos) << md;
  EXPECT_EQ(md.find("| 5 us |"), std::string::npos) << md;
}

// In report.html the comparison table's source and explanation columns have room and wrap at
// spaces (output/table_cells.hpp); the table may use the window's width.
TEST(Report, ComparisonSourcesAreProseColumnsInAWideTable) {
  const Small s = small_study();
  TempDir dir("sources");
  const ReportInputs in{s.study, s.results, s.pareto, s.info, dir.path(), kTemplates};
  const std::string md = render_report_markdown(in, {});
  const std::string html = render_report_html(in, {}, md);
  EXPECT_NE(html.find("<table class=\"wide\">\n<thead>\n<tr>\n<th>comparison</th>\n<th class=\"prose\">source</th>"),
            std::string::npos);
  EXPECT_NE(html.find("<td class=\"prose\">[1] lab_07 Act 1: kernels x launch overhead</td>"), std::string::npos);
  EXPECT_NE(html.find("td.prose, th.prose { min-width"), std::string::npos);
}

TEST(Report, HtmlIsSelfContainedWithEveryFigureInline) {
  const Small s = small_study();
  TempDir dir("html");
  const ReportInputs in{s.study, s.results, s.pareto, s.info, dir.path(), kTemplates};
  const auto figures = render_figures(in);
  ASSERT_EQ(figures.size(), 2u);
  render_report(in, figures);
  const std::string html = read_file(dir.path() + "/report.html");
  // Every http(s) reference is an SVG namespace declaration or a link the reader may follow (a
  // reference's address): nothing is loaded from outside the file.
  for (const std::string scheme : {"http://", "https://"}) {
    for (auto p = html.find(scheme); p != std::string::npos; p = html.find(scheme, p + 1)) {
      const auto tag_start = html.rfind('<', p);
      const std::string before = html.substr(tag_start, p - tag_start);
      const auto attr = before.rfind(' ');
      const std::string name = before.substr(attr + 1);
      const bool text = html.find('>', tag_start) < p;
      const bool anchor = html.compare(tag_start, 3, "<a ") == 0 && name == "href=\"";
      EXPECT_TRUE(name == "xmlns=\"" || name == "xmlns:xlink=\"" || anchor || text) << html.substr(p - 40, 100);
    }
  }
  for (const std::string banned : {"<script", "<link", "<img", "<iframe", "@import", "url(http", "<!DOCTYPE svg"}) {
    EXPECT_EQ(without_own_script(html).find(banned), std::string::npos) << banned;
  }
  std::size_t svgs = 0;
  for (auto p = html.find("<svg "); p != std::string::npos; p = html.find("<svg ", p + 1)) ++svgs;
  EXPECT_EQ(svgs, figures.size());
  for (std::size_t i = 0; i < figures.size(); ++i) {
    EXPECT_NE(html.find("aria-label=\"" + figures[i].title + "\""), std::string::npos) << figures[i].title;
    EXPECT_NE(html.find("id=\"fig" + std::to_string(i + 1) + "-gnuplot_canvas\""), std::string::npos);
  }
  EXPECT_NE(html.find("<title>Small study: a tiny MLP on one accelerator</title>"), std::string::npos);
  EXPECT_NE(html.find("<table>"), std::string::npos);
  EXPECT_NE(html.find("Tiny MLP | two layers"), std::string::npos) << "an escaped pipe renders as text";
  EXPECT_EQ(read_file(dir.path() + "/report.md"), render_report_markdown(in, figures));
}

TEST(Report, BrokenPartialIsReportedWithFileLineAndColumn) {
  const Small s = small_study();
  TempDir dir("broken");
  const std::string templates = dir.path() + "/templates";
  copy_templates(templates);
  const std::string grid = templates + "/partials/grid.mustache";
  replace_once(grid, "{{/grid.has_objectives}}", "");
  const ReportInputs in{s.study, s.results, s.pareto, s.info, dir.path(), templates};
  const std::string error = render_error(in, {});
  const std::string text = read_file(grid);
  EXPECT_NE(error.find(where_in(grid, text, "{{#grid.has_objectives}}") +
                       ": error: unclosed section \"grid.has_objectives\""),
            std::string::npos)
      << error;
}

TEST(Report, UnknownValueNamesTheClosestMatch) {
  const Small s = small_study();
  TempDir dir("unknown");
  const std::string templates = dir.path() + "/templates";
  copy_templates(templates);
  const std::string main = templates + "/report.md.mustache";
  replace_once(main, "{{title}}", "{{titel}}");
  replace_once(templates + "/partials/pareto.mustache", "{{value}}", "{{vaule}}");
  const ReportInputs in{s.study, s.results, s.pareto, s.info, dir.path(), templates};
  const std::string error = render_error(in, {});
  EXPECT_NE(error.find(where_in(main, read_file(main), "titel") +
                       ": error: unknown template value 'titel'; did you mean 'title'?"),
            std::string::npos)
      << error;
  const std::string pareto = templates + "/partials/pareto.mustache";
  EXPECT_NE(error.find(where_in(pareto, read_file(pareto), "vaule") +
                       ": error: unknown template value 'vaule'; did you mean 'value'?"),
            std::string::npos)
      << error;
}

TEST(Report, MissingPartialAndMissingTemplateAreErrors) {
  const Small s = small_study();
  TempDir dir("missing");
  const std::string templates = dir.path() + "/templates";
  copy_templates(templates);
  const std::string main = templates + "/report.md.mustache";
  replace_once(main, "{{>summary}}", "{{>sumary}}");
  ReportInputs in{s.study, s.results, s.pareto, s.info, dir.path(), templates};
  std::string error = render_error(in, {});
  EXPECT_NE(error.find(where_in(main, read_file(main), "sumary") +
                       ": error: unknown partial 'sumary'; did you mean 'summary'?"),
            std::string::npos)
      << error;
  fs::remove(templates + "/report.html.mustache");
  replace_once(main, "{{>sumary}}", "{{>summary}}");
  error = render_error(in, {});
  EXPECT_NE(error.find(templates + "/report.html.mustache"), std::string::npos) << error;
  EXPECT_FALSE(fs::exists(dir.path() + "/report.md")) << "no report is written when a template is broken";
}

// Section text is the study author's Markdown: raw HTML shows as text, and a link or image may
// point only at a relative path or an http, https or mailto URL.
TEST(Report, SectionTextCannotPlantScriptsOrScriptLinks) {
  Small s = small_study();
  s.study.sections.push_back(Section{
      "Hostile", "Before <script>alert(1)</script> after.\n\n"
                 "[x](javascript:alert(1)) [y](JaVaScRiPt:alert(2)) [z](java&#115;cript&#58;alert(3)) "
                 "<javascript:alert(4)> [d](data:text/html;base64,PHNjcmlwdD4=) ![i](vbscript:msgbox) "
                 "[f](file:///etc/passwd) [t](&#9;javascript:alert(5))\n\n"
                 "<img src=x onerror=alert(6)> <a href=\"javascript:alert(7)\">a</a>\n\n"
                 "[web](https://example.org/a?b=1&c=2) [mail](mailto:someone@example.org) "
                 "[rel](figures/latency_energy.svg) [up](../notes.md#part) [plain](http://example.org)\n"});
  TempDir dir("hostile_sections");
  const ReportInputs in{s.study, s.results, s.pareto, s.info, dir.path(), kTemplates};
  render_report(in, {});
  const std::string html = read_file(dir.path() + "/report.html");
  std::string lower = without_own_script(html);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  EXPECT_EQ(lower.find("<script"), std::string::npos) << html;
  EXPECT_NE(html.find("<img src=\"#\" alt=\"i\">"), std::string::npos) << html;
  EXPECT_EQ(lower.find("<a href=\"javascript"), std::string::npos) << html;
  for (const std::string scheme : {"javascript:", "vbscript:", "data:", "file:"}) {
    for (const std::string attr : {"href=\"", "src=\""}) {
      EXPECT_EQ(lower.find(attr + scheme), std::string::npos) << attr << scheme << "\n" << html;
    }
  }
  EXPECT_NE(html.find("Before &lt;script&gt;alert(1)&lt;/script&gt; after."), std::string::npos) << html;
  EXPECT_NE(html.find("&lt;img src=x onerror=alert(6)&gt;"), std::string::npos) << html;
  std::size_t neutralised = 0;
  for (auto p = html.find("<a href=\"#\">"); p != std::string::npos; p = html.find("<a href=\"#\">", p + 1)) ++neutralised;
  EXPECT_EQ(neutralised, 6u) << html;  // x, y, z, the autolink, d, f
  // md4c writes the decoded tab as %09, which a browser does not decode before reading a scheme: the
  // destination is a relative path.
  EXPECT_NE(html.find("<a href=\"%09javascript:alert(5)\">t</a>"), std::string::npos) << html;
  for (const std::string kept : {"<a href=\"https://example.org/a?b=1&amp;c=2\">web</a>",
                                 "<a href=\"mailto:someone@example.org\">mail</a>",
                                 "<a href=\"figures/latency_energy.svg\">rel</a>", "<a href=\"../notes.md#part\">up</a>",
                                 "<a href=\"http://example.org\">plain</a>"}) {
    EXPECT_NE(html.find(kept), std::string::npos) << kept << "\n" << html;
  }
}

std::string md_to_html(const std::string& md) {
  std::string html;
  md_html(md.data(), static_cast<MD_SIZE>(md.size()),
          [](const MD_CHAR* t, MD_SIZE n, void* out) { static_cast<std::string*>(out)->append(t, n); }, &html,
          MD_DIALECT_GITHUB, 0);
  return html;
}

TEST(Report, MarkdownEscapingKeepsTextLiteral) {
  // Each value rendered in a table cell by md4c comes back as the literal text, in one cell.
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"a|b", "a|b"},
      {"H100 <SXM>", "H100 &lt;SXM&gt;"},
      {"*bold* and _em_", "*bold* and _em_"},
      {"lab_07", "lab_07"},
      {"[link](x)", "[link](x)"},
      {"`code`", "`code`"},
      {"~60-70%", "~60-70%"},
      {"a\\b", "a\\b"},
      {"Study & Results &amp;", "Study &amp; Results &amp;amp;"},
      {"two\nlines", "two lines"},
  };
  for (const auto& [value, html_text] : cases) {
    const std::string md = "| h |\n|---|\n| " + markdown_escape(value) + " |\n";
    const std::string html = md_to_html(md);
    EXPECT_NE(html.find("<td>" + html_text + "</td>"), std::string::npos) << value << " -> " << html;
    if (value.find('&') == std::string::npos) {
      EXPECT_EQ(markdown_escape(value).find('&'), std::string::npos) << "no HTML entities in Markdown";
    }
  }
  // Values that would start a block at the start of a line stay a paragraph.
  for (const std::string value : {"# not a heading", "- not a list", "1. not a list", "> not a quote", "---"}) {
    EXPECT_EQ(md_to_html(markdown_escape(value) + "\n"), "<p>" + html_escape(value) + "</p>\n") << value;
  }
  EXPECT_EQ(html_escape("<a href=\"x\">&'</a>"), "&lt;a href=&quot;x&quot;&gt;&amp;&#39;&lt;/a&gt;");
}

// The trust model (output/report.hpp): a report forbids scripts, the study's own template included,
// unless the person running dsx trusts the study's HTML.
TEST(Report, HtmlCarriesAPolicyThatForbidsScriptsEvenFromAStudysTemplate) {
  Small s = small_study();
  s.study.sections.push_back(Section{"Raw", "Text with <b>bold</b> markup.\n"});
  TempDir dir("csp");
  const std::string templates = dir.path() + "/templates";
  copy_templates(templates);
  replace_once(templates + "/report.html.mustache", "</body>", "<script>alert(1)</script></body>");
  ReportInputs in{s.study, s.results, s.pareto, s.info, dir.path(), templates};
  render_report(in, {});
  std::string html = read_file(dir.path() + "/report.html");
  const std::string policy = "<head>\n<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; ";
  EXPECT_NE(html.find(policy), std::string::npos) << html.substr(0, 400);
  EXPECT_NE(html.find("Text with &lt;b&gt;bold&lt;/b&gt; markup."), std::string::npos);

  in.trust_study_html = true;
  render_report(in, {});
  html = read_file(dir.path() + "/report.html");
  EXPECT_EQ(html.find("Content-Security-Policy"), std::string::npos);
  EXPECT_NE(html.find("Text with <b>bold</b> markup."), std::string::npos);
}

// The policy allows exactly the script the page carries: its hash is the SHA-256 of the text
// between <script> and </script> as the page holds it (the browser test runs it under the policy).
TEST(Report, ThePolicyAllowsTheSortableTablesScriptByItsHash) {
  // FIPS 180-2 appendix B.1: SHA-256("abc") = ba7816bf 8f01cfea ..., in base64.
  EXPECT_EQ(csp_script_hash_source("abc"), "'sha256-ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0='");
  EXPECT_EQ(csp_script_hash_source(""), "'sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU='");
  const Small s = small_study();
  TempDir dir("script_hash");
  render_report(ReportInputs{s.study, s.results, s.pareto, s.info, dir.path(), kTemplates}, {});
  const std::string html = read_file(dir.path() + "/report.html");
  const std::size_t open = html.find("<script>"), close = html.find("</script>", open);
  ASSERT_NE(close, std::string::npos) << html;
  const std::string script = html.substr(open + 8, close - open - 8);
  const std::string policy = "script-src " + csp_script_hash_source(script) + ";";
  EXPECT_NE(html.find(policy), std::string::npos) << html.substr(0, 600);
  const std::string csp = report_content_security_policy();
  const std::size_t directive = csp.find("script-src ");
  ASSERT_NE(directive, std::string::npos) << csp;
  EXPECT_EQ(csp.substr(directive, csp.find(';', directive) - directive), "script-src " + csp_script_hash_source(script))
      << "one script, by its hash, and nothing else";
}

TEST(Report, ThePolicyGoesFirstInTheHeadWhateverTheTemplateLooksLike) {
  EXPECT_EQ(with_content_security_policy("<html><HEAD lang=x><title>t</title>").find("<HEAD lang=x>\n<meta http-equiv"),
            6u);
  const std::string headless = with_content_security_policy("<header>x</header><script>1</script>");
  EXPECT_EQ(headless.rfind("<meta http-equiv=\"Content-Security-Policy\"", 0), 0u) << headless;
}

TEST(Report, ATemplateOrPartialThatIsALinkIsRefused) {
  const Small s = small_study();
  TempDir dir("template_links");
  const std::string templates = dir.path() + "/templates";
  copy_templates(templates);
  std::ofstream(dir.path() + "/secret.txt") << "secret";
  const ReportInputs in{s.study, s.results, s.pareto, s.info, dir.path() + "/out", templates};
  fs::create_directories(dir.path() + "/out");

  fs::remove(templates + "/partials/summary.mustache");
  fs::create_symlink(dir.path() + "/secret.txt", templates + "/partials/summary.mustache");
  std::string error = render_error(in, {});
  EXPECT_NE(error.find(templates + "/partials/summary.mustache: error: a symbolic link or not a file; dsx reads it "
                                   "only from inside " + templates + ", never through a link"),
            std::string::npos)
      << error;

  fs::remove(templates + "/report.md.mustache");
  fs::create_symlink(dir.path() + "/secret.txt", templates + "/report.md.mustache");
  error = render_error(in, {});
  EXPECT_NE(error.find(templates + "/report.md.mustache: error: a symbolic link"), std::string::npos) << error;

  fs::rename(templates + "/partials", dir.path() + "/partials");
  fs::create_directory_symlink(dir.path() + "/partials", templates + "/partials");
  fs::copy_file(kTemplates + "/report.md.mustache", templates + "/report.md.mustache.real");
  fs::remove(templates + "/report.md.mustache");
  fs::rename(templates + "/report.md.mustache.real", templates + "/report.md.mustache");
  error = render_error(in, {});
  EXPECT_NE(error.find(templates + "/partials: error: a symbolic link"), std::string::npos) << error;
  EXPECT_FALSE(fs::exists(dir.path() + "/out/report.md"));
}

TEST(Report, FiguresAreNumberedInReadingOrder) {
  const std::string md =
      "## Fronts\n\n![](figures/a.svg)\n\n*Figure 6.* Fronts, as Figure 2 shows too.\n\n"
      "## Figures\n\n### Figure 1: One\n\n*Figure 1.* First.\n\n### Figure 2: Two\n\n*Figure 2.* See Figure 6.\n\n"
      "Figure 12 is no figure of this report.\n";
  EXPECT_EQ(number_figures_in_reading_order(md),
            "## Fronts\n\n![](figures/a.svg)\n\n*Figure 1.* Fronts, as Figure 3 shows too.\n\n"
            "## Figures\n\n### Figure 2: One\n\n*Figure 2.* First.\n\n### Figure 3: Two\n\n*Figure 3.* See Figure 1.\n\n"
            "Figure 12 is no figure of this report.\n");
}

}  // namespace
}  // namespace dsx
