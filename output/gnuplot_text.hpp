// Text quoted into gnuplot scripts: one quoting rule for every figure writer
// (output/figures.cpp, output/analysis_figures.cpp).
//
// gnuplot runs text between backquotes through the shell wherever it appears outside a comment,
// double-quoted strings included (gnuplot 5.4 manual, "Substitution and Command line macros"). A
// backquote in study text is therefore written as the octal escape \140, which a double-quoted
// string expands to a literal backquote after the substitution pass; render_figure_source
// (output/figures.hpp) refuses any script that still holds a backquote outside a comment.
#pragma once

#include <string>
#include <string_view>

namespace dsx {

// A gnuplot double-quoted string, for use with `noenhanced` (so only \ and " need a backslash). A
// backquote becomes \140; line breaks, tabs and other control characters become spaces, so the
// string stays on its script line.
inline std::string gp_string(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '`') {
      out += "\\140";
      continue;
    }
    if (c == '\\' || c == '"') out += '\\';
    if (static_cast<unsigned char>(c) < 0x20 || c == '\x7f') c = ' ';
    out += c;
  }
  out += '"';
  return out;
}

// A quoted string in a gnuplot data file (.dat), which has no escape for a double quote: a double
// quote becomes a single one; control characters become spaces, so a record stays on its line.
// Data files are read, never substituted, so a backquote stays as it is.
inline std::string dat_string(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') c = '\'';
    if (static_cast<unsigned char>(c) < 0x20 || c == '\x7f') c = ' ';
    out += c;
  }
  out += '"';
  return out;
}

}  // namespace dsx
