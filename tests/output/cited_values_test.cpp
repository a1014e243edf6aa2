// {{value.NAME}} in the reports of the shipped studies that cite values: each cited value is the row
// of values.csv the run wrote (dse/analysis/cited_values.hpp), to the digits the report prints, and
// values.csv holds what results.csv gives the design points its values: entry selects (a ratio, a
// difference, a percentage or an aggregate recomputed here from the CSV); an infeasible point cites
// its status word. Read back from the report and the CSVs of a real run, every study under studies/
// that has a values: block; a printed unit is turned back into the CSV's SI unit by the inverse of the
// report's own formatter (output/format.hpp printed_unit_factor).
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "dse/analysis/analysed_run.hpp"
#include "dse/store.hpp"
#include "dse/study.hpp"
#include "dse/study_references.hpp"
#include "output/analysis_text.hpp"
#include "output/cited_value.hpp"
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

// A ratio (a values: entry with over:) reads as a plain number; a value with as: percent... in percent.
const QuantityDisplay kRatio = describe_quantity("ratio", Dimension::dimensionless);
const QuantityDisplay kPercent = describe_quantity("change_fraction", Dimension::dimensionless);

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

// A cell of results.csv as a number; NaN where it is empty or not one (an infeasible row's metric).
double csv_number(const agreement::CsvFile& csv, std::size_t row, const std::string& column) {
  const std::string& cell = csv.at(row, column);
  try {
    std::size_t used = 0;
    const double x = std::stod(cell, &used);
    return used == cell.size() ? x : std::nan("");
  } catch (const std::exception&) {
    return std::nan("");
  }
}

// The rows the study's filters keep (`when: filters`), as each row's axis labels: read back from the
// run's store through the analysis the report runs (the filters themselves are tested in tests/dse).
struct FilterKept {
  std::vector<std::string> axes;
  std::set<std::vector<std::string>> rows;
  bool keeps(const agreement::CsvFile& csv, std::size_t r) const {
    std::vector<std::string> labels;
    for (const std::string& a : axes) labels.push_back(csv.at(r, a));
    return rows.count(labels) > 0;
  }
};
FilterKept filter_kept(const ResolvedStudy& study, const fs::path& run) {
  ResultStore store(result_store_path(run.string()), StoreMode::read_only);
  const AnalysedRun analysed = analyse_run(study, read_report_rows(study, store));
  const ResultTable& shown = analysed.shown();
  FilterKept out{shown.axis_names, {}};
  for (std::size_t r = 0; r < shown.rows(); ++r) {
    std::vector<std::string> labels;
    for (std::size_t a = 0; a < shown.axis_names.size(); ++a) labels.push_back(shown.label(r, a));
    out.rows.insert(std::move(labels));
  }
  return out;
}

// Whether a row of results.csv is one a count:, min:, max: or sum: entry reads: its where: selects it
// and it meets each when: condition, read from the CSV's status and metric columns (`filters`: the
// rows `kept` holds).
bool csv_reads(const agreement::CsvFile& csv, std::size_t r, const CitedValue& v, const FilterKept& kept) {
  for (const Selector& sel : v.where) {
    if (csv.at(r, sel.param) != sel.label) return false;
  }
  for (const CitedCondition& c : v.when) {
    const std::string& status = csv.at(r, "status");
    switch (c.kind) {
      case CitedCondition::Kind::feasible: if (status != "ok") return false; break;
      case CitedCondition::Kind::infeasible: if (status != "infeasible") return false; break;
      case CitedCondition::Kind::error: if (status != "error") return false; break;
      case CitedCondition::Kind::filters: if (!kept.keeps(csv, r)) return false; break;
      case CitedCondition::Kind::compare: {
        const double x = csv_number(csv, r, c.metric);
        if (status != "ok" || std::isnan(x)) return false;
        const bool holds = c.op == CitedCondition::Op::less            ? x < c.threshold
                           : c.op == CitedCondition::Op::less_equal    ? x <= c.threshold
                           : c.op == CitedCondition::Op::greater       ? x > c.threshold
                                                                       : x >= c.threshold;
        if (!holds) return false;
        break;
      }
    }
  }
  return true;
}

// What a count:, min:, max: or sum: entry cites, recomputed from results.csv; NaN where no row has the metric.
double csv_aggregate(const agreement::CsvFile& csv, const CitedValue& v, const FilterKept& kept) {
  std::set<std::string> distinct;
  double count = 0, total = 0, lowest = HUGE_VAL, highest = -HUGE_VAL;
  for (std::size_t r = 0; r < csv.rows.size(); ++r) {
    if (!csv_reads(csv, r, v, kept)) continue;
    if (v.aggregate == CitedAggregate::count) {
      if (v.count_of != "rows") distinct.insert(csv.at(r, v.count_of));
      ++count;
      continue;
    }
    const double x = csv_number(csv, r, v.metric);
    if (csv.at(r, "status") != "ok" || std::isnan(x)) continue;
    ++count;
    total += x;
    lowest = std::min(lowest, x);
    highest = std::max(highest, x);
  }
  if (v.aggregate == CitedAggregate::count) return v.count_of == "rows" ? count : static_cast<double>(distinct.size());
  if (count == 0) return std::nan("");
  return v.aggregate == CitedAggregate::min ? lowest : v.aggregate == CitedAggregate::max ? highest : total;
}

// What results.csv gives a values: entry, recomputed here: one point's metric, a ratio, a
// difference, a relative change in percent, or an aggregate (NaN where no row has the metric).
double csv_expected(const agreement::CsvFile& csv, const FilterKept& kept, const CitedValue& v) {
  if (v.aggregate != CitedAggregate::none) return csv_aggregate(csv, v, kept);
  const double a = csv_value(csv, v.where, v.metric);
  if (v.over.empty() && v.minus.empty()) return a;
  const double b = csv_value(csv, v.over.empty() ? v.minus : v.over, v.metric);
  switch (v.as) {
    case CitedAs::percent: return (a - b) / std::fabs(b) * 100;
    case CitedAs::percent_less: return (b - a) / std::fabs(b) * 100;
    case CitedAs::percent_of: return a / b * 100;
    case CitedAs::metric: break;
  }
  return v.over.empty() ? a - b : a / b;
}

// The rows of results.csv a values: entry reads: 1 for a point, 2 for two, or those an aggregate reads.
std::size_t csv_rows_read(const agreement::CsvFile& csv, const FilterKept& kept, const CitedValue& v) {
  if (v.aggregate == CitedAggregate::none) return v.over.empty() && v.minus.empty() ? 1 : 2;
  std::size_t n = 0;
  for (std::size_t r = 0; r < csv.rows.size(); ++r) n += csv_reads(csv, r, v, kept) ? 1 : 0;
  return n;
}

// The row of values.csv named `name`; a failed check where there is none.
std::vector<std::string> values_row(const agreement::CsvFile& values, const std::string& name) {
  for (const auto& row : values.rows) {
    if (row[values.column("name")] == name) return row;
  }
  ADD_FAILURE() << "values.csv has no row " << name;
  return std::vector<std::string>(values.header.size());
}

// Why values.csv's row for `v` is not what results.csv gives it; empty when it is.
std::string stored_misvalue(const agreement::CsvFile& csv, const agreement::CsvFile& values, const FilterKept& kept,
                            const CitedValue& v) {
  const std::vector<std::string> row = values_row(values, v.name);
  const std::string& cell = row[values.column("value")];
  const std::string& kind = row[values.column("kind")];
  const std::string want_kind = v.aggregate == CitedAggregate::count ? "count"
                                : v.aggregate == CitedAggregate::min ? "min"
                                : v.aggregate == CitedAggregate::max ? "max"
                                : v.aggregate == CitedAggregate::sum ? "sum"
                                : !v.over.empty()                   ? "ratio"
                                : !v.minus.empty()                  ? "minus"
                                                                     : "point";
  if (kind != want_kind) return "kind '" + kind + "', not '" + want_kind + "'";
  if (row[values.column("unit")] == "%" && v.as == CitedAs::metric) return "a percentage the entry does not ask for";
  const std::string rows = std::to_string(csv_rows_read(csv, kept, v));
  if (row[values.column("rows")] != rows) return "reads " + row[values.column("rows")] + " rows, results.csv " + rows;
  const double expected = csv_expected(csv, kept, v);
  if (std::isnan(expected)) return cell.empty() && row[values.column("status")] == "n/a" ? "" : "'" + cell + "' where no row has it";
  if (cell.empty()) return "no value where results.csv gives " + format_exact(expected);
  const double stored = std::stod(cell);
  return std::fabs(stored - expected) <= 1e-12 * std::fabs(expected) ? "" : cell + " is not " + format_exact(expected);
}

// Why the text printed for `v` is not values.csv's row for it, to the digits printed; empty when it is.
std::string cited_misprint(const ResolvedStudy& study, const agreement::CsvFile& values, const CitedValue& v,
                           const std::string& printed) {
  const std::vector<std::string> row = values_row(values, v.name);
  const std::string& status = row[values.column("status")];
  if (status != "ok") return printed == status ? "" : "'" + printed + "' where values.csv says " + status;
  const double stored = std::stod(row[values.column("value")]);
  if (v.aggregate == CitedAggregate::count) {
    const std::string words = count_in_words(static_cast<std::uint64_t>(stored));
    if (printed == format_grouped(stored)) return {};
    if (!words.empty() && printed.size() == words.size() && printed.substr(1) == words.substr(1) &&
        printed.front() == words.front() - 'a' + 'A') {
      return {};
    }
    return "'" + printed + "' is not the count " + format_grouped(stored);
  }
  if (v.as != CitedAs::metric) return misprint(printed, stored / 100, kPercent);
  if (!v.over.empty()) return misprint(printed, stored, kRatio);
  return misprint(printed, stored, analysis_text::metric_display(study, v.metric));
}

// The report and results.csv of a study written in a test, run against the shipped catalog; nothing
// when dsx fails.
struct WrittenRun {
  std::string report;
  agreement::CsvFile csv;
  agreement::CsvFile values;
  std::string stderr_text;
};
std::optional<WrittenRun> run_written(const TempDir& dir, const fs::path& study_file) {
  const fs::path out = fs::path(dir.path()) / "run";
  const fs::path err = fs::path(dir.path()) / "stderr.txt";
  const std::string command = std::string("cd '") + DSX_SOURCE_DIR + "' && '" + DSX_BINARY + "' run '" + study_file.string() +
                              "' --catalog '" + kCatalog + "' --quiet --out '" + out.string() + "' >/dev/null 2>'" +
                              err.string() + "'";
  const int status = std::system(command.c_str());
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return std::nullopt;
  return WrittenRun{read_text(out / "report.md"), agreement::read_csv(out / "results.csv"),
                    fs::exists(out / "values.csv") ? agreement::read_csv(out / "values.csv") : agreement::CsvFile{},
                    read_text(err)};
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
  const agreement::CsvFile values = agreement::read_csv(out / "values.csv");
  ASSERT_EQ(values.header, (std::vector<std::string>{"name", "kind", "value", "unit", "rows", "status"}));
  ASSERT_EQ(values.rows.size(), study->values.size());
  std::map<std::string, std::string> printed;
  for (const Section& s : study->sections) printed.merge(printed_references(s.text, report));
  const FilterKept kept = filter_kept(*study, out);
  for (const CitedValue& v : study->values) {
    SCOPED_TRACE(v.name);
    ASSERT_EQ(printed.count("value." + v.name), 1u) << "every value is cited in the sections";
    if (v.aggregate == CitedAggregate::count) {
      if (v.count_of != "rows") {
        ASSERT_TRUE(csv.has(v.count_of)) << v.count_of;
      }
    } else {
      ASSERT_TRUE(csv.has(v.metric)) << v.metric;
    }
    for (const std::vector<Selector>* where : {&v.where, &v.over, &v.minus}) {
      for (const Selector& sel : *where) ASSERT_TRUE(csv.has(sel.param)) << sel.param;
    }
    for (const CitedCondition& c : v.when) {
      if (!c.metric.empty()) {
        ASSERT_TRUE(csv.has(c.metric)) << c.metric;
      }
    }
    EXPECT_EQ(stored_misvalue(csv, values, kept, v), "");
    EXPECT_EQ(cited_misprint(*study, values, v, printed["value." + v.name]), "");
  }
  EXPECT_EQ(report.find("**Warning.**"), std::string::npos) << "a shipped study's values all read rows";
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

// count:, min:, max:, sum: and minus: cite what results.csv gives: a serving replica of Llama-3-70B in
// fp16 on 1 to 8 H100s at two batches. `when: filters` counts the
// rows the study's filter keeps, the same rows as the filter's own condition written as a when:.
TEST(CitedValues, AggregatesAreTheCsvs) {
  TempDir dir("cited_aggregates");
  const fs::path study_file = fs::path(dir.path()) / "s.yaml";
  const std::string text =
      "study: s\ntitle: T\nquestion: Q?\nsolver: serving\ncalibration: none\n"
      "axes:\n  tp: [1, 2, 4, 8]\n  batch: [8, 64]\n"
      "fixed: {hardware: h100_sxm, model: llama3_70b, precision: fp16}\n"
      "filters:\n  - {name: quick, expr: \"itl_s <= 0.03\"}\n"
      "values:\n"
      "  - {name: rows, count: rows}\n"
      "  - {name: layouts, count: tp, when: feasible}\n"
      "  - {name: infeasible, count: rows, when: infeasible}\n"
      "  - {name: quick, count: rows, when: filters}\n"
      "  - {name: quick_too, count: rows, when: \"itl_s <= 30 ms\"}\n"
      "  - {name: fastest, min: itl_s, where: {batch: 64}}\n"
      "  - {name: slowest, max: itl_s, where: {batch: 64}, when: \"tokens_per_s > 0 tokens/s\"}\n"
      "  - {name: total, sum: tokens_per_s, where: {batch: 8}}\n"
      "  - {name: saved, metric: itl_s, where: {tp: 2, batch: 8}, minus: {tp: 8, batch: 8}}\n"
      "  - {name: lost, metric: itl_s, where: {tp: 8, batch: 8}, minus: {tp: 2, batch: 8}}\n"
      "sections:\n  - title: S\n    text: \"Cited here: rows {{value.rows}}; layouts {{value.layouts}}; infeasible {{value.infeasible}}; "
      "quick {{value.quick}}; quick too {{value.quick_too}}; fastest {{value.fastest}}; slowest {{value.slowest}}; "
      "total {{value.total}}; saved {{value.saved}}; lost {{value.lost}} per token.\"\n";
  write_text(study_file, text);
  const std::optional<WrittenRun> run = run_written(dir, study_file);
  ASSERT_TRUE(run);
  const agreement::CsvFile& csv = run->csv;
  ASSERT_EQ(csv.rows.size(), 8u);
  Diagnostics d;
  const auto study = load_study(study_file.string(), kCatalog, d);
  ASSERT_TRUE(study) << d.format();
  const std::size_t section_at = text.find("Cited here: rows {{");
  const auto printed = printed_references(text.substr(section_at, text.rfind('"') - section_at), run->report);
  const FilterKept kept = filter_kept(*study, fs::path(dir.path()) / "run");
  for (const CitedValue& v : study->values) {
    SCOPED_TRACE(v.name);
    ASSERT_EQ(printed.count("value." + v.name), 1u);
    EXPECT_EQ(stored_misvalue(csv, run->values, kept, v), "");
    EXPECT_EQ(cited_misprint(*study, run->values, v, printed.at("value." + v.name)), "");
  }
  // Read here without the study: 8 rows; one GPU too small for 140 GB of weights at both batches, two
  // for the weights and 64 sequences' KV caches.
  EXPECT_EQ(printed.at("value.rows"), "8");
  EXPECT_EQ(printed.at("value.infeasible"), "3");
  EXPECT_EQ(printed.at("value.layouts"), "3");
  EXPECT_EQ(printed.at("value.quick"), printed.at("value.quick_too"));
  EXPECT_NE(printed.at("value.fastest"), printed.at("value.slowest"));
  // The difference is signed: the larger replica is faster per token.
  EXPECT_EQ(printed.at("value.lost").front(), '-') << printed.at("value.lost");
  EXPECT_EQ(printed.at("value.lost").substr(1), printed.at("value.saved"));
  // A wrong count or minimum is caught.
  const CitedValue& layouts = study->values[1];
  EXPECT_NE(cited_misprint(*study, run->values, layouts, "4"), "");
  const CitedValue& fastest = study->values[5];
  EXPECT_NE(cited_misprint(*study, run->values, fastest, printed.at("value.slowest")), "");
  // values.csv that disagreed with results.csv would be caught.
  agreement::CsvFile wrong = run->values;
  for (auto& row : wrong.rows) {
    if (row[wrong.column("name")] == "total") row[wrong.column("value")] = format_exact(1.001 * std::stod(row[wrong.column("value")]));
    if (row[wrong.column("name")] == "rows") row[wrong.column("rows")] = "7";
  }
  EXPECT_NE(stored_misvalue(csv, wrong, kept, study->values[7]), "");
  EXPECT_NE(stored_misvalue(csv, wrong, kept, study->values[0]), "");
}

// One replica of Llama-3-70B in fp8 on 4 H100s at batch 8 and 32, up to its values: block.
const std::string kTwoBatches =
    "study: s\ntitle: T\nquestion: Q?\nsolver: serving\ncalibration: none\n"
    "axes:\n  batch: [8, 32]\n"
    "fixed: {hardware: h100_sxm, model: llama3_70b, tp: 4, precision: fp8}\n"
    "values:\n";

// as: percent, percent_less and percent_of read two points' metric in percent of the second's, as
// results.csv gives it: batch 32 against batch 8 on one replica serves more tokens per GPU, so the
// change is positive and the decrease negative.
TEST(CitedValues, PercentagesAreTheCsvsRelativeChange) {
  TempDir dir("cited_percent");
  const fs::path study_file = fs::path(dir.path()) / "s.yaml";
  const std::string text =
      kTwoBatches +
      "  - {name: more, metric: tokens_per_s_per_gpu, where: {batch: 32}, over: {batch: 8}, as: percent}\n"
      "  - {name: less, metric: itl_s, where: {batch: 8}, minus: {batch: 32}, as: percent_less}\n"
      "  - {name: share, metric: tokens_per_s_per_gpu, where: {batch: 8}, over: {batch: 32}, as: percent_of}\n"
      "  - {name: fewer, metric: tokens_per_s_per_gpu, where: {batch: 8}, minus: {batch: 32}, as: percent}\n"
      "sections:\n  - title: S\n    text: \"Cited here: {{value.more}} more tokens, a token {{value.less}} sooner, "
      "{{value.share}} of the tokens, {{value.fewer}} as a change.\"\n";
  write_text(study_file, text);
  const std::optional<WrittenRun> run = run_written(dir, study_file);
  ASSERT_TRUE(run);
  Diagnostics d;
  const auto study = load_study(study_file.string(), kCatalog, d);
  ASSERT_TRUE(study) << d.format();
  const std::size_t at = text.find("Cited here: {{");
  const auto printed = printed_references(text.substr(at, text.rfind('"') - at), run->report);
  const FilterKept kept = filter_kept(*study, fs::path(dir.path()) / "run");
  for (const CitedValue& v : study->values) {
    SCOPED_TRACE(v.name);
    EXPECT_EQ(stored_misvalue(run->csv, run->values, kept, v), "");
    EXPECT_EQ(cited_misprint(*study, run->values, v, printed.at("value." + v.name)), "");
    EXPECT_EQ(values_row(run->values, v.name)[run->values.column("unit")], "%");
  }
  // Read here without the study: the relative change of the tokens per GPU and its share.
  const double t8 = csv_value(run->csv, {{"batch", "8"}}, "tokens_per_s_per_gpu");
  const double t32 = csv_value(run->csv, {{"batch", "32"}}, "tokens_per_s_per_gpu");
  ASSERT_GT(t32, t8);
  EXPECT_EQ(printed.at("value.more"), format_percent(t32 / t8 - 1));
  EXPECT_EQ(printed.at("value.share"), format_percent(t8 / t32));
  EXPECT_EQ(printed.at("value.fewer"), format_percent(t8 / t32 - 1));
  EXPECT_EQ(printed.at("value.fewer").front(), '-');
  EXPECT_NE(printed.at("value.more").back(), '-');
  EXPECT_NE(misprint(printed.at("value.more"), (t32 / t8 - 1) * 1.01, kPercent), "");
}

// A min:, max: or sum: whose when: no row meets at run time prints n/a, and says so: a warning on
// the run's stderr and in the report, values.csv's status n/a with no value. A count of no rows is 0,
// not a warning.
TEST(CitedValues, AnAggregateOverNoRowWarns) {
  TempDir dir("cited_empty");
  const fs::path study_file = fs::path(dir.path()) / "s.yaml";
  write_text(study_file,
             kTwoBatches +
             "  - {name: fastest, min: itl_s, when: \"itl_s < 1 ns\"}\n"
             "  - {name: none, count: rows, when: \"itl_s < 1 ns\"}\n"
             "sections:\n  - title: S\n    text: \"The fastest: {{value.fastest}}; rows: {{value.none}}.\"\n");
  const std::optional<WrittenRun> run = run_written(dir, study_file);
  ASSERT_TRUE(run);
  const auto printed = printed_references("The fastest: {{value.fastest}}; rows: {{value.none}}.", run->report);
  EXPECT_EQ(printed.at("value.fastest"), "n/a");
  EXPECT_EQ(printed.at("value.none"), "0");
  const std::vector<std::string> row = values_row(run->values, "fastest");
  EXPECT_EQ(row[run->values.column("status")], "n/a");
  EXPECT_EQ(row[run->values.column("value")], "");
  EXPECT_EQ(row[run->values.column("rows")], "0");
  const std::string warning = "values: 'fastest' (the min of itl_s) reads no row: none that its where: selects meets "
                              "'itl_s < 1 ns'; the report prints n/a";
  EXPECT_NE(run->stderr_text.find("dsx: warning: " + warning), std::string::npos) << run->stderr_text;
  std::string in_markdown = warning;  // the report escapes the '<' Markdown would read as a tag
  in_markdown.replace(in_markdown.find('<'), 1, "\\<");
  EXPECT_NE(run->report.find("> **Warning.** " + in_markdown), std::string::npos) << run->report;
  EXPECT_EQ(run->stderr_text.find("'none'"), std::string::npos) << run->stderr_text;
}

// A count that opens a sentence prints in words with a capital ("Two rows ..."), elsewhere in digits.
TEST(CitedValues, ACountOpeningASentenceIsInWords) {
  TempDir dir("cited_words");
  const fs::path study_file = fs::path(dir.path()) / "s.yaml";
  const std::string text =
      kTwoBatches + "  - {name: rows, count: rows}\n"
      "sections:\n  - title: S\n    text: \"{{value.rows}} rows open it. There are {{value.rows}} rows. "
      "{{value.rows}} again? Yes: {{value.rows}}.\"\n";
  write_text(study_file, text);
  const std::optional<WrittenRun> run = run_written(dir, study_file);
  ASSERT_TRUE(run);
  EXPECT_NE(run->report.find("Two rows open it. There are 2 rows. Two again? Yes: 2."), std::string::npos) << run->report;
  EXPECT_EQ(values_row(run->values, "rows")[run->values.column("value")], "2");
}

TEST(CitedValues, CountsInWordsAndWhereASentenceOpens) {
  EXPECT_EQ(count_in_words(0), "zero");
  EXPECT_EQ(count_in_words(7), "seven");
  EXPECT_EQ(count_in_words(13), "thirteen");
  EXPECT_EQ(count_in_words(20), "twenty");
  EXPECT_EQ(count_in_words(42), "forty-two");
  EXPECT_EQ(count_in_words(99), "ninety-nine");
  EXPECT_EQ(count_in_words(100), "");
  EXPECT_TRUE(opens_sentence(""));
  EXPECT_TRUE(opens_sentence("It ends. "));
  EXPECT_TRUE(opens_sentence("Does it? "));
  EXPECT_TRUE(opens_sentence("A list:\n\n"));
  EXPECT_TRUE(opens_sentence("It ends. **"));
  EXPECT_FALSE(opens_sentence("There are "));
  EXPECT_FALSE(opens_sentence("Of these, "));
  EXPECT_FALSE(opens_sentence("one line\n"));
}

}  // namespace
}  // namespace dsx
