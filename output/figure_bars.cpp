// Horizontal bars, stacked when several metrics share the axis (output/figures.hpp).

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
#include "output/readable_label.hpp"

namespace dsx::figure_parts {

namespace {

// One parameter of a bar's category, as its share of the category axis's title: the parameter's
// words with the unit its numbers are written in ("launch overhead (µs)", "hardware"), as a
// numeric axis is titled; its values then read as plain numbers in that unit ("5", "10").
struct CategoryPart {
  const Axis* axis = nullptr;
  std::string title;
  AxisScale scale;
  bool scaled = false;  // the values are numbers written in `scale`
  std::string_view word;  // the number parameter's word ("catalog"), kept as written
};

CategoryPart category_part(const Axis& a, const ResolvedStudy& study, const ResultTable& results,
                           const FigureDecl& decl, const std::string& label) {
  CategoryPart part;
  part.axis = &a;
  const bool solver_param =
      !a.is_bundle() && study.solver != nullptr &&
      std::any_of(study.solver->params().begin(), study.solver->params().end(),
                  [&](const ParamSpec& p) { return p.name == a.param; });
  if (!solver_param) {
    part.title = label.empty() ? describe_quantity(a.param, Dimension::dimensionless).label : label;
    return part;
  }
  const Column c = resolve_column(a.param, study, results, decl.name);
  const ParamSpec& spec = study.solver->params()[c.param_index];
  part.word = spec.word;
  std::vector<double> values;
  for (const AxisValue& v : a.values) {
    if (!is_param_word(spec, v.value)) values.push_back(v.value);
  }
  AxisSetup setup = axis_setup(c, values, false);
  part.scaled = c.numeric && !c.display.unit.empty() && a.param != decl.group;
  // Values decades apart (1 kB and 1 GB) would read "1e-06" on one unit: each keeps its own.
  for (const double v : values) {
    const double scaled = std::fabs(v * setup.scale.factor);
    if (scaled != 0 && (scaled < 0.01 || scaled >= 1e6)) part.scaled = false;
  }
  if (!part.scaled) {
    setup.title = metric_words(c);
    setup.scale = AxisScale{1, ""};
  }
  apply_axis_label(setup, c, label);
  part.title = setup.title;
  part.scale = setup.scale;
  return part;
}

// A bar's value of one category parameter, in the unit its part of the axis title names.
std::string category_text(const ResolvedStudy& study, const CategoryPart& part, const FigureDecl& decl,
                          const std::string& label, bool names) {
  if (!part.scaled || label == part.word) {
    const std::string& shown = series_label(decl, part.axis->param, label);
    if (&shown != &label) return shown;
    return names ? value_words(study, part.axis->param, label) : readable_label(label);
  }
  const double si = part.axis->values[label_position(*part.axis, label)].value;
  return fmt::format("{:.6g}", si * part.scale.factor);
}

// A bar label's parts ("NVIDIA H100 SXM 80GB", "8") on lines no longer than `max_cm` where the words
// allow: parts joined by " / " while they fit, the " /" left at the end of a line; a part longer
// than a line on its own broken at its spaces.
std::vector<std::string> wrapped_label(const std::vector<std::string>& parts, double max_cm) {
  std::vector<std::string> lines;
  bool open = false;  // the last line may take more
  for (std::size_t p = 0; p < parts.size(); ++p) {
    const std::string sep = p + 1 < parts.size() ? " /" : "";
    if (open && text_cm(lines.back() + " " + parts[p] + sep) <= max_cm) {
      lines.back() += " " + parts[p] + sep;
      continue;
    }
    if (text_cm(parts[p] + sep) <= max_cm) {
      lines.push_back(parts[p] + sep);
      open = true;
      continue;
    }
    const std::string text = parts[p] + sep;
    bool first = true;
    std::size_t pos = 0;
    while (pos < text.size()) {
      std::size_t end = text.find(' ', pos);
      if (end == std::string::npos) end = text.size();
      const std::string word = text.substr(pos, end - pos);
      if (!first && (word == "/" || text_cm(lines.back() + " " + word) <= max_cm)) {
        lines.back() += " " + word;
      } else {
        lines.push_back(word);
      }
      first = false;
      pos = end + 1;
    }
    open = true;
  }
  if (lines.empty()) lines.push_back("");
  return lines;
}

}  // namespace

FigureSource build_bars(const FigureDecl& decl, const ResolvedStudy& study, const ResultTable& results,
                        const std::vector<std::size_t>& rows, std::size_t excluded) {
  if (decl.log_x || decl.log_y) {
    throw std::invalid_argument(fmt::format(
        "figure '{}': stacked bars need a linear value axis; remove log_x/log_y", decl.name));
  }
  const Column x = resolve_column(decl.x, study, results, decl.name);
  if (x.is_metric) {
    throw std::invalid_argument(
        fmt::format("figure '{}': bars take a parameter as x (the categories), not metric '{}'", decl.name, decl.x));
  }
  if (decl.y.empty()) throw std::invalid_argument(fmt::format("figure '{}': no y metric", decl.name));
  std::vector<Column> ys;
  for (const std::string& y : decl.y) {
    ys.push_back(resolve_column(y, study, results, decl.name));
    if (ys.back().display.unit != ys.front().display.unit || ys.back().display.style != ys.front().display.style) {
      throw std::invalid_argument(fmt::format("figure '{}': stacked metrics '{}' and '{}' have different units",
                                              decl.name, ys.front().name, y));
    }
  }

  // Category = x label, then the group label, then the label of every other axis that varies.
  std::vector<const Axis*> by;
  if (x.axis != nullptr) by.push_back(x.axis);
  if (!decl.group.empty()) {
    if (const Axis* g = find_axis(study, decl.group)) by.push_back(g);
  }
  for (const Axis* a : varying_axes(study, results, rows, {decl.x, decl.group})) by.push_back(a);
  // The category axis is titled with the parameters it shows; the study's x_label replaces the first's.
  std::vector<CategoryPart> parts;
  for (const Axis* a : by) {
    parts.push_back(category_part(*a, study, results, decl, parts.empty() ? decl.x_label : std::string()));
  }
  // One metric and a group: bars take the group's colour (a key per group value) instead of one
  // colour for all.
  const Axis* colour_axis = ys.size() == 1 && !decl.group.empty() && decl.group != decl.x ? find_axis(study, decl.group) : nullptr;

  struct Bar {
    std::vector<std::size_t> key;
    std::string label;               // one line, for the data file and the description
    std::vector<std::string> lines;  // as the category axis prints it
    std::size_t row;
    std::size_t colour = 0;  // position of the bar's group value along colour_axis
  };
  std::vector<Bar> bars;
  std::size_t not_drawable = 0;
  for (std::size_t r : rows) {
    bool finite = true;
    for (const Column& c : ys) {
      const double v = row_value(c, study, results, r);
      finite = finite && std::isfinite(v) && v >= 0;
    }
    if (!finite) {
      ++not_drawable;
      continue;
    }
    Bar b{{}, {}, {}, r};
    for (const CategoryPart& part : parts) {
      const Axis* a = part.axis;
      b.key.push_back(label_position(*a, results.label(r, static_cast<std::size_t>(results.axis_column(a->param)))));
    }
    if (colour_axis != nullptr) {
      b.colour = label_position(*colour_axis, results.label(r, static_cast<std::size_t>(results.axis_column(colour_axis->param))));
    }
    bars.push_back(std::move(b));
  }
  std::stable_sort(bars.begin(), bars.end(), [](const Bar& a, const Bar& b) { return a.key < b.key; });
  // Each bar's label: catalog names in place of ids ("NVIDIA H100 SXM 80GB"), on as many lines as
  // kMaxBarLabelCm (half that on one column) asks; the category axis takes the room its longest line needs.
  const double max_label_cm = decl.width == FigureWidth::single_column ? kMaxBarLabelCm / 2 : kMaxBarLabelCm;
  for (Bar& b : bars) {
    std::vector<std::string> labels;
    for (const CategoryPart& part : parts) {
      const std::string& label = results.label(b.row, static_cast<std::size_t>(results.axis_column(part.axis->param)));
      labels.push_back(category_text(study, part, decl, label, true));
    }
    b.label = labels.empty() ? row_label(x, study, results, b.row) : join(labels, " / ");
    b.lines = wrapped_label(labels.empty() ? std::vector<std::string>{b.label} : labels, max_label_cm);
  }
  // A group told apart by colour (the key) is not repeated on every bar: the bars of one x value stand
  // together, labelled once at their middle ("NVIDIA H100 SXM 80GB", not six times "... / resnet50"),
  // with a gap before the next x value, as a grouped bar chart is drawn.
  const bool clustered = colour_axis != nullptr && parts.size() == 2 && parts[1].axis == colour_axis && !bars.empty();
  std::vector<double> position(bars.size());
  struct Cluster {
    std::vector<std::string> lines;
    double first = 0, last = 0;  // positions of its first and last bar
    std::size_t bars = 0;
  };
  std::vector<Cluster> clusters;
  for (std::size_t i = 0; i < bars.size(); ++i) {
    const bool starts = clustered && (i == 0 || bars[i].key.front() != bars[i - 1].key.front());
    position[i] = i == 0 ? 0.0 : position[i - 1] + 1 + (starts ? kBarClusterGapSteps : 0.0);
    if (starts) {
      const std::string& label = results.label(bars[i].row, static_cast<std::size_t>(results.axis_column(parts.front().axis->param)));
      clusters.push_back({wrapped_label({category_text(study, parts.front(), decl, label, true)}, max_label_cm), position[i],
                          position[i], 0});
    }
    if (clustered) {
      clusters.back().last = position[i];
      ++clusters.back().bars;
    }
  }
  const double steps = bars.empty() ? 0.0 : position.back() + 1;

  std::vector<double> totals;
  for (const Bar& b : bars) {
    double t = 0;
    for (const Column& c : ys) t += row_value(c, study, results, b.row);
    totals.push_back(t);
  }
  AxisSetup va = axis_setup(ys.front(), totals, false);
  if (ys.size() > 1) {
    std::vector<std::string> words;
    for (const Column& c : ys) words.push_back(metric_words(c));
    va.title = va.scale.unit.empty() ? join(words, " + ") : join(words, " + ") + " (" + va.scale.unit + ")";
  }
  apply_axis_label(va, ys.front(), decl.y_label);
  std::vector<std::string> cat_names;
  for (const CategoryPart& part : parts) cat_names.push_back(part.title);
  const std::string category_title = clustered ? parts.front().title : join(cat_names, " / ");

  const std::string title = !decl.title.empty() ? decl.title : va.title + " by " + join(cat_names, " / ");
  FigureSource src;
  src.name = decl.name;
  src.title = title;
  src.caption = decl.caption;
  src.points = bars.size();

  std::string& dat = src.data;
  dat += fmt::format("# dsx figure data '{}' (stacked bars, study '{}')\n", one_line(decl.name), one_line(study.name));
  std::vector<std::string> ycols;
  for (const Column& c : ys) ycols.push_back(c.name);
  dat += fmt::format("# columns: position {} point_index category design_point; SI units\n", join(ycols, " "));
  // Blocks: one per colour (group value) when bars are coloured by group, else one.
  std::vector<std::size_t> colours;
  for (const Bar& b : bars) {
    if (std::find(colours.begin(), colours.end(), b.colour) == colours.end()) colours.push_back(b.colour);
  }
  std::sort(colours.begin(), colours.end());
  for (std::size_t block = 0; block < colours.size(); ++block) {
    if (block > 0) dat += "\n\n";
    if (colour_axis != nullptr) {
      dat += fmt::format("# index {}: {} = {}\n", block, colour_axis->param,
                         one_line(colour_axis->values[colours[block]].label));
    }
    for (std::size_t i = 0; i < bars.size(); ++i) {
      if (bars[i].colour != colours[block]) continue;
      dat += fmt::format("{:g}", position[i]);
      for (const Column& c : ys) dat += fmt::format(" {}", format_exact(row_value(c, study, results, bars[i].row)));
      dat += fmt::format(" {} {} {}\n", results.point_index[bars[i].row], dat_string(bars[i].label),
                         dat_string(design_point_text(study, results, bars[i].row, " ", false)));
    }
  }

  const bool bar_key = ys.size() > 1 || colours.size() > 1;
  // A group value in the key: "prompt tokens = 2048" (the parameter's words), or the text series_labels gives it.
  const auto legend_entry = [&](const std::string& value) {
    const std::string& text = series_label(decl, colour_axis->param, value);
    return &text != &value ? text
                           : describe_quantity(colour_axis->param, Dimension::dimensionless).label + " = " +
                                 value_words(study, colour_axis->param, value);
  };
  // As many key columns as the longest entry leaves room for across the figure, never one past its edge
  // (gnuplot's own count assumes narrower text than DejaVu Sans sets).
  // The key is centred under the plot, which starts after the longest category label.
  std::size_t key_entries = ys.size();
  std::size_t longest_entry_chars = 0;
  double longest_entry_cm = 0;
  const auto measure = [&](const std::string& entry) {
    longest_entry_cm = std::max(longest_entry_cm, text_cm(entry));
    longest_entry_chars = std::max(longest_entry_chars, entry.size());
  };
  if (colour_axis != nullptr) {
    key_entries = colours.size();
    for (const std::size_t c : colours) measure(legend_entry(colour_axis->values[c].label));
  } else {
    for (const Column& y : ys) measure(metric_words(y));
  }
  double longest_bar_label_cm = 0;
  std::size_t label_lines = 1;
  // Room the labels' extra lines need beyond one line per bar.
  double extra_lines_cm = 0;
  if (clustered) {
    for (const Cluster& c : clusters) {
      for (const std::string& line : c.lines) longest_bar_label_cm = std::max(longest_bar_label_cm, text_cm(line));
      extra_lines_cm += std::max(0.0, kLabelLineCm * static_cast<double>(c.lines.size()) -
                                          kBarStepCm * (static_cast<double>(c.bars) + kBarClusterGapSteps));
    }
  } else {
    for (const Bar& b : bars) {
      label_lines = std::max(label_lines, b.lines.size());
      for (const std::string& line : b.lines) longest_bar_label_cm = std::max(longest_bar_label_cm, text_cm(line));
    }
    extra_lines_cm = kBarLineStepCm * static_cast<double>(label_lines - 1) * static_cast<double>(bars.size());
  }
  // The plot starts where the longest label line ends, and a little more for the gap to the axis.
  const double left_margin_cm = longest_bar_label_cm + 0.7;
  const double plot_width_cm = figure_width_cm(decl) - left_margin_cm - 0.6;
  const std::size_t key_columns = std::clamp<std::size_t>(
      static_cast<std::size_t>(plot_width_cm / (kKeySampleCm + longest_entry_cm + 0.5)), 1,
      std::max<std::size_t>(key_entries, 1));
  // gnuplot sizes a key column at about half an em per character; DejaVu Sans needs some 30 % more.
  const std::size_t key_extra_chars = (longest_entry_chars * 3 + 9) / 10;
  const std::size_t key_rows = (key_entries + key_columns - 1) / key_columns;
  const double height_cm = std::clamp(
      kBarBaseCm + (bar_key ? kBarKeyCm + kKeyRowCm * static_cast<double>(std::max<std::size_t>(key_rows, 1) - 1) : 0.0) +
          (bar_key && !decl.legend_title.empty() ? 2 * kKeyRowCm : 0.0) +
          kBarStepCm * std::max(steps, static_cast<double>(kBarMinSteps)) + extra_lines_cm +
          (category_title.empty() ? 0.0 : kLabelLineCm),
      // Labels of several lines need their height whatever the page: the cap grows with them.
      kBarMinCm, kBarMaxCm + extra_lines_cm);
  std::string& gp = src.script;
  const bool category_header = !category_title.empty() && !bars.empty();
  // The title is centred on the canvas: the labels push the plot to the right. With the header of
  // the bar labels it sits 0.9 characters higher, above that header.
  gp = script_header(decl, title, true, category_header ? 0.9 : 0);
  gp += fmt::format("set xlabel {} noenhanced\nset format x \"%g\"\n", gp_string(va.title));
  if (decl.width == FigureWidth::single_column && !totals.empty()) {
    gp += narrow_tics('x', *std::max_element(totals.begin(), totals.end()) * va.scale.factor);
  }
  // Totals at the bar ends, unless every bar has the same total (shares that add up to 100 %).
  const bool label_totals =
      !totals.empty() && std::any_of(totals.begin(), totals.end(), [&](double t) {
        return std::fabs(t - totals.front()) > 1e-9 * std::max(std::fabs(t), std::fabs(totals.front()));
      });
  gp += "unset ylabel\nset grid noytics\nset ytics scale 0\nset xrange [0:*]\n";
  if (category_header) {
    // The category parameters head the bar labels, as a heatmap's rows are headed (a rotated label
    // would need gnuplot to measure the labels, which it does differently per terminal).
    // Left-aligned at the figure's edge, so a header longer than the labels stays on the canvas.
    gp += fmt::format("set label {} {} at screen 0, graph 1 left offset character 1, 0.9 noenhanced\n",
                      bars.size() + 1, gp_string(category_title));
    gp += fmt::format("set tmargin {}\n", fmt::format("{:g}", 2.5 + static_cast<double>(title_lines(decl, title).size())));
  }
  gp += range_commands('x', decl.y_range, va.scale.factor, "y_range");
  if (label_totals) {
    // Room after the longest bar for its total, as a share of the plot's width left of the labels.
    double longest_total_cm = 0;
    for (double t : totals) longest_total_cm = std::max(longest_total_cm, text_cm(format_quantity(t, ys.front().display)));
    const double room = std::max(0.14, (longest_total_cm + 0.6) / std::max(plot_width_cm - longest_total_cm - 0.6, 1.0));
    gp += fmt::format("set offsets 0, graph {:.3f}, 0, 0\n", room);
  }
  if (bar_key) {
    gp += fmt::format("set key outside bottom center horizontal reverse Left height 1.5 maxcols {} width {}\n",
                      key_columns, key_extra_chars);
    if (!decl.legend_title.empty()) gp += key_title_commands(decl, true);
  } else {
    gp += "unset key\n";
  }
  std::string plot;
  if (bars.empty()) {
    plot = "set label 1 \"no feasible design point to draw\" at graph 0.5, graph 0.5 center\n"
           "set yrange [0:1]\nset xrange [0:1]\nunset ytics\nplot -1 notitle\n";
  } else {
    std::vector<std::string> tics;
    if (clustered) {
      for (const Cluster& c : clusters) tics.push_back(fmt::format("{} {:g}", gp_lines(c.lines), (c.first + c.last) / 2));
    } else {
      for (std::size_t i = 0; i < bars.size(); ++i) tics.push_back(fmt::format("{} {}", gp_lines(bars[i].lines), i));
    }
    gp += fmt::format("set ytics ({}) noenhanced\n", join(tics, ", "));
    gp += fmt::format("set lmargin at screen {:.4f}  # room for the longest label line\n",
                      left_margin_cm / figure_width_cm(decl));
    gp += fmt::format("set yrange [{}:-0.6]  # first category on top\n", fmt::format("{:g}", steps - 0.4));
    if (label_totals) gp += "# totals at the end of each bar\n";
    // Bytes and long times (min, h, days) read in the axis's unit; the rest as the report prints them.
    const bool in_axis_unit = ys.front().display.dimension == Dimension::bytes ||
                              (ys.front().display.dimension == Dimension::time && va.scale.factor < 1);
    for (std::size_t i = 0; label_totals && i < bars.size(); ++i) {
      gp += fmt::format("set label {} {} at first {}, first {} left offset character 0.5, 0 noenhanced\n", i + 1,
                        gp_string(in_axis_unit ? format_in_scale(totals[i], va.scale)
                                               : format_quantity(totals[i], ys.front().display)),
                        fmt::format("{:.9g}", totals[i] * va.scale.factor), fmt::format("{:g}", position[i]));
    }
    gp += fmt::format("h = {:g}  # half the bar height\n", kBarHalfHeight);
    std::vector<std::string> clauses;
    std::string lo = "0";
    for (std::size_t k = 0; k < ys.size(); ++k) {
      std::vector<std::string> cols;
      for (std::size_t j = 0; j <= k; ++j) cols.push_back(fmt::format("${}", j + 2));
      const std::string sum = "(" + join(cols, "+") + ")";
      const std::string hi = scaled_expression(sum, va.scale.factor);
      clauses.push_back(fmt::format("{} using ({}):1:({}):({}):($1-h):($1+h) with boxxyerror lt {} title {} noenhanced",
                                    k == 0 ? gp_string(decl.name + ".dat") : "\"\"", hi, lo, hi,
                                    kBarLinetypeBase + static_cast<int>(k % kBarColours.size()),
                                    gp_string(metric_words(ys[k]))));
      lo = hi;
    }
    if (colour_axis != nullptr) {
      clauses.clear();
      const std::string hi = scaled_expression("$2", va.scale.factor);
      for (std::size_t block = 0; block < colours.size(); ++block) {
        clauses.push_back(fmt::format(
            "{} index {} using ({}):1:(0):({}):($1-h):($1+h) with boxxyerror lt {} title {} noenhanced",
            block == 0 ? gp_string(decl.name + ".dat") : "\"\"", block, hi, hi,
            kBarLinetypeBase + static_cast<int>(colours[block] % kBarColours.size()),
            gp_string(legend_entry(colour_axis->values[colours[block]].label))));
      }
    }
    plot = "plot " + join(clauses, ", \\\n     ") + "\n";
  }
  gp += gnuplot_terminal_block(decl.name, figure_width_cm(decl), height_cm + title_extra_cm(decl, title), plot);

  std::string& text = src.description;
  text = fmt::format("{} bar{} of {}", bars.size(), bars.size() == 1 ? "" : "s", va.title);
  if (ys.size() > 1) text += ", stacked left to right in that order";
  text += fmt::format(", one per {}", join(cat_names, " / "));
  text += selection_text(study, decl);
  text += label_totals ? "; the number at the end of a bar is its total." : ".";
  if (excluded > 0 || not_drawable > 0) {
    std::vector<std::string> parts;
    if (excluded > 0) parts.push_back(fmt::format("{} infeasible or failed", excluded));
    if (not_drawable > 0) parts.push_back(fmt::format("{} without a drawable value", not_drawable));
    text += " Not drawn: " + join(parts, ", ") + ".";
  }
  return src;
}

}  // namespace dsx::figure_parts
