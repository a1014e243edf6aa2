// The units reference (studies/README.md, "Quantities and units") and the parser (dse/quantity.hpp)
// say the same: every spelling the table lists parses to its row's dimension and, for sizes, bit and
// byte rates and times, to the value its spelling documents; every unit the parser accepts is in the
// table. The table is read from the README, so the two cannot drift apart.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "dse/quantity.hpp"
#include "tests/test_files.hpp"

namespace dsx {
namespace {

struct Row {
  std::string dimension;            // first column, as written
  std::vector<std::string> units;   // backticked spellings of the second column
};

// The rows of the first table under "### Quantities and units".
std::vector<Row> reference_rows() {
  const std::string text = read_text(std::filesystem::path(DSX_SOURCE_DIR) / "studies/README.md");
  const auto section = text.find("### Quantities and units");
  if (section == std::string::npos) return {};
  const auto table = text.find("\n| dimension |", section);
  if (table == std::string::npos) return {};
  std::vector<Row> rows;
  std::size_t at = text.find('\n', text.find('\n', table + 1) + 1) + 1;  // past the header and |---|
  while (at < text.size() && text[at] == '|') {
    const std::size_t end = text.find('\n', at);
    const std::string line = text.substr(at, end - at);
    at = end + 1;
    std::vector<std::string> cells;
    for (std::size_t p = 1; p < line.size();) {
      const std::size_t bar = line.find('|', p);
      if (bar == std::string::npos) break;
      cells.push_back(line.substr(p, bar - p));
      p = bar + 1;
    }
    if (cells.size() < 2) continue;
    Row row;
    row.dimension = cells[0].substr(1, cells[0].size() - 2);
    for (std::size_t p = cells[1].find('`'); p != std::string::npos; p = cells[1].find('`', p)) {
      const std::size_t close = cells[1].find('`', p + 1);
      if (close == std::string::npos) break;
      const std::string token = cells[1].substr(p + 1, close - p - 1);
      p = close + 1;
      // A worked example inside the list, such as `50%`, is not a spelling.
      if (token.size() > 1 && token.back() == '%') continue;
      // "every byte unit + `/s`" names the suffix, not the rate unit `/s` of the rate row.
      if (row.dimension == "bandwidth" && token == "/s") continue;
      // "`FLOP/s` with `k M G T P E` prefixes": each prefix before the spelling listed last.
      if (token.find(' ') != std::string::npos && !row.units.empty()) {
        const std::string base = row.units.back();
        for (char c : token) {
          if (c != ' ') row.units.push_back(std::string(1, c) + base);
        }
        continue;
      }
      row.units.push_back(token);
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

const std::map<std::string, Dimension> kDimensions = {
    {"time", Dimension::time},
    {"bytes", Dimension::bytes},
    {"bandwidth", Dimension::bandwidth},
    {"FLOP count", Dimension::flops},
    {"FLOP rate", Dimension::flop_rate},
    {"power", Dimension::power},
    {"energy", Dimension::energy},
    {"money", Dimension::money},
    {"rate", Dimension::rate},
    {"carbon intensity", Dimension::carbon_intensity},
    {"energy price", Dimension::energy_price},
    {"dimensionless", Dimension::dimensionless},
    {"count", Dimension::count},
};

// The value a size or rate spelling documents: its prefix (decimal powers of 1000, binary powers
// of 1024) times bytes, or an eighth of that for bits. nullopt for other spellings.
std::optional<double> documented_value(std::string unit, Dimension d) {
  if (d == Dimension::bandwidth) {
    for (const char* per : {"/s", "ps"}) {
      if (unit.ends_with(per)) {
        unit.resize(unit.size() - 2);
        break;
      }
    }
  } else if (d != Dimension::bytes) {
    return std::nullopt;
  }
  static const std::map<std::string, double> kPrefixes = {
      {"", 1},           {"k", 1e3},           {"M", 1e6},        {"G", 1e9},        {"T", 1e12},
      {"P", 1e15},       {"Ki", 1024.0},       {"Mi", 1048576.0}, {"Gi", 1073741824.0},
      {"Ti", 1099511627776.0},                 {"Pi", 1125899906842624.0}};
  for (const auto& [base, per_unit] : {std::pair<std::string, double>{"B", 1.0}, {"bit", 1.0 / 8}, {"b", 1.0 / 8}}) {
    if (per_unit != 1.0 && d != Dimension::bandwidth) continue;
    if (!unit.ends_with(base)) continue;
    const auto prefix = kPrefixes.find(unit.substr(0, unit.size() - base.size()));
    if (prefix != kPrefixes.end()) return prefix->second * per_unit;
  }
  return std::nullopt;
}

const std::map<std::string, double> kTimes = {
    {"s", 1},          {"ms", 1e-3},       {"us", 1e-6},        {"\xC2\xB5s", 1e-6},  {"\xCE\xBCs", 1e-6},
    {"ns", 1e-9},      {"ps", 1e-12},      {"min", 60},         {"h", 3600},          {"day", 86400},
    {"days", 86400},   {"week", 604800},   {"weeks", 604800},   {"year", 31536000},   {"years", 31536000}};

TEST(UnitsReference, EverySpellingInTheTableParsesToItsDocumentedValue) {
  const std::vector<Row> rows = reference_rows();
  ASSERT_GE(rows.size(), kDimensions.size());
  std::size_t checked_values = 0;
  for (const Row& row : rows) {
    const auto d = kDimensions.find(row.dimension);
    ASSERT_NE(d, kDimensions.end()) << "a row of an unknown dimension: " << row.dimension;
    for (const std::string& unit : row.units) {
      const QuantityParse p = parse_quantity("2 " + unit, d->second, "x");
      ASSERT_TRUE(p.quantity) << unit << " (" << row.dimension << "): " << p.error.message;
      EXPECT_EQ(p.quantity->unit, unit);
      std::optional<double> value = documented_value(unit, d->second);
      if (d->second == Dimension::time) value = kTimes.at(unit);
      if (value) {
        EXPECT_EQ(p.quantity->value, 2 * *value) << unit;
        ++checked_values;
      }
    }
  }
  EXPECT_GE(checked_values, 40U);
}

TEST(UnitsReference, ByteRatesAreEveryByteUnitPerSecond) {
  for (const Row& row : reference_rows()) {
    if (row.dimension != "bytes") continue;
    for (const std::string& unit : row.units) {
      const QuantityParse size = parse_quantity("1 " + unit, Dimension::bytes, "x");
      const QuantityParse rate = parse_quantity("1 " + unit + "/s", Dimension::bandwidth, "x");
      ASSERT_TRUE(size.quantity && rate.quantity) << unit;
      EXPECT_EQ(rate.quantity->value, size.quantity->value) << unit;
    }
  }
}

TEST(UnitsReference, EveryUnitTheParserAcceptsIsInTheTable) {
  std::set<std::string> documented;
  for (const Row& row : reference_rows()) {
    for (const std::string& unit : row.units) {
      documented.insert(unit);
      if (row.dimension == "bytes") documented.insert(unit + "/s");  // "every byte unit + /s"
    }
  }
  for (const Unit& u : all_units()) {
    EXPECT_TRUE(documented.count(std::string(u.symbol)) == 1) << u.symbol << " is accepted but not in studies/README.md";
  }
}

// Bits are sold as `Gb/s`; bytes are `GB/s`. A spelling that could be either is refused with both.
TEST(UnitsReference, AnAmbiguousBitOrByteSpellingNamesBothReadings) {
  EXPECT_EQ(parse_quantity("400 Gb/s", Dimension::bandwidth, "x").quantity->value, 50e9);
  EXPECT_EQ(parse_quantity("400 Gbps", Dimension::bandwidth, "x").quantity->value, 50e9);
  EXPECT_EQ(parse_quantity("400 Gbit/s", Dimension::bandwidth, "x").quantity->value, 50e9);
  EXPECT_EQ(parse_quantity("400 GB/s", Dimension::bandwidth, "x").quantity->value, 400e9);
  for (const char* unit : {"gb/s", "GBps", "gbps", "GBit/s", "gB/s", "GBPS", "gbit/s"}) {
    const QuantityParse p = parse_quantity(std::string("400 ") + unit, Dimension::bandwidth, "link_bandwidth");
    ASSERT_FALSE(p.quantity) << unit;
    EXPECT_FALSE(p.error.unknown_unit) << unit;  // no "did you mean" guess
    EXPECT_EQ(p.error.message, "unit '" + std::string(unit) +
                                   "' could mean bytes or bits per second, eight times apart: write 'GB/s' for bytes "
                                   "per second or 'Gbit/s', 'Gbps', 'Gb/s' for bits per second (unit symbols are "
                                   "case-sensitive)");
  }
  const QuantityParse small = parse_quantity("1 mbps", Dimension::bandwidth, "x");
  ASSERT_FALSE(small.quantity);
  EXPECT_NE(small.error.message.find("'MB/s' for bytes per second or 'Mbit/s', 'Mbps', 'Mb/s' for bits"),
            std::string::npos)
      << small.error.message;
  // Not a bandwidth spelling in either reading: the usual unknown unit with its closest match.
  EXPECT_TRUE(parse_quantity("1 GQ/s", Dimension::bandwidth, "x").error.unknown_unit);
}

}  // namespace
}  // namespace dsx
