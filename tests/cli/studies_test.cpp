// Every shipped study runs end to end, and its comparisons with the seeds hold: a comparison
// without an explanation must agree with its source; one with an explanation documents a known
// difference and must still select exactly one feasible design point.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "output/readable_label.hpp"
#include "tests/cli/report_agreement.hpp"
#include "tests/svg_text_bounds.hpp"

namespace {

namespace fs = std::filesystem;

std::vector<std::string> shipped_studies() {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(fs::path(DSX_SOURCE_DIR) / "studies")) {
    if (e.path().extension() == ".yaml") names.push_back(e.path().stem().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

// Runs studies/<study>.yaml into a fresh temporary folder named after `tag`: the folder, or an empty
// path when dsx failed.
fs::path run_shipped(const std::string& study, const std::string& tag) {
  const fs::path out = fs::temp_directory_path() / ("dsx_" + tag + "_" + std::to_string(::getpid()));
  fs::remove_all(out);
  const std::string command = std::string("cd '") + DSX_SOURCE_DIR + "' && '" + DSX_BINARY + "' run studies/" + study +
                              ".yaml --quiet --out '" + out.string() + "' >/dev/null 2>&1";
  return std::system(command.c_str()) == 0 ? out : fs::path();
}

// 1234567 as the report writes a count: "1,234,567".
std::string dsx_grouped(std::size_t n) {
  const std::string digits = std::to_string(n);
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

// What is wrong with a figure's title in its SVG: a line of it that reaches past the canvas's edge,
// or a part of it not drawn; empty when every line is on the canvas and together they are the title.
// A title's lines are the horizontal texts the title holds (entities read back), top to bottom.
std::string title_lines_out_of_canvas(const std::string& svg, const std::string& title) {
  const auto unescaped = [](std::string t) {
    for (const auto& [entity, c] : {std::pair<std::string, std::string>{"&amp;", "&"}, {"&lt;", "<"}, {"&gt;", ">"},
                                    {"&quot;", "\""}, {"&apos;", "'"}}) {
      for (std::size_t p = t.find(entity); p != std::string::npos; p = t.find(entity, p + 1)) t.replace(p, entity.size(), c);
    }
    return t;
  };
  std::smatch width_match;
  static const std::regex svg_width(R"re(<svg[^>]* width="([0-9.]+)")re");
  if (!std::regex_search(svg, width_match, svg_width)) return "no width";
  const double width = std::stod(width_match[1]);
  std::vector<dsx::SvgTextBox> lines;
  for (const dsx::SvgTextBox& b : dsx::svg_text_boxes(svg)) {
    const std::string text = unescaped(b.text);
    // A line of the title: its own text, from a word's start to a word's end (a tick label "1" is not one).
    if (b.vertical || b.skewed || text.size() < 2 || title.find(text) == std::string::npos) continue;
    const std::size_t at = title.find(text);
    const std::size_t end = at + text.size();
    if ((at > 0 && title[at - 1] != ' ') || (end < title.size() && title[end] != ' ')) continue;
    if (std::any_of(lines.begin(), lines.end(), [&](const dsx::SvgTextBox& l) { return l.y0 == b.y0 && l.x0 == b.x0; })) {
      continue;
    }
    lines.push_back(b);
  }
  std::sort(lines.begin(), lines.end(), [](const dsx::SvgTextBox& a, const dsx::SvgTextBox& b) { return a.y0 < b.y0; });
  // The title's lines lie at the top, one under the other: the first run that spells it out.
  for (std::size_t first = 0; first < lines.size(); ++first) {
    std::string joined;
    std::ostringstream problems;
    for (std::size_t i = first; i < lines.size() && joined.size() < title.size(); ++i) {
      if (!joined.empty()) joined += ' ';
      joined += unescaped(lines[i].text);
      if (lines[i].x0 < 0 || lines[i].x1 > width) {
        problems << "'" << lines[i].text << "' spans " << static_cast<int>(lines[i].x0) << ".."
                 << static_cast<int>(lines[i].x1) << " of " << static_cast<int>(width) << "; ";
      }
    }
    if (joined == title) return problems.str();
  }
  return "the title '" + title + "' is not drawn whole";
}

// The tallest figure a page of text takes with its caption.
constexpr double kPageFigureCm = 25.0;

class ShippedStudy : public ::testing::TestWithParam<std::string> {};

TEST_P(ShippedStudy, RunsAndAgreesWithItsSources) {
  const std::string name = GetParam();
  const fs::path out = fs::temp_directory_path() / ("dsx_study_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(out);
  const std::string command = std::string("cd '") + DSX_SOURCE_DIR + "' && '" + DSX_BINARY + "' run studies/" +
                              name + ".yaml --quiet --out '" + out.string() + "' 2>&1";
  std::string output;
  FILE* pipe = popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  char buffer[4096];
  while (std::fgets(buffer, sizeof buffer, pipe) != nullptr) output += buffer;
  const int status = pclose(pipe);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << output;
  for (const char* f : {"report.md", "report.html", "results.csv", "comparisons.csv"}) {
    EXPECT_TRUE(fs::exists(out / f)) << f;
  }
  const agreement::CsvFile csv = agreement::read_csv(out / "comparisons.csv");
  ASSERT_EQ(csv.header.size(), 9u);
  std::size_t rows = 0, agree = 0;
  for (const std::vector<std::string>& row : csv.rows) {
    ++rows;
    agree += row[7] == "agrees" ? 1 : 0;
    ASSERT_EQ(row.size(), csv.header.size());
    const std::string& comparison = row[0];
    const std::string& verdict = row[7];
    const std::string& explanation = row[8];
    EXPECT_NE(verdict, "unmatched") << name << ": " << comparison;
    EXPECT_FALSE(row[4].empty()) << name << ": " << comparison << " has no feasible dsx value";
    if (explanation.empty()) {
      EXPECT_EQ(verdict, "agrees") << name << ": " << comparison << " expected " << row[3] << ", dsx " << row[4];
    }
  }
  // Figures are numbered in the order a reader meets them.
  {
    std::ifstream md(out / "report.md");
    const std::string report((std::istreambuf_iterator<char>(md)), std::istreambuf_iterator<char>());
    int expected = 1;
    for (std::size_t p = report.find("*Figure "); p != std::string::npos; p = report.find("*Figure ", p + 1)) {
      EXPECT_EQ(report.compare(p, 9 + std::to_string(expected).size(), "*Figure " + std::to_string(expected) + "."), 0)
          << name << ": " << report.substr(p, 20);
      ++expected;
    }
  }
  // No figure's text runs off its canvas or lies on other text (legends, titles, labels, ticks).
  for (const auto& e : fs::directory_iterator(out / "figures")) {
    if (e.path().extension() != ".svg") continue;
    std::ifstream in(e.path());
    const std::string svg((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    for (const std::string& clipped : dsx::clipped_svg_texts(svg, 6)) {
      ADD_FAILURE() << name << ": " << e.path().filename().string() << ": " << clipped;
    }
    for (const std::string& overlap : dsx::overlapping_svg_texts(svg)) {
      ADD_FAILURE() << name << ": " << e.path().filename().string() << ": " << overlap;
    }
    // A tornado's value axis: at least half an em (6 px) of white between two tick labels.
    if (e.path().filename().string().rfind("tornado_", 0) == 0) {
      for (const double gap : dsx::x_tick_label_gaps(svg)) {
        EXPECT_GE(gap, 6.0) << name << ": " << e.path().filename().string() << ": tick labels " << gap << " px apart";
      }
    }
    // A figure fits a page's text height (A4 less 2 cm margins, 25.7 cm), its caption below it.
    std::smatch height;
    static const std::regex svg_height(R"re(<svg[^>]* height="([0-9.]+)")re");
    if (std::regex_search(svg, height, svg_height)) {
      EXPECT_LE(std::stod(height[1]) / (96 / 2.54), kPageFigureCm) << name << ": " << e.path().filename().string();
    }
  }
  // A figure's title is drawn whole, in lines that stay on the canvas (no slack): a long one wraps.
  for (const auto& e : fs::directory_iterator(out / "figures")) {
    if (e.path().extension() != ".svg") continue;
    fs::path script = e.path();
    std::ifstream gp(script.replace_extension(".gp"));
    std::string header;
    std::getline(gp, header);
    const std::size_t colon = header.find("': ");
    if (header.rfind("# dsx ", 0) != 0 || colon == std::string::npos) continue;
    const std::string title = header.substr(colon + 3);
    std::ifstream in(e.path());
    const std::string svg((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_EQ(title_lines_out_of_canvas(svg, title), "") << name << ": " << e.path().filename().string();
  }
  // The report names a model as the catalog does, never by its id: in a design point, a table cell
  // or a sentence ("model = Mixtral 8x7B (sequence 2048)", not "model = mixtral_8x7b"). Code the
  // study quotes (`draft_model: llama32_1b`) keeps it, and the appendix's catalog entries list the
  // id beside the name ("**mixtral_8x7b**, Mixtral 8x7B ...", "Mixtral 8x7B ... (mixtral_8x7b)").
  {
    std::ifstream md(out / "report.md");
    std::string report((std::istreambuf_iterator<char>(md)), std::istreambuf_iterator<char>());
    report = std::regex_replace(report, std::regex("`[^`\n]*`"), "` `");
    for (const auto& [id, model_name] : agreement::Words(out).named_models()) {
      const std::regex as_word("(^|[^A-Za-z0-9_])" + id + "(?![A-Za-z0-9_])");
      for (auto it = std::sregex_iterator(report.begin(), report.end(), as_word); it != std::sregex_iterator(); ++it) {
        const std::size_t at = static_cast<std::size_t>(it->position(0) + it->length(1));
        const std::size_t end = at + id.size();
        const auto around = [&](std::string_view before, std::string_view after) {
          return at >= before.size() && report.compare(at - before.size(), before.size(), before) == 0 &&
                 report.compare(end, after.size(), after) == 0;
        };
        if (around("**", "**") || around("(", ")")) continue;
        ADD_FAILURE() << name << ": report.md prints the id " << id << " where the catalog names it '" << model_name
                      << "': ..." << report.substr(at < 60 ? 0 : at - 60, 90) << "...";
      }
    }
  }
  // Every reference in the study's prose was replaced by a computed value.
  for (const char* f : {"report.md", "report.html"}) {
    std::ifstream in(out / f);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::size_t p = text.find("{{");
    EXPECT_EQ(p, std::string::npos) << name << ": " << f << " holds " << text.substr(p == std::string::npos ? 0 : p, 60);
  }
  // Each compared metric is described, a derived one by its own description: no empty ", ;".
  {
    std::ifstream md(out / "report.md");
    const std::string report((std::istreambuf_iterator<char>(md)), std::istreambuf_iterator<char>());
    EXPECT_EQ(report.find(", ; at "), std::string::npos) << name;
  }
  // A rate names what it counts ("375 tokens/s", "3.20/s"), never "375 1/s".
  {
    std::ifstream md(out / "report.md");
    const std::string report((std::istreambuf_iterator<char>(md)), std::istreambuf_iterator<char>());
    std::smatch bare;
    EXPECT_FALSE(std::regex_search(report, bare, std::regex(R"([0-9] 1/s\b)"))) << name << ": " << bare.str(0);
  }
  // Every source a report names is one its reader can open: no internal handles.
  for (const char* f : {"report.md", "report.html"}) {
    std::ifstream in(out / f);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    for (const char* handle : {"seeds/", "shared/reference"}) {
      const std::size_t p = text.find(handle);
      EXPECT_EQ(p, std::string::npos) << name << ": " << f << " names " << text.substr(p == std::string::npos ? 0 : p, 60);
    }
  }
  // The generated answer comes first and names the best design point of each objective that
  // top_k.csv ranks first.
  if (fs::exists(out / "top_k.csv")) {
    std::ifstream md(out / "report.md");
    const std::string report((std::istreambuf_iterator<char>(md)), std::istreambuf_iterator<char>());
    const std::size_t answer = report.find("\n## Answer\n");
    ASSERT_NE(answer, std::string::npos) << name;
    const std::size_t first_section = report.find("\n## ");
    EXPECT_EQ(first_section, answer) << name << ": the answer is not the first section";
    const std::string answer_text = report.substr(answer, report.find("\n## ", answer + 1) - answer);
    const agreement::CsvFile top = agreement::read_csv(out / "top_k.csv");
    const std::size_t first_axis = top.column("point_index") + 1;
    const std::size_t value_column = top.column("value");
    const agreement::Words words(out);
    for (std::size_t r = 0; r < top.rows.size(); ++r) {
      if (top.at(r, "rank") != "1") continue;
      std::string point;
      for (std::size_t a = first_axis; a < value_column; ++a) {
        point += (point.empty() ? "" : ", ") + top.header[a] + " = " + words(top.header[a], top.rows[r][a]);
      }
      EXPECT_NE(answer_text.find(point), std::string::npos) << name << ": " << point << " not in\n" << answer_text;
    }
  }
  // The report's headline counts the same verdicts as comparisons.csv.
  if (rows > 0) {
    std::ifstream md(out / "report.md");
    const std::string report((std::istreambuf_iterator<char>(md)), std::istreambuf_iterator<char>());
    EXPECT_NE(report.find(std::to_string(agree) + " of " + std::to_string(rows) + " numbers agree with their source"),
              std::string::npos)
        << name << ": comparisons.csv has " << agree << " of " << rows << " agreeing";
    // Next to the table, the rows the comparisons read: every row of results.csv.
    const agreement::CsvFile results = agreement::read_csv(out / "results.csv");
    EXPECT_NE(report.find("Each comparison reads all " + dsx_grouped(results.rows.size()) + " design points"),
              std::string::npos)
        << name << ": results.csv has " << results.rows.size() << " rows";
  }
  // Every break-even, Pareto front and decision the report prints is its CSV's, to the digits printed.
  for (const std::string& disagreement : agreement::all_disagreements(out)) ADD_FAILURE() << name << ": " << disagreement;
  fs::remove_all(out);
}

INSTANTIATE_TEST_SUITE_P(Studies, ShippedStudy, ::testing::ValuesIn(shipped_studies()),
                         [](const auto& info) { return info.param; });

}  // namespace

namespace {

// purchase_sensitivity's decisions carry the 80 % intervals of results.csv's <metric>_p10 / _p90
// columns for the choice and the next alternative, and say whether they overlap.
TEST(ShippedStudyAnswer, DecisionsStateTheirIntervalsFromTheResults) {
  const fs::path out = run_shipped("purchase_sensitivity", "answer");
  ASSERT_FALSE(out.empty());
  std::ifstream md(out / "report.md");
  const std::string report((std::istreambuf_iterator<char>(md)), std::istreambuf_iterator<char>());
  // The Answer names each chip by its catalog name, as the figures do; the CSVs keep the ids.
  const agreement::Words words(out);
  const std::string b200 = words("hardware", "b200"), h200 = words("hardware", "h200");
  ASSERT_NE(b200, "b200");
  const std::string line_start = "- **Which NVIDIA accelerator serves ResNet-50 for the least money**: " + b200 + " is the choice";
  const std::size_t at = report.find(line_start);
  ASSERT_NE(at, std::string::npos) << report;
  const std::string line = report.substr(at, report.find('\n', at) - at);
  EXPECT_NE(line.find("next is " + h200), std::string::npos) << line;
  EXPECT_EQ(line.find("h200"), std::string::npos) << line;
  // The printed bounds against the CSV rows (model resnet50, batch 64) to the 3 digits printed.
  const agreement::CsvFile csv = agreement::read_csv(out / "results.csv");
  const std::string lo = "cost_per_million_inferences_usd_p10", hi = "cost_per_million_inferences_usd_p90";
  ASSERT_TRUE(csv.has(lo) && csv.has(hi));
  std::map<std::string, std::pair<double, double>> bounds;
  for (std::size_t r = 0; r < csv.rows.size(); ++r) {
    if (csv.at(r, "model") == "resnet50" && csv.at(r, "batch") == "64" && !csv.at(r, lo).empty() && !csv.at(r, hi).empty()) {
      bounds[csv.at(r, "hardware")] = {std::stod(csv.at(r, lo)), std::stod(csv.at(r, hi))};
    }
  }
  for (const std::string hw : {"b200", "h200"}) {
    const std::string name = words("hardware", hw);
    const std::size_t p = line.find(name + " ", line.find("80 % intervals:"));
    ASSERT_NE(p, std::string::npos) << line;
    std::istringstream in(line.substr(p + name.size() + 1));
    double printed_lo = 0, printed_hi = 0;
    std::string usd, to;
    in >> printed_lo >> usd >> to >> printed_hi;
    EXPECT_NEAR(printed_lo, bounds[hw].first, 0.005 * bounds[hw].first) << hw << ": " << line;
    EXPECT_NEAR(printed_hi, bounds[hw].second, 0.005 * bounds[hw].second) << hw << ": " << line;
  }
  const bool overlap = bounds["b200"].second >= bounds["h200"].first;
  EXPECT_EQ(line.find("not a safe choice") != std::string::npos, overlap) << line;
  // The prose cites the same decision, so it cannot contradict the Answer.
  const std::size_t margin_at = line.find(" (", line.find("next is " + h200));
  const std::string margin = line.substr(margin_at + 2, line.find(" higher)", margin_at) - margin_at - 2);
  EXPECT_NE(report.find(b200 + " wins by " + margin + " over " + h200), std::string::npos) << margin;
  fs::remove_all(out);
}

}  // namespace

namespace {

// A table cell's non-breaking spaces (U+00A0) as plain ones.
std::string plain_spaces(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\xC2' && i + 1 < text.size() && text[i + 1] == '\xA0') {
      out += ' ';
      ++i;
    } else {
      out += text[i];
    }
  }
  return out;
}

// Seconds in a time as a report prints it ("15.0 µs", "540 s", "45.0 min", "203 days", its spaces
// non-breaking in a table); NaN when the text is not a number and a time unit.
double seconds_in(const std::string& cell) {
  const std::string text = plain_spaces(cell);
  static const std::map<std::string, double> kUnits = {{"ps", 1e-12}, {"ns", 1e-9},       {"\u00b5s", 1e-6},
                                                       {"ms", 1e-3},  {"s", 1},           {"min", 60},
                                                       {"h", 3600},   {"days", 86400},    {"years", 365 * 86400.0}};
  std::string digits;
  std::size_t i = 0;
  for (; i < text.size() && text[i] != ' '; ++i) {
    if (text[i] != ',') digits += text[i];
  }
  const auto unit = kUnits.find(i < text.size() ? text.substr(i + 1) : "");
  return unit == kUnits.end() || digits.empty() ? std::nan("") : std::stod(digits) * unit->second;
}

// The Pareto table of llm_training_plan prints its times to train of some 200 days in days, not as
// "17,500,000 s", and each is pareto.csv's time_to_train_s of the same design point to the three
// digits printed.
TEST(ShippedStudyTables, LongTimesReadInDaysAndAgreeWithTheCsv) {
  const fs::path out = run_shipped("llm_training_plan", "long_times");
  ASSERT_FALSE(out.empty());
  const auto cells_of = [](const std::string& line) {
    std::vector<std::string> cells;
    std::istringstream row(line.substr(2, line.size() - 4));
    for (std::string raw; std::getline(row, raw, '|');) {
      const std::string cell = plain_spaces(raw);
      const std::size_t first = cell.find_first_not_of(' ');
      cells.push_back(first == std::string::npos ? "" : cell.substr(first, cell.find_last_not_of(' ') + 1 - first));
    }
    return cells;
  };
  // The Pareto table's columns, read by name: the study's axes, then the objectives.
  std::ifstream md(out / "report.md");
  const std::string report((std::istreambuf_iterator<char>(md)), std::istreambuf_iterator<char>());
  const std::size_t front = report.find("\n## Pareto front\n");
  ASSERT_NE(front, std::string::npos) << report;
  const std::size_t table = report.find("\n| ", front);
  ASSERT_NE(table, std::string::npos) << report.substr(front, 600);
  std::istringstream lines(report.substr(table + 1));
  std::string line;
  std::getline(lines, line);
  const std::vector<std::string> header = cells_of(line);
  const auto time_cell = std::find(header.begin(), header.end(), "time to train");
  ASSERT_NE(time_cell, header.end()) << line;
  const std::vector<std::string> axes(header.begin(), time_cell);
  ASSERT_FALSE(axes.empty()) << line;
  const std::size_t time_column = axes.size();

  const agreement::CsvFile csv = agreement::read_csv(out / "pareto.csv");
  for (const std::string& a : axes) ASSERT_TRUE(csv.has(a)) << a;
  const agreement::Words words(out);
  std::map<std::string, double> csv_seconds;  // axis labels joined by " | " -> time_to_train_s
  for (std::size_t r = 0; r < csv.rows.size(); ++r) {
    std::string key;
    for (const std::string& a : axes) key += (key.empty() ? "" : " | ") + words(a, csv.at(r, a));
    csv_seconds[key] = std::stod(csv.at(r, "time_to_train_s"));
  }
  ASSERT_FALSE(csv_seconds.empty());

  std::getline(lines, line);  // |---|...
  std::size_t checked = 0;
  while (std::getline(lines, line) && line.rfind("| ", 0) == 0) {
    const std::vector<std::string> cells = cells_of(line);
    ASSERT_EQ(cells.size(), header.size()) << line;
    std::string key;
    for (std::size_t a = 0; a < axes.size(); ++a) key += (key.empty() ? "" : " | ") + cells[a];
    ASSERT_EQ(csv_seconds.count(key), 1u) << key;
    const std::string& time = cells[time_column];
    EXPECT_NE(time.find(" days"), std::string::npos) << line;
    EXPECT_NE(line.find("\xC2\xA0" "days"), std::string::npos) << line;  // on one line with its number
    EXPECT_NEAR(seconds_in(time), csv_seconds[key], 0.005 * csv_seconds[key]) << line;
    ++checked;
  }
  EXPECT_GT(checked, 0u) << report.substr(table, 600);
  fs::remove_all(out);
}

}  // namespace

namespace {

// The training solver's tflops_per_gpu is a plain number counted in TFLOP/s: llama405b_recipe's
// Answer states its best layout's value with that unit, the value top_k.csv ranks first.
TEST(ShippedStudyAnswer, TrainingThroughputReadsInTflopPerSecond) {
  const fs::path out = run_shipped("llama405b_recipe", "tflops_answer");
  ASSERT_FALSE(out.empty());
  const agreement::CsvFile top = agreement::read_csv(out / "top_k.csv");
  double best = std::nan("");
  for (std::size_t r = 0; r < top.rows.size(); ++r) {
    if (top.at(r, "objective") == "tflops_per_gpu" && top.at(r, "rank") == "1") best = std::stod(top.at(r, "value"));
  }
  ASSERT_TRUE(std::isfinite(best));
  std::ifstream md(out / "report.md");
  const std::string report((std::istreambuf_iterator<char>(md)), std::istreambuf_iterator<char>());
  const std::size_t answer = report.find("\n## Answer\n");
  ASSERT_NE(answer, std::string::npos) << report;
  const std::string answer_text = report.substr(answer, report.find("\n## ", answer + 1) - answer);
  std::smatch value;
  ASSERT_TRUE(std::regex_search(answer_text, value, std::regex(R"(\(([0-9.,]+) TFLOP/s\))"))) << answer_text;
  EXPECT_NEAR(std::stod(value[1].str()), best, 0.005 * best) << answer_text;
  EXPECT_EQ(answer_text.find("tflops"), std::string::npos) << answer_text;
  fs::remove_all(out);
}

// llama405b_recipe's long-context explanation cites its comparison's difference: the report prints
// comparisons.csv's relative_difference, to the digit shown.
TEST(ShippedStudyComparisons, AnExplanationCitesTheDifferenceComparisonsCsvHolds) {
  const fs::path out = run_shipped("llama405b_recipe", "cited_comparison");
  ASSERT_FALSE(out.empty());
  const agreement::CsvFile csv = agreement::read_csv(out / "comparisons.csv");
  double relative = std::nan("");
  for (std::size_t r = 0; r < csv.rows.size(); ++r) {
    if (csv.at(r, "name").find("131,072") != std::string::npos) relative = std::stod(csv.at(r, "relative_difference"));
  }
  ASSERT_TRUE(std::isfinite(relative));
  std::ifstream md(out / "report.md");
  const std::string report((std::istreambuf_iterator<char>(md)), std::istreambuf_iterator<char>());
  const std::size_t at = report.find("dsx differs by ", report.find("| 16,384 H100s, TP 8, CP 16"));
  ASSERT_NE(at, std::string::npos) << report;
  std::istringstream printed(report.substr(at + std::string("dsx differs by ").size()));
  double percent = 0;
  printed >> percent;
  EXPECT_LT(percent, 0.0);
  EXPECT_NEAR(percent, relative * 100, 0.05) << report.substr(at, 80);
  fs::remove_all(out);
}

}  // namespace
