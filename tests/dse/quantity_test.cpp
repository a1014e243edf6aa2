#include "dse/quantity.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

namespace dsx {
namespace {

double parsed(std::string_view text, Dimension d) {
  const QuantityParse q = parse_quantity(text, d, "x");
  EXPECT_TRUE(q.quantity.has_value()) << text << ": " << q.error.message;
  return q.quantity ? q.quantity->value : std::nan("");
}

QuantityError failure(std::string_view text, Dimension d, std::string_view name = "x") {
  const QuantityParse q = parse_quantity(text, d, name);
  EXPECT_FALSE(q.quantity.has_value()) << text;
  return q.error;
}

// SI prefixes (BIPM SI brochure, table 7) and IEC 80000-13 binary prefixes.
TEST(QuantityTest, ParsesSiAndBinaryUnits) {
  EXPECT_DOUBLE_EQ(parsed("15 us", Dimension::time), 15e-6);
  EXPECT_DOUBLE_EQ(parsed("15us", Dimension::time), 15e-6);
  EXPECT_DOUBLE_EQ(parsed("15 \xC2\xB5s", Dimension::time), 15e-6);
  EXPECT_DOUBLE_EQ(parsed("2.5 ms", Dimension::time), 2.5e-3);
  EXPECT_DOUBLE_EQ(parsed("1e-6 s", Dimension::time), 1e-6);
  EXPECT_DOUBLE_EQ(parsed("40 ns", Dimension::time), 40e-9);
  EXPECT_DOUBLE_EQ(parsed("3.35 TB/s", Dimension::bandwidth), 3.35e12);
  EXPECT_DOUBLE_EQ(parsed("80 GiB", Dimension::bytes), 80.0 * 1024 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(parsed("80 GB", Dimension::bytes), 80e9);
  EXPECT_DOUBLE_EQ(parsed("512 KiB", Dimension::bytes), 512.0 * 1024);
  EXPECT_DOUBLE_EQ(parsed("900 GiB/s", Dimension::bandwidth), 900.0 * 1024 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(parsed("400 Gbit/s", Dimension::bandwidth), 400e9 / 8);
  EXPECT_DOUBLE_EQ(parsed("10 Gbps", Dimension::bandwidth), 10e9 / 8);
  EXPECT_DOUBLE_EQ(parsed("400 Gb/s", Dimension::bandwidth), 400e9 / 8);
  EXPECT_DOUBLE_EQ(parsed("312 TFLOP/s", Dimension::flop_rate), 312e12);
  EXPECT_DOUBLE_EQ(parsed("624 TOP/s", Dimension::flop_rate), 624e12);  // integer ops: same dimension
  EXPECT_DOUBLE_EQ(parsed("624 TOPS", Dimension::flop_rate), 624e12);
  EXPECT_DOUBLE_EQ(parsed("8.2 GFLOP", Dimension::flops), 8.2e9);
  EXPECT_DOUBLE_EQ(parsed("700 W", Dimension::power), 700);
  EXPECT_DOUBLE_EQ(parsed("1.5 kW", Dimension::power), 1500);
  EXPECT_DOUBLE_EQ(parsed("2 kWh", Dimension::energy), 2 * 3.6e6);
  EXPECT_DOUBLE_EQ(parsed("15000 USD", Dimension::money), 15000);
  EXPECT_DOUBLE_EQ(parsed("1000 /s", Dimension::rate), 1000);
  EXPECT_DOUBLE_EQ(parsed("0.5", Dimension::dimensionless), 0.5);
  EXPECT_DOUBLE_EQ(parsed("50%", Dimension::dimensionless), 0.5);
  EXPECT_DOUBLE_EQ(parsed(".5", Dimension::dimensionless), 0.5);
  EXPECT_DOUBLE_EQ(parsed("-2", Dimension::dimensionless), -2);
  EXPECT_DOUBLE_EQ(parsed("256", Dimension::count), 256);
  EXPECT_DOUBLE_EQ(parsed("1e3", Dimension::count), 1000);
  EXPECT_DOUBLE_EQ(parsed("  7 W  ", Dimension::power), 7);
}

// Deployment lengths and traffic volumes (seeds/000 lab_07 Act 2: "10,000 requests/day", "100
// requests/hour", a "1 week" or "1 year" deployment). A year is 365 days.
TEST(QuantityTest, ParsesDaysWeeksYearsAndVolumesPerPeriod) {
  EXPECT_DOUBLE_EQ(parsed("1 day", Dimension::time), 86400);
  EXPECT_DOUBLE_EQ(parsed("3 days", Dimension::time), 3 * 86400);
  EXPECT_DOUBLE_EQ(parsed("1 week", Dimension::time), 7 * 86400);
  EXPECT_DOUBLE_EQ(parsed("2 weeks", Dimension::time), 14 * 86400);
  EXPECT_DOUBLE_EQ(parsed("1 year", Dimension::time), 365 * 86400);
  EXPECT_DOUBLE_EQ(parsed("2 years", Dimension::time), 2 * 365 * 86400);
  EXPECT_DOUBLE_EQ(parsed("100 /h", Dimension::rate), 100.0 / 3600);
  EXPECT_DOUBLE_EQ(parsed("100 requests/h", Dimension::rate), 100.0 / 3600);
  EXPECT_DOUBLE_EQ(parsed("60 /min", Dimension::rate), 1);
  EXPECT_DOUBLE_EQ(parsed("10000 /day", Dimension::rate), 10000.0 / 86400);
  EXPECT_DOUBLE_EQ(parsed("10 k/day", Dimension::rate), 10000.0 / 86400);
  EXPECT_DOUBLE_EQ(parsed("10000 requests/day", Dimension::rate), 10000.0 / 86400);
  EXPECT_DOUBLE_EQ(parsed("100 M/day", Dimension::rate), 1e8 / 86400);
  EXPECT_DOUBLE_EQ(parsed("7 /week", Dimension::rate), 1.0 / 86400);
  EXPECT_DOUBLE_EQ(parsed("365 /year", Dimension::rate), 1.0 / 86400);
  // A volume is a rate, not a time: "/day" after a duration is the wrong dimension.
  EXPECT_EQ(failure("1 /day", Dimension::time, "duration").message,
            "duration is a time (e.g. '10 us'), but '/day' is a unit of rate");
  EXPECT_EQ(failure("1 day", Dimension::rate, "volume").message,
            "volume is a rate (e.g. '1000 /s'), but 'day' is a unit of time");
  // Long units are aliases: labels dsx writes stay in s, h, /s, k/s.
  EXPECT_EQ(exact_quantity_label(parsed("2 h", Dimension::time), Dimension::time), "2 h");
  EXPECT_EQ(exact_quantity_label(parsed("1 day", Dimension::time), Dimension::time), "24 h");
}

TEST(QuantityTest, KeepsTheUnitAsWritten) {
  const QuantityParse q = parse_quantity("5 us", Dimension::time, "t");
  ASSERT_TRUE(q.quantity);
  EXPECT_EQ(q.quantity->unit, "us");
  EXPECT_DOUBLE_EQ(q.quantity->unit_scale, 1e-6);
  EXPECT_DOUBLE_EQ(q.quantity->number, 5);
}

TEST(QuantityTest, BareNumberWhereAUnitIsNeeded) {
  const QuantityError e = failure("10", Dimension::time, "launch_overhead");
  EXPECT_EQ(e.message, "missing unit: launch_overhead is a time, e.g. '10 us'");
  EXPECT_EQ(e.offset, 0U);
  EXPECT_EQ(e.length, 2U);
  EXPECT_EQ(failure("2", Dimension::bandwidth, "memory_bandwidth").message,
            "missing unit: memory_bandwidth is a bandwidth, e.g. '2 TB/s'");
}

TEST(QuantityTest, UnitOfTheWrongDimension) {
  const QuantityError e = failure("10 GB/s", Dimension::time, "launch_overhead");
  EXPECT_EQ(e.message, "launch_overhead is a time (e.g. '10 us'), but 'GB/s' is a unit of bandwidth");
  EXPECT_EQ(e.offset, 3U);
  EXPECT_EQ(e.length, 4U);
  EXPECT_EQ(failure("5 us", Dimension::count, "batch").message,
            "batch is a count and takes no unit, got 'us' (a unit of time)");
}

TEST(QuantityTest, UnknownUnitCarriesTheChoices) {
  const QuantityError e = failure("4 TB/sec", Dimension::bandwidth);
  EXPECT_TRUE(e.unknown_unit);
  EXPECT_EQ(e.got, "TB/sec");
  EXPECT_EQ(e.message, "bandwidth unit");
  EXPECT_EQ(e.choices, unit_symbols(Dimension::bandwidth));
  EXPECT_EQ(e.offset, 2U);
  EXPECT_EQ(failure("64 KB", Dimension::bytes).message,
            "ambiguous unit 'KB': write kB (1000 bytes) or KiB (1024 bytes)");
  EXPECT_EQ(failure("1 Tflop/s", Dimension::flop_rate).got, "Tflop/s");  // units are case-sensitive
}

TEST(QuantityTest, RejectsOtherNumberSpellings) {
  EXPECT_EQ(failure("0x10", Dimension::count, "batch").message,
            "batch: '0x10' is not accepted: write numbers in decimal (a count such as '8')");
  EXPECT_EQ(failure("1_000", Dimension::count, "batch").message,
            "batch: '1_000' is not accepted: write numbers without digit separators");
  EXPECT_EQ(failure(".inf", Dimension::dimensionless, "eta").message,
            "eta: expected a dimensionless number such as '0.5', got '.inf' (only finite numbers are accepted)");
  EXPECT_EQ(failure("nan", Dimension::dimensionless, "eta").message,
            "eta: expected a dimensionless number such as '0.5', got 'nan' (only finite numbers are accepted)");
  EXPECT_EQ(failure("eight", Dimension::count, "batch").message,
            "batch: expected a count such as '8', got 'eight'");
  EXPECT_EQ(failure("", Dimension::time, "t").message, "t: expected a time such as '10 us', got nothing");
  EXPECT_EQ(failure("1e999 s", Dimension::time, "t").message, "t: 1e999 is out of the range of a double");
  EXPECT_FALSE(parse_number("1e"));
  EXPECT_FALSE(parse_number("+"));
  EXPECT_FALSE(parse_number("1.2.3"));
  EXPECT_EQ(parse_number("+1.5e+2").value_or(0), 150.0);
}

TEST(QuantityTest, BoundsFollowParamSpecSemantics) {
  const QuantityBounds eta{.bounded = true, .min_value = 0, .max_value = 1, .min_exclusive = true};
  EXPECT_EQ(check_bounds(0.5, eta, Dimension::dimensionless, "eta", "0.5"), "");
  EXPECT_EQ(check_bounds(1, eta, Dimension::dimensionless, "eta", "1"), "");
  EXPECT_EQ(check_bounds(0, eta, Dimension::dimensionless, "eta", "0"), "eta = 0 is out of range: it must be in (0, 1]");
  const QuantityBounds batch{.bounded = true, .min_value = 1, .max_value = 1e9, .integer = true};
  EXPECT_EQ(check_bounds(2.5, batch, Dimension::count, "batch", "2.5"), "batch must be an integer, got '2.5'");
  const QuantityBounds positive{
      .bounded = true, .min_value = 0, .max_value = std::numeric_limits<double>::infinity(), .min_exclusive = true};
  EXPECT_EQ(check_bounds(-1, positive, Dimension::power, "tdp", "-1 W"),
            "tdp = -1 W is out of range: it must be greater than 0 W");
  const QuantityBounds launch{.bounded = true, .min_value = 0, .max_value = 1};
  EXPECT_EQ(check_bounds(2, launch, Dimension::time, "launch_overhead", "2 s"),
            "launch_overhead = 2 s is out of range: it must be in [0 s, 1 s]");
  EXPECT_EQ(check_bounds(std::nan(""), QuantityBounds{}, Dimension::time, "t", "?"), "t must be a finite number, got '?'");
}

TEST(QuantityTest, NumberTextIsShortAndExact) {
  EXPECT_EQ(number_text(0.1 + 0.2, 10), "0.3");
  EXPECT_EQ(number_text(0.1 + 0.2), "0.30000000000000004");
  EXPECT_EQ(number_text(1e6), "1000000");
  EXPECT_EQ(number_text(1e-7), "1e-7");
  EXPECT_EQ(number_text(2.5e20), "2.5e20");
  EXPECT_EQ(number_text(19.5), "19.5");
  EXPECT_EQ(number_text(-0.25), "-0.25");
  EXPECT_EQ(number_text(0), "0");
  EXPECT_EQ(number_text(4.41025641025641, 6), "4.41026");
  EXPECT_EQ(label_in_unit(5e-6, "us", 1e-6, 6), "5 us");
  EXPECT_EQ(label_in_unit(0.125, "%", 0.01, 6), "12.5%");
  EXPECT_EQ(label_in_unit(64, "", 1, 6), "64");
}

TEST(QuantityTest, ExactLabelsPreferEngineeringUnits) {
  EXPECT_EQ(exact_quantity_label(80.0 * 1024 * 1024 * 1024, Dimension::bytes), "80 GiB");
  EXPECT_EQ(exact_quantity_label(24e9, Dimension::bytes), "24 GB");
  EXPECT_EQ(exact_quantity_label(parsed("2.039 TB/s", Dimension::bandwidth), Dimension::bandwidth), "2.039 TB/s");
  EXPECT_EQ(exact_quantity_label(312e12, Dimension::flop_rate), "312 TFLOP/s");
  EXPECT_EQ(exact_quantity_label(1500, Dimension::power), "1.5 kW");
  EXPECT_EQ(exact_quantity_label(parsed("10 us", Dimension::time), Dimension::time), "10 us");
  EXPECT_EQ(exact_quantity_label(0.3, Dimension::dimensionless), "0.3");
  EXPECT_EQ(exact_quantity_label(0, Dimension::money), "0 USD");
}

TEST(QuantityTest, ExactLabelsRoundTripEveryDouble) {
  std::mt19937_64 rng(12345);
  std::uniform_real_distribution<double> exponent(-12, 18);
  std::uniform_real_distribution<double> mantissa(1, 10);
  const Dimension dims[] = {Dimension::time,  Dimension::bytes,  Dimension::bandwidth, Dimension::flops,
                            Dimension::flop_rate, Dimension::power, Dimension::energy, Dimension::money,
                            Dimension::rate, Dimension::dimensionless};
  for (int i = 0; i < 300; ++i) {
    const double v = mantissa(rng) * std::pow(10.0, std::floor(exponent(rng)));
    for (Dimension d : dims) {
      const std::string label = exact_quantity_label(v, d);
      const QuantityParse back = parse_quantity(label, d, "x");
      ASSERT_TRUE(back.quantity) << label;
      ASSERT_EQ(back.quantity->value, v) << label;
    }
  }
}

TEST(QuantityTest, EveryDimensionHasAnExampleThatParses) {
  const Dimension dims[] = {Dimension::dimensionless, Dimension::count, Dimension::time,
                            Dimension::bytes,        Dimension::bandwidth, Dimension::flops,
                            Dimension::flop_rate,    Dimension::power, Dimension::energy,
                            Dimension::money,        Dimension::rate};
  for (Dimension d : dims) {
    EXPECT_TRUE(parse_quantity(unit_example(d), d, "x").quantity) << unit_example(d);
    for (const std::string& symbol : unit_symbols(d)) {
      const Unit* u = find_unit(symbol);
      ASSERT_NE(u, nullptr);
      EXPECT_EQ(u->dimension, d);
      EXPECT_GT(u->scale, 0);
    }
  }
  for (const Unit& u : all_units()) EXPECT_FALSE(u.symbol.empty());
}

}  // namespace
}  // namespace dsx
