// Heatmaps: one metric over two swept parameters, in viridis (output/figures.hpp).

#include "output/figure_parts.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>

#include "output/gnuplot_text.hpp"

namespace dsx::figure_parts {

namespace {

struct Rgb {
  double r = 0, g = 0, b = 0;  // 0..1, sRGB
};

Rgb parse_rgb(std::string_view hex) {
  const auto channel = [&](std::size_t at) { return std::stoi(std::string(hex.substr(at, 2)), nullptr, 16) / 255.0; };
  return {channel(1), channel(3), channel(5)};
}

// The palette's colour at t in [0, 1], interpolated in sRGB between its stops as gnuplot does.
Rgb palette_at(double t) {
  t = std::clamp(t, 0.0, 1.0) * static_cast<double>(kViridis.size() - 1);
  const auto i = std::min(static_cast<std::size_t>(t), kViridis.size() - 2);
  const double f = t - static_cast<double>(i);
  const Rgb a = parse_rgb(kViridis[i]), b = parse_rgb(kViridis[i + 1]);
  return {a.r + (b.r - a.r) * f, a.g + (b.g - a.g) * f, a.b + (b.b - a.b) * f};
}

// WCAG 2 relative luminance.
double luminance(const Rgb& c) {
  const auto lin = [](double v) { return v <= 0.04045 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4); };
  return 0.2126 * lin(c.r) + 0.7152 * lin(c.g) + 0.0722 * lin(c.b);
}

// Black or white, whichever contrasts more with the cell (WCAG 2 contrast ratio).
bool white_text_on(const Rgb& cell) {
  const double l = luminance(cell);
  return (1.05 / (l + 0.05)) > ((l + 0.05) / 0.05);
}

}  // namespace

FigureSource build_heatmap(const FigureDecl& decl, const ResolvedStudy& study, const ResultTable& results,
                           const std::vector<std::size_t>& rows, const std::vector<std::size_t>& infeasible_rows) {
  if (decl.y.size() != 1) {
    throw std::invalid_argument(fmt::format("figure '{}': a heatmap takes one swept parameter on y", decl.name));
  }
  const Column x = resolve_column(decl.x, study, results, decl.name);
  const Column y = resolve_column(decl.y.front(), study, results, decl.name);
  if (decl.z.empty()) throw std::invalid_argument(fmt::format("figure '{}': a heatmap needs z", decl.name));
  const Column z = resolve_column(decl.z, study, results, decl.name);
  for (const Column* c : {&x, &y}) {
    if (c->is_metric || c->axis == nullptr) {
      throw std::invalid_argument(
          fmt::format("figure '{}': a heatmap puts swept parameters on x and y, not '{}'", decl.name, c->name));
    }
  }
  if (!z.is_metric) throw std::invalid_argument(fmt::format("figure '{}': z '{}' is not a metric", decl.name, decl.z));

  // Columns and rows: the axis values the kept rows take, in axis order.
  std::vector<std::size_t> all = rows;
  all.insert(all.end(), infeasible_rows.begin(), infeasible_rows.end());
  // By the axis itself: a bundle or layout axis (region, layout) is named by its ids, not by a parameter.
  const auto axis_labels_among = [&](const Column& c) {
    std::set<std::string> seen;
    for (std::size_t r : all) seen.insert(results.label(r, static_cast<std::size_t>(c.axis_col)));
    std::vector<std::string> out;
    for (const AxisValue& v : c.axis->values) {
      if (seen.count(v.label) != 0) out.push_back(v.label);
    }
    return out;
  };
  const std::vector<std::string> x_labels = axis_labels_among(x);
  const std::vector<std::string> y_labels = axis_labels_among(y);
  const auto position = [](const std::vector<std::string>& labels, const std::string& label) {
    return static_cast<std::size_t>(std::find(labels.begin(), labels.end(), label) - labels.begin());
  };
  struct Cell {
    std::size_t row = 0;
    bool feasible = true;
  };
  std::map<std::pair<std::size_t, std::size_t>, Cell> cells;
  const auto place = [&](std::size_t r, bool feasible) {
    const std::pair key{position(x_labels, row_label(x, study, results, r)), position(y_labels, row_label(y, study, results, r))};
    if (cells.count(key) != 0) {
      throw std::invalid_argument(fmt::format(
          "figure '{}': the cell {} = {}, {} = {} holds more than one design point; hold the other axes with where",
          decl.name, x.name, x_labels[key.first], y.name, y_labels[key.second]));
    }
    cells[key] = Cell{r, feasible};
  };
  for (std::size_t r : rows) place(r, true);
  for (std::size_t r : infeasible_rows) place(r, false);

  std::vector<double> zs;
  std::size_t not_drawable = 0;
  for (auto& [key, cell] : cells) {
    if (!cell.feasible) continue;
    const double v = row_value(z, study, results, cell.row);
    if (!std::isfinite(v) || (decl.log_z && !(v > 0))) {
      cell.feasible = false;
      ++not_drawable;
      continue;
    }
    zs.push_back(v);
  }
  AxisSetup za = axis_setup(z, zs, decl.log_z);
  double z_lo = 0, z_hi = 0;
  if (!zs.empty()) {
    z_lo = *std::min_element(zs.begin(), zs.end()) * za.scale.factor;
    z_hi = *std::max_element(zs.begin(), zs.end()) * za.scale.factor;
  }
  if (z_lo == z_hi) {  // one colour for every cell: any range around it
    z_lo = decl.log_z ? z_lo / 2 : z_lo - 1;
    z_hi = decl.log_z ? z_hi * 2 : z_hi + 1;
  }
  const auto shade = [&](double scaled) {
    return decl.log_z ? (std::log10(scaled) - std::log10(z_lo)) / (std::log10(z_hi) - std::log10(z_lo))
                      : (scaled - z_lo) / (z_hi - z_lo);
  };
  // A cell's number is in the colour scale's unit, or, when the values span three decades or more,
  // with its own prefix and unit ("193 us", "1.26 ms"). Numbers go in the cells when the widest fits.
  // Counts and flags (every value a whole number) print exactly; the rest to three significant figures.
  const bool own_units = !zs.empty() && z.numeric && z_lo > 0 && z_hi / z_lo >= 1e3;
  const bool whole = za.scale.factor == 1 && std::all_of(zs.begin(), zs.end(), [](double v) { return v == std::trunc(v); });
  const auto cell_text = [&](double v) {
    if (own_units) return format_quantity(v, z.display);
    return whole ? format_grouped(v) : format_in_scale(v, AxisScale{za.scale.factor, ""});
  };
  double widest = 0;
  for (double v : zs) widest = std::max(widest, text_cm(cell_text(v)));
  const double cell_cm = (figure_width_cm(decl) - kHeatmapMarginsCm) / static_cast<double>(std::max<std::size_t>(x_labels.size(), 1));
  const bool labelled = cells.size() <= kHeatmapMaxLabelledCells && widest < 0.9 * cell_cm;

  const std::string title = !decl.title.empty() ? decl.title : za.title + " over " + x.name + " and " + y.name;
  FigureSource src;
  src.name = decl.name;
  src.title = title;
  src.caption = decl.caption;

  std::string& dat = src.data;
  dat += fmt::format("# dsx figure data '{}' (heatmap, study '{}')\n", one_line(decl.name), one_line(study.name));
  dat += fmt::format("# cells: column = position of {} along its axis, row = position of {}; z = {} (SI units)\n",
                     x.name, y.name, z.name);
  dat += "# columns: column row z label text_rgb point_index design_point\n";
  dat += "# index 0: cells with a value\n";
  std::size_t drawn = 0;
  for (const auto& [key, cell] : cells) {
    if (!cell.feasible) continue;
    const double v = row_value(z, study, results, cell.row);
    const bool white = white_text_on(palette_at(shade(v * za.scale.factor)));
    dat += fmt::format("{} {} {} {} {} {} {}\n", key.first, key.second, format_exact(v),
                       dat_string(cell_text(v)), white ? "16777215" : "0",
                       results.point_index[cell.row], dat_string(design_point_text(study, results, cell.row, " ", false)));
    ++drawn;
  }
  src.points = drawn;
  dat += "\n\n# index 1: infeasible or failed cells, and cells without a drawable value\n";
  dat += "# columns: column row status label point_index design_point (label: the status where it fits)\n";
  std::size_t blank = 0;
  for (const auto& [key, cell] : cells) {
    if (cell.feasible) continue;
    const PointStatus st = results.status[cell.row];
    const std::string_view status = st == PointStatus::ok ? "n/a" : st == PointStatus::infeasible ? "infeasible" : "failed";
    const bool fits = labelled && text_cm(status) < 0.85 * cell_cm;
    dat += fmt::format("{} {} {} {} {} {}\n", key.first, key.second, dat_string(status), dat_string(fits ? status : ""),
                       results.point_index[cell.row], dat_string(design_point_text(study, results, cell.row, " ", false)));
    ++blank;
  }
  if (blank == 0) dat += "-1 -1 \"none\" \"\" -1 \"\"\n";  // gnuplot needs a row to read the block

  const double height_cm =
      std::clamp(kHeatmapBaseCm + kHeatmapRowCm * static_cast<double>(std::max<std::size_t>(y_labels.size(), 1)),
                 kHeatmapMinCm, kHeatmapMaxCm) +
      title_extra_cm(decl, title);
  std::string& gp = src.script;
  gp = script_header(decl, title);
  // The columns and rows named as the other figures name a value: a chip or a model by its short
  // name, a quantity in the report's units (output/readable_label.hpp figure_value).
  const auto shown = [&](const Column& c, const std::vector<std::string>& labels) {
    std::vector<std::string> out;
    for (const std::string& l : labels) out.push_back(value_words(study, c.axis->param, l));
    return out;
  };
  const std::vector<std::string> x_shown = shown(x, x_labels);
  const std::vector<std::string> y_shown = shown(y, y_labels);
  const auto tics = [&](const std::vector<std::string>& labels) {
    std::vector<std::string> out;
    for (std::size_t k = 0; k < labels.size(); ++k) out.push_back(fmt::format("{} {}", gp_string(labels[k]), k));
    return join(out, ", ");
  };
  std::size_t y_chars = 0;
  double x_cm = 0;
  for (const std::string& l : x_shown) x_cm = std::max(x_cm, text_cm(l));
  for (const std::string& l : y_shown) y_chars = std::max(y_chars, l.size());
  gp += "unset key\nunset grid\nset border 15 front lc rgb \"#262626\" lw 1\nset tics scale 0\n";
  // The y parameter's name heads the row labels (a rotated axis label would need gnuplot to
  // measure them, which it does differently per terminal); the left margin fits the longest.
  // The study's x_label and y_label, as written.
  const std::string x_title = decl.x_label.empty() ? metric_words(x) : decl.x_label;
  const std::string y_title = decl.y_label.empty() ? metric_words(y) : decl.y_label;
  gp += fmt::format("set xlabel {} noenhanced\nunset ylabel\n", gp_string(x_title));
  gp += fmt::format("set label 1 {} at graph 0, graph 1 right offset character -0.8, 0.8 noenhanced\n",
                    gp_string(y_title));
  gp += fmt::format("set lmargin {}\nset tmargin {}\n", std::max<std::size_t>(y_chars, y_title.size()) + 2,
                    fmt::format("{:g}", 3 + static_cast<double>(title_lines(decl, title).size())));
  gp += "set title offset character 0, 0.9  # above the headers of the rows and the colour box\n";
  const bool rotate_x = x_cm > 0.9 * cell_cm;
  gp += fmt::format("set xtics ({}) noenhanced{}\nset ytics ({}) noenhanced\n", tics(x_shown),
                    rotate_x ? " rotate by 45 right" : "", tics(y_shown));
  gp += fmt::format("set xrange [-0.5:{}]\nset yrange [{}:-0.5]  # first row on top\n",
                    format_exact(static_cast<double>(std::max<std::size_t>(x_labels.size(), 1)) - 0.5),
                    format_exact(static_cast<double>(std::max<std::size_t>(y_labels.size(), 1)) - 0.5));
  // The colour scale's quantity heads the colour box, as the y parameter heads the rows.
  gp += fmt::format("unset cblabel\nset label 2 {} at screen 1, graph 1 right offset character -0.6, 0.8 noenhanced\n",
                    gp_string(za.title));
  gp += fmt::format("set cbrange [{}:{}]\n", format_exact(z_lo), format_exact(z_hi));
  gp += decl.log_z ? "set logscale cb 10\nset format cb \"%g\"\n" : "set format cb \"%g\"\n";
  gp += "set colorbox vertical default front border\n";
  // Room on the right for the colour box and its numbers.
  const double cb_a = decl.log_z ? std::pow(10.0, std::ceil(std::log10(z_lo))) : z_lo;
  const double cb_b = decl.log_z ? std::pow(10.0, std::floor(std::log10(z_hi))) : z_hi;
  const std::size_t cb_chars = std::max(fmt::format("{:.3g}", cb_a).size(), fmt::format("{:.3g}", cb_b).size());
  gp += fmt::format("set rmargin {}\n", cb_chars + 4);
  const std::string data_file = gp_string(decl.name + ".dat");
  std::vector<std::string> clauses;
  clauses.push_back(fmt::format("{} index 0 using 1:2:(0.5):(0.5):{} with boxxyerror fc palette "
                                "fs solid 1.0 border lc rgb \"#ffffff\" notitle",
                                data_file, gp_scaled(3, za.scale.factor)));
  clauses.push_back(fmt::format("\"\" index 1 using 1:2:(0.5):(0.5) with boxxyerror fc rgb \"{}\" "
                                "fs pattern 4 border lc rgb \"#ffffff\" notitle",
                                kInfeasibleCell));
  if (labelled) {
    clauses.push_back("\"\" index 0 using 1:2:4:5 with labels center textcolor rgb variable notitle noenhanced");
  }
  if (labelled) {
    clauses.push_back("\"\" index 1 using 1:2:4 with labels center textcolor rgb \"#000000\" notitle noenhanced");
  }
  std::string plot = "plot " + join(clauses, ", \\\n     ") + "\n";
  if (cells.empty()) {
    plot = "set label 1 \"no design point to draw\" at graph 0.5, graph 0.5 center\n"
           "unset colorbox\nplot -1 notitle\n";
  }
  gp += gnuplot_terminal_block(decl.name, figure_width_cm(decl), height_cm, plot);

  std::string& text = src.description;
  text = fmt::format("Heatmap of {} over {} (columns) and {} (rows): {} cell{} with a value", za.title, x.name, y.name,
                     drawn, drawn == 1 ? "" : "s");
  text += selection_text(study, decl);
  text += labelled ? fmt::format("; the number in each cell is its value{}.",
                                 own_units || za.scale.unit.empty() ? "" : " in " + za.scale.unit)
                   : fmt::format("; too many cells to print their values ({} of {} drawn), they are in {}.dat.",
                                 drawn, cells.size(), decl.name);
  text += fmt::format(" Colour: viridis, dark = low, light = high{}.", decl.log_z ? ", on a logarithmic scale" : "");
  if (blank > 0) {
    text += fmt::format(" Hatched gray: {} cell{} with no value (infeasible, failed or not drawable).", blank,
                        blank == 1 ? "" : "s");
  }
  return src;
}

}  // namespace dsx::figure_parts
