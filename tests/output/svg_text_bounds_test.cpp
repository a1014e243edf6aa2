// The text checks every shipped study's figures pass (tests/svg_text_bounds.hpp): text on text is
// found, upright, vertical or slanted, while the lines of a wrapped title, a column of tick labels,
// an axis title beside its ticks and slanted tick labels, set the way gnuplot sets them, are not
// taken for overlaps; slanted text past the canvas is found along both edges.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "output/figures.hpp"
#include "output/files.hpp"
#include "tests/svg_text_bounds.hpp"
#include "tests/test_files.hpp"

namespace dsx {
namespace {

// One text as gnuplot's SVG terminal writes it.
std::string text_at(double x, double y, std::string_view anchor, std::string_view text, std::string_view rotate = "") {
  return "<g transform=\"translate(" + std::to_string(x) + "," + std::to_string(y) + ")" +
         (rotate.empty() ? "" : " rotate(" + std::string(rotate) + ")") +
         "\" stroke=\"none\" fill=\"black\" font-family=\"DejaVu Sans\" font-size=\"12.00\"  text-anchor=\"" +
         std::string(anchor) + "\">\n\t\t<text><tspan font-family=\"DejaVu Sans\" >" + std::string(text) +
         "</tspan></text>\n\t</g>\n";
}

std::string svg_of(const std::string& body) { return "<svg width=\"600\" height=\"400\">\n" + body + "</svg>\n"; }

TEST(SvgTextBounds, TextOnTextIsFound) {
  const std::string svg = svg_of(
      // A point label running into the key's first entry.
      text_at(400, 60, "start", "launch_overhead") + text_at(450, 62, "start", "h100_sxm") +
      // A two-line title whose second line sits on the top tick label.
      text_at(300, 20, "middle", "A title too long") + text_at(300, 38, "middle", "for one line") +
      text_at(290, 40, "end", "1000") +
      // An axis title drawn across its tick labels.
      text_at(40, 200, "middle", "latency (ms)", "-90") + text_at(45, 204, "end", "10") +
      // Slanted tick labels too close for their length.
      text_at(300, 300, "start", "memory_bandwidth", "25") + text_at(320, 300, "start", "launch_overhead", "25"));
  const std::vector<std::string> overlaps = overlapping_svg_texts(svg);
  ASSERT_EQ(overlaps.size(), 4u) << ::testing::PrintToString(overlaps);
  EXPECT_EQ(overlaps[0].rfind("'launch_overhead' overlaps 'h100_sxm' by ", 0), 0u) << overlaps[0];
  EXPECT_EQ(overlaps[1].rfind("'for one line' overlaps '1000' by ", 0), 0u) << overlaps[1];
  EXPECT_EQ(overlaps[2].rfind("'latency (ms)' overlaps '10' by ", 0), 0u) << overlaps[2];
  EXPECT_EQ(overlaps[3].rfind("'memory_bandwidth' overlaps 'launch_overhead' by ", 0), 0u) << overlaps[3];
}

// A slanted text is checked against both edges of the canvas.
TEST(SvgTextBounds, SlantedTextPastTheCanvasIsFound) {
  const std::string svg = svg_of(text_at(560, 300, "start", "memory_bandwidth", "25") +
                                 text_at(450, 300, "start", "eta", "25") + text_at(300, 390, "start", "launch_overhead", "25"));
  const std::vector<std::string> clipped = clipped_svg_texts(svg);
  ASSERT_EQ(clipped.size(), 2u) << ::testing::PrintToString(clipped);
  EXPECT_EQ(clipped[0].rfind("'memory_bandwidth' spans 5", 0), 0u) << clipped[0];
  EXPECT_NE(clipped[0].find(" of 600"), std::string::npos) << clipped[0];
  EXPECT_EQ(clipped[1].rfind("'launch_overhead' spans 3", 0), 0u) << clipped[1];
  EXPECT_NE(clipped[1].find(" of 400"), std::string::npos) << clipped[1];
}

TEST(SvgTextBounds, TextSetApartAsGnuplotSetsItIsNotAnOverlap) {
  const std::string svg = svg_of(
      // A wrapped title: lines 18 px apart at 12 px.
      text_at(300, 20, "middle", "Bandwidth headroom of every accelerator") +
      text_at(300, 38, "middle", "at 50 ms per token (fp16, batch 64)") +
      // y tick labels 20 px apart, right-aligned at the axis.
      text_at(60, 100, "end", "0.001") + text_at(60, 120, "end", "0.0008") + text_at(60, 140, "end", "0.0006") +
      // x tick labels side by side.
      text_at(100, 380, "middle", "0.001") + text_at(150, 380, "middle", "0.002") +
      // The y axis title, read upwards, left of the tick labels.
      text_at(14, 120, "middle", "sigma: spread of the effects (USD)", "-90") +
      // Key entries one under the other.
      text_at(480, 60, "start", "h100_sxm") + text_at(480, 76, "start", "h200") +
      // Slanted tick labels as gnuplot sets them under the bars of a Sobol figure: the extents of
      // neighbouring boxes share a band of the page, the boxes themselves do not touch.
      text_at(236.59, 265.3, "start", "launch_overhead", "25") + text_at(342.03, 265.3, "start", "memory_bandwidth", "25") +
      text_at(447.47, 265.3, "start", "mi300x.price", "25"));
  const std::vector<std::string> overlaps = overlapping_svg_texts(svg);
  EXPECT_TRUE(overlaps.empty()) << ::testing::PrintToString(overlaps);
  const std::vector<SvgTextBox> boxes = svg_text_boxes(svg);
  ASSERT_EQ(boxes.size(), 13u);
  EXPECT_GT(boxes[11].x1, boxes[12].x0 + 1);  // memory_bandwidth's extent reaches past mi300x.price's start
  EXPECT_GT(boxes[11].y1, boxes[12].y0 + 1);
}

// The same on gnuplot's own output: a label drawn over the title of a figure in the house style.
TEST(SvgTextBounds, ALabelOnTheTitleOfARealFigureIsFound) {
  TempDir dir("overlap");
  const std::string plot = "plot x notitle\n";
  const std::string body = house_style() + "set title \"Where the time goes\" noenhanced\n";
  write_file_atomic(dir.path() + "/apart.gp", body + house_terminals("apart", 17, 8, plot));
  write_file_atomic(dir.path() + "/over.gp", body + "set label 1 \"A note on the title\" at screen 0.52, screen 0.9 center\n" +
                                                   house_terminals("over", 17, 8, plot));
  run_gnuplot(dir.path() + "/apart.gp", dir.path());
  run_gnuplot(dir.path() + "/over.gp", dir.path());
  EXPECT_TRUE(overlapping_svg_texts(read_file(dir.path() + "/apart.svg")).empty());
  const std::vector<std::string> overlaps = overlapping_svg_texts(read_file(dir.path() + "/over.svg"));
  ASSERT_EQ(overlaps.size(), 1u) << ::testing::PrintToString(overlaps);
  EXPECT_NE(overlaps[0].find("'Where the time goes'"), std::string::npos) << overlaps[0];
  EXPECT_NE(overlaps[0].find("'A note on the title'"), std::string::npos) << overlaps[0];
}

}  // namespace
}  // namespace dsx
