// {{value.NAME}} in the reports of the shipped studies that cite values: each cited value is the number
// results.csv holds for the design point its values: entry selects, rounded as the report prints it; an
// infeasible point cites its status word. Read back from the report and the CSV of a real run, every
// study under studies/ that has a values: block; a printed unit is turned back into the CSV's SI unit by
// the inverse of the report's own formatter (output/format.hpp printed_unit_factor).
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "dse/study.hpp"
#include "dse/study_references.hpp"
#include "output/analysis_text.hpp"
#include "output/format.hpp"
#include "tests/cli/report_agreement.hpp"
#include "tests/test_files.hpp"

namespace dsx {
namespace {

namespace fs = std::filesystem;

const std::string kCatalog = DSX_SOURCE_DIR "/studies/catalog";

int run_dsx(const std::string& args) {
  const std::string command = std::string("cd '") + DSX_SOURCE_DIR + "' && '" + DSX_BINARY + "' " + args + " >/dev/null 2>&1";
  const int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// What the report printed for each {{...}} of `text`: the literal pieces between the references are
// found in order in the report, and what lies between two of them is the printed value. Each piece is
// found by its first and its last characters, since the report renumbers the figures the prose names.
std::map<std::string, std::string> printed_references(const std::string& text, const std::string& report) {
  std::map<std::string, std::string> out;
  const std::vector<TextReference> refs = find_text_references(text);
  if (refs.empty()) return out;
  std::vector<std::string> pieces;
  std::size_t at = 0;
  for (const TextReference& r : refs) {
    pieces.push_back(text.substr(at, r.offset - at));
    at = r.offset + r.length;
  }
  pieces.push_back(text.substr(at));
  const auto tail = [](const std::string& p) { return p.substr(p.size() - std::min<std::size_t>(p.size(), 16)); };
  std::size_t pos = report.find(tail(pieces[0]));
  EXPECT_NE(pos, std::string::npos) << pieces[0];
  if (pos == std::string::npos) return out;
  pos += tail(pieces[0]).size();
  for (std::size_t i = 0; i < refs.size(); ++i) {
    const std::string& next = pieces[i + 1];
    const std::string head = next.substr(0, std::min<std::size_t>(next.size(), 12));
    const std::size_t end = next.empty() ? report.find('\n', pos) : report.find(head, pos);
    EXPECT_NE(end, std::string::npos) << next;
    if (end == std::string::npos) return out;
    out[refs[i].key] = report.substr(pos, end - pos);
    if (next.empty()) break;
    pos = report.find(tail(next), end);
    EXPECT_NE(pos, std::string::npos) << next;
    if (pos == std::string::npos) return out;
    pos += tail(next).size();
  }
  return out;
}

// Why `printed` is not `expected` (the CSV's SI value) to the digits it shows, read in the unit the
// report's formatter chose for `display`; empty when it is.
std::string misprint(const std::string& printed, double expected, const QuantityDisplay& display) {
  const auto p = agreement::parse_printed(printed, /*unscaled=*/true);
  if (!p) return "'" + printed + "' is not a number";
  const std::optional<double> factor = printed_unit_factor(p->unit, display);
  if (!factor) return "'" + printed + "': the report prints no '" + p->unit + "' for a " + display.label;
  if (std::fabs(p->value * *factor - expected) > p->half_step * *factor * (1 + 1e-9)) {
    return "'" + printed + "' is not " + format_exact(expected) + " to the digits printed";
  }
  return {};
}

// A ratio (a values: entry with over:) reads as a plain number.
const QuantityDisplay kRatio = describe_quantity("ratio", Dimension::dimensionless);

// The metric in results.csv at the one feasible row `where` selects (a failed check where not).
double csv_value(const agreement::CsvFile& csv, const std::vector<Selector>& where, const std::string& metric) {
  std::vector<std::size_t> rows;
  for (std::size_t r = 0; r < csv.rows.size(); ++r) {
    bool all = true;
    for (const Selector& sel : where) all = all && csv.at(r, sel.param) == sel.label;
    if (all) rows.push_back(r);
  }
  EXPECT_EQ(rows.size(), 1u);
  if (rows.size() != 1) return std::nan("");
  EXPECT_EQ(csv.at(rows.front(), "status"), "ok");
  return std::stod(csv.at(rows.front(), metric));
}

// The report and results.csv of a study written in a test, run against the shipped catalog; nothing
// when dsx fails.
struct WrittenRun {
  std::string report;
  agreement::CsvFile csv;
};
std::optional<WrittenRun> run_written(const TempDir& dir, const fs::path& study_file) {
  const fs::path out = fs::path(dir.path()) / "run";
  if (run_dsx("run '" + study_file.string() + "' --catalog '" + kCatalog + "' --quiet --out '" + out.string() + "'") != 0) {
    return std::nullopt;
  }
  return WrittenRun{read_text(out / "report.md"), agreement::read_csv(out / "results.csv")};
}

// The shipped studies whose file has a top-level values: block.
std::vector<std::string> studies_citing_values() {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(fs::path(DSX_SOURCE_DIR) / "studies")) {
    if (e.path().extension() != ".yaml") continue;
    const std::string text = read_text(e.path());
    if (text.rfind("values:", 0) == 0 || text.find("\nvalues:") != std::string::npos) {
      names.push_back(e.path().stem().string());
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

class ShippedCitations : public ::testing::TestWithParam<std::string> {};

TEST_P(ShippedCitations, EachCitedValueIsResultsCsvs) {
  TempDir dir("cited_values");
  const fs::path study_file = fs::path(DSX_SOURCE_DIR) / "studies" / (GetParam() + ".yaml");
  const fs::path out = fs::path(dir.path()) / "run";
  ASSERT_EQ(run_dsx("run '" + study_file.string() + "' --quiet --out '" + out.string() + "'"), 0);
  Diagnostics d;
  const auto study = load_study(study_file.string(), kCatalog, d);
  ASSERT_TRUE(study) << d.format();
  ASSERT_FALSE(study->values.empty()) << "its values: block names no value";
  const std::string report = read_text(out / "report.md");
  const agreement::CsvFile csv = agreement::read_csv(out / "results.csv");
  ASSERT_FALSE(csv.rows.empty());
  std::map<std::string, std::string> printed;
  for (const Section& s : study->sections) printed.merge(printed_references(s.text, report));
  for (const CitedValue& v : study->values) {
    SCOPED_TRACE(v.name);
    ASSERT_EQ(printed.count("value." + v.name), 1u) << "every value is cited in the sections";
    ASSERT_TRUE(csv.has(v.metric)) << v.metric;
    for (const Selector& sel : v.where) ASSERT_TRUE(csv.has(sel.param)) << sel.param;
    for (const Selector& sel : v.over) ASSERT_TRUE(csv.has(sel.param)) << sel.param;
    const double expected = csv_value(csv, v.where, v.metric);
    if (v.over.empty()) {
      EXPECT_EQ(misprint(printed["value." + v.name], expected, analysis_text::metric_display(*study, v.metric)), "");
    } else {
      EXPECT_EQ(misprint(printed["value." + v.name], expected / csv_value(csv, v.over, v.metric), kRatio), "");
    }
  }
}

INSTANTIATE_TEST_SUITE_P(CitedValues, ShippedCitations, ::testing::ValuesIn(studies_citing_values()),
                         [](const auto& info) { return info.param; });

// The check reads every unit the formatter prints, prefixed ones included, and catches a value
// misprinted in one: a wrong digit, a wrong prefix or a unit the metric is never shown in.
TEST(CitedValues, AMisprintedPrefixedValueIsCaught) {
  const QuantityDisplay memory = describe_quantity("memory_bytes", Dimension::bytes);
  const QuantityDisplay energy = describe_quantity("energy_per_token_j", Dimension::energy);
  const QuantityDisplay cost = describe_quantity("total_cost_usd", Dimension::money);
  const QuantityDisplay latency = describe_quantity("latency_s", Dimension::time);
  const double gib80 = 80.0 * 1024 * 1024 * 1024;
  // What the formatter prints reads back as the value it printed.
  for (const auto& [value, display] : std::vector<std::pair<double, QuantityDisplay>>{
           {gib80, memory}, {40e9, memory}, {0.0123, energy}, {25000, cost}, {1.16e6, cost}, {15e-6, latency},
           {0.0574, latency}, {17.5e6, latency}}) {
    EXPECT_EQ(misprint(format_quantity(value, display), value, display), "") << format_quantity(value, display);
  }
  EXPECT_EQ(format_quantity(gib80, memory), "80.0 GiB");
  EXPECT_EQ(format_quantity(0.0123, energy), "12.3 mJ");
  EXPECT_EQ(format_quantity(25000, cost), "25.0 k USD");
  // A digit, a prefix or a unit wrong.
  EXPECT_NE(misprint("80.1 GiB", gib80, memory), "");
  EXPECT_NE(misprint("80.0 GB", gib80, memory), "");   // 80e9 B is 74.5 GiB
  EXPECT_NE(misprint("12.4 mJ", 0.0123, energy), "");
  EXPECT_NE(misprint("12.3 \u00b5J", 0.0123, energy), "");
  EXPECT_NE(misprint("12.3 kJ", 0.0123, energy), "");
  EXPECT_NE(misprint("25.0 M USD", 25000, cost), "");
  EXPECT_NE(misprint("26.0 k USD", 25000, cost), "");
  EXPECT_NE(misprint("57.4 \u00b5s", 0.0574, latency), "");
  EXPECT_NE(misprint("12.3 mW", 0.0123, energy), "") << "a unit the metric is never printed in";
  EXPECT_NE(misprint("203 h", 17.5e6, latency), "");
  EXPECT_EQ(misprint("203 days", 17.5e6, latency), "");
}

// A value at a point the solver finds infeasible cites the status word results.csv gives it; a figure's
// caption cites a value as a section does.
TEST(CitedValues, AnInfeasiblePointCitesItsStatus) {
  TempDir dir("cited_status");
  const fs::path study_file = fs::path(dir.path()) / "s.yaml";
  write_text(study_file,
             "study: s\ntitle: T\nquestion: Q?\nsolver: serving\ncalibration: none\n"
             "axes:\n  tp: [1, 4]\n"
             "fixed: {hardware: h100_sxm, model: llama3_70b, precision: fp16, batch: 16}\n"
             "values:\n"
             "  - {name: one_gpu, metric: tokens_per_s_per_gpu, where: {tp: 1}}\n"
             "  - {name: four_gpus, metric: tokens_per_s_per_gpu, where: {tp: 4}}\n"
             "sections:\n  - title: S\n    text: \"One GPU: {{value.one_gpu}}; four: {{value.four_gpus}}.\"\n"
             "figures:\n  - {name: per_gpu, kind: bars, title: Per GPU, x: tp, y: tokens_per_s_per_gpu,\n"
             "     caption: \"Four GPUs serve {{value.four_gpus}} each.\"}\n");
  const std::optional<WrittenRun> run = run_written(dir, study_file);
  ASSERT_TRUE(run);
  const std::string& report = run->report;
  const agreement::CsvFile& csv = run->csv;
  ASSERT_EQ(csv.rows.size(), 2u);
  ASSERT_TRUE(csv.has("status"));
  const std::size_t one = csv.at(0, "tp") == "1" ? 0 : 1;
  ASSERT_NE(csv.at(one, "status"), "ok") << "70B fp16 weights do not fit one H100";
  const auto printed = printed_references("One GPU: {{value.one_gpu}}; four: {{value.four_gpus}}.", report);
  EXPECT_EQ(printed.at("value.one_gpu"), csv.at(one, "status"));
  EXPECT_TRUE(agreement::parse_printed(printed.at("value.four_gpus"))) << printed.at("value.four_gpus");
  // Captions cite as sections do.
  EXPECT_EQ(printed_references("Four GPUs serve {{value.four_gpus}} each.", report).at("value.four_gpus"),
            printed.at("value.four_gpus"));
}

// A values: entry with over: cites the ratio of its metric at two points, read from the CSV: a
// batch of 32 against one of 8 on the same replica; a denominator that selects several points is an
// error at over:.
TEST(CitedValues, ARatioIsTheCsvsRatio) {
  TempDir dir("cited_ratio");
  const fs::path study_file = fs::path(dir.path()) / "s.yaml";
  const std::string head =
      "study: s\ntitle: T\nquestion: Q?\nsolver: serving\ncalibration: none\n"
      "axes:\n  batch: [8, 32]\n  precision: [fp8, fp16]\n"
      "fixed: {hardware: h100_sxm, model: llama3_70b, tp: 4}\n";
  write_text(study_file, head +
                             "values:\n"
                             "  - {name: gain, metric: tokens_per_s_per_gpu, where: {batch: 32, precision: fp8},\n"
                             "     over: {batch: 8, precision: fp8}}\n"
                             "sections:\n  - title: S\n    text: \"Batch 32 serves {{value.gain}} times batch 8's tokens.\"\n");
  const std::optional<WrittenRun> run = run_written(dir, study_file);
  ASSERT_TRUE(run);
  const std::string& report = run->report;
  const agreement::CsvFile& csv = run->csv;
  const std::string printed =
      printed_references("Batch 32 serves {{value.gain}} times batch 8's tokens.", report).at("value.gain");
  const double ratio = csv_value(csv, {{"batch", "32"}, {"precision", "fp8"}}, "tokens_per_s_per_gpu") /
                       csv_value(csv, {{"batch", "8"}, {"precision", "fp8"}}, "tokens_per_s_per_gpu");
  EXPECT_GT(ratio, 1.5) << "a larger batch serves more tokens per GPU";
  EXPECT_EQ(misprint(printed, ratio, kRatio), "") << printed;
  EXPECT_EQ(printed, format_grouped(ratio));
  EXPECT_NE(misprint(printed, ratio * 1.01, kRatio), "");

  write_text(study_file, head +
                             "values:\n"
                             "  - {name: gain, metric: tokens_per_s_per_gpu, where: {batch: 32, precision: fp8},\n"
                             "     over: {batch: 8}}\n"
                             "sections:\n  - title: S\n    text: \"{{value.gain}}\"\n");
  Diagnostics d;
  EXPECT_FALSE(load_study(study_file.string(), kCatalog, d));
  EXPECT_NE(d.format().find("values[0].over: a ratio's denominator selects one design point; also give a value for: precision"),
            std::string::npos)
      << d.format();
}

}  // namespace
}  // namespace dsx
