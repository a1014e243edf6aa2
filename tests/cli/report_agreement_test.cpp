// The checks of tests/cli/report_agreement.hpp, which ShippedStudy.RunsAndAgreesWithItsSources
// applies to every shipped study, find each kind of disagreement: purchase_sensitivity (grouped
// break-evens, grouped Pareto fronts, two decisions) is run once, then a scratch copy of its folder
// has one CSV value or one printed number altered at a time.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "tests/cli/report_agreement.hpp"

namespace {

namespace fs = std::filesystem;
using agreement::CsvFile;

void write_text(const fs::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::trunc);
  out << text;
}

void write_csv(const fs::path& p, const CsvFile& csv) {
  const auto field = [](const std::string& f) {
    if (f.find_first_of(",\"\n") == std::string::npos) return f;
    std::string quoted = "\"";
    for (char c : f) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
    return quoted + "\"";
  };
  std::string text;
  const auto line = [&](const std::vector<std::string>& row) {
    for (std::size_t i = 0; i < row.size(); ++i) {
      if (i > 0) text += ',';
      text += field(row[i]);
    }
    text += '\n';
  };
  line(csv.header);
  for (const auto& row : csv.rows) line(row);
  write_text(p, text);
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const std::size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return at == std::string::npos ? text : text.replace(at, from.size(), to);
}

class ReportAgreement : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    run_ = fs::temp_directory_path() / ("dsx_agreement_" + std::to_string(::getpid()));
    fs::remove_all(run_);
    const std::string command = std::string("cd '") + DSX_SOURCE_DIR + "' && '" + DSX_BINARY +
                                "' run studies/purchase_sensitivity.yaml --quiet --out '" + run_.string() + "' >/dev/null 2>&1";
    if (std::system(command.c_str()) != 0) run_.clear();
  }
  static void TearDownTestSuite() {
    if (!run_.empty()) fs::remove_all(run_);
  }
  // A copy of the run folder's files (not its figures), to alter.
  fs::path scratch() {
    const fs::path copy = fs::temp_directory_path() / ("dsx_agreement_scratch_" + std::to_string(::getpid()));
    fs::remove_all(copy);
    fs::create_directories(copy);
    for (const auto& e : fs::directory_iterator(run_)) {
      if (e.is_regular_file()) fs::copy_file(e.path(), copy / e.path().filename());
    }
    copies_.push_back(copy);
    return copy;
  }
  void TearDown() override {
    for (const fs::path& p : copies_) fs::remove_all(p);
  }
  static fs::path run_;
  std::vector<fs::path> copies_;
};

fs::path ReportAgreement::run_;

TEST_F(ReportAgreement, TheShippedReportAgreesWithItsCsvs) {
  ASSERT_FALSE(run_.empty());
  const std::vector<std::string> found = agreement::all_disagreements(run_);
  EXPECT_TRUE(found.empty()) << found.front();
  // The checks had something to compare: six crossings, two groups' fronts, two decisions.
  EXPECT_EQ(agreement::read_csv(run_ / "breakeven_dearer_parts_pay_off.csv").rows.size(), 6u);
  EXPECT_NE(agreement::read_text(run_ / "report.md").find("### Fronts per group"), std::string::npos);
}

TEST_F(ReportAgreement, ABreakEvenThatMovedInTheCsvOrTheReportIsFound) {
  ASSERT_FALSE(run_.empty());
  {
    const fs::path copy = scratch();
    CsvFile csv = agreement::read_csv(copy / "breakeven_dearer_parts_pay_off.csv");
    const double along = std::stod(csv.rows[0][csv.column("along_value")]);
    csv.rows[0][csv.column("along_value")] = std::to_string(along * 1.001);  // 20.3542 -> 20.3746
    write_csv(copy / "breakeven_dearer_parts_pay_off.csv", csv);
    EXPECT_FALSE(agreement::breakeven_disagreements(copy).empty());
  }
  {
    const fs::path copy = scratch();
    CsvFile csv = agreement::read_csv(copy / "breakeven_dearer_parts_pay_off.csv");
    const double metric = std::stod(csv.rows[1][csv.column("metric_first")]);
    csv.rows[1][csv.column("metric_first")] = std::to_string(metric * 1.01);
    write_csv(copy / "breakeven_dearer_parts_pay_off.csv", csv);
    EXPECT_FALSE(agreement::breakeven_disagreements(copy).empty());
  }
  {
    const fs::path copy = scratch();
    write_text(copy / "report.md", replaced(agreement::read_text(copy / "report.md"), "Crossings: batch = 1.37", "Crossings: batch = 1.38"));
    EXPECT_FALSE(agreement::breakeven_disagreements(copy).empty());
  }
  {
    const fs::path copy = scratch();  // a crossing the CSV does not have
    write_text(copy / "report.md", replaced(agreement::read_text(copy / "report.md"), "(break-even at 1.84355;", "(break-even at 1.84365;"));
    EXPECT_FALSE(agreement::breakeven_disagreements(copy).empty());
  }
}

TEST_F(ReportAgreement, AFrontPointOrCountThatDiffersFromParetoCsvIsFound) {
  ASSERT_FALSE(run_.empty());
  const std::string metric = "cost_per_million_inferences_usd";
  {
    const fs::path copy = scratch();
    CsvFile csv = agreement::read_csv(copy / "pareto.csv");
    csv.rows[3][csv.column(metric)] = std::to_string(std::stod(csv.rows[3][csv.column(metric)]) * 1.01);
    write_csv(copy / "pareto.csv", csv);
    EXPECT_FALSE(agreement::pareto_disagreements(copy).empty());
  }
  {
    const fs::path copy = scratch();  // a front point the report lists but the CSV lacks
    CsvFile csv = agreement::read_csv(copy / "pareto.csv");
    csv.rows.pop_back();
    write_csv(copy / "pareto.csv", csv);
    EXPECT_FALSE(agreement::pareto_disagreements(copy).empty());
  }
  {
    const fs::path copy = scratch();  // a group's kept count
    write_text(copy / "report.md", replaced(agreement::read_text(copy / "report.md"), "| model = ResNet-50 | 45 | 15 | 13 |",
                                            "| model = ResNet-50 | 45 | 15 | 12 |"));
    EXPECT_FALSE(agreement::pareto_disagreements(copy).empty());
  }
  {
    const fs::path copy = scratch();  // a knee's printed value
    write_text(copy / "report.md", replaced(agreement::read_text(copy / "report.md"), "batch = 16 (0.0308 USD, 1.54 ms)",
                                            "batch = 16 (0.0308 USD, 1.55 ms)"));
    EXPECT_FALSE(agreement::pareto_disagreements(copy).empty());
  }
}

TEST_F(ReportAgreement, ADecisionsChoiceMarginOrFlipThatDiffersFromItsCsvIsFound) {
  ASSERT_FALSE(run_.empty());
  const std::string file = "sensitivity_nvidia_purchase.csv";
  const auto altered = [&](const std::function<void(CsvFile&)>& change) {
    const fs::path copy = scratch();
    CsvFile csv = agreement::read_csv(copy / file);
    change(csv);
    write_csv(copy / file, csv);
    return agreement::decision_disagreements(copy);
  };
  const auto row_of = [](const CsvFile& csv, const std::string& analysis, const std::string& input) {
    for (std::size_t r = 0; r < csv.rows.size(); ++r) {
      if (csv.at(r, "analysis") == analysis && csv.at(r, "input") == input) return r;
    }
    ADD_FAILURE() << analysis << " " << input;
    return std::size_t{0};
  };
  // The choice's value, the runner-up's value (and so the margin), the choice itself, a flip.
  EXPECT_FALSE(altered([&](CsvFile& c) {
                 auto& v = c.rows[row_of(c, "choice", "b200")][c.column("nominal")];
                 v = std::to_string(std::stod(v) * 1.01);
               }).empty());
  EXPECT_FALSE(altered([&](CsvFile& c) {
                 auto& v = c.rows[row_of(c, "alternative", "h200")][c.column("nominal")];
                 v = std::to_string(std::stod(v) * 1.005);
               }).empty());
  EXPECT_FALSE(altered([&](CsvFile& c) {
                 c.rows[row_of(c, "choice", "b200")][0] = "alternative";
                 c.rows[row_of(c, "alternative", "h200")][0] = "choice";
               }).empty());
  EXPECT_FALSE(altered([&](CsvFile& c) {
                 auto& v = c.rows[row_of(c, "flip", "b200.price")][c.column("flip_up")];
                 v = std::to_string(std::stod(v) * 1.02);
               }).empty());
  EXPECT_FALSE(altered([&](CsvFile& c) {  // the nearest flip's taker
                 c.rows[row_of(c, "flip", "h100_sxm.price")][c.column("flip_down_new_best")] = "a100_80gb_sxm";
               }).empty());
  const std::string h200 = agreement::Words(run_)("hardware", "h200");  // as the report names it
  {
    const fs::path copy = scratch();  // a flip sentence that misprints its change
    write_text(copy / "report.md", replaced(agreement::read_text(copy / "report.md"), "launch overhead rises 39.7 % (" + h200 + " takes over)",
                                            "launch overhead rises 40.7 % (" + h200 + " takes over)"));
    EXPECT_FALSE(agreement::decision_disagreements(copy).empty());
  }
  {
    const fs::path copy = scratch();  // a margin the report misprints
    const std::string report = agreement::read_text(copy / "report.md");
    const std::size_t at = report.find("next is " + h200 + " at ");
    ASSERT_NE(at, std::string::npos);
    const std::size_t open = report.find(" (", at);
    std::string changed = report;
    changed[open + 2] = changed[open + 2] == '9' ? '8' : static_cast<char>(changed[open + 2] + 1);
    write_text(copy / "report.md", changed);
    EXPECT_FALSE(agreement::decision_disagreements(copy).empty()) << changed.substr(at, 60);
  }
}

TEST_F(ReportAgreement, AnHtmlReportThatPrintsOtherNumbersIsFound) {
  ASSERT_FALSE(run_.empty());
  {
    const fs::path copy = scratch();
    std::string html = agreement::read_text(copy / "report.html");  // the Answer and the section both print it
    for (std::size_t at = html.find("break-even at 38.3275"); at != std::string::npos; at = html.find("break-even at 38.3275")) {
      html.replace(at, 21, "break-even at 38.3276");
    }
    write_text(copy / "report.html", html);
    EXPECT_FALSE(agreement::html_disagreements(copy).empty());
  }
  {
    const fs::path copy = scratch();
    write_text(copy / "report.html", replaced(agreement::read_text(copy / "report.html"), "(5.58 % higher)", "(5.59 % higher)"));
    EXPECT_FALSE(agreement::html_disagreements(copy).empty());
  }
}

// Each table cell of report.html is the same text as report.md's: a value changed in one table,
// a row dropped, or a cell of the Pareto table printing the id where report.md prints the name.
TEST_F(ReportAgreement, AnHtmlTableCellThatDiffersFromReportMdIsFound) {
  ASSERT_FALSE(run_.empty());
  EXPECT_TRUE(agreement::html_table_disagreements(run_).empty());
  const std::string html = agreement::read_text(run_ / "report.html");
  ASSERT_GT(agreement::html_tables(html).size(), 3u);
  {
    const fs::path copy = scratch();  // one swing of the tornado table, 0.0561 USD -> 0.0562 USD
    const std::vector<agreement::CellTable> tables = agreement::html_tables(html);
    const std::string cell = tables.back().back().back();
    std::string changed = html;
    const std::size_t at = changed.rfind(">" + cell + "<");
    ASSERT_NE(at, std::string::npos) << cell;
    changed.insert(at + 1, "1");
    write_text(copy / "report.html", changed);
    EXPECT_FALSE(agreement::html_table_disagreements(copy).empty()) << cell;
  }
  {
    const fs::path copy = scratch();  // the first body row of the first table dropped
    const std::size_t body = html.find("<tbody>");
    ASSERT_NE(body, std::string::npos);
    const std::size_t row = html.find("<tr>", body), row_end = html.find("</tr>", row);
    std::string changed = html;
    changed.erase(row, row_end + 5 - row);
    write_text(copy / "report.html", changed);
    EXPECT_FALSE(agreement::html_table_disagreements(copy).empty());
  }
  {
    const fs::path copy = scratch();  // an id where report.md names the chip
    const std::string b200 = agreement::Words(run_)("hardware", "b200");
    write_text(copy / "report.html", replaced(html, "<td>" + b200 + "</td>", "<td>b200</td>"));
    EXPECT_FALSE(agreement::html_table_disagreements(copy).empty());
  }
  // Character references and tags are read as the text they show.
  EXPECT_EQ(agreement::html_cell_text("<code>p99_ttft_s &lt;= 1</code> &amp; &#181;s"), "p99_ttft_s <= 1 & \u00b5s");
  EXPECT_EQ(agreement::markdown_cell_text("`a` **b** [c.csv](c.csv)"), "a b c.csv");
  EXPECT_EQ(agreement::markdown_cell_text("pass of \\`batch\\` (\\~0.6 us)"), "pass of `batch` (~0.6 us)");
}

// The printed-precision comparison the checks rest on.
TEST(ReportAgreementNumbers, APrintedNumberEqualsItsCsvValueToTheDigitsShown) {
  EXPECT_TRUE(agreement::printed_equals("0.0561 USD", 0.05608280762737326));
  EXPECT_FALSE(agreement::printed_equals("0.0562 USD", 0.05608280762737326));
  EXPECT_TRUE(agreement::printed_equals("11.4001", 11.400110174066189));
  EXPECT_FALSE(agreement::printed_equals("11.4002", 11.400110174066189));
  EXPECT_TRUE(agreement::printed_equals("+5.83 %", 0.05828124999999999));
  EXPECT_TRUE(agreement::printed_equals("-33.3 %", -0.3333333333333333));
  EXPECT_TRUE(agreement::printed_equals("119 M USD", 119.4e6));
  EXPECT_FALSE(agreement::printed_equals("119 M USD", 119.6e6));
  EXPECT_TRUE(agreement::printed_equals("8.22 ms", 0.00822));
  EXPECT_TRUE(agreement::printed_equals("876 \u00b5s", 876.2e-6));
  EXPECT_TRUE(agreement::printed_equals("5.30 TB/s", 5.3e12));
  EXPECT_TRUE(agreement::printed_equals("320 KiB", 327680));
  EXPECT_TRUE(agreement::printed_equals("203 days", 203 * 86400.0));
  EXPECT_TRUE(agreement::printed_equals("1,344 tokens/s", 1344.3));
  EXPECT_TRUE(agreement::printed_equals("79,400 tokens/s", 79376.08));  // three significant digits
  EXPECT_FALSE(agreement::printed_equals("79,400 tokens/s", 79460.0));
  EXPECT_TRUE(agreement::printed_equals("1,500 %", 14.96));
  EXPECT_FALSE(agreement::printed_equals("1,024", 1025.0));
  EXPECT_TRUE(agreement::printed_equals("281 TFLOP/s", 281.41, true));
  EXPECT_FALSE(agreement::printed_equals("n/a", 1.0));
}

}  // namespace
