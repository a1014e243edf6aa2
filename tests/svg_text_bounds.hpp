// Text that runs off a gnuplot SVG's canvas, or lies on other text: the checks every shipped study's
// figures pass.
//
// gnuplot's SVG terminal writes each text as <g transform="translate(X,Y)[ rotate(A)]" ...
// font-size="S" ... text-anchor="start|middle|end"><text>...</text></g>. Its width is estimated from
// DejaVu Sans's advance widths (output/text_metrics.hpp, which the figures wrap their titles by), which
// is close enough to catch a legend or a title cut at the edge, not to typeset.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "output/text_metrics.hpp"

namespace dsx {

// One text of a gnuplot SVG and the box its glyphs cover, estimated: along the text the advance
// widths above from its anchor; across it from the cap height above the baseline (0.72 em, DejaVu
// Sans's capitals are 0.73) to 0.15 em below it (its descenders reach 0.24), so two lines of a
// title or a key, set 1.5 em apart, never touch. A rotated text's box turns with it (gnuplot's
// rotate(A), clockwise on the page).
struct SvgTextBox {
  std::string text;
  std::array<std::array<double, 2>, 4> corners{};  // on the page, in order around the box
  double x0 = 0, y0 = 0, x1 = 0, y1 = 0;             // the corners' extent
  bool vertical = false;                            // rotated by -90 or 90 degrees
  bool skewed = false;                              // rotated by another angle
};

inline std::vector<SvgTextBox> svg_text_boxes(std::string_view svg) {
  const auto attribute = [&](std::string_view name, std::size_t from, std::size_t to) -> std::string {
    const std::size_t p = svg.find(std::string(name) + "=\"", from);
    if (p == std::string_view::npos || p > to) return "";
    const std::size_t v = p + name.size() + 2;
    return std::string(svg.substr(v, svg.find('"', v) - v));
  };
  std::vector<SvgTextBox> out;
  constexpr std::string_view kOpen = "<g transform=\"translate(";
  for (std::size_t g = svg.find(kOpen); g != std::string_view::npos; g = svg.find(kOpen, g + 1)) {
    const std::size_t tag_end = svg.find('>', g);
    const std::size_t text_open = svg.find("<text>", tag_end);
    if (tag_end == std::string_view::npos || text_open == std::string_view::npos ||
        svg.find_first_not_of(" \t\r\n", tag_end + 1) != text_open) {
      continue;
    }
    const std::size_t text_close = svg.find("</text>", text_open);
    SvgTextBox box;
    bool in_tag = false;
    for (std::size_t i = text_open + 6; i < text_close; ++i) {
      if (svg[i] == '<') in_tag = true;
      if (!in_tag) box.text += svg[i];
      if (svg[i] == '>') in_tag = false;
    }
    // Blank text (a title kept only for the room above the plot) has no glyphs to clip or overlap.
    if (box.text.find_first_not_of(" \t\r\n") == std::string::npos) continue;
    double em = 0;
    for (std::size_t i = 0; i < box.text.size(); ++i) {
      if (box.text[i] == '&') {  // an entity is one character
        i = box.text.find(';', i);
        em += 0.7;
      } else if ((static_cast<unsigned char>(box.text[i]) & 0xC0) != 0x80) {
        em += dejavu_sans_em(box.text[i]);
      }
    }
    const std::string_view head = svg.substr(g, tag_end - g);
    char* end = nullptr;
    const std::string numbers(head.substr(kOpen.size()));
    const double x = std::strtod(numbers.c_str(), &end);
    const double y = std::strtod(end + 1, nullptr);
    const double size = std::atof(attribute("font-size", g, tag_end).c_str());
    const std::string anchor = attribute("text-anchor", g, tag_end);
    const double w = em * size;
    const double before = anchor == "middle" ? w / 2 : anchor == "end" ? w : 0;
    double angle = 0;
    if (const std::size_t r = head.find("rotate("); r != std::string_view::npos) {
      angle = std::atof(std::string(head.substr(r + 7)).c_str());
    }
    const double turn = angle - 360 * static_cast<int>(angle / 360);
    box.vertical = turn == -90 || turn == 270 || turn == 90 || turn == -270;
    box.skewed = turn != 0 && !box.vertical;
    const double ascent = 0.72 * size, descent = 0.15 * size;
    // Along the text u, across it v (down from the baseline), turned by the angle onto the page.
    // Exact at right angles, so horizontal and vertical boxes stay axis-aligned.
    const double radians = turn * std::acos(-1.0) / 180;
    const double c = box.vertical ? 0 : std::cos(radians);
    const double sn = box.vertical ? (turn == 90 || turn == -270 ? 1 : -1) : std::sin(radians);
    const std::array<std::array<double, 2>, 4> local = {
        {{-before, -ascent}, {w - before, -ascent}, {w - before, descent}, {-before, descent}}};
    box.x0 = box.y0 = 1e300;
    box.x1 = box.y1 = -1e300;
    for (std::size_t k = 0; k < 4; ++k) {
      const auto [u, v] = local[k];
      box.corners[k] = {x + u * c - v * sn, y + u * sn + v * c};
      box.x0 = std::min(box.x0, box.corners[k][0]);
      box.x1 = std::max(box.x1, box.corners[k][0]);
      box.y0 = std::min(box.y0, box.corners[k][1]);
      box.y1 = std::max(box.y1, box.corners[k][1]);
    }
    out.push_back(std::move(box));
  }
  return out;
}

// Each text whose estimated extent along its direction leaves [0, width] (or [0, height] when it
// is vertical; a slanted text both ways) by more than `slack_px`, as "'text' spans x0..x1 of W" for
// a test message.
inline std::vector<std::string> clipped_svg_texts(std::string_view svg, double slack_px = 2) {
  const auto attribute = [&](std::string_view name) -> double {
    const std::size_t p = svg.find(std::string(name) + "=\"");
    return p == std::string_view::npos ? 0 : std::atof(std::string(svg.substr(p + name.size() + 2)).c_str());
  };
  const double width = attribute("width"), height = attribute("height");
  std::vector<std::string> out;
  for (const SvgTextBox& b : svg_text_boxes(svg)) {
    for (const bool along_y : {false, true}) {
      if (!b.skewed && along_y != b.vertical) continue;
      const double lo = along_y ? b.y0 : b.x0, hi = along_y ? b.y1 : b.x1;
      const double limit = along_y ? height : width;
      if (lo < -slack_px || hi > limit + slack_px) {
        out.push_back("'" + b.text + "' spans " + std::to_string(static_cast<int>(lo)) + ".." +
                      std::to_string(static_cast<int>(hi)) + " of " + std::to_string(static_cast<int>(limit)));
      }
    }
  }
  return out;
}

// How far two boxes reach into each other along the axis they overlap least on (the separating
// axis theorem: the edge directions of both boxes); zero or less when they are apart.
inline double svg_text_box_depth(const SvgTextBox& a, const SvgTextBox& b) {
  double depth = 1e300;
  for (const SvgTextBox* box : {&a, &b}) {
    for (std::size_t e = 0; e < 2; ++e) {
      const double ex = box->corners[e + 1][0] - box->corners[e][0], ey = box->corners[e + 1][1] - box->corners[e][1];
      const double length = std::hypot(ex, ey);
      if (length == 0) continue;
      double lo_a = 1e300, hi_a = -1e300, lo_b = 1e300, hi_b = -1e300;
      for (std::size_t k = 0; k < 4; ++k) {
        const double pa = (a.corners[k][0] * ex + a.corners[k][1] * ey) / length;
        const double pb = (b.corners[k][0] * ex + b.corners[k][1] * ey) / length;
        lo_a = std::min(lo_a, pa), hi_a = std::max(hi_a, pa);
        lo_b = std::min(lo_b, pb), hi_b = std::max(hi_b, pb);
      }
      depth = std::min(depth, std::min(hi_a, hi_b) - std::max(lo_a, lo_b));
    }
  }
  return depth;
}

// Each pair of texts whose boxes reach into each other by more than `slack_px` (a label on a label,
// a point label on the key, a title on tick labels, slanted tick labels on each other), as "'a'
// overlaps 'b' by W x H px at (x, y)" (the extent both boxes' corners share).
inline std::vector<std::string> overlapping_svg_texts(std::string_view svg, double slack_px = 1) {
  const std::vector<SvgTextBox> boxes = svg_text_boxes(svg);
  std::vector<std::string> out;
  for (std::size_t i = 0; i < boxes.size(); ++i) {
    const SvgTextBox& a = boxes[i];
    if (a.text.empty()) continue;
    for (std::size_t j = i + 1; j < boxes.size(); ++j) {
      const SvgTextBox& b = boxes[j];
      if (b.text.empty()) continue;
      const double w = std::min(a.x1, b.x1) - std::max(a.x0, b.x0);
      const double h = std::min(a.y1, b.y1) - std::max(a.y0, b.y0);
      if (w > slack_px && h > slack_px && svg_text_box_depth(a, b) > slack_px) {
        out.push_back("'" + a.text + "' overlaps '" + b.text + "' by " + std::to_string(static_cast<int>(w)) + " x " +
                      std::to_string(static_cast<int>(h)) + " px at (" +
                      std::to_string(static_cast<int>(std::max(a.x0, b.x0))) + ", " +
                      std::to_string(static_cast<int>(std::max(a.y0, b.y0))) + ")");
      }
    }
  }
  return out;
}

// Tick labels along the bottom axis of an SVG (numbers on one baseline), left to right: the white
// between neighbours, in px.
inline std::vector<double> x_tick_label_gaps(const std::string& svg) {
  std::vector<SvgTextBox> numbers;
  for (const SvgTextBox& b : svg_text_boxes(svg)) {
    if (b.vertical || b.skewed || b.text.empty()) continue;
    if (b.text.find_first_not_of("-0123456789.") != std::string::npos) continue;
    numbers.push_back(b);
  }
  // The row with most numbers is the x axis (the y axis's numbers each sit on their own baseline).
  std::vector<SvgTextBox> best;
  for (const SvgTextBox& b : numbers) {
    std::vector<SvgTextBox> row;
    for (const SvgTextBox& o : numbers) {
      if (std::fabs(o.y1 - b.y1) < 0.5) row.push_back(o);
    }
    if (row.size() > best.size()) best = row;
  }
  std::sort(best.begin(), best.end(), [](const SvgTextBox& a, const SvgTextBox& b) { return a.x0 < b.x0; });
  std::vector<double> gaps;
  for (std::size_t i = 1; i < best.size(); ++i) gaps.push_back(best[i].x0 - best[i - 1].x1);
  return gaps;
}

}  // namespace dsx
