// The printed width of text set in DejaVu Sans, the font every figure uses: its advance widths in em
// (the font's hmtx table, 2048 units per em). The figures wrap their titles by it and the tests that
// check a figure's text stays on its canvas measure with it (tests/svg_text_bounds.hpp): close
// enough to keep a title inside the figure, not to typeset.
#pragma once

#include <string_view>

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

// The width of UTF-8 `text` in em: one glyph per character, a character outside ASCII as the
// other lower-case letters.
inline double dejavu_sans_text_em(std::string_view text) {
  double em = 0;
  for (const char c : text) {
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) em += dejavu_sans_em(c);
  }
  return em;
}

}  // namespace dsx
