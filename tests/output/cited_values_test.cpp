// {{value.NAME}} in the reports of the shipped studies that cite values: each cited value is the number
// results.csv holds for the design point its values: entry selects, rounded as the report prints it; an
// infeasible point cites its status word. Read back from the report and the CSV of a real run.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "dse/study.hpp"
#include "dse/study_references.hpp"
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

// RFC 4180 records: quoted fields may hold commas, doubled quotes and line breaks.
std::vector<std::vector<std::string>> parse_csv(const std::string& text) {
  std::vector<std::vector<std::string>> records(1, std::vector<std::string>(1));
  bool quoted = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        records.back().back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        records.back().back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      records.back().emplace_back();
    } else if (c == '\n') {
      records.emplace_back(1);
    } else {
      records.back().back() += c;
    }
  }
  if (records.back().size() == 1 && records.back().front().empty()) records.pop_back();
  return records;
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

struct Printed {
  double number = NAN;
  double half_step = NAN;  // half a unit of the last digit printed, or of the third significant one
  std::string unit;
};

// "1,110 tokens/s" -> 1110, 5, "tokens/s"; "42.0 %" -> 0.42; "57.4 ms" -> 0.0574; group separators
// (',') are skipped.
Printed read_printed(const std::string& s) {
  std::string digits;
  std::size_t i = 0;
  int decimals = -1;
  for (; i < s.size(); ++i) {
    const char c = s[i];
    if ((c >= '0' && c <= '9') || c == '-') {
      digits += c;
      if (decimals >= 0) ++decimals;
    } else if (c == '.') {
      digits += c;
      decimals = 0;
    } else if (c == ',' && i + 1 < s.size() && s[i + 1] >= '0' && s[i + 1] <= '9') {
      continue;
    } else {
      break;
    }
  }
  Printed p;
  if (digits.empty()) return p;
  p.number = std::stod(digits);
  // The report prints three significant figures: 1110.8 reads "1,110".
  const double third_digit = std::pow(10.0, std::floor(std::log10(std::fabs(p.number))) - 2);
  p.half_step = 0.5 * std::max(std::pow(10.0, -std::max(decimals, 0)), third_digit);
  while (i < s.size() && s[i] == ' ') ++i;
  p.unit = s.substr(i);
  // Units the report prints these values in, as multiples of the CSV's SI unit.
  const std::vector<std::pair<std::string, double>> scales = {{"%", 1e-2},  {"ms", 1e-3}, {"\u00b5s", 1e-6},
                                                               {"ns", 1e-9}, {"kW", 1e3},  {"MW", 1e6}};
  for (const auto& [prefix, scale] : scales) {
    if (p.unit.rfind(prefix, 0) != 0) continue;
    p.number *= scale;
    p.half_step *= scale;
    break;
  }
  return p;
}

class ShippedCitations : public ::testing::TestWithParam<const char*> {};

TEST_P(ShippedCitations, EachCitedValueIsResultsCsvs) {
  TempDir dir("cited_values");
  const fs::path study_file = fs::path(DSX_SOURCE_DIR) / "studies" / (std::string(GetParam()) + ".yaml");
  const fs::path out = fs::path(dir.path()) / "run";
  ASSERT_EQ(run_dsx("run '" + study_file.string() + "' --quiet --out '" + out.string() + "'"), 0);
  Diagnostics d;
  const auto study = load_study(study_file.string(), kCatalog, d);
  ASSERT_TRUE(study) << d.format();
  ASSERT_GE(study->values.size(), 5u);
  const std::string report = read_text(out / "report.md");
  const auto csv = parse_csv(read_text(out / "results.csv"));
  ASSERT_GT(csv.size(), 1u);
  const std::vector<std::string>& header = csv.front();
  const auto column = [&](const std::string& name) {
    const auto it = std::find(header.begin(), header.end(), name);
    EXPECT_NE(it, header.end()) << name;
    return static_cast<std::size_t>(it - header.begin());
  };
  std::map<std::string, std::string> printed;
  for (const Section& s : study->sections) printed.merge(printed_references(s.text, report));
  for (const CitedValue& v : study->values) {
    SCOPED_TRACE(v.name);
    ASSERT_EQ(printed.count("value." + v.name), 1u) << "every value is cited in the sections";
    std::vector<const std::vector<std::string>*> rows;
    for (std::size_t r = 1; r < csv.size(); ++r) {
      bool all = true;
      for (const Selector& sel : v.where) all = all && csv[r][column(sel.param)] == sel.label;
      if (all) rows.push_back(&csv[r]);
    }
    ASSERT_EQ(rows.size(), 1u);
    ASSERT_EQ((*rows.front())[column("status")], "ok");
    const double expected = std::stod((*rows.front())[column(v.metric)]);
    const Printed p = read_printed(printed["value." + v.name]);
    EXPECT_NEAR(p.number, expected, p.half_step * (1 + 1e-9)) << printed["value." + v.name];
  }
}

INSTANTIATE_TEST_SUITE_P(CitedValues, ShippedCitations,
                         ::testing::Values("llm_serving_rental", "accelerator_purchase", "fleet_purchase",
                                           "serving_features", "rank_orders"));

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
  const fs::path out = fs::path(dir.path()) / "run";
  ASSERT_EQ(run_dsx("run '" + study_file.string() + "' --catalog '" + kCatalog + "' --quiet --out '" + out.string() + "'"),
            0);
  const std::string report = read_text(out / "report.md");
  const auto csv = parse_csv(read_text(out / "results.csv"));
  ASSERT_EQ(csv.size(), 3u);
  const auto& header = csv.front();
  const std::size_t status = static_cast<std::size_t>(std::find(header.begin(), header.end(), "status") - header.begin());
  const std::size_t tp = static_cast<std::size_t>(std::find(header.begin(), header.end(), "tp") - header.begin());
  ASSERT_LT(status, header.size());
  const auto& one = csv[1][tp] == "1" ? csv[1] : csv[2];
  ASSERT_NE(one[status], "ok") << "70B fp16 weights do not fit one H100";
  const auto printed = printed_references("One GPU: {{value.one_gpu}}; four: {{value.four_gpus}}.", report);
  EXPECT_EQ(printed.at("value.one_gpu"), one[status]);
  EXPECT_FALSE(std::isnan(read_printed(printed.at("value.four_gpus")).number)) << printed.at("value.four_gpus");
  // Captions cite as sections do.
  EXPECT_EQ(printed_references("Four GPUs serve {{value.four_gpus}} each.", report).at("value.four_gpus"),
            printed.at("value.four_gpus"));
}

}  // namespace
}  // namespace dsx
