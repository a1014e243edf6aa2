#include "output/csv.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <cfloat>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <locale>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace dsx {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

ResultTable tiny_table() {
  ResultTable t;
  t.axis_names = {"hardware", "batch_size"};
  t.metric_names = {"latency_s", "tokens_per_s"};
  t.point_index = {0, 1, 5};
  t.push_labels({"A100", "32", "H100 \"SXM\"", "64", "TPU\nv5e", "128"});
  t.status = {PointStatus::ok, PointStatus::infeasible, PointStatus::error};
  for (const char* d : {"", "does not fit, 80 GB", "line1\r\nline2"}) t.push_detail(d);
  t.metrics = {0.5, 1500, kNaN, kNaN, 1.5e-05, kInf};
  return t;
}

// An RFC 4180 reader: fields separated by commas, records by LF (CRLF accepted), double quotes
// enclosing fields that hold separators, "" inside quotes for one quote.
std::vector<std::vector<std::string>> parse_csv(const std::string& text) {
  std::vector<std::vector<std::string>> records;
  std::vector<std::string> record;
  std::string field;
  std::size_t i = 0;
  bool any = false;
  while (i < text.size()) {
    const char c = text[i];
    if (c == '"' && field.empty()) {
      ++i;
      for (;;) {
        if (i >= text.size()) throw std::runtime_error("unterminated quoted field");
        if (text[i] == '"') {
          if (i + 1 < text.size() && text[i + 1] == '"') {
            field += '"';
            i += 2;
            continue;
          }
          ++i;
          break;
        }
        field += text[i++];
      }
      any = true;
    } else if (c == ',') {
      record.push_back(field);
      field.clear();
      any = true;
      ++i;
    } else if (c == '\n' || (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n')) {
      record.push_back(field);
      records.push_back(record);
      record.clear();
      field.clear();
      any = false;
      i += c == '\r' ? 2 : 1;
    } else {
      if (c == '"') throw std::runtime_error("quote inside an unquoted field");
      field += c;
      any = true;
      ++i;
    }
  }
  if (any) throw std::runtime_error("last record has no line end");
  return records;
}

std::string number(double v) {
  std::string s;
  append_csv_number(s, v);
  return s;
}

TEST(CsvTest, ExactBytesOfATinyTable) {
  const std::string want =
      "point_index,hardware,batch_size,status,detail,latency_s,tokens_per_s\n"
      "0,A100,32,ok,,0.5,1500\n"
      "1,\"H100 \"\"SXM\"\"\",64,infeasible,\"does not fit, 80 GB\",,\n"
      "5,\"TPU\nv5e\",128,error,\"line1\r\nline2\",1.5e-05,inf\n";
  EXPECT_EQ(results_csv(tiny_table()), want);
}

TEST(CsvTest, FixedInputsFollowTheAxesInEveryRow) {
  const std::vector<FixedInput> fixed = {{"model", "llama3_8b"}, {"arrival_rate", "0.2 /s"}, {"note", "a, b"}};
  const std::string want =
      "point_index,hardware,batch_size,model,arrival_rate,note,status,detail,latency_s,tokens_per_s\n"
      "0,A100,32,llama3_8b,0.2 /s,\"a, b\",ok,,0.5,1500\n"
      "5,\"TPU\nv5e\",128,llama3_8b,0.2 /s,\"a, b\",error,\"line1\r\nline2\",1.5e-05,inf\n";
  const std::vector<std::size_t> rows = {0, 2};
  EXPECT_EQ(results_csv(tiny_table(), rows, fixed), want);
  const auto all = parse_csv(results_csv(tiny_table(), fixed));
  ASSERT_EQ(all.size(), 4U);
  for (const auto& record : all) EXPECT_EQ(record.size(), 10U);
}

TEST(CsvTest, QuotesOnlyWhatMustBeQuoted) {
  const std::pair<std::string, std::string> cases[] = {
      {"plain", "plain"},
      {"", ""},
      {"a,b", "\"a,b\""},
      {"say \"hi\"", "\"say \"\"hi\"\"\""},
      {"\"", "\"\"\"\""},
      {"two\nlines", "\"two\nlines\""},
      {"cr\rhere", "\"cr\rhere\""},
      {" spaced ", " spaced "},
      {"µs; tab\there", "µs; tab\there"},
  };
  for (const auto& [field, quoted] : cases) {
    std::string out;
    append_csv_field(out, field);
    EXPECT_EQ(out, quoted) << field;
  }
}

TEST(CsvTest, ParsesBackToTheSameFields) {
  const ResultTable t = tiny_table();
  const auto records = parse_csv(results_csv(t));
  ASSERT_EQ(records.size(), 1 + t.rows());
  EXPECT_EQ(records[0], (std::vector<std::string>{"point_index", "hardware", "batch_size", "status",
                                                  "detail", "latency_s", "tokens_per_s"}));
  for (std::size_t r = 0; r < t.rows(); ++r) {
    const auto& rec = records[r + 1];
    ASSERT_EQ(rec.size(), 7u);
    EXPECT_EQ(rec[0], std::to_string(t.point_index[r]));
    EXPECT_EQ(rec[1], t.label(r, 0));
    EXPECT_EQ(rec[2], t.label(r, 1));
    EXPECT_EQ(rec[3], status_name(t.status[r]));
    EXPECT_EQ(rec[4], t.detail(r));
    for (std::size_t m = 0; m < 2; ++m) {
      const double want = t.metric(r, m);
      if (std::isnan(want)) {
        EXPECT_EQ(rec[5 + m], "");
      } else {
        EXPECT_EQ(std::strtod(rec[5 + m].c_str(), nullptr), want) << rec[5 + m];
      }
    }
  }
}

TEST(CsvTest, DoublesRoundTripExactly) {
  std::mt19937_64 rng(12345);
  std::vector<double> values = {0.1, 1.0 / 3, 2.0 / 3, 1e300, -1e-300, DBL_MAX, -DBL_MAX, DBL_MIN,
                                DBL_TRUE_MIN, 9007199254740993.0, 123456789012345678.0, 1.0, -1.0};
  for (int i = 0; i < 100'000; ++i) {
    const double v = std::bit_cast<double>(rng());
    if (std::isfinite(v)) values.push_back(v);
  }
  for (const double v : values) {
    const std::string s = number(v);
    char* end = nullptr;
    const double back = std::strtod(s.c_str(), &end);
    ASSERT_EQ(*end, '\0') << s;
    ASSERT_EQ(std::bit_cast<std::uint64_t>(back), std::bit_cast<std::uint64_t>(v)) << s;
  }
}

TEST(CsvTest, SpecialNumbers) {
  EXPECT_EQ(number(kNaN), "");
  EXPECT_EQ(number(kInf), "inf");
  EXPECT_EQ(number(-kInf), "-inf");
  EXPECT_EQ(number(-0.0), "0");
  EXPECT_EQ(number(0.0), "0");
  EXPECT_EQ(std::strtod(number(kInf).c_str(), nullptr), kInf);
  EXPECT_EQ(std::strtod(number(-kInf).c_str(), nullptr), -kInf);
}

// A decimal comma in the global C++ locale must not leak into the file.
TEST(CsvTest, IgnoresTheGlobalLocale) {
  struct CommaDecimal : std::numpunct<char> {
    char do_decimal_point() const override { return ','; }
    char do_thousands_sep() const override { return '.'; }
    std::string do_grouping() const override { return "\3"; }
  };
  const std::locale previous = std::locale::global(std::locale(std::locale::classic(), new CommaDecimal));
  const std::string text = results_csv(tiny_table());
  const std::string half = number(0.5);
  const std::string big = number(1234567.25);
  std::locale::global(previous);
  EXPECT_EQ(text, results_csv(tiny_table()));
  EXPECT_EQ(half, "0.5");
  EXPECT_EQ(big, "1234567.25");
}

TEST(CsvTest, ParetoRowsInAscendingOrder) {
  const ResultTable t = tiny_table();
  const std::vector<std::size_t> front = {2, 0};
  const std::string header = "point_index,hardware,batch_size,status,detail,latency_s,tokens_per_s\n";
  EXPECT_EQ(pareto_csv(t, front),
            header + "0,A100,32,ok,,0.5,1500\n5,\"TPU\nv5e\",128,error,\"line1\r\nline2\",1.5e-05,inf\n");
  EXPECT_EQ(pareto_csv(t, std::vector<std::size_t>{}), header);
  // results_csv keeps the order it is given.
  EXPECT_EQ(results_csv(t, front),
            header + "5,\"TPU\nv5e\",128,error,\"line1\r\nline2\",1.5e-05,inf\n0,A100,32,ok,,0.5,1500\n");
  EXPECT_THROW(results_csv(t, std::vector<std::size_t>{3}), std::invalid_argument);
}

// A large export is handed over in pieces of whole records that add up to the one text.
TEST(CsvTest, PiecesAreWholeRecordsOfTheSameText) {
  const ResultTable t = tiny_table();
  const std::vector<FixedInput> fixed = {{"eta", "0.5"}};
  for (const std::size_t piece_bytes : {std::size_t{1}, std::size_t{60}, std::size_t{1} << 20}) {
    std::vector<std::string> pieces;
    results_csv_pieces(t, fixed, [&pieces](std::string_view p) { pieces.emplace_back(p); }, piece_bytes);
    std::string joined;
    for (const std::string& p : pieces) {
      joined += p;
      EXPECT_FALSE(parse_csv(p).empty()) << p;  // each piece parses on its own: no record is cut
    }
    EXPECT_EQ(joined, results_csv(t, fixed)) << piece_bytes;
    EXPECT_EQ(pieces.size(), piece_bytes == 1 ? t.rows() : piece_bytes == 60 ? 2u : 1u) << piece_bytes;
  }
  ResultTable empty;
  empty.axis_names = {"a"};
  std::vector<std::string> pieces;
  results_csv_pieces(empty, {}, [&pieces](std::string_view p) { pieces.emplace_back(p); }, 1);
  EXPECT_EQ(pieces, (std::vector<std::string>{"point_index,a,status,detail\n"}));
}

TEST(CsvTest, EmptyTableIsItsHeader) {
  ResultTable t;
  t.axis_names = {"a"};
  t.metric_names = {"x,y"};
  EXPECT_EQ(results_csv(t), "point_index,a,status,detail,\"x,y\"\n");
}

TEST(CsvTest, RejectsMalformedTables) {
  ResultTable t = tiny_table();
  t.status.pop_back();
  EXPECT_THROW(results_csv(t), std::logic_error);
}

}  // namespace
}  // namespace dsx
