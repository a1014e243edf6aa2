// Every shipped study runs end to end, and its comparisons with the seeds hold: a comparison
// without an explanation must agree with its source; one with an explanation documents a known
// difference and must still select exactly one feasible design point.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

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

// Splits one CSV record (RFC 4180, as output/csv.cpp writes it).
std::vector<std::string> csv_fields(std::istream& in) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  char c;
  while (in.get(c)) {
    if (quoted) {
      if (c == '"') {
        if (in.peek() == '"') {
          fields.back() += '"';
          in.get(c);
        } else {
          quoted = false;
        }
      } else {
        fields.back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      fields.emplace_back();
    } else if (c == '\n') {
      return fields;
    } else {
      fields.back() += c;
    }
  }
  return fields.size() == 1 && fields[0].empty() ? std::vector<std::string>{} : fields;
}

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
  std::ifstream csv(out / "comparisons.csv");
  const std::vector<std::string> header = csv_fields(csv);
  ASSERT_EQ(header.size(), 9u);
  std::size_t rows = 0, agree = 0;
  for (auto row = csv_fields(csv); !row.empty(); row = csv_fields(csv)) {
    ++rows;
    agree += row[7] == "agrees" ? 1 : 0;
    ASSERT_EQ(row.size(), header.size());
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
    std::ifstream top(out / "top_k.csv");
    const std::vector<std::string> head = csv_fields(top);
    const auto column = [&](const std::string& h) { return std::find(head.begin(), head.end(), h) - head.begin(); };
    const std::size_t first_axis = static_cast<std::size_t>(column("point_index")) + 1;
    const std::size_t value_column = static_cast<std::size_t>(column("value"));
    for (auto row = csv_fields(top); !row.empty(); row = csv_fields(top)) {
      if (row[static_cast<std::size_t>(column("rank"))] != "1") continue;
      std::string point;
      for (std::size_t a = first_axis; a < value_column; ++a) {
        point += (point.empty() ? "" : ", ") + head[a] + " = " + row[a];
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
  }
  fs::remove_all(out);
}

INSTANTIATE_TEST_SUITE_P(Studies, ShippedStudy, ::testing::ValuesIn(shipped_studies()),
                         [](const auto& info) { return info.param; });

}  // namespace
