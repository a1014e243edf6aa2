// Gnuplot script text shared by every figure writer (output/figures.cpp and figure_*.cpp,
// output/analysis_figures.cpp): one quoting rule, one set of output terminals.
//
// gnuplot runs text between backquotes through the shell wherever it appears outside a comment,
// double-quoted strings included (gnuplot 5.4 manual, "Substitution and Command line macros"). A
// backquote in study text is therefore written as the octal escape \140, which a double-quoted
// string expands to a literal backquote after the substitution pass; render_figure_source
// (output/figures.hpp) refuses any script that still holds a backquote outside a comment, or
// anything else that would run a command (output/gnuplot_script_check.hpp).
#pragma once

#include <fmt/format.h>

#include <array>
#include <cmath>
#include <string>
#include <string_view>
#include <vector>

namespace dsx {

// The most points one figure draws, all series together; more are thinned (a scatter to one point per
// spot, output/scatter_thinning.hpp, then, like a line, to every k-th point of each series) and the
// caption says so.
inline constexpr std::size_t kMaxDrawnPoints = 20000;

// "1st", "2nd", "3rd", "4th", "11th", "22nd": for captions.
inline std::string ordinal(std::size_t n) {
  const std::size_t mod100 = n % 100;
  const std::string_view suffix = (mod100 >= 11 && mod100 <= 13) ? "th"
                                  : n % 10 == 1                  ? "st"
                                  : n % 10 == 2                  ? "nd"
                                  : n % 10 == 3                  ? "rd"
                                                                 : "th";
  return fmt::format("{}{}", n, suffix);
}

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

// Lines joined into one gnuplot double-quoted string that prints them one under the other
// (a wrapped title, a two-line tic label), each quoted as gp_string quotes it.
inline std::string gp_lines(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& line : lines) {
    const std::string quoted = gp_string(line);
    out += (out.empty() ? "" : "\\n") + quoted.substr(1, quoted.size() - 2);
  }
  return "\"" + out + "\"";
}

// A title centred on the whole canvas, not over the plot: where long tic labels push the plot to
// the right, gnuplot's `set title` (centred over the plot) would run off the right edge. A blank
// title of as many lines keeps the room above the plot that gnuplot makes for a title; the text is
// a label at the top centre of the canvas, 1.5 characters down (where gnuplot 5.4 sets a title's
// first line), raised by `raise_chars` as `set title offset` would raise it.
inline std::string canvas_title_commands(const std::vector<std::string>& lines, double raise_chars = 0) {
  std::vector<std::string> blank(lines.size(), " ");
  return fmt::format("set title {} noenhanced  # room for the title, set below at the centre of the canvas\n"
                     "set label 10000 {} at screen 0.5, screen 1 center offset character 0, {:g} noenhanced\n",
                     gp_lines(blank), gp_lines(lines), raise_chars - 1.5);
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

// A point's hover text as a quoted .dat string for `with labels hypertext`: lines joined by the
// escape \\n, which gnuplot's data-file reader turns into the two characters \n that the SVG
// terminal passes on and svg_hover_titles (output/figures.hpp) turns into line breaks. gnuplot 5.4
// writes hypertext into an SVG attribute and a JavaScript string without escaping quotes, so single
// and double quotes become typographic ones and a backslash becomes U+2216; control characters
// become spaces.
inline std::string dat_hypertext(const std::vector<std::string>& lines) {
  std::string out = "\"";
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (i > 0) out += "\\\\n";
    for (const char c : lines[i]) {
      if (c == '\'') {
        out += "\u2019";
      } else if (c == '"') {
        out += "\u201d";
      } else if (c == '\\') {
        out += "\u2216";
      } else {
        out += static_cast<unsigned char>(c) < 0x20 || c == '\x7f' ? ' ' : c;
      }
    }
  }
  out += '"';
  return out;
}

struct GnuplotTerminal {
  std::string_view extension;
  std::string_view terminal;
  double units_per_cm;   // svg/png pixels per cm; 0 = size in cm (pdf)
  std::string_view font;
  std::string_view fontscale;  // "" = the terminal's default
  double linewidth;
  double pointscale;     // 0 = the terminal has no pointscale option (svg: 1)
};
// SVG at 96 px/in with 12 px text (9 pt at 96 px/in), PDF with 9 pt text, PNG at 192 px/in with
// 18 pt (24 px, 9 pt at 192 px/in): the same figure at three resolutions. Cairo sizes text at
// 96 dpi, so "9" in the pdfcairo terminal is 12 pt times its fontscale (default 0.5, 6 pt): 0.75
// makes it 9 pt. Line widths and point sizes differ per terminal because cairo's pdf and png
// drivers scale them differently from text.
inline constexpr std::array<GnuplotTerminal, 3> kGnuplotTerminals = {{
    {"svg", "svg", 96 / 2.54, "DejaVu Sans,12", "", 1.0, 0.0},
    {"pdf", "pdfcairo", 0.0, "DejaVu Sans,9", "0.75", 1.2, 0.6},
    {"png", "pngcairo", 192 / 2.54, "DejaVu Sans,18", "", 2.0, 2.0},
}};

// The script's tail: for each terminal, `set terminal ... size`, `set output NAME.EXT`, then the plot
// command the first time and `replot` after.
inline std::string gnuplot_terminal_block(std::string_view name, double width_cm, double height_cm,
                                          std::string_view plot_command) {
  std::string out = fmt::format(
      "\n# ---- output: one preset per terminal, {:g} cm wide (svg and png in pixels) ----\n", width_cm);
  bool first = true;
  for (const GnuplotTerminal& p : kGnuplotTerminals) {
    const std::string size = p.units_per_cm > 0 ? fmt::format("{},{}", std::lround(width_cm * p.units_per_cm),
                                                               std::lround(height_cm * p.units_per_cm))
                                                 : fmt::format("{:g}cm,{:g}cm", width_cm, height_cm);
    out += fmt::format("set terminal {} size {} {}enhanced font \"{}\"{} linewidth {}{} background rgb \"#ffffff\"\n",
                       p.terminal, size, p.extension == "svg" ? "fixed " : "", p.font,
                       p.fontscale.empty() ? "" : fmt::format(" fontscale {}", p.fontscale), fmt::format("{:g}", p.linewidth),
                       p.pointscale > 0 ? fmt::format(" pointscale {:g}", p.pointscale) : "");
    out += fmt::format("set output {}\n", gp_string(std::string(name) + "." + std::string(p.extension)));
    out += first ? std::string(plot_command) : "replot\n";
    first = false;
  }
  out += "unset output\n";
  return out;
}

}  // namespace dsx
