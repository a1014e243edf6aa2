// Roofline figures: design points under the roofs of their hardware (output/figures.hpp).

#include "output/figure_parts.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>

#include "engine/precision.hpp"
#include "engine/roofline.hpp"
#include "output/gnuplot_text.hpp"

namespace dsx::figure_parts {

namespace {

// "ridge 156 FLOP/B".
std::string ridge_label(double ridge) { return fmt::format("ridge {} FLOP/B", format_grouped(ridge, 3)); }

struct Roof {
  std::string hardware;
  std::string precision;
  double peak = 0;       // eta x datasheet peak, FLOP/s
  double bandwidth = 0;  // B/s
  double ridge = 0;      // FLOP/byte
};

// A roof in the key: its chip as figures name it ("roof NVIDIA A100 80GB SXM fp16").
std::string roof_title(const ResolvedStudy& study, const Roof& r) {
  const auto p = param_of_kind(study, ParamKind::hardware);
  const std::string chip = p ? value_words(study, study.solver->params()[*p].name, r.hardware) : r.hardware;
  return "roof " + chip + " " + r.precision;
}

}  // namespace

FigureSource build_roofline(const FigureDecl& decl, const ResolvedStudy& study, const ResultTable& results,
                            const std::vector<std::size_t>& rows, std::size_t excluded) {
  const Column x = resolve_column(decl.x, study, results, decl.name);
  if (decl.y.size() != 1) {
    throw std::invalid_argument(fmt::format("figure '{}': a roofline takes one FLOP/s metric on y", decl.name));
  }
  const Column y = resolve_column(decl.y.front(), study, results, decl.name);
  if (!x.is_metric || x.display.unit != "FLOP/B") {
    throw std::invalid_argument(fmt::format("figure '{}': a roofline puts an intensity metric (FLOP/byte) on x, not '{}'",
                                            decl.name, decl.x));
  }
  if (!y.is_metric || y.display.dimension != Dimension::flop_rate) {
    throw std::invalid_argument(fmt::format("figure '{}': a roofline puts a FLOP/s metric on y, not '{}'", decl.name,
                                            decl.y.front()));
  }
  if (!(decl.eta > 0 && decl.eta <= 1)) {
    throw std::invalid_argument(fmt::format("figure '{}': eta must be in (0, 1]", decl.name));
  }

  // Roofs: the listed hardware and precisions, or those the rows use.
  std::vector<std::string> hardware_ids = decl.roofs, precisions = decl.precisions;
  if (hardware_ids.empty()) {
    if (const auto p = param_of_kind(study, ParamKind::hardware)) hardware_ids = labels_among(study, results, rows, *p);
  }
  if (precisions.empty()) {
    if (const auto p = param_of_kind(study, ParamKind::precision)) precisions = labels_among(study, results, rows, *p);
  }
  std::vector<Roof> roofs;
  std::vector<std::string> missing;  // "mobile_npu fp8"
  for (const std::string& id : hardware_ids) {
    const HardwareSpec* h = study.catalog.find_hardware(id);
    if (h == nullptr) {
      throw std::invalid_argument(fmt::format("figure '{}': hardware '{}' is not in the study's catalog", decl.name, id));
    }
    for (const std::string& name : precisions) {
      const auto p = parse_precision(name);
      if (!p) throw std::invalid_argument(fmt::format("figure '{}': unknown precision '{}'", decl.name, name));
      if (!h->supports(*p) || !(h->memory_bandwidth_bytes_per_s > 0)) {
        missing.push_back(id + " " + name);
        continue;
      }
      const double peak = h->peak(*p) * decl.eta;
      roofs.push_back(Roof{id, name, peak, h->memory_bandwidth_bytes_per_s,
                           ridge_point_flop_per_byte(peak, h->memory_bandwidth_bytes_per_s)});
    }
  }

  // Points: one series per group value, drawable where both coordinates are positive.
  std::vector<const Axis*> by;
  if (!decl.group.empty()) {
    if (const Axis* g = find_axis(study, decl.group)) by.push_back(g);
  }
  std::vector<Series> series = split_series(study, results, rows, by, &decl);
  std::size_t not_drawable = 0, points = 0;
  for (Series& s : series) {
    std::vector<std::size_t> kept;
    for (std::size_t r : s.rows) {
      const double xv = row_value(x, study, results, r), yv = row_value(y, study, results, r);
      if (std::isfinite(xv) && std::isfinite(yv) && xv > 0 && yv > 0) {
        kept.push_back(r);
      } else {
        ++not_drawable;
      }
    }
    s.rows = std::move(kept);
    points += s.rows.size();
  }
  std::erase_if(series, [](const Series& s) { return s.rows.empty(); });

  // The x range, in whole decades: every point with a little room, every ridge with enough of both
  // roofs beside it to see the bend.
  double lo = 0, hi = 0;
  std::vector<double> yvals;
  const auto widen = [&](double v, double room) {
    lo = lo == 0 ? v / room : std::min(lo, v / room);
    hi = std::max(hi, v * room);
  };
  for (const Series& s : series) {
    for (std::size_t r : s.rows) {
      widen(row_value(x, study, results, r), 1.5);
      yvals.push_back(row_value(y, study, results, r));
    }
  }
  for (const Roof& r : roofs) {
    widen(r.ridge, 3);
    yvals.push_back(r.peak);
  }
  if (lo == 0) {
    lo = 0.1;
    hi = 1000;
  }
  double x_lo = std::pow(10.0, std::floor(std::log10(lo))), x_hi = std::pow(10.0, std::ceil(std::log10(hi)));
  // The study's x_range replaces an end; the roofs are drawn across it.
  if (decl.x_range.min.value) x_lo = *decl.x_range.min.value;
  if (decl.x_range.max.value) x_hi = *decl.x_range.max.value;
  for (const Roof& r : roofs) yvals.push_back(x_lo * r.bandwidth);

  AxisSetup xa = axis_setup(x, {x_lo, x_hi}, true);
  xa.scale = AxisScale{1, x.display.unit};
  xa.title = axis_title(x.display, xa.scale);
  AxisSetup ya = axis_setup(y, yvals, true);
  apply_axis_label(xa, x, decl.x_label);
  apply_axis_label(ya, y, decl.y_label);
  const std::string title = !decl.title.empty() ? decl.title : ya.title + " vs " + xa.title;

  FigureSource src;
  src.name = decl.name;
  src.title = title;
  src.caption = decl.caption;
  src.points = points;

  std::string& dat = src.data;
  dat += fmt::format("# dsx figure data '{}' (roofline, study '{}')\n", one_line(decl.name), one_line(study.name));
  dat += fmt::format("# x = {} (FLOP/byte); y = {} (FLOP/s); SI units\n", x.name, y.name);
  dat += "# design points: x y point_index design_point; one gnuplot index block per series\n";
  dat += fmt::format("# roofs: min(eta x peak, intensity x bandwidth) with eta = {}, through the ridge\n",
                     format_exact(decl.eta));
  std::size_t block = 0;
  const auto next_block = [&](const std::string& heading) {
    if (block > 0) dat += "\n\n";
    dat += fmt::format("# index {}: {}\n", block, one_line(heading));
    return block++;
  };
  for (const Series& s : series) {
    next_block(s.title);
    for (std::size_t r : s.rows) {
      dat += fmt::format("{} {} {} {}\n", format_exact(row_value(x, study, results, r)),
                         format_exact(row_value(y, study, results, r)), results.point_index[r],
                         dat_string(design_point_text(study, results, r, " ", false)));
    }
  }
  std::vector<std::size_t> roof_blocks;
  for (const Roof& r : roofs) {
    roof_blocks.push_back(next_block(fmt::format("roof {} {}: peak {} FLOP/s, bandwidth {} B/s", r.hardware, r.precision,
                                                 format_exact(r.peak), format_exact(r.bandwidth))));
    dat += "# columns: intensity attainable\n";
    for (double xv : {x_lo, r.ridge, x_hi}) {
      dat += fmt::format("{} {}\n", format_exact(xv),
                         format_exact(attainable_flops_per_s(xv, r.peak, 1.0, r.bandwidth)));
    }
  }
  std::size_t ridge_block = 0;
  if (!roofs.empty()) {
    ridge_block = next_block("ridge points: peak / bandwidth");
    dat += "# columns: ridge_flop_per_byte peak_flops_per_s hardware precision label\n";
    for (const Roof& r : roofs) {
      dat += fmt::format("{} {} {} {} {}\n", format_exact(r.ridge), format_exact(r.peak), dat_string(r.hardware),
                         dat_string(r.precision), dat_string(ridge_label(r.ridge)));
    }
  }

  // The y range: every point and roof, with room above the highest roof for its label.
  double y_min = 0, y_max = 0;
  for (double v : yvals) {
    if (!(v > 0) || !std::isfinite(v)) continue;
    y_min = y_min == 0 ? v : std::min(y_min, v);
    y_max = std::max(y_max, v);
  }
  if (y_min == 0) {
    y_min = 1;
    y_max = 10;
  }
  double y_lo = std::pow(10.0, std::floor(std::log10(y_min))), y_hi = y_max * 3;
  if (decl.y_range.min.value) y_lo = *decl.y_range.min.value;
  if (decl.y_range.max.value) y_hi = *decl.y_range.max.value;

  std::string& gp = src.script;
  gp = script_header(decl, title);
  gp += axis_commands('x', xa, {x_lo, x_hi});
  std::vector<double> ys_scaled;
  for (double v : yvals) ys_scaled.push_back(v * ya.scale.factor);
  gp += axis_commands('y', ya, ys_scaled);
  gp += fmt::format("set xrange [{}:{}]\nset yrange [{}:{}]\n", format_exact(x_lo), format_exact(x_hi),
                    format_exact(y_lo * ya.scale.factor), format_exact(y_hi * ya.scale.factor));
  const bool single = decl.width == FigureWidth::single_column;
  const std::size_t key_entries = series.size() + roofs.size();
  double height_cm = kPlotHeightCm, key_rows_cm = 0;
  double longest = 0;
  for (const Series& se : series) longest = std::max(longest, text_cm(se.title));
  for (const Roof& r : roofs) longest = std::max(longest, text_cm(roof_title(study, r)));
  // A key of long names (catalog names such as "Dropout alone (training, 6.3M elements)") beside a
  // full-width plot would squeeze it and push the title centred over it off the canvas: it goes
  // below, as a one-column figure's does.
  const bool key_below_plot = single || longest > kLongKeyEntryCm;
  const bool group_title = !by.empty() && series.size() > 1 && decl.legend_title.empty();
  if (key_below_plot) {
    const auto [commands, rows_cm] = key_below(key_entries, longest, figure_width_cm(decl));
    gp += commands;
    // Below the plot a title starts with a blank line, which keeps the key clear of the x axis title.
    if (!single && group_title) gp += fmt::format("set key title \"\\n{} noenhanced\n", gp_string(decl.group).substr(1));
    const bool titled = !decl.legend_title.empty() || (!single && group_title);
    key_rows_cm = rows_cm + (titled ? 2 * kKeyRowCm : 0.0);
    height_cm = (single ? kSinglePlotHeightCm : kPlotHeightCm) + key_rows_cm;
  } else if (group_title) {
    gp += fmt::format("set key title {} noenhanced\n", gp_string(decl.group));
  }
  if (!decl.legend_title.empty()) gp += key_title_commands(decl, key_below_plot);
  height_cm += title_extra_cm(decl, title);

  // A roof takes the colour of the series of its hardware (or precision) when the points are grouped
  // by that parameter, black otherwise; roofs are told apart by dash pattern as well.
  const auto group_param = decl.group.empty() ? std::nullopt : std::optional<std::string>(decl.group);
  const auto param_name = [&](ParamKind kind) {
    const auto p = param_of_kind(study, kind);
    return p ? std::string(study.solver->params()[*p].name) : std::string();
  };
  const std::string hardware_param = param_name(ParamKind::hardware), precision_param = param_name(ParamKind::precision);
  for (std::size_t i = 0; i < roofs.size(); ++i) {
    std::string colour = "#000000";
    if (group_param && (*group_param == hardware_param || *group_param == precision_param)) {
      const std::string& value = *group_param == hardware_param ? roofs[i].hardware : roofs[i].precision;
      for (std::size_t k = 0; k < series.size(); ++k) {
        if (series[k].title == series_label(decl, *group_param, value)) {
          colour = std::string(kSeriesColours[k % kSeriesColours.size()]);
        }
      }
    }
    gp += fmt::format("set linetype {} lc rgb \"{}\" lw 2 dt {}  # roof {} {}\n", kRoofLinetypeBase + i, colour,
                      kRoofDashes[i % kRoofDashes.size()], roofs[i].hardware, roofs[i].precision);
  }

  // Ridge labels: above the ridge to its left (over the sloped roof, where no point can be), or
  // along the label's own flat roof, above or below it, wherever it runs least into labels already
  // placed, other roofs and the plot's edge. Positions are estimated on the printed page.
  const double plot_w = figure_width_cm(decl) - (key_below_plot ? 2.5 : 8.2);
  const double plot_h = height_cm - key_rows_cm - title_extra_cm(decl, title) - 2.4;
  const double decades_x = std::log10(x_hi) - std::log10(x_lo), decades_y = std::log10(y_hi) - std::log10(y_lo);
  const auto screen = [&](double xv, double yv) {
    return std::pair{(std::log10(xv) - std::log10(x_lo)) / decades_x * plot_w,
                     (std::log10(yv) - std::log10(y_lo)) / decades_y * plot_h};
  };
  struct Box {
    double x0, x1, y0, y1;
  };
  const auto overlap = [](const Box& a, const Box& b) {
    return std::max(0.0, std::min(a.x1, b.x1) - std::max(a.x0, b.x0)) *
           std::max(0.0, std::min(a.y1, b.y1) - std::max(a.y0, b.y0));
  };
  std::vector<Box> placed, roof_lines, marks;
  std::vector<std::size_t> roof_of;  // the roof each box of roof_lines belongs to
  for (const Roof& r : roofs) {
    const auto [rx, ry] = screen(r.ridge, r.peak);
    roof_lines.push_back(Box{rx, plot_w, ry - 0.05, ry + 0.05});
    // The sloped part, as small boxes 0.2 cm apart.
    const auto [lx, ly] = screen(x_lo, x_lo * r.bandwidth);
    const int steps = std::max(1, static_cast<int>(std::hypot(rx - lx, ry - ly) / 0.2));
    for (int k = 0; k < steps; ++k) {
      const double t = (k + 0.5) / steps;
      const double cx = lx + (rx - lx) * t, cy = ly + (ry - ly) * t;
      roof_lines.push_back(Box{cx - 0.1, cx + 0.1, cy - 0.1, cy + 0.1});
    }
    roof_of.resize(roof_lines.size(), static_cast<std::size_t>(&r - roofs.data()));
  }
  for (const Series& se : series) {
    for (std::size_t r : se.rows) {
      const auto [px, py] = screen(row_value(x, study, results, r), row_value(y, study, results, r));
      marks.push_back(Box{px - 0.12, px + 0.12, py - 0.12, py + 0.12});
    }
  }
  // The highest roof first: it has the least room above it.
  std::vector<std::size_t> label_order(roofs.size());
  for (std::size_t i = 0; i < roofs.size(); ++i) label_order[i] = i;
  std::stable_sort(label_order.begin(), label_order.end(),
                   [&](std::size_t a, std::size_t b) { return roofs[a].peak > roofs[b].peak; });
  for (const std::size_t i : label_order) {
    const std::string label = ridge_label(roofs[i].ridge);
    const auto [sx, sy] = screen(roofs[i].ridge, roofs[i].peak);
    const double w = text_cm(label), h = kLabelLineCm;
    struct Candidate {
      Box box;
      double anchor_cm;  // where the label is set, on the page, from the plot's left edge
      bool right_aligned, above;
    };
    // Above the ridge to its left; along the flat roof from the ridge; along it from the right edge.
    std::vector<Candidate> candidates = {{Box{sx - w - 0.1, sx - 0.1, sy + 0.1, sy + 0.1 + h}, sx, true, true}};
    for (bool above : {true, false}) {
      const double y0 = above ? sy + 0.08 : sy - 0.08 - h;
      for (int k = 0; k <= 8; ++k) {
        const double x0 = sx + 0.15 + 0.6 * k;
        candidates.push_back({Box{x0, x0 + w, y0, y0 + h}, x0, false, above});
      }
      for (int k = 0; k <= 4; ++k) {
        const double x1 = plot_w - 0.1 - 0.6 * k;
        if (x1 - w > sx + 0.15) candidates.push_back({Box{x1 - w, x1, y0, y0 + h}, x1, true, above});
      }
    }
    const Candidate* best = &candidates.front();
    double least = std::numeric_limits<double>::infinity();
    for (const Candidate& c : candidates) {
      // Cut off at the edge is worst, over another label next, over a line or a point least.
      double cost = 20 * ((c.box.x1 - c.box.x0) * (c.box.y1 - c.box.y0) - overlap(c.box, Box{0, plot_w, 0, plot_h}));
      for (const Box& o : placed) cost += 10 * overlap(c.box, o);
      for (std::size_t k = 0; k < roof_lines.size(); ++k) {
        if (roof_of[k] != i) cost += 3 * overlap(c.box, roof_lines[k]);
      }
      for (const Box& m : marks) cost += 3 * overlap(c.box, m);
      cost += 0.01 * std::fabs(0.5 * (c.box.x0 + c.box.x1) - sx) + (c.above ? 0 : 0.02);
      if (cost < least - 1e-12) {
        least = cost;
        best = &c;
      }
    }
    placed.push_back(best->box);
    const bool at_ridge = best == &candidates.front();
    const double at_x = at_ridge ? roofs[i].ridge : x_lo * std::pow(10.0, best->anchor_cm / plot_w * decades_x);
    gp += fmt::format("set label {} {} at first {}, first {} {} offset character {}, {} front textcolor rgb \"#000000\" "
                      "noenhanced\n",
                      i + 1, gp_string(label), format_exact(at_x), format_exact(roofs[i].peak * ya.scale.factor),
                      best->right_aligned ? "right" : "left", at_ridge ? "-0.4" : "0", best->above ? "0.7" : "-0.7");
  }

  const std::string data_file = gp_string(decl.name + ".dat");
  const std::string yexpr = gp_scaled(2, ya.scale.factor);
  // Roofs first, so the points lie on top of them; the key lists the points, then the roofs.
  std::vector<std::string> clauses;
  for (std::size_t i = 0; i < roofs.size(); ++i) {
    clauses.push_back(fmt::format("{} index {} using 1:{} with lines lt {} notitle",
                                  clauses.empty() ? data_file : "\"\"", roof_blocks[i], yexpr, kRoofLinetypeBase + i));
  }
  if (!roofs.empty()) {
    clauses.push_back(fmt::format("\"\" index {} using 1:{} with points pt 7 ps 0.8 lc rgb \"#000000\" notitle",
                                  ridge_block, yexpr));
  }
  for (std::size_t i = 0; i < series.size(); ++i) {
    clauses.push_back(fmt::format("{} index {} using 1:{} with points lt {} title {} noenhanced",
                                  clauses.empty() ? data_file : "\"\"", i, yexpr, i + 1, gp_string(series[i].title)));
  }
  for (std::size_t i = 0; i < roofs.size(); ++i) {
    clauses.push_back(fmt::format("keyentry with lines lt {} title {} noenhanced", kRoofLinetypeBase + i,
                                  gp_string(roof_title(study, roofs[i]))));
  }
  std::string plot;
  if (clauses.empty()) {
    plot = "set label 1 \"no roof and no feasible design point to draw\" at graph 0.5, graph 0.5 center\n"
           "unset logscale\nset xrange [0:1]\nset yrange [0:1]\nplot -1 notitle\n";
  } else {
    plot = "plot " + join(clauses, ", \\\n     ") + "\n";
  }
  gp += gnuplot_terminal_block(decl.name, figure_width_cm(decl), height_cm, plot);

  std::string& text = src.description;
  text = fmt::format("Roofline: {} design point{} of {} against {}", points, points == 1 ? "" : "s", ya.title, xa.title);
  text += selection_text(study, decl);
  if (series.size() > 1) text += fmt::format(", one series per {}", decl.group);
  text += ". ";
  if (roofs.empty()) {
    text += "No roof to draw.";
  } else {
    std::vector<std::string> parts;
    for (const Roof& r : roofs) {
      parts.push_back(fmt::format("{} {} ({}, {}, ridge {})", r.hardware, r.precision, format_si(r.peak, "FLOP/s"),
                                  format_si(r.bandwidth, "B/s"), ridge_label(r.ridge).substr(6)));
    }
    text += fmt::format("Roof{}: attainable = min({}peak, intensity x bandwidth) for {}; the dot on each roof is its "
                        "ridge point, peak / bandwidth.",
                        roofs.size() == 1 ? "" : "s", decl.eta == 1 ? "" : format_exact(decl.eta) + " x ",
                        join(parts, "; "));
  }
  if (!missing.empty()) text += fmt::format(" No roof for {}: no peak listed at that precision.", join(missing, ", "));
  text += " Logarithmic x and y axes.";
  if (excluded > 0 || not_drawable > 0) {
    std::vector<std::string> parts;
    if (excluded > 0) parts.push_back(fmt::format("{} infeasible or failed", excluded));
    if (not_drawable > 0) parts.push_back(fmt::format("{} without a positive value", not_drawable));
    text += " Not drawn: " + join(parts, ", ") + ".";
  }
  return src;
}

}  // namespace dsx::figure_parts
