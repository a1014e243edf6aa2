// Scatter and line figures (output/figures.hpp describes both).

#include "output/analysis_text.hpp"
#include "output/figure_parts.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <stdexcept>

#include "dse/analysis/blocks.hpp"
#include "dse/calibration/intervals.hpp"
#include "dse/pareto.hpp"
#include "output/gnuplot_text.hpp"
#include "output/scatter_thinning.hpp"

namespace dsx::figure_parts {

namespace {

struct Crossing {
  std::size_t a = 0, b = 0;  // the two lines, a < b
  double x = 0, y = 0;       // data units
};

// Where lines cross: each line is a polyline through its points (ascending x); between two
// neighbouring x values of either line both are straight, so their difference is too and the root
// is exact. With log axes the lines are straight in log space, so the interpolation is done there.
// A crossing is a change of sign of (a - b); touching without crossing is not one.
std::vector<Crossing> find_crossings(const std::vector<std::vector<std::pair<double, double>>>& lines, bool log_x,
                                     bool log_y) {
  const auto tx = [&](double v) { return log_x ? std::log10(v) : v; };
  const auto ty = [&](double v) { return log_y ? std::log10(v) : v; };
  const auto at = [&](const std::vector<std::pair<double, double>>& pts, double t) {
    // pts in transformed space, ascending; t inside their range.
    const auto it = std::lower_bound(pts.begin(), pts.end(), t, [](const auto& p, double v) { return p.first < v; });
    if (it == pts.begin() || it->first == t) return it->second;
    const auto prev = std::prev(it);
    return prev->second + (it->second - prev->second) * (t - prev->first) / (it->first - prev->first);
  };
  std::vector<std::vector<std::pair<double, double>>> t_lines;
  for (const auto& pts : lines) {
    auto& out = t_lines.emplace_back();
    for (const auto& [x, y] : pts) {
      if (out.empty() || tx(x) > out.back().first) out.emplace_back(tx(x), ty(y));
    }
  }
  std::vector<Crossing> out;
  for (std::size_t a = 0; a < t_lines.size(); ++a) {
    for (std::size_t b = a + 1; b < t_lines.size(); ++b) {
      const auto& pa = t_lines[a];
      const auto& pb = t_lines[b];
      if (pa.size() < 2 || pb.size() < 2) continue;
      const double lo = std::max(pa.front().first, pb.front().first);
      const double hi = std::min(pa.back().first, pb.back().first);
      if (!(lo < hi)) continue;
      std::vector<double> ts;
      for (const auto* pts : {&pa, &pb}) {
        for (const auto& p : *pts) {
          if (p.first >= lo && p.first <= hi) ts.push_back(p.first);
        }
      }
      std::sort(ts.begin(), ts.end());
      ts.erase(std::unique(ts.begin(), ts.end()), ts.end());
      std::vector<double> d;
      for (double t : ts) {
        const double ya = at(pa, t), yb = at(pb, t);
        const double diff = ya - yb;
        d.push_back(std::fabs(diff) <= 1e-12 * std::max(std::fabs(ya), std::fabs(yb)) ? 0.0 : diff);
      }
      std::optional<std::size_t> last;  // last index with a non-zero difference
      for (std::size_t k = 0; k < ts.size(); ++k) {
        if (d[k] == 0) continue;
        if (last && (d[*last] > 0) != (d[k] > 0)) {
          double t = 0;
          if (*last + 1 == k) {
            t = ts[*last] + (ts[k] - ts[*last]) * d[*last] / (d[*last] - d[k]);
          } else {
            t = ts[*last + 1];  // they meet at a data point (or run together from there)
          }
          const double y = at(pa, t);
          out.push_back(Crossing{a, b, log_x ? std::pow(10.0, t) : t, log_y ? std::pow(10.0, y) : y});
        }
        last = k;
      }
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const Crossing& p, const Crossing& q) { return p.x < q.x; });
  return out;
}

// "batch = 37.2", "launch overhead = 12.5 us"; a long time in the axis's unit ("duration = 0.972 days").
std::string crossing_text(const Column& x, const AxisScale& scale, double value) {
  const bool in_axis_unit = x.display.dimension == Dimension::time && scale.factor < 1;
  return fmt::format("{} = {}", x.display.label.empty() ? x.name : x.display.label,
                     in_axis_unit ? format_in_scale(value, scale) : format_quantity(value, x.display));
}

}  // namespace

FigureSource build_xy(const FigureDecl& decl, const ResolvedStudy& study, const ResultTable& results,
                      std::vector<std::size_t> rows, std::size_t excluded,
                      const std::vector<std::size_t>& pareto_rows) {
  const bool is_line = decl.kind == FigureKind::line;
  const Column x = resolve_column(decl.x, study, results, decl.name);
  if (decl.y.empty()) throw std::invalid_argument(fmt::format("figure '{}': no y metric", decl.name));
  std::vector<Column> ys;
  for (const std::string& y : decl.y) {
    ys.push_back(resolve_column(y, study, results, decl.name));
    if (!ys.back().numeric) {
      throw std::invalid_argument(fmt::format("figure '{}': y '{}' is not numeric", decl.name, y));
    }
    if (ys.back().display.unit != ys.front().display.unit || ys.back().display.style != ys.front().display.style) {
      throw std::invalid_argument(fmt::format("figure '{}': y metrics '{}' and '{}' have different units",
                                              decl.name, ys.front().name, y));
    }
  }
  if (decl.log_x && !x.numeric) {
    throw std::invalid_argument(fmt::format("figure '{}': log_x on categorical parameter '{}'", decl.name, decl.x));
  }

  // Rows with a drawable value (finite, positive on a log axis).
  auto drawable = [&](std::size_t r, const Column& yc) {
    const double xv = row_value(x, study, results, r);
    const double yv = row_value(yc, study, results, r);
    if (!std::isfinite(xv) || !std::isfinite(yv)) return false;
    if (decl.log_x && !(xv > 0)) return false;
    if (decl.log_y && !(yv > 0)) return false;
    return true;
  };

  // Series: by group for a scatter; for a line also by every other axis that varies, so each
  // line joins points that differ only in x.
  std::vector<const Axis*> by;
  if (!decl.group.empty()) {
    if (const Axis* g = find_axis(study, decl.group)) by.push_back(g);
  }
  if (is_line) {
    for (const Axis* a : varying_axes(study, results, rows, {decl.x, decl.group})) by.push_back(a);
  }
  std::vector<Series> groups = split_series(study, results, rows, by, &decl);
  // The figure's rows as marks, for its Pareto front; the list goes, each row now being in a series.
  std::vector<bool> in_figure;
  if (decl.pareto) {
    in_figure.assign(results.rows(), false);
    for (const std::size_t r : rows) in_figure[r] = true;
  }
  rows = std::vector<std::size_t>();

  struct Drawn {
    std::string title;
    const Column* y;
    std::vector<std::size_t> rows;
  };
  std::vector<Drawn> drawn;
  std::size_t not_drawable = 0;
  // Rows some series draws, counted once however many draw them: a mark per row of the table rather
  // than a set node per drawn row (40 bytes each, and a keep-all run draws millions).
  std::vector<bool> plotted(results.rows(), false);
  std::size_t plotted_rows = 0;
  const auto mark_plotted = [&](std::size_t r) {
    if (!plotted[r]) {
      plotted[r] = true;
      ++plotted_rows;
    }
  };
  const auto clear_plotted = [&] {
    std::fill(plotted.begin(), plotted.end(), false);
    plotted_rows = 0;
  };
  for (const Column& yc : ys) {
    for (Series& s : groups) {
      Drawn d{ys.size() > 1 ? (s.order_key.empty() ? metric_words(yc) : metric_words(yc) + " / " + s.title)
                            : s.title,
              &yc, {}};
      // With one y, a series' own list becomes its drawn rows (a keep-all run's are millions).
      if (ys.size() == 1) {
        d.rows = std::move(s.rows);
        const auto kept_end = std::remove_if(d.rows.begin(), d.rows.end(), [&](std::size_t r) { return !drawable(r, yc); });
        not_drawable += static_cast<std::size_t>(d.rows.end() - kept_end);
        d.rows.erase(kept_end, d.rows.end());
        for (const std::size_t r : d.rows) mark_plotted(r);
      } else {
        for (std::size_t r : s.rows) {
          if (drawable(r, yc)) {
            d.rows.push_back(r);
            mark_plotted(r);
          } else {
            ++not_drawable;
          }
        }
      }
      if (is_line) {
        std::stable_sort(d.rows.begin(), d.rows.end(), [&](std::size_t a, std::size_t b) {
          return row_value(x, study, results, a) < row_value(x, study, results, b);
        });
      }
      if (!d.rows.empty()) drawn.push_back(std::move(d));
    }
  }
  // A picture of more points than a page can show is thinned; the data file keeps what is drawn, the
  // front and knee are always drawn. A scatter keeps one point of each series per spot
  // (output/scatter_thinning.hpp); a line, or a scatter still above the limit, then every k-th point
  // of each series.
  std::size_t total_points = 0;
  for (const Drawn& d : drawn) total_points += d.rows.size();
  std::size_t points_after_cells = total_points;
  if (!is_line && total_points > kMaxDrawnPoints) {
    const auto position = [&](const Column& y, std::size_t r) {
      const double xv = row_value(x, study, results, r), yv = row_value(y, study, results, r);
      return std::pair<double, double>{decl.log_x ? std::log10(xv) : xv, decl.log_y ? std::log10(yv) : yv};
    };
    ScatterSpots spots;
    for (const Drawn& d : drawn) {
      for (std::size_t r : d.rows) {
        const auto [px, py] = position(*d.y, r);
        spots.include(px, py);
      }
    }
    points_after_cells = 0;
    clear_plotted();
    for (Drawn& d : drawn) {
      d.rows = spots.first_per_spot(d.rows, [&](std::size_t r) { return position(*d.y, r); });
      points_after_cells += d.rows.size();
      for (const std::size_t r : d.rows) mark_plotted(r);
    }
  }
  std::size_t stride = 1;
  if (points_after_cells > kMaxDrawnPoints) {
    stride = (points_after_cells + kMaxDrawnPoints - 1) / kMaxDrawnPoints;
    clear_plotted();
    for (Drawn& d : drawn) {
      std::vector<std::size_t> kept;
      for (std::size_t i = 0; i < d.rows.size(); i += stride) kept.push_back(d.rows[i]);
      d.rows = std::move(kept);
      for (const std::size_t r : d.rows) mark_plotted(r);
    }
  }

  // The Pareto front among this figure's rows, joined in x order; the knee when it is drawn. A study
  // that groups its fronts (`pareto: group:`) gets one line per group, never one line through the
  // union of fronts, and no knee (each group has its own).
  std::vector<std::vector<std::size_t>> fronts;  // one per group, in group-label order
  std::vector<std::string> front_groups;         // each front's group label ("" without grouping)
  std::size_t front_points = 0;
  std::optional<std::size_t> knee;
  const std::vector<std::string>& group_axes = analyses_of(study).pareto.group;
  if (decl.pareto) {
    std::vector<std::size_t> group_columns;
    for (const std::string& g : group_axes) {
      const auto it = std::find(results.axis_names.begin(), results.axis_names.end(), g);
      if (it != results.axis_names.end()) group_columns.push_back(static_cast<std::size_t>(it - results.axis_names.begin()));
    }
    std::map<std::string, std::vector<std::size_t>> by_group;
    for (std::size_t r : pareto_rows) {
      if (r >= in_figure.size() || !in_figure[r] || !drawable(r, ys.front())) continue;
      std::vector<std::string> labels;
      for (std::size_t c : group_columns) labels.push_back(results.label(r, c));
      by_group[join(labels, ", ")].push_back(r);
    }
    for (auto& [label, members] : by_group) {
      std::stable_sort(members.begin(), members.end(), [&](std::size_t a, std::size_t b) {
        const double xa = row_value(x, study, results, a), xb = row_value(x, study, results, b);
        if (xa != xb) return xa < xb;
        return row_value(ys.front(), study, results, a) < row_value(ys.front(), study, results, b);
      });
      front_points += members.size();
      front_groups.push_back(label);
      fronts.push_back(std::move(members));
    }
    if (group_columns.empty() && study.objectives.size() == 2 && pareto_rows.size() >= 3 && !fronts.empty()) {
      const auto k = knee_point(results, study.objectives, pareto_rows);
      const std::vector<std::size_t>& front = fronts.front();
      if (k && k->distance > 0 && std::find(front.begin(), front.end(), k->row) != front.end()) knee = k->row;
    }
  }
  const bool grouped_fronts = !front_groups.empty() && !front_groups.front().empty();
  // When the series are the groups themselves, each group's front is drawn in its series' colour, so
  // a reader tells the fronts apart as the points; otherwise they are black.
  std::vector<std::size_t> front_series;
  if (grouped_fronts && ys.size() == 1 && by.size() == group_axes.size()) {
    std::vector<std::string> by_params;
    for (const Axis* a : by) by_params.push_back(a->param);
    std::vector<std::string> grouped = group_axes;
    std::sort(by_params.begin(), by_params.end());
    std::sort(grouped.begin(), grouped.end());
    const auto labels_of = [&](std::size_t r) {
      std::vector<std::string> out;
      for (const Axis* a : by) out.push_back(results.label(r, static_cast<std::size_t>(results.axis_column(a->param))));
      return out;
    };
    for (std::size_t g = 0; by_params == grouped && g < fronts.size(); ++g) {
      const auto series = std::find_if(drawn.begin(), drawn.end(), [&](const Drawn& d) {
        return !d.rows.empty() && labels_of(d.rows.front()) == labels_of(fronts[g].front());
      });
      if (series == drawn.end()) break;
      front_series.push_back(static_cast<std::size_t>(series - drawn.begin()));
    }
    if (front_series.size() != fronts.size()) front_series.clear();
  }
  const bool coloured_fronts = !front_series.empty();
  const std::string front_key = grouped_fronts ? "Pareto front of each " + join(group_axes, " x ") : "Pareto front";

  // Crossings of every two lines, where the drawn (straight, on log axes straight in log space)
  // segments meet.
  std::vector<Crossing> crossings;
  if (is_line && decl.crossover) {
    if (!x.numeric) {
      throw std::invalid_argument(fmt::format("figure '{}': crossover needs a numeric x, '{}' is categorical",
                                              decl.name, decl.x));
    }
    std::vector<std::vector<std::pair<double, double>>> lines;
    for (const Drawn& d : drawn) {
      auto& pts = lines.emplace_back();
      for (std::size_t r : d.rows) pts.emplace_back(row_value(x, study, results, r), row_value(*d.y, study, results, r));
    }
    crossings = find_crossings(lines, decl.log_x, decl.log_y);
  }

  std::vector<double> xs, yvals;
  for (const Drawn& d : drawn) {
    for (std::size_t r : d.rows) {
      xs.push_back(row_value(x, study, results, r));
      yvals.push_back(row_value(*d.y, study, results, r));
    }
  }
  AxisSetup xa = axis_setup(x, xs, decl.log_x);
  AxisSetup ya = axis_setup(ys.front(), yvals, decl.log_y);
  if (ys.size() > 1) {
    std::vector<std::string> words;
    for (const Column& c : ys) words.push_back(metric_words(c));
    ya.title = ya.scale.unit.empty() ? join(words, ", ") : join(words, ", ") + " (" + ya.scale.unit + ")";
  }
  apply_axis_label(xa, x, decl.x_label);
  apply_axis_label(ya, ys.front(), decl.y_label);
  std::vector<double> xs_scaled, ys_scaled;
  for (double v : xs) xs_scaled.push_back(v * xa.scale.factor);
  for (double v : yvals) ys_scaled.push_back(v * ya.scale.factor);

  const std::string title = !decl.title.empty() ? decl.title : ya.title + " vs " + xa.title;
  FigureSource src;
  src.name = decl.name;
  src.title = title;
  src.caption = decl.caption;
  src.points = plotted_rows;

  // Data: one block per series, then the front, then the knee.
  std::string& dat = src.data;
  dat += fmt::format("# dsx figure data '{}' ({} study '{}')\n", one_line(decl.name),
                     is_line ? "line plot," : "scatter plot,", one_line(study.name));
  dat += fmt::format("# x = {}{}; y = {}; SI units\n", x.name,
                     x.numeric ? "" : " (position along the axis)", ys.size() == 1 ? ys.front().name : "per block");
  dat += "# columns: x y point_index design_point [p10 p90] hover; one gnuplot index block per series\n";
  // The 80 % interval of a metric from the study's calibration profile (<metric>_p10 / _p90 columns):
  // error bars on a scatter, a band along a line.
  const auto interval_columns = [&](const Column& yc) -> std::optional<std::pair<std::size_t, std::size_t>> {
    if (!yc.is_metric) return std::nullopt;
    const int lo = results.metric_column(interval_low_name(yc.name));
    const int hi = results.metric_column(interval_high_name(yc.name));
    if (lo < 0 || hi < 0) return std::nullopt;
    return std::pair{static_cast<std::size_t>(lo), static_cast<std::size_t>(hi)};
  };
  std::size_t block = 0;
  auto write_block = [&](std::string_view heading, const Column& yc, const std::vector<std::size_t>& block_rows) {
    if (block > 0) dat += "\n\n";
    const auto interval = interval_columns(yc);
    dat += fmt::format("# index {}: {} (y = {}{})\n", block, one_line(heading), yc.name,
                       interval ? "; then its 80 % interval, p10 and p90" : "");
    for (std::size_t r : block_rows) {
      dat += fmt::format("{} {} {} {}", format_exact(row_value(x, study, results, r)),
                         format_exact(row_value(yc, study, results, r)), results.point_index[r],
                         dat_string(design_point_text(study, results, r, " ", false)));
      if (interval) {
        dat += fmt::format(" {} {}", format_exact(results.metric(r, interval->first)),
                           format_exact(results.metric(r, interval->second)));
      }
      dat += ' ';
      dat += dat_hypertext(hover_lines(study, results, r, x, yc));
      dat += '\n';
    }
    ++block;
  };
  for (const Drawn& d : drawn) write_block(d.title, *d.y, d.rows);
  const std::size_t front_block = block;
  for (std::size_t g = 0; g < fronts.size(); ++g) {
    write_block(grouped_fronts ? "Pareto front of " + front_groups[g] + ", in x order" : "Pareto front, in x order",
                ys.front(), fronts[g]);
  }
  const std::size_t knee_block = block;
  if (knee) write_block("knee of the Pareto front", ys.front(), {*knee});
  const std::size_t crossing_block = block;
  if (!crossings.empty()) {
    if (block > 0) dat += "\n\n";
    dat += fmt::format("# index {}: crossings, linear interpolation between neighbouring points{}\n", block,
                       decl.log_x || decl.log_y ? " (in log space on a log axis)" : "");
    dat += "# columns: x y series_a series_b\n";
    for (const Crossing& c : crossings) {
      dat += fmt::format("{} {} {} {}\n", format_exact(c.x), format_exact(c.y), dat_string(drawn[c.a].title),
                         dat_string(drawn[c.b].title));
    }
    ++block;
  }

  // Script.
  std::string& gp = src.script;
  gp = script_header(decl, title);
  gp += axis_commands('x', xa, xs_scaled);
  if (decl.width == FigureWidth::single_column && !decl.log_x && x.numeric && !xs_scaled.empty()) {
    double span = 0;
    for (double v : xs_scaled) span = std::max(span, std::fabs(v));
    gp += narrow_tics('x', span);
  }
  gp += axis_commands('y', ya, ys_scaled);
  // Room around the data on linear axes (log axes already end on a decade); a y axis of
  // non-negative values starts at zero.
  const bool y_from_zero = !decl.log_y && !ys_scaled.empty() &&
                           std::all_of(ys_scaled.begin(), ys_scaled.end(), [](double v) { return v >= 0; });
  // A percentage that reaches past half reads against the full 0-100 scale.
  const bool y_full_percent = y_from_zero && ya.scale.unit == "%" &&
                              *std::max_element(ys_scaled.begin(), ys_scaled.end()) > 50 &&
                              *std::max_element(ys_scaled.begin(), ys_scaled.end()) <= 100;
  if (y_from_zero) gp += y_full_percent ? "set yrange [0:100]\n" : "set yrange [0:*]\n";
  const std::string_view x_pad = decl.log_x || !x.numeric ? "0" : "graph 0.03";
  const std::string_view y_pad = decl.log_y ? "0" : "graph 0.05";
  gp += fmt::format("set offsets {0}, {0}, {1}, {2}\n", x_pad, y_full_percent ? "0" : y_pad, y_from_zero ? "0" : y_pad);
  if (!x.numeric) {
    std::vector<std::string> tics;
    for (std::size_t k = 0; k < x.axis->values.size(); ++k) {
      tics.push_back(fmt::format("{} {}", gp_string(value_words(study, x.axis->param, x.axis->values[k].label)), k));
    }
    gp += fmt::format("set xtics ({}) noenhanced\n", join(tics, ", "));
    gp += fmt::format("set xrange [-0.5:{}]\n", format_exact(static_cast<double>(x.axis->values.size()) - 0.5));
  }
  gp += range_commands('x', decl.x_range, xa.scale.factor, "x_range");
  gp += range_commands('y', decl.y_range, ya.scale.factor, "y_range");
  std::vector<std::string> key_names;
  if (ys.size() > 1) key_names.push_back("metric");
  // The parameters in words ("CPU workers", "step model"), as the axes are titled.
  for (const Axis* a : by) key_names.push_back(describe_quantity(a->param, Dimension::dimensionless).label);
  if (drawn.size() > 1 && !key_names.empty() && decl.legend_title.empty()) {
    gp += fmt::format("set key title {} noenhanced\n", gp_string(join(key_names, " / ")));
  }
  const bool show_key = drawn.size() > 1 || !fronts.empty() || !crossings.empty();
  const std::size_t key_entries = drawn.size() + (fronts.empty() ? 0 : 1) + (knee ? 1 : 0) + (crossings.empty() ? 0 : 1);
  double height_cm = kPlotHeightCm;
  double longest = text_cm(front_key);
  for (const Drawn& d : drawn) longest = std::max(longest, text_cm(d.title));
  // A key of long names (catalog names such as "NVIDIA H100 SXM 80GB") beside a full-width plot would
  // squeeze it past its left edge: it goes below, as a one-column figure's does.
  const bool key_below_plot = decl.width == FigureWidth::single_column || longest > kLongKeyEntryCm;
  if (key_below_plot) {
    const auto [commands, rows_cm] =
        key_below(key_entries, longest, decl.width == FigureWidth::single_column ? kSingleWidthCm : kDoubleWidthCm);
    if (show_key) gp += commands;
    height_cm = (decl.width == FigureWidth::single_column ? kSinglePlotHeightCm : kPlotHeightCm) + (show_key ? rows_cm : 0.0);
    if (show_key && !decl.legend_title.empty()) height_cm += 2 * kKeyRowCm;  // a blank line, then the title
  }
  height_cm += title_extra_cm(decl, title);
  if (!show_key) gp += "unset key\n";
  if (show_key && !decl.legend_title.empty()) gp += key_title_commands(decl, key_below_plot);
  if (!crossings.empty()) {
    // The value runs along the line, from the end of the plot farther from the crossing point.
    const auto ty = [&](double v) { return decl.log_y ? std::log10(v) : v; };
    double y_min = y_from_zero ? 0.0 : std::numeric_limits<double>::infinity(), y_max = -y_min;
    for (double v : yvals) {
      if (!std::isfinite(v) || (decl.log_y && !(v > 0))) continue;
      y_min = std::min(y_min, ty(v));
      y_max = std::max(y_max, ty(v));
    }
    gp += "# crossings: a dashed vertical line and the x value at each\n";
    for (std::size_t i = 0; i < crossings.size(); ++i) {
      const double cx = crossings[i].x * xa.scale.factor;
      const bool high = y_max > y_min && (ty(crossings[i].y) - y_min) / (y_max - y_min) > 0.5;
      gp += fmt::format("set arrow {} from {}, graph 0 to {}, graph 1 nohead back lc rgb \"{}\" lw 1 dt (5,4)\n", i + 1,
                        format_exact(cx), format_exact(cx), kMarkInk);
      gp += fmt::format("set label {} {} at {}, graph {} rotate by 90 {} offset character -0.6, 0 front "
                        "textcolor rgb \"{}\" noenhanced\n",
                        100 + i, gp_string(crossing_text(x, xa.scale, crossings[i].x)), format_exact(cx), high ? "0.02" : "0.98",
                        high ? "left" : "right", kMarkInk);
    }
  }

  std::vector<std::string> clauses;
  const std::string xexpr = gp_scaled(1, xa.scale.factor);
  const std::string yexpr = gp_scaled(2, ya.scale.factor);
  const std::string using_clause = fmt::format("using {}:{}", xexpr, yexpr);
  const std::string data_file = gp_string(decl.name + ".dat");
  bool drew_intervals = false;
  for (std::size_t i = 0; i < drawn.size(); ++i) {
    if (interval_columns(*drawn[i].y)) {
      const std::string lo = gp_scaled(5, ya.scale.factor), hi = gp_scaled(6, ya.scale.factor);
      clauses.push_back(
          is_line ? fmt::format("{} index {} using {}:{}:{} with filledcurves fs transparent solid 0.18 noborder lt {} "
                                "notitle",
                                clauses.empty() ? data_file : "\"\"", i, xexpr, lo, hi, i + 1)
                  : fmt::format("{} index {} using {}:{}:{}:{} with yerrorbars lt {} dt solid pt -1 lw 0.6 notitle",
                                clauses.empty() ? data_file : "\"\"", i, xexpr, yexpr, lo, hi, i + 1));
      drew_intervals = true;
    }
    clauses.push_back(fmt::format("{} index {} {} with {} lt {} title {} noenhanced", clauses.empty() ? data_file : "\"\"",
                                  i, using_clause, is_line ? "linespoints" : "points", i + 1, gp_string(drawn[i].title)));
  }
  // A transparent marker over every point carries its inputs and metrics as hover text (an SVG
  // <title> after svg_hover_titles; nothing in the PDF and PNG).
  for (std::size_t i = 0; i < drawn.size(); ++i) {
    clauses.push_back(fmt::format("\"\" index {} {}:{} with labels hypertext point pt 7 ps 1.2 lc rgb \"#ff000000\" "
                                  "noenhanced notitle",
                                  i, using_clause, interval_columns(*drawn[i].y) ? 7 : 5));
  }
  for (std::size_t g = 0; g < fronts.size(); ++g) {
    const std::string front_title = g > 0 || coloured_fronts ? "notitle" : "title " + gp_string(front_key);
    const std::string colour =
        coloured_fronts ? fmt::format("lt {}", front_series[g] + 1) : fmt::format("lc rgb \"{}\"", kFrontInk);
    clauses.push_back(fmt::format("\"\" index {} {} with lines {} lw 2 dt solid {}", front_block + g, using_clause,
                                  colour, front_title));
  }
  // One key entry for the coloured fronts, its sample black: each line has its group's colour.
  if (coloured_fronts) {
    clauses.push_back(fmt::format("NaN with lines lc rgb \"{}\" lw 2 dt solid title {}", kFrontInk, gp_string(front_key)));
  }
  if (knee) {
    clauses.push_back(fmt::format(
        "\"\" index {} {} with points lc rgb \"#000000\" pt 6 ps 2.4 lw 1.5 title \"knee\"", knee_block,
        using_clause));
  }
  if (!crossings.empty()) {
    clauses.push_back(fmt::format("\"\" index {} {} with points lc rgb \"#000000\" pt 6 ps 1.8 lw 1.5 title \"crossing\"",
                                  crossing_block, using_clause));
  }
  std::string plot;
  if (clauses.empty()) {
    plot = "set label 1 \"no feasible design point to draw\" at graph 0.5, graph 0.5 center\n"
           "set xrange [0:1]\nset yrange [0:1]\nunset logscale\nplot -1 notitle\n";
  } else {
    plot = "plot " + join(clauses, ", \\\n     ") + "\n";
  }
  gp += gnuplot_terminal_block(decl.name, figure_width_cm(decl), height_cm, plot);

  // Description, for the caption.
  std::string& text = src.description;
  text = fmt::format("{} of {} against {}: {} design point{}", is_line ? "Lines" : "Points",
                     ys.size() == 1 ? ya.title : join(decl.y, ", "), xa.title, src.points, src.points == 1 ? "" : "s");
  text += selection_text(study, decl);
  if (!key_names.empty() && drawn.size() > 1) text += fmt::format(", one series per {}", join(key_names, " / "));
  if (is_line) text += fmt::format(", joined in order of {}", x.name);
  text += ".";
  if (points_after_cells < total_points && stride == 1) {
    text += fmt::format(" Thinned for drawing: {} of {} points, one of each series where several would print as one mark.",
                        format_grouped(static_cast<double>(src.points)),
                        format_grouped(static_cast<double>(total_points)));
  } else if (points_after_cells < total_points) {
    text += fmt::format(
        " Thinned for drawing: one point of each series where several would print as one mark, then every {} "
        "point ({} of {}).",
        ordinal(stride), format_grouped(static_cast<double>(src.points)), format_grouped(static_cast<double>(total_points)));
  } else if (stride > 1) {
    text += fmt::format(" Thinned for drawing: every {} point of each series ({} of {}).", ordinal(stride),
                        format_grouped(static_cast<double>(src.points)),
                        format_grouped(static_cast<double>(total_points)));
  }
  if (decl.log_x || decl.log_y) {
    text += fmt::format(" Logarithmic {} axis.", decl.log_x && decl.log_y ? "x and y" : decl.log_x ? "x" : "y");
  }
  if (drew_intervals) {
    text += is_line ? " Shaded: the 80 % interval of each point from the calibration profile (p10 to p90)."
                    : " Bars: the 80 % interval of each point from the calibration profile (p10 to p90).";
  }
  if (!fronts.empty()) {
    std::vector<std::string> obj;
    for (const Objective& o : study.objectives) {
      obj.push_back(analysis_text::objective_words(study, o));
    }
    if (grouped_fronts) {
      text += fmt::format(" The {} are the Pareto fronts of each {}, one line per group ({}; {} point{} shown).",
                          coloured_fronts ? "thick lines, each in its group's colour," : "black lines",
                          join(group_axes, " x "), join(obj, ", "), front_points, front_points == 1 ? "" : "s");
    } else {
      text += fmt::format(" The black line is the Pareto front ({}; {} point{} shown).", join(obj, ", "), front_points,
                          front_points == 1 ? "" : "s");
    }
  }
  if (knee) {
    text += fmt::format(" Circled: the knee, {} ({} = {}, {} = {}).", design_point_text(study, results, *knee, ", "),
                        metric_words(x), x.numeric ? format_quantity(row_value(x, study, results, *knee), x.display) : row_label(x, study, results, *knee),
                        metric_words(ys.front()), format_quantity(row_value(ys.front(), study, results, *knee), ys.front().display));
  }
  if (is_line && decl.crossover) {
    if (crossings.empty()) {
      text += " No two lines cross within the range drawn.";
    } else {
      std::vector<std::string> parts;
      for (const Crossing& c : crossings) {
        parts.push_back(fmt::format("{} and {} at {}", drawn[c.a].title, drawn[c.b].title, crossing_text(x, xa.scale, c.x)));
      }
      text += fmt::format(" Dashed vertical line{}: where two lines cross (linear interpolation between neighbouring "
                          "points{}): {}.",
                          crossings.size() == 1 ? "" : "s", decl.log_x || decl.log_y ? ", in log space on a log axis" : "",
                          join(parts, "; "));
    }
  }
  if (excluded > 0 || not_drawable > 0) {
    text += fmt::format(" Not drawn: {}{}{}.", excluded > 0 ? fmt::format("{} infeasible or failed", excluded) : "",
                        excluded > 0 && not_drawable > 0 ? ", " : "",
                        not_drawable > 0 ? fmt::format("{} without a drawable value{}", not_drawable,
                                                       decl.log_x || decl.log_y ? " (zero or negative on a log axis)" : "")
                                         : "");
  }
  return src;
}

}  // namespace dsx::figure_parts
