// Figures a page can print: a chip with a long catalog name takes its short name on bar charts, so a
// hardware axis stays a page tall; a tornado's tick labels leave room between them however narrow the
// bars are; a Sobol figure with long input names sets them across, never slanted; a group told apart
// by colour is not repeated on every bar.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cstdio>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include "output/figure_parts.hpp"
#include "output/files.hpp"
#include "tests/svg_text_bounds.hpp"
#include "tests/test_files.hpp"

namespace dsx {
namespace {

std::string run_dsx(const std::string& args) {
  const std::string command = std::string("cd '") + DSX_SOURCE_DIR + "' && '" + DSX_BINARY + "' " + args + " 2>&1";
  std::string out;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return "popen failed";
  char buffer[4096];
  while (std::fgets(buffer, sizeof buffer, pipe) != nullptr) out += buffer;
  const int status = pclose(pipe);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << out;
  return out;
}

double number_after(const std::string& text, const std::string& prefix) {
  const std::size_t p = text.find(prefix);
  if (p == std::string::npos) return std::nan("");
  return std::stod(text.substr(p + prefix.size()));
}

// The height of a figure as printed (the PDF terminal's size), in cm.
double printed_height_cm(const std::string& gp) {
  static const std::regex size(R"re(set terminal pdfcairo size ([0-9.]+)cm,([0-9.]+)cm)re");
  std::smatch m;
  return std::regex_search(gp, m, size) ? std::stod(m[2]) : std::nan("");
}

// The tick labels of a tornado's value axis as its script sets them, and the room between two
// neighbours: from the range, the step, the format and the plot's margins, with the labels' widths
// in 9 pt DejaVu Sans (figure_parts::text_cm). Fails when the script leaves the ticks to gnuplot.
void expect_ticks_leave_room(const std::string& gp, const std::string& what) {
  static const std::regex range(R"re(set xrange \[([-0-9.e+]+):([-0-9.e+]+)\])re");
  static const std::regex tics(R"re(set xtics ([-0-9.e+]+)[ \n])re");
  static const std::regex format(R"re(set format x "%\.(\d+)f")re");
  std::smatch r, t, f;
  ASSERT_TRUE(std::regex_search(gp, r, range)) << what << "\n" << gp;
  ASSERT_TRUE(std::regex_search(gp, t, tics)) << what << ": gnuplot picks the ticks\n" << gp;
  ASSERT_TRUE(std::regex_search(gp, f, format)) << what << "\n" << gp;
  const double lo = std::stod(r[1]), hi = std::stod(r[2]), step = std::stod(t[1]);
  const int decimals = std::stoi(f[1]);
  const double left = number_after(gp, "set lmargin at screen "), right = number_after(gp, "set rmargin at screen ");
  ASSERT_TRUE(left > 0 && right > left) << what;
  const double plot_cm = (right - left) * figure_parts::kDoubleWidthCm;
  ASSERT_GT(hi, lo);
  ASSERT_GT(step, 0);
  double widest_cm = 0;
  std::size_t count = 0;
  for (double k = std::ceil(lo / step - 1e-9); k * step <= hi * (1 + 1e-12); k += 1, ++count) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.*f", decimals, k * step);
    widest_cm = std::max(widest_cm, figure_parts::text_cm(buffer));
  }
  EXPECT_GE(count, 2u) << what;
  const double spacing_cm = step / (hi - lo) * plot_cm;
  EXPECT_GE(spacing_cm, widest_cm + figure_parts::kEmCm)
      << what << ": ticks " << spacing_cm << " cm apart, labels " << widest_cm << " cm wide";
}

// A tornado whose inputs have long names (the bars start halfway across) of a metric whose swing is
// a small part of its value: gnuplot's own ticks, chosen from the range alone, would sit a label's
// width apart or closer.
TEST(FigureCrowding, TornadoTicksLeaveAnEmBetweenTheirLabels) {
  TempDir dir("tornado_ticks");
  const std::string study = dir.path() + "/ticks.yaml";
  std::ofstream(study) << R"(study: tornado_ticks
title: "Tornado ticks"
question: "Which input moves the latency most?"
solver: inference
axes:
  batch: [1, 16]
fixed:
  hardware: h100_sxm
  model: resnet50
  precision: fp16
  execution: compiled
  eta: 0.4
  launch_overhead: 10 us
objectives:
  - {metric: latency_s, direction: min}
sensitivity:
  - name: drivers
    metric: latency_s
    base: {batch: 16}
    inputs: [eta, launch_overhead, h100_sxm.memory_bandwidth, h100_sxm.host_link]
    local: {change: 3%}
)";
  run_dsx("run '" + study + "' --quiet --threads 1 --out '" + dir.path() + "/run'");
  const std::string gp = read_file(dir.path() + "/run/figures/tornado_drivers.gp");
  const std::string svg = read_file(dir.path() + "/run/figures/tornado_drivers.svg");
  expect_ticks_leave_room(gp, "tornado_drivers");
  const std::vector<double> gaps = x_tick_label_gaps(svg);
  ASSERT_GE(gaps.size(), 1u) << svg;
  for (const double gap : gaps) EXPECT_GE(gap, 6.0) << "px between two tick labels";
  EXPECT_TRUE(clipped_svg_texts(svg).empty()) << ::testing::PrintToString(clipped_svg_texts(svg));
  EXPECT_TRUE(overlapping_svg_texts(svg).empty()) << ::testing::PrintToString(overlapping_svg_texts(svg));
}

// Sobol inputs whose words are wider than their share of a horizontal axis go down the side, one
// label a row, as a tornado's do: no label is slanted, none overlaps or leaves the canvas.
TEST(FigureCrowding, SobolWithLongInputNamesLaysItsBarsAcross) {
  TempDir dir("sobol_across");
  const std::string study = dir.path() + "/sobol.yaml";
  std::ofstream(study) << R"(study: sobol_across
title: "Sobol across"
question: "Which input moves the cost of a sample most?"
solver: inference
axes:
  hardware: [h100_sxm, gb200]
  batch: [1, 16]
fixed:
  model: resnet50
  precision: fp16
  execution: compiled
  eta: 0.4
  launch_overhead: 10 us
derived:
  - {name: usd_per_sample_usd, expr: "hardware_price_usd / throughput_samples_per_s", unit: USD}
objectives:
  - {metric: usd_per_sample_usd, direction: min}
sensitivity:
  - name: drivers
    metric: usd_per_sample_usd
    base: {hardware: h100_sxm, batch: 16}
    inputs: [eta, launch_overhead, h100_sxm.price, h100_sxm.memory_bandwidth, h100_sxm.host_link, h100_sxm.tdp]
    sobol: {samples: 32, bootstrap: 10}
)";
  run_dsx("run '" + study + "' --quiet --threads 1 --out '" + dir.path() + "/run'");
  const std::string gp = read_file(dir.path() + "/run/figures/sobol_drivers.gp");
  const std::string svg = read_file(dir.path() + "/run/figures/sobol_drivers.svg");
  EXPECT_EQ(gp.find("rotate"), std::string::npos) << gp;
  EXPECT_NE(gp.find("set ytics (\"efficiency \u03b7 (%%)\" 0, \"launch overhead (s)\" 1,"), std::string::npos) << gp;
  EXPECT_NE(gp.find("with xerrorbars"), std::string::npos) << gp;
  for (const SvgTextBox& b : svg_text_boxes(svg)) EXPECT_FALSE(b.skewed) << b.text;
  EXPECT_TRUE(clipped_svg_texts(svg).empty()) << ::testing::PrintToString(clipped_svg_texts(svg));
  EXPECT_TRUE(overlapping_svg_texts(svg).empty()) << ::testing::PrintToString(overlapping_svg_texts(svg));
}

// Short input names keep the bars upright, each name under its pair of bars.
TEST(FigureCrowding, SobolWithShortInputNamesKeepsItsBarsUpright) {
  TempDir dir("sobol_upright");
  const std::string study = dir.path() + "/sobol.yaml";
  std::ofstream(study) << R"(study: sobol_upright
title: "Sobol upright"
question: "Which input moves the latency most?"
solver: inference
axes:
  batch: [1, 16]
fixed:
  hardware: h100_sxm
  model: resnet50
  precision: fp16
  execution: compiled
  eta: 0.4
  launch_overhead: 10 us
objectives:
  - {metric: latency_s, direction: min}
sensitivity:
  - name: drivers
    metric: latency_s
    base: {batch: 16}
    inputs: [eta, launch_overhead]
    sobol: {samples: 32, bootstrap: 10}
)";
  run_dsx("run '" + study + "' --quiet --threads 1 --out '" + dir.path() + "/run'");
  const std::string gp = read_file(dir.path() + "/run/figures/sobol_drivers.gp");
  EXPECT_NE(gp.find("set xtics (\"efficiency \u03b7 (%%)\" 0, \"launch overhead (s)\" 1) noenhanced\n"), std::string::npos) << gp;
  EXPECT_EQ(gp.find("rotate"), std::string::npos) << gp;
}

// GB200's catalog name is a sentence ("NVIDIA GB200 (one Blackwell GPU of a Grace Blackwell
// Superchip)"): on a bar chart of every accelerator its short name keeps each bar one line high, and
// the report's table keeps the full name.
TEST(FigureCrowding, AHardwareBarChartTakesShortNames) {
  TempDir dir("short_names");
  const std::string study = dir.path() + "/bars.yaml";
  std::ofstream(study) << R"(study: short_names
title: "Short names"
question: "Which accelerator serves a batch fastest?"
solver: inference
axes:
  hardware: [h100_sxm, b200, gb200, gh200_96gb, mi250x, tpu_v6e]
  batch: [1, 16]
fixed:
  model: resnet50
  precision: bf16
  execution: compiled
  eta: 0.4
  launch_overhead: 10 us
objectives:
  - {metric: latency_s, direction: min}
figures:
  - name: per_chip
    kind: bars
    title: "Latency per accelerator"
    caption: "One bar per accelerator and batch."
    x: hardware
    y: latency_s
)";
  run_dsx("run '" + study + "' --quiet --threads 1 --out '" + dir.path() + "/run'");
  const std::string gp = read_file(dir.path() + "/run/figures/per_chip.gp");
  const std::string ytics = gp.substr(gp.find("set ytics ("));
  EXPECT_NE(ytics.find("\"NVIDIA GB200 / 1\" "), std::string::npos) << ytics;
  EXPECT_EQ(ytics.find("Grace Blackwell"), std::string::npos) << ytics;
  EXPECT_EQ(ytics.substr(0, ytics.find('\n')).find("\\n"), std::string::npos) << "a label of two lines: " << ytics;
  // 12 bars of one line: the base, a step per bar and the axis title, well under a page.
  EXPECT_LT(printed_height_cm(gp), 14.0) << gp;
  const std::string report = read_file(dir.path() + "/run/report.md");
  EXPECT_NE(report.find("NVIDIA GB200 (one Blackwell GPU of a Grace Blackwell Superchip)"), std::string::npos);
}

// Bars coloured by a group (a key entry per model) stand in one cluster per accelerator, labelled
// once: the label does not repeat the model the colour already tells.
TEST(FigureCrowding, BarsColouredByGroupAreLabelledOncePerCluster) {
  TempDir dir("clusters");
  const std::string study = dir.path() + "/bars.yaml";
  std::ofstream(study) << R"(study: clusters
title: "Clusters"
question: "Which accelerator serves a batch fastest?"
solver: inference
axes:
  hardware: [h100_sxm, b200, gb200]
  model: [resnet50, bert_base]
fixed:
  batch: 16
  precision: bf16
  execution: compiled
  eta: 0.4
  launch_overhead: 10 us
objectives:
  - {metric: latency_s, direction: min}
figures:
  - name: per_chip
    kind: bars
    title: "Latency per accelerator"
    caption: "One bar per accelerator and model."
    x: hardware
    group: model
    y: latency_s
)";
  run_dsx("run '" + study + "' --quiet --threads 1 --out '" + dir.path() + "/run'");
  const std::string gp = read_file(dir.path() + "/run/figures/per_chip.gp");
  // Two bars per accelerator at 0, 1; 2.5, 3.5; 5, 6: each label at its pair's middle.
  EXPECT_NE(gp.find("set ytics (\"NVIDIA H100 SXM 80GB\" 0.5, \"NVIDIA B200 180GB\" 3, \"NVIDIA GB200\" 5.5) noenhanced"),
            std::string::npos)
      << gp;
  EXPECT_NE(gp.find("set yrange [6.6:-0.6]"), std::string::npos) << gp;
  EXPECT_NE(gp.find("\"hardware\" at screen 0"), std::string::npos) << gp;
  const std::string dat = read_file(dir.path() + "/run/figures/per_chip.dat");
  EXPECT_NE(dat.find("\n2.5 "), std::string::npos) << dat;
  const std::string svg = read_file(dir.path() + "/run/figures/per_chip.svg");
  EXPECT_TRUE(clipped_svg_texts(svg).empty()) << ::testing::PrintToString(clipped_svg_texts(svg));
  EXPECT_TRUE(overlapping_svg_texts(svg).empty()) << ::testing::PrintToString(overlapping_svg_texts(svg));
}

}  // namespace
}  // namespace dsx
