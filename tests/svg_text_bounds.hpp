// Text that runs off a gnuplot SVG's canvas: the check every shipped study's figures pass.
//
// gnuplot's SVG terminal writes each text as <g transform="translate(X,Y)[ rotate(A)]" ...
// font-size="S" ... text-anchor="start|middle|end"><text>...</text></g>. Its width is estimated from
// DejaVu Sans's advance widths (the font every figure uses; values in em from the font's hmtx table,
// 2048 units per em), which is close enough to catch a legend or a title cut at the edge, not to
// typeset.
#pragma once

#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

namespace dsx {

inline double dejavu_sans_em(char c) {
  switch (c) {
    case ' ': case '.': case ',': return 0.318;
    case 'i': case 'j': case 'l': return 0.278;
    case 'f': return 0.352;
    case 't': return 0.392;
    case 'r': return 0.411;
    case 's': return 0.521;
    case 'z': return 0.525;
    case 'c': return 0.55;
    case 'k': return 0.579;
    case 'v': case 'x': case 'y': return 0.592;
    case 'w': return 0.818;
    case 'm': return 0.974;
    case '(': case ')': return 0.39;
    case '/': case ':': return 0.337;
    case '-': return 0.361;
    case '_': return 0.5;
    case '=': return 0.838;
    case '%': return 0.95;
    case '\'': return 0.275;
    case 'I': return 0.295;
    case 'M': return 0.863;
    case 'W': return 0.989;
    default: break;
  }
  if (c >= '0' && c <= '9') return 0.636;
  if (c >= 'A' && c <= 'Z') return 0.7;
  return 0.62;  // the other lower-case letters
}

// Each text whose estimated extent leaves [0, width] x [0, height] by more than `slack_px`, as
// "'text' spans x0..x1 of W" for a test message.
inline std::vector<std::string> clipped_svg_texts(std::string_view svg, double slack_px = 2) {
  const auto attribute = [&](std::string_view name, std::size_t from, std::size_t to) -> std::string {
    const std::size_t p = svg.find(std::string(name) + "=\"", from);
    if (p == std::string_view::npos || p > to) return "";
    const std::size_t v = p + name.size() + 2;
    return std::string(svg.substr(v, svg.find('"', v) - v));
  };
  const double width = std::atof(attribute("width", 0, svg.size()).c_str());
  const double height = std::atof(attribute("height", 0, svg.size()).c_str());
  std::vector<std::string> out;
  constexpr std::string_view kOpen = "<g transform=\"translate(";
  for (std::size_t g = svg.find(kOpen); g != std::string_view::npos; g = svg.find(kOpen, g + 1)) {
    const std::size_t tag_end = svg.find('>', g);
    const std::size_t text_open = svg.find("<text>", tag_end);
    if (tag_end == std::string_view::npos || text_open == std::string_view::npos ||
        svg.find_first_not_of(" \t\r\n", tag_end + 1) != text_open) {
      continue;
    }
    const std::size_t text_close = svg.find("</text>", text_open);
    std::string text;
    bool in_tag = false;
    for (std::size_t i = text_open + 6; i < text_close; ++i) {
      if (svg[i] == '<') in_tag = true;
      if (!in_tag) text += svg[i];
      if (svg[i] == '>') in_tag = false;
    }
    double em = 0;
    for (std::size_t i = 0; i < text.size(); ++i) {
      if (text[i] == '&') {  // an entity is one character
        i = text.find(';', i);
        em += 0.7;
      } else if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) {
        em += dejavu_sans_em(text[i]);
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
    const bool rotated = head.find("rotate(") != std::string_view::npos;
    const double lo = (rotated ? y : x) - (rotated ? w - before : before);
    const double hi = lo + w;
    const double limit = rotated ? height : width;
    if (lo < -slack_px || hi > limit + slack_px) {
      out.push_back("'" + text + "' spans " + std::to_string(static_cast<int>(lo)) + ".." +
                    std::to_string(static_cast<int>(hi)) + " of " + std::to_string(static_cast<int>(limit)));
    }
  }
  return out;
}

}  // namespace dsx
