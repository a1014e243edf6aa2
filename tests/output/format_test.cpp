#include "output/format.hpp"
#include "output/readable_label.hpp"
#include "tests/cli/report_agreement.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

namespace dsx {
namespace {

// Values quoted from the seeds: A100 fp16 peak 312 TFLOP/s and HBM2e 2.039 TB/s (seeds/003,
// "numbers to know"), a 15 us kernel (5 us launch + 10 us compute) and KWS utilization 1/3
// (seeds/000 lab_07 Act 1), the ResNet-50 compilation break-even of ~134,000 images (lab_07 Act 3).
TEST(FormatSi, PrefixesAndSignificantFigures) {
  EXPECT_EQ(format_si(15e-6, "s"), "15.0 \u00b5s");
  EXPECT_EQ(format_si(5e-6, "s"), "5.00 \u00b5s");
  EXPECT_EQ(format_si(312e12, "FLOP/s"), "312 TFLOP/s");
  EXPECT_EQ(format_si(2.039e12, "B/s"), "2.04 TB/s");
  EXPECT_EQ(format_si(3.35e12, "B/s"), "3.35 TB/s");
  EXPECT_EQ(format_si(400, "W"), "400 W");
  EXPECT_EQ(format_si(3.3e-3, "J"), "3.30 mJ");
  EXPECT_EQ(format_si(4.1e9, "FLOP"), "4.10 GFLOP");
}

TEST(FormatSi, RoundingCarriesIntoTheNextPrefix) {
  EXPECT_EQ(format_si(999.96e-6, "s"), "1.00 ms");
  EXPECT_EQ(format_si(999.4e-6, "s"), "999 \u00b5s");
  EXPECT_EQ(format_si(0.99999, "s"), "1.00 s");
}

TEST(FormatSi, SecondsAboveOneStaySeconds) {
  // 30 s compile time of lab_07 Act 3; an hour is 3,600 s, not 3.60 ks.
  EXPECT_EQ(format_si(30, "s"), "30.0 s");
  EXPECT_EQ(format_si(3600, "s"), "3,600 s");
}

TEST(FormatSi, DataAndWorkAreNeverSubUnit) {
  EXPECT_EQ(format_si(0.5, "B"), "0.500 B");
  EXPECT_EQ(format_si(1e21, "FLOP"), "1,000 EFLOP");
}

TEST(FormatSi, ZeroNegativeAndNonFinite) {
  EXPECT_EQ(format_si(0, "s"), "0 s");
  EXPECT_EQ(format_si(-15e-6, "s"), "-15.0 \u00b5s");
  EXPECT_EQ(format_si(std::nan(""), "s"), "n/a s");
  EXPECT_EQ(format_si(std::numeric_limits<double>::infinity(), "W"), "inf W");
}

TEST(FormatSi, DigitsAreHonoured) {
  EXPECT_EQ(format_si(2.039e12, "B/s", 4), "2.039 TB/s");
  EXPECT_EQ(format_si(2.039e12, "B/s", 1), "2 TB/s");
}

TEST(FormatBytes, BinaryOnlyForExactBinaryMultiples) {
  // 80 GiB (A100 80GB is sold as 80 GiB of HBM) and 40 GB decimal.
  EXPECT_EQ(format_bytes(80.0 * 1024 * 1024 * 1024), "80.0 GiB");
  EXPECT_EQ(format_bytes(40e9), "40.0 GB");
  EXPECT_EQ(format_bytes(1.5 * 1024 * 1024 * 1024), "1.50 GiB");
  EXPECT_EQ(format_bytes(64 * 1024), "64.0 KiB");
  EXPECT_EQ(format_bytes(1024000), "1.02 MB");  // a multiple of both 1000 and 1024: decimal
  EXPECT_EQ(format_bytes(12345678), "12.3 MB");
  EXPECT_EQ(format_bytes(512), "512 B");
}

TEST(FormatBytes, AValueBesideAnotherTakesItsPrefixes) {
  // 14 B x 8,030,261,248 parameters happens to be a multiple of 1,024: beside an expected 112.42 GB it
  // reads in GB, not as "105 GiB".
  const QuantityDisplay bytes = describe_quantity("host_memory_per_gpu_bytes", Dimension::bytes);
  EXPECT_EQ(format_bytes(14 * 8030261248.0), "105 GiB");
  EXPECT_EQ(format_quantity_like(14 * 8030261248.0, 112.42e9, bytes), "112 GB");
  EXPECT_EQ(format_quantity_like(80.0 * 1024 * 1024 * 1024, 80.0 * 1024 * 1024 * 1024, bytes), "80.0 GiB");
  EXPECT_EQ(format_quantity_like(85.9e9, 80.0 * 1024 * 1024 * 1024, bytes), "80.0 GiB");
  const QuantityDisplay time = describe_quantity("step_time_s", Dimension::time);
  EXPECT_EQ(format_quantity_like(0.0125, 2.0, time), format_quantity(0.0125, time));
}

TEST(FormatGrouped, IntegersExactlyOthersToSignificantFigures) {
  EXPECT_EQ(format_grouped(134000), "134,000");
  EXPECT_EQ(format_grouped(1024), "1,024");
  EXPECT_EQ(format_grouped(1000), "1,000");
  EXPECT_EQ(format_grouped(2150.4), "2,150");
  EXPECT_EQ(format_grouped(1450.0), "1,450");
  EXPECT_EQ(format_grouped(0.0012), "0.00120");
  EXPECT_EQ(format_grouped(-7), "-7");
  EXPECT_EQ(format_grouped(1e-7), "1.00e-7");
  EXPECT_EQ(format_grouped(1.234e16), "1.23e16");
  EXPECT_EQ(format_grouped(0), "0");
}

TEST(FormatPercent, SharesAndUtilizations) {
  EXPECT_EQ(format_percent(5000.0 / 15000.0), "33.3 %");  // KWS, lab_07 Act 1
  EXPECT_EQ(format_percent(1.0), "100 %");
  EXPECT_EQ(format_percent(0.5), "50.0 %");
  EXPECT_EQ(format_percent(0.3), "30.0 %");
  EXPECT_EQ(format_percent(0), "0 %");
  EXPECT_EQ(format_percent(0.05, 2), "5.0 %");
}

TEST(FormatSigned, OneDecimalAndNoNegativeZero) {
  EXPECT_EQ(format_signed(2.14, "%"), "+2.1 %");
  EXPECT_EQ(format_signed(-34.46, "%"), "-34.5 %");
  EXPECT_EQ(format_signed(-0.01, "pp"), "+0.0 pp");
  EXPECT_EQ(format_signed(0, "%"), "+0.0 %");
}

TEST(FormatExact, RoundTripsEveryDouble) {
  for (double v : {0.1, 1.0 / 3.0, 2.039e12, 1e-300, 5e-324, -15e-6, 134000.0, std::nextafter(1.0, 2.0)}) {
    const std::string s = format_exact(v);
    EXPECT_EQ(std::strtod(s.c_str(), nullptr), v) << s;
    EXPECT_EQ(s.find(','), std::string::npos);
  }
}

TEST(DescribeQuantity, UnitsComeFromTheNameAndDimension) {
  auto d = describe_quantity("latency_s", Dimension::time);
  EXPECT_EQ(d.label, "latency");
  EXPECT_EQ(d.unit, "s");
  EXPECT_EQ(d.style, NumberStyle::si);

  d = describe_quantity("energy_j", Dimension::energy);
  EXPECT_EQ(d.label, "energy");
  EXPECT_EQ(d.unit, "J");

  d = describe_quantity("energy_per_sample_j", Dimension::energy);
  EXPECT_EQ(d.label, "energy per sample");

  d = describe_quantity("throughput_samples_per_s", Dimension::rate);
  EXPECT_EQ(d.label, "throughput");
  EXPECT_EQ(d.unit, "samples/s");
  EXPECT_EQ(d.style, NumberStyle::grouped);

  d = describe_quantity("tokens_per_s", Dimension::rate);
  EXPECT_EQ(d.label, "throughput");
  EXPECT_EQ(d.unit, "tokens/s");

  d = describe_quantity("gpu_utilization", Dimension::dimensionless);
  EXPECT_EQ(d.label, "GPU utilization");
  EXPECT_EQ(d.unit, "%");
  EXPECT_EQ(d.style, NumberStyle::percent);

  d = describe_quantity("arithmetic_intensity_flop_per_byte", Dimension::dimensionless);
  EXPECT_EQ(d.label, "arithmetic intensity");
  EXPECT_EQ(d.unit, "FLOP/B");

  d = describe_quantity("memory_footprint_bytes", Dimension::bytes);
  EXPECT_EQ(d.label, "memory footprint");
  EXPECT_EQ(d.unit, "B");

  d = describe_quantity("kernel_count", Dimension::count);
  EXPECT_EQ(d.label, "kernel count");
  EXPECT_EQ(d.unit, "");

  d = describe_quantity("launch_overhead", Dimension::time);
  EXPECT_EQ(d.label, "launch overhead");
  EXPECT_EQ(d.unit, "s");

  d = describe_quantity("cost_usd", Dimension::money);
  EXPECT_EQ(d.label, "cost");
  EXPECT_EQ(d.unit, "USD");
  EXPECT_EQ(d.style, NumberStyle::grouped);
}

TEST(FormatQuantity, FollowsTheDisplayStyle) {
  EXPECT_EQ(format_quantity(15e-6, describe_quantity("latency_s", Dimension::time)), "15.0 \u00b5s");
  EXPECT_EQ(format_quantity(1.0 / 3.0, describe_quantity("gpu_utilization", Dimension::dimensionless)), "33.3 %");
  EXPECT_EQ(format_quantity(2150, describe_quantity("throughput_samples_per_s", Dimension::rate)), "2,150 samples/s");
  EXPECT_EQ(format_quantity(80.0 * 1024 * 1024 * 1024, describe_quantity("memory_bytes", Dimension::bytes)),
            "80.0 GiB");
  EXPECT_EQ(format_quantity(1000, describe_quantity("kernel_count", Dimension::count)), "1,000");
}

// Money from 10,000 USD on reads as its axis does (choose_axis_scale: "k USD", "M USD"): the fleet
// solver's 115,920,000 USD capex (tests/engine/fleet_test.cpp) is "116 M USD".
TEST(FormatQuantity, MoneyReadsInThousandsAndMillionsFromTenThousandOn) {
  const QuantityDisplay cost = describe_quantity("capex_usd", Dimension::money);
  EXPECT_EQ(format_quantity(9000, cost), "9,000 USD");
  EXPECT_EQ(format_quantity(25000, cost), "25.0 k USD");
  EXPECT_EQ(format_quantity(115920000, cost), "116 M USD");
  EXPECT_EQ(format_quantity(-2.5e9, cost), "-2.50 G USD");
  EXPECT_EQ(format_quantity(2.5, cost), "2.50 USD");
}

// What a study wrote reads as the report's computed numbers do, without their trailing zeros.
TEST(ReadableLabel, StudySpellingsReadInTheReportsUnits) {
  EXPECT_EQ(readable_label("5 us"), "5 \u00b5s");
  EXPECT_EQ(readable_label("5us"), "5 \u00b5s");
  EXPECT_EQ(readable_label("0.01 ms"), "10 \u00b5s");
  EXPECT_EQ(readable_label("1.5 ms"), "1.5 ms");
  EXPECT_EQ(readable_label("36000 s"), "10 h");          // 36,000 s / 3,600
  EXPECT_EQ(readable_label("864000 s"), "10 days");
  EXPECT_EQ(readable_label("17500000 s"), "202.546 days");  // 17.5e6 / 86,400, to six figures at most
  EXPECT_EQ(readable_label("25000 USD"), "25 k USD");
  EXPECT_EQ(readable_label("2.5 USD"), "2.5 USD");
  EXPECT_EQ(readable_label("80 GiB"), "80 GiB");
  EXPECT_EQ(readable_label("40 GB"), "40 GB");
  EXPECT_EQ(readable_label("3.35 TB/s"), "3.35 TB/s");
  EXPECT_EQ(readable_label("400 Gb/s"), "50 GB/s");      // a bit rate is an eighth of the byte rate
  // Calendar units the study chose, words, ids and plain numbers stay as written.
  EXPECT_EQ(readable_label("1 h"), "1 h");
  EXPECT_EQ(readable_label("3 days"), "3 days");
  EXPECT_EQ(readable_label("h100_sxm"), "h100_sxm");
  EXPECT_EQ(readable_label("catalog"), "catalog");
  EXPECT_EQ(readable_label("0.5"), "0.5");
  EXPECT_EQ(readable_label("1024"), "1024");
  EXPECT_EQ(readable_label("fp8"), "fp8");
}

// A volume per period reads as its count per that period in words, never with the study's prefix
// left in front of a grouped number: 1,000,000 M/day is 10^12 a day.
TEST(ReadableLabel, VolumesPerPeriodReadAsCountsPerPeriod) {
  EXPECT_EQ(readable_label("1000000 M/day"), "1 trillion per day");
  EXPECT_EQ(readable_label("100000 M/day"), "100 billion per day");
  EXPECT_EQ(readable_label("10000 M/day"), "10 billion per day");
  EXPECT_EQ(readable_label("2.5 M/day"), "2.5 million per day");
  EXPECT_EQ(readable_label("250 k/day"), "250,000 per day");
  EXPECT_EQ(readable_label("30 /h"), "30 per hour");
  EXPECT_EQ(readable_label("1200 requests/day"), "1,200 requests per day");
  EXPECT_EQ(readable_label("1450 /s"), "1450 /s");  // a rate per second is not a volume per period
}

// A rate reads as what it counts per second, never "1/s": the counted thing from the name, or
// "/s" after the quantity the name gives.
TEST(DescribeQuantity, RatesNameWhatTheyCount) {
  struct Case {
    const char* name;
    const char* label;
    const char* unit;
  };
  for (const Case& c : {Case{"tokens_per_s_per_gpu", "throughput per GPU", "tokens/s"},
                        Case{"peak_load_tokens_per_s", "peak load", "tokens/s"},
                        Case{"max_throughput_requests_per_s", "max throughput", "requests/s"},
                        Case{"capacity_per_s", "capacity", "/s"}, Case{"arrival_rate", "arrival rate", "/s"}}) {
    const QuantityDisplay d = describe_quantity(c.name, Dimension::rate);
    EXPECT_EQ(d.label, c.label) << c.name;
    EXPECT_EQ(d.unit, c.unit) << c.name;
    EXPECT_EQ(d.style, NumberStyle::grouped) << c.name;
  }
  const QuantityDisplay d = describe_quantity("arrival_rate", Dimension::rate);
  EXPECT_EQ(format_quantity(3.2, d), "3.20/s");
  EXPECT_EQ(format_quantity(1.25e6, describe_quantity("tokens_per_s_per_gpu", Dimension::rate)), "1,250,000 tokens/s");
  // A count per joule (a derived metric, dimensionless) names what it counts, as a rate does.
  const QuantityDisplay per_joule = describe_quantity("tokens_per_joule", Dimension::dimensionless);
  EXPECT_EQ(per_joule.label, "tokens per joule");
  EXPECT_EQ(format_quantity(1.11, per_joule), "1.11 tokens/J");
  // Serving's abbreviations read as words.
  EXPECT_EQ(describe_quantity("itl_s", Dimension::time).label, "inter-token latency");
  EXPECT_EQ(describe_quantity("p99_ttft_s", Dimension::time).label, "p99 time to first token");
  const AxisScale s = choose_axis_scale(d, 45000);
  EXPECT_EQ(s.unit, "k/s");
  EXPECT_EQ(format_in_scale(45000, s), "45.0 k/s");
  EXPECT_EQ(axis_title(d, s), "arrival rate (k/s)");
}

// A plain number whose name carries a prefixed FLOP rate (the training solver's tflops_per_gpu, 295
// meaning 295 TFLOP/s) reads with that unit in text, tables and on an axis.
TEST(DescribeQuantity, PrefixedFlopRatesInTheNameReadAsFlopPerSecond) {
  const QuantityDisplay d = describe_quantity("tflops_per_gpu", Dimension::dimensionless);
  EXPECT_EQ(d.label, "FLOP rate per GPU");
  EXPECT_EQ(d.unit, "TFLOP/s");
  EXPECT_EQ(format_quantity(295.4, d), "295 TFLOP/s");
  const AxisScale s = choose_axis_scale(d, 450);
  EXPECT_EQ(s.factor, 1.0);
  EXPECT_EQ(axis_title(d, s), "FLOP rate per GPU (TFLOP/s)");
  EXPECT_EQ(describe_quantity("hardware_tflops_per_gpu", Dimension::dimensionless).label, "hardware FLOP rate per GPU");
  EXPECT_EQ(describe_quantity("cluster_pflops", Dimension::dimensionless).unit, "PFLOP/s");
  // A name that only contains the letters is not one.
  EXPECT_EQ(describe_quantity("tflopsish_count", Dimension::dimensionless).unit, "");
}

// One time formatting for text, tables and axes: SI seconds below ten minutes, then the calendar
// units an axis reaching the same value uses, with the same digits.
TEST(FormatDuration, LongTimesReadInCalendarUnitsLikeTheAxes) {
  EXPECT_EQ(format_duration(15e-6), "15.0 \u00b5s");
  EXPECT_EQ(format_duration(599), "599 s");
  EXPECT_EQ(format_duration(600), "10.0 min");
  EXPECT_EQ(format_duration(7200), "120 min");
  EXPECT_EQ(format_duration(3 * 3600), "3.00 h");
  EXPECT_EQ(format_duration(-7200), "-120 min");
  const auto time = describe_quantity("time_to_train_s", Dimension::time);
  for (const double v : {900.0, 5e4, 17.5e6, 2e8}) {
    EXPECT_EQ(format_quantity(v, time), format_in_scale(v, choose_axis_scale(time, v))) << v;
  }
  EXPECT_EQ(format_quantity(17.5e6, time), "203 days");
}

TEST(AxisScale, ValuesReadBetweenOneAndAThousand) {
  const auto latency = describe_quantity("latency_s", Dimension::time);
  AxisScale s = choose_axis_scale(latency, 15e-6);
  EXPECT_EQ(s.factor, 1e6);
  EXPECT_EQ(s.unit, "\u00b5s");
  EXPECT_EQ(axis_title(latency, s), "latency (\u00b5s)");

  s = choose_axis_scale(latency, 599);
  EXPECT_EQ(s.factor, 1);
  EXPECT_EQ(s.unit, "s");

  const auto util = describe_quantity("gpu_utilization", Dimension::dimensionless);
  s = choose_axis_scale(util, 0.9);
  EXPECT_EQ(s.factor, 100);
  EXPECT_EQ(axis_title(util, s), "GPU utilization (%)");

  const auto thr = describe_quantity("throughput_samples_per_s", Dimension::rate);
  s = choose_axis_scale(thr, 2150);
  EXPECT_EQ(s.factor, 1);
  s = choose_axis_scale(thr, 134000);
  EXPECT_EQ(s.factor, 1e-3);
  EXPECT_EQ(axis_title(thr, s), "throughput (k samples/s)");

  const auto kernels = describe_quantity("kernel_count", Dimension::count);
  s = choose_axis_scale(kernels, 2.5e6);
  EXPECT_EQ(axis_title(kernels, s), "kernel count (millions)");

  const auto bw = describe_quantity("memory_bandwidth_bytes_per_s", Dimension::bandwidth);
  EXPECT_EQ(axis_title(bw, choose_axis_scale(bw, 3.35e12)), "memory bandwidth (TB/s)");
}

TEST(AxisScale, LongTimesMoneyAndBytesReadInAHumanScale) {
  const auto time = describe_quantity("time_to_train_s", Dimension::time);
  const auto scale_of = [&](double max_s) { return choose_axis_scale(time, max_s); };
  EXPECT_EQ(scale_of(600).unit, "min");
  EXPECT_EQ(scale_of(3600).unit, "min");  // 60 min
  EXPECT_EQ(scale_of(3 * 3600).unit, "h");
  EXPECT_EQ(scale_of(86400).unit, "h");  // 24 h
  const AxisScale days = scale_of(17.5e6);
  EXPECT_EQ(days.unit, "days");
  EXPECT_EQ(axis_title(time, days), "time to train (days)");
  EXPECT_EQ(format_in_scale(17.5e6, days), "203 days");
  EXPECT_EQ(scale_of(4 * 365 * 86400.0).unit, "years");
  EXPECT_DOUBLE_EQ(scale_of(7200).factor * 7200, 120);
  EXPECT_DOUBLE_EQ(scale_of(17.5e6).factor * 17.5e6, 17.5e6 / 86400);

  const auto cost = describe_quantity("cost_usd", Dimension::money);
  EXPECT_EQ(axis_title(cost, choose_axis_scale(cost, 9000)), "cost (USD)");
  EXPECT_EQ(axis_title(cost, choose_axis_scale(cost, 45000)), "cost (k USD)");
  EXPECT_EQ(axis_title(cost, choose_axis_scale(cost, 2.5e6)), "cost (M USD)");

  const std::vector<double> decimal_bytes = {3e12, 5e11};
  EXPECT_EQ(choose_bytes_axis_scale(decimal_bytes).unit, "TB");
  const std::vector<double> gigabytes = {141e9};
  EXPECT_EQ(choose_bytes_axis_scale(gigabytes).unit, "GB");
}

TEST(AxisScale, BytesAreBinaryOnlyWhenEveryValueIsAnExactBinaryMultiple) {
  const double gib = 1024.0 * 1024 * 1024;
  const std::vector<double> devices = {40 * gib, 80 * gib, 0};
  AxisScale s = choose_bytes_axis_scale(devices);
  EXPECT_EQ(s.unit, "GiB");
  EXPECT_EQ(s.factor, 1 / gib);
  EXPECT_EQ(format_in_scale(80 * gib, s), "80.0 GiB");
  // One decimal value makes the whole axis decimal, so bars and labels read alike.
  const std::vector<double> mixed = {80 * gib, 40e9};
  s = choose_bytes_axis_scale(mixed);
  EXPECT_EQ(s.unit, "GB");
  EXPECT_EQ(format_in_scale(80 * gib, s), "85.9 GB");
  const std::vector<double> small = {393216, 1572864};  // 384 KiB, 1.5 MiB
  s = choose_bytes_axis_scale(small);
  EXPECT_EQ(s.unit, "MiB");
  EXPECT_EQ(format_in_scale(393216, s), "0.375 MiB");
  EXPECT_EQ(choose_bytes_axis_scale(std::vector<double>{}).unit, "B");
}

TEST(AxisScale, FormatInScaleUsesTheAxisUnitAndSignificantFigures) {
  EXPECT_EQ(format_in_scale(0.3333, AxisScale{100, "%"}), "33.3 %");
  EXPECT_EQ(format_in_scale(23e-6, AxisScale{1e6, "\u00b5s"}), "23.0 \u00b5s");
  EXPECT_EQ(format_in_scale(1.5e-3, AxisScale{1e6, "\u00b5s"}), "1,500 \u00b5s");
  EXPECT_EQ(format_in_scale(0, AxisScale{1e6, "\u00b5s"}), "0 \u00b5s");
  EXPECT_EQ(format_in_scale(12.5, AxisScale{1, ""}), "12.5");
}

}  // namespace
}  // namespace dsx

// Parallelism degrees read as people write them (TP, CP, PP, DP, EP), in a parameter's words and in
// the metrics named after them, never "cp / tp" in a figure.
TEST(Format, ParallelismDegreesReadInCapitals) {
  EXPECT_EQ(dsx::describe_quantity("tp", dsx::Dimension::count).label, "TP");
  EXPECT_EQ(dsx::describe_quantity("cp", dsx::Dimension::count).label, "CP");
  EXPECT_EQ(dsx::describe_quantity("prefill_tp", dsx::Dimension::count).label, "prefill TP");
  EXPECT_EQ(dsx::describe_quantity("pp_comm_s", dsx::Dimension::time).label, "PP comm");
  EXPECT_EQ(dsx::describe_quantity("dp_comm_s", dsx::Dimension::time).label, "DP comm");
  EXPECT_EQ(dsx::describe_quantity("ep_comm_s", dsx::Dimension::time).label, "EP comm");
  EXPECT_EQ(dsx::describe_quantity("tp_overlap", dsx::Dimension::dimensionless).label, "TP overlap");
}

namespace dsx {
namespace {

// printed_unit_factor turns every unit format_quantity prints back into the SI value: over 30 decades
// of each kind of metric, the printed number times the factor is the value to the digits printed.
TEST(PrintedUnitFactor, ReadsBackEveryUnitTheFormatterPrints) {
  const std::vector<std::pair<const char*, Dimension>> metrics = {
      {"latency_s", Dimension::time},          {"memory_bytes", Dimension::bytes},
      {"bandwidth_bytes_per_s", Dimension::bandwidth}, {"total_flops", Dimension::flops},
      {"power_w", Dimension::power},           {"energy_j", Dimension::energy},
      {"total_cost_usd", Dimension::money},    {"gpu_utilization", Dimension::dimensionless},
      {"tokens_per_s", Dimension::rate},       {"tflops_per_gpu", Dimension::dimensionless}};
  std::vector<double> values;
  for (int e = -11; e <= 17; ++e) values.push_back(1.234 * std::pow(10.0, e));
  for (int k = 1; k <= 6; ++k) values.push_back(80.0 * std::ldexp(1.0, 10 * k));  // binary bytes
  std::size_t checked = 0;
  for (const auto& [name, dimension] : metrics) {
    const QuantityDisplay display = describe_quantity(name, dimension);
    for (const double v : values) {
      const std::string printed = format_quantity(v, display);
      const auto p = agreement::parse_printed(printed, /*unscaled=*/true);
      ASSERT_TRUE(p) << printed;
      const std::optional<double> factor = printed_unit_factor(p->unit, display);
      ASSERT_TRUE(factor) << name << ": " << printed;
      EXPECT_NEAR(p->value * *factor, v, p->half_step * *factor * (1 + 1e-9)) << name << ": " << printed;
      ++checked;
    }
  }
  EXPECT_EQ(checked, metrics.size() * values.size());
  // Units a display never prints.
  const QuantityDisplay energy = describe_quantity("energy_j", Dimension::energy);
  EXPECT_FALSE(printed_unit_factor("mW", energy));
  EXPECT_FALSE(printed_unit_factor("GiB", energy));
  EXPECT_FALSE(printed_unit_factor("ks", describe_quantity("latency_s", Dimension::time)));
  EXPECT_FALSE(printed_unit_factor("mB", describe_quantity("memory_bytes", Dimension::bytes)));
  EXPECT_EQ(printed_unit_factor("k USD", describe_quantity("total_cost_usd", Dimension::money)), 1e3);
  EXPECT_EQ(printed_unit_factor("GiB", describe_quantity("memory_bytes", Dimension::bytes)), std::ldexp(1.0, 30));
  EXPECT_EQ(printed_unit_factor("days", describe_quantity("latency_s", Dimension::time)), 86400.0);
}

}  // namespace
}  // namespace dsx
