#include "dse/study_loader.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <set>
#include <tuple>

#include "dse/study_analyses.hpp"
#include "engine/registry.hpp"

namespace dsx::study_loading {

namespace {

constexpr std::array<std::string_view, 25> kFigureKeys = {
    "name",    "kind",    "title",        "caption",       "x",       "y",       "group", "where",
    "log_x",   "log_y",   "pareto",       "crossover",     "z",       "log_z",   "roofs", "precisions",
    "eta",     "width",   "x_label",      "y_label",       "legend_title", "series_labels", "x_range", "y_range",
    "keep_script"};

}  // namespace

std::vector<std::string> StudyLoader::metrics_where(bool (*keep)(const MetricSpec&)) const {
  std::vector<std::string> out;
  for (const MetricSpec& m : s_.solver->metrics()) {
    if (keep(m)) out.emplace_back(m.name);
  }
  return out;
}

bool StudyLoader::is_intensity(const MetricSpec& m) {
  return m.dimension == Dimension::dimensionless && m.name.ends_with("_flop_per_byte");
}

std::string StudyLoader::list_or_none(const std::vector<std::string>& items) {
  return items.empty() ? std::string("none") : join(items);
}

int StudyLoader::param_of_kind(ParamKind kind) const {
  for (std::size_t i = 0; i < s_.solver->params().size(); ++i) {
    if (s_.solver->params()[i].kind == kind) return static_cast<int>(i);
  }
  return -1;
}

std::vector<std::string> StudyLoader::labels_in_rows(std::size_t p, const std::vector<Selector>& where) const {
  const std::string& name = param_names_[p];
  for (const Selector& sel : where) {
    if (sel.param == name) return {sel.label};
  }
  if (const Axis* a = axis_of(p)) {
    std::vector<std::string> out;
    for (const AxisValue& v : a->values) out.push_back(v.label);
    return out;
  }
  if (!s_.is_axis[p] && !s_.fixed_labels[p].empty()) return {s_.fixed_labels[p]};
  return {};
}

void StudyLoader::read_figures(const YamlNode& list) {
  if (list.is_null()) return;
  if (!r_.expect_sequence(list, "figures")) return;
  std::vector<const YamlNode*> names;
  std::vector<std::string> swept;
  for (const Axis& a : s_.axes) swept.push_back(a.param);
  static const std::vector<std::string> kinds = {"scatter", "bars", "line", "roofline", "heatmap"};
  for (std::size_t i = 0; i < list.items.size(); ++i) {
    const YamlNode& item = list.items[i];
    const std::string path = index_path("figures", i);
    if (!r_.expect_mapping(item, path)) continue;
    r_.check_keys(item, kFigureKeys, path);
    const std::size_t errors_before = r_.diags().error_count();
    FigureDecl f;
    if (const YamlNode* n = r_.require(item, "name", path)) {
      if (auto name = r_.string(*n, path + ".name")) {
        if (!valid_name(*name)) {
          r_.error(*n, path + ".name: '" + shown_name(*name) + "' is not a valid figure name: use a-z, 0-9, '_' and '-' (it "
                              "names the files figures/<name>.*)");
        }
        for (const YamlNode* earlier : names) {
          if (earlier->text == *name) {
            r_.error(*n, path + ": another figure is already named '" + *name + "' (" + at_text(*earlier) + ")");
          }
        }
        names.push_back(n);
        f.name = *name;
      }
    }
    bool kind_ok = false;
    if (const YamlNode* n = r_.require(item, "kind", path)) {
      if (r_.expect_scalar(*n, path + ".kind")) {
        const auto it = std::find(kinds.begin(), kinds.end(), n->text);
        if (it == kinds.end()) {
          r_.unknown(*n, "figure kind", kinds);
        } else {
          f.kind = static_cast<FigureKind>(it - kinds.begin());
          kind_ok = true;
        }
      }
    }
    const bool roofline = kind_ok && f.kind == FigureKind::roofline;
    const bool heatmap = kind_ok && f.kind == FigureKind::heatmap;
    if (const YamlNode* n = r_.require(item, "title", path)) {
      if (auto s = r_.string(*n, path + ".title")) f.title = *s;
    }
    if (const YamlNode* n = r_.require(item, "caption", path)) {
      if (auto s = r_.string(*n, path + ".caption")) {
        f.caption = *s;
        check_references(*n, f.caption, path + ".caption");
      }
    }
    // A swept parameter on a heatmap's x or y (its columns or rows).
    const auto heatmap_axis = [&](const YamlNode& node, const std::string& key) -> bool {
      const int p = param_index(node.text);
      if (is_swept_name(node.text)) return true;
      if (p >= 0) {
        r_.error(node, path + "." + key + ": '" + node.text + "' is not swept in this study (swept parameters: " +
                           join(swept) + ")");
      } else if (metric_index(node.text) >= 0) {
        r_.error(node, path + "." + key + ": a heatmap puts swept parameters on x and y (its columns and rows) "
                           "and the metric on z, got the metric '" + node.text + "'; swept parameters: " +
                           join(swept));
      } else {
        r_.unknown(node, "swept parameter", swept);
      }
      return false;
    };
    const YamlNode* x_node = r_.require(item, "x", path);
    if (x_node != nullptr && kind_ok && r_.expect_scalar(*x_node, path + ".x")) {
      const int m = metric_index(x_node->text);
      const bool is_metric = m >= 0;
      const int p = param_index(x_node->text);
      const bool is_swept = is_swept_name(x_node->text);
      if (roofline) {
        const std::vector<std::string> intensities = metrics_where(is_intensity);
        if (is_metric && is_intensity(metric_spec(static_cast<std::size_t>(m)))) {
          f.x = x_node->text;
        } else if (is_metric || p >= 0) {
          r_.error(*x_node, path + ".x: a roofline puts an arithmetic intensity on x (a metric in FLOP/byte, "
                                   "named *_flop_per_byte), got '" + x_node->text + "'; intensity metrics of "
                                   "solver '" + std::string(s_.solver->name()) + "': " + list_or_none(intensities));
        } else {
          r_.unknown(*x_node, "intensity metric", intensities);
        }
      } else if (heatmap) {
        if (heatmap_axis(*x_node, "x")) f.x = x_node->text;
      } else if (f.kind == FigureKind::bars ? is_swept : (is_metric || is_swept)) {
        f.x = x_node->text;
      } else if (p >= 0) {
        r_.error(*x_node, path + ".x: '" + x_node->text + "' is not swept in this study (swept parameters: " +
                              join(swept) + ")");
      } else if (f.kind == FigureKind::bars && is_metric) {
        r_.error(*x_node, path + ".x: a bars figure puts a swept parameter on x (its categories), got the metric '" +
                              x_node->text + "'; swept parameters: " + join(swept));
      } else if (f.kind == FigureKind::bars) {
        r_.unknown(*x_node, "swept parameter", swept);
      } else {
        std::vector<std::string> choices = metric_names_;
        choices.insert(choices.end(), swept.begin(), swept.end());
        r_.unknown(*x_node, "metric or swept parameter", choices);
      }
    }
    if (const YamlNode* n = r_.require(item, "y", path)) {
      if (heatmap) {
        if (!n->is_scalar()) {
          r_.error(*n, path + ".y: a heatmap takes one swept parameter on y (its rows), got " + n->describe());
        } else if (heatmap_axis(*n, "y")) {
          if (n->text == f.x) {
            r_.error(*n, path + ".y: '" + n->text + "' is already on x; a heatmap needs two different swept "
                                "parameters");
          }
          f.y.push_back(n->text);
        }
      } else {
        std::vector<const YamlNode*> ys;
        if (n->is_sequence()) {
          for (const YamlNode& y : n->items) ys.push_back(&y);
          if (ys.empty()) r_.error(*n, path + ".y: give at least one metric");
        } else {
          ys.push_back(n);
        }
        std::vector<std::size_t> indices;
        for (const YamlNode* y : ys) {
          std::string name;
          std::size_t index = 0;
          if (!read_metric(*y, path + ".y", name, index)) continue;
          const MetricSpec spec = metric_spec(index);
          if (roofline && !is_flop_rate(spec)) {
            r_.error(*y, path + ".y: a roofline puts achieved or attainable FLOP/s on y (a metric in FLOP/s), got '" +
                             name + "' (" + std::string(dimension_name(spec.dimension)) + "); FLOP/s metrics of "
                             "solver '" + std::string(s_.solver->name()) + "': " +
                             list_or_none(metrics_where(is_flop_rate)));
            continue;
          }
          if (!indices.empty()) {
            const MetricSpec first = metric_spec(indices.front());
            if (first.dimension != spec.dimension) {
              r_.error(*y, path + ".y: '" + name + "' (" + std::string(dimension_name(spec.dimension)) + ") and '" +
                               std::string(first.name) + "' (" + std::string(dimension_name(first.dimension)) +
                               ") share one axis, so they need the same unit");
              continue;
            }
          }
          indices.push_back(index);
          f.y.push_back(name);
        }
        if (roofline && ys.size() > 1) {
          r_.error(*n, path + ".y: a roofline takes one FLOP/s metric on y, got " + std::to_string(ys.size()));
        }
      }
    }
    const YamlNode* group_node = item.find("group");
    if (group_node != nullptr && heatmap) {
      r_.error(*group_node, path + ".group: a heatmap has no series (each cell is one design point); remove group");
    } else if (group_node != nullptr && r_.expect_scalar(*group_node, path + ".group")) {
      const YamlNode* n = group_node;
      const int p = param_index(n->text);
      if (is_swept_name(n->text)) {
        if (n->text == f.x) {
          r_.error(*n, path + ".group: '" + n->text + "' is already on x; group by another swept parameter");
        }
        f.group = n->text;
      } else if (p >= 0) {
        r_.error(*n, path + ".group: '" + n->text + "' is not swept in this study (swept parameters: " +
                         join(swept) + ")");
      } else {
        r_.unknown(*n, "swept parameter", swept);
      }
    }
    bool where_ok = true;
    if (const YamlNode* n = item.find("where")) {
      if (auto where = read_selectors(*n, path + ".where")) {
        f.where = std::move(*where);
      } else {
        where_ok = false;
      }
    }
    const auto flag = [&](std::string_view key, bool& out) -> const YamlNode* {
      const YamlNode* n = item.find(key);
      if (n != nullptr) {
        if (auto b = r_.boolean(*n, path + "." + std::string(key))) out = *b;
      }
      return n;
    };
    const YamlNode* log_x = flag("log_x", f.log_x);
    const YamlNode* log_y = flag("log_y", f.log_y);
    const YamlNode* pareto = flag("pareto", f.pareto);
    const YamlNode* crossover = flag("crossover", f.crossover);
    const YamlNode* log_z = flag("log_z", f.log_z);
    flag("keep_script", f.keep_script);
    if (roofline) {
      for (const YamlNode* n : {log_x, log_y}) {
        if (n != nullptr && n->text == "false") {
          r_.error(*n, path + ": a roofline is always log-log; remove log_x and log_y");
        }
      }
      f.log_x = f.log_y = true;
    } else if (heatmap) {
      for (const YamlNode* n : {log_x, log_y}) {
        if (n != nullptr && n->text == "true") {
          r_.error(*n, path + ": a heatmap places its cells evenly, so log_x and log_y do not apply; for a "
                              "logarithmic colour scale use log_z");
        }
      }
    } else {
      if (f.log_x && kind_ok) {
        const int p = param_index(f.x);
        if (f.kind == FigureKind::bars || (p >= 0 && is_categorical(spec(static_cast<std::size_t>(p))))) {
          r_.error(*log_x, path + ".log_x: x of this figure is categorical; only a numeric x can be logarithmic");
        }
      }
      if (f.log_y && kind_ok && f.kind == FigureKind::bars) {
        r_.error(*log_y, path + ".log_y: stacked bars need a linear value axis (segments add up to the bar's "
                                "length); remove log_y");
      }
    }
    if (f.pareto && kind_ok) {
      if (f.kind != FigureKind::scatter) {
        r_.error(*pareto, path + ".pareto: only a scatter figure draws a Pareto front");
      } else if (!objectives_written_) {
        r_.error(*pareto, path + ".pareto: the front is taken over the study's objectives; add objectives:");
      }
    }
    // Axes that vary among the rows the figure keeps, other than the listed parameters.
    const auto unpinned_axes = [&](std::initializer_list<std::string_view> except) {
      std::vector<std::string> out;
      for (const Axis& a : s_.axes) {
        if (a.values.size() < 2 || std::find(except.begin(), except.end(), a.param) != except.end()) continue;
        const bool pinned = std::any_of(f.where.begin(), f.where.end(), [&](const Selector& s) { return s.param == a.param; });
        if (!pinned) out.push_back(a.param);
      }
      return out;
    };
    if (f.crossover && kind_ok) {
      const int xp = param_index(f.x);
      if (f.kind != FigureKind::line) {
        r_.error(*crossover, path + ".crossover: only a line figure marks where its lines cross");
      } else if (xp >= 0 && is_categorical(spec(static_cast<std::size_t>(xp)))) {
        r_.error(*crossover, path + ".crossover: x '" + f.x + "' is categorical; lines cross along a numeric x "
                                    "(a metric or a numeric swept parameter)");
      } else if (where_ok && !f.x.empty() && f.y.size() < 2 && f.group.empty() && unpinned_axes({f.x}).empty()) {
        r_.error(*crossover, path + ".crossover: this figure draws a single line, so nothing can cross; give a "
                                    "group or two y metrics");
      }
    }
    if (f.log_z && kind_ok && !heatmap) r_.error(*log_z, path + ".log_z: only a heatmap has a colour scale");
    const YamlNode* z_node = item.find("z");
    if (z_node != nullptr && kind_ok && !heatmap) {
      r_.error(*z_node, path + ".z: only a heatmap has z (the metric shown in each cell)");
    } else if (heatmap) {
      if (z_node == nullptr) {
        const std::string example = !s_.objectives.empty() ? s_.objectives.front().metric
                                    : metric_names_.empty()   ? std::string("<metric>")
                                                              : metric_names_.front();
        r_.error(item, path + ": a heatmap needs z, the metric shown in each cell (e.g. z: " + example + ")");
      } else {
        std::size_t index = 0;
        read_metric(*z_node, path + ".z", f.z, index);
      }
      if (where_ok && !f.x.empty() && f.y.size() == 1) {
        const std::vector<std::string> loose = unpinned_axes({f.x, f.y.front()});
        if (!loose.empty()) {
          std::vector<std::string> example;
          for (const std::string& p : loose) example.push_back(p + ": " + axis_of(static_cast<std::size_t>(param_index(p)))->values.front().label);
          r_.error(item.find("where") != nullptr ? *item.find("where") : item,
                   path + ": each heatmap cell is one design point, but " + join(loose) +
                       (loose.size() == 1 ? " also varies" : " also vary") + "; hold " +
                       (loose.size() == 1 ? "it" : "them") + " with where, e.g. where: {" + join(example) + "}");
        }
      }
    }
    // Roofline roofs: hardware ids and precisions, explicit or those the kept rows use.
    const YamlNode* roofs_node = item.find("roofs");
    const YamlNode* precisions_node = item.find("precisions");
    const YamlNode* eta_node = item.find("eta");
    for (const auto& [node, key] : {std::pair{roofs_node, "roofs"}, {precisions_node, "precisions"}, {eta_node, "eta"}}) {
      if (node != nullptr && kind_ok && !roofline) {
        r_.error(*node, path + "." + key + ": only a roofline figure has " + key);
      }
    }
    if (roofline) {
      const auto read_list = [&](const YamlNode* node, const std::string& key, auto&& check) {
        std::vector<std::string> out;
        if (node == nullptr) return out;
        std::vector<const YamlNode*> items;
        if (node->is_sequence()) {
          for (const YamlNode& x : node->items) items.push_back(&x);
          if (items.empty()) r_.error(*node, path + "." + key + ": give at least one value, or leave " + key + " out");
        } else {
          items.push_back(node);
        }
        for (const YamlNode* x : items) {
          if (!r_.expect_scalar(*x, path + "." + key)) continue;
          if (!check(*x)) continue;
          if (std::find(out.begin(), out.end(), x->text) != out.end()) {
            r_.error(*x, path + "." + key + ": '" + x->text + "' is listed twice");
            continue;
          }
          out.push_back(x->text);
        }
        return out;
      };
      const std::vector<std::string> hardware_ids = catalog_.hardware_ids();
      f.roofs = read_list(roofs_node, "roofs", [&](const YamlNode& x) {
        if (catalog_.find_hardware(x.text) != nullptr) return true;
        if (std::find(broken_ids_.begin(), broken_ids_.end(), x.text) == broken_ids_.end()) {
          r_.unknown(x, "hardware id", hardware_ids);
        }
        return false;
      });
      std::vector<std::string> precision_names;
      for (Precision pr : kAllPrecisions) precision_names.emplace_back(precision_name(pr));
      f.precisions = read_list(precisions_node, "precisions", [&](const YamlNode& x) {
        if (parse_precision(x.text)) return true;
        r_.unknown(x, "precision", precision_names);
        return false;
      });
      if (eta_node != nullptr) {
        QuantityBounds b;
        b.bounded = true;
        b.min_value = 0;
        b.max_value = 1;
        b.min_exclusive = true;
        if (const auto q = r_.quantity(*eta_node, Dimension::dimensionless, "eta", b)) f.eta = q->value;
      }
      const YamlNode& kind_node = *item.find("kind");
      if (roofs_node == nullptr && where_ok) {
        const int hp = param_of_kind(ParamKind::hardware);
        if (hp < 0) {
          r_.error(kind_node, path + ": solver '" + std::string(s_.solver->name()) + "' has no hardware parameter, "
                              "so list the roofs to draw, e.g. roofs: [" +
                              (hardware_ids.empty() ? std::string("<hardware id>") : hardware_ids.front()) + "]");
        } else {
          f.roofs = labels_in_rows(static_cast<std::size_t>(hp), f.where);
        }
      }
      if (precisions_node == nullptr && where_ok) {
        const int pp = param_of_kind(ParamKind::precision);
        if (pp < 0) {
          r_.error(kind_node, path + ": solver '" + std::string(s_.solver->name()) + "' has no precision parameter, "
                              "so list the roofs' precisions, e.g. precisions: [fp16]");
        } else {
          f.precisions = labels_in_rows(static_cast<std::size_t>(pp), f.where);
        }
      }
      // A roof the user asked for must exist: every listed hardware has a peak at one of the precisions.
      if (roofs_node != nullptr || precisions_node != nullptr) {
        for (const std::string& id : f.roofs) {
          const HardwareSpec* h = catalog_.find_hardware(id);
          if (h == nullptr) continue;
          const bool any = std::any_of(f.precisions.begin(), f.precisions.end(), [&](const std::string& p) {
            const auto pr = parse_precision(p);
            return pr && h->supports(*pr);
          });
          if (!any && !f.precisions.empty()) {
            r_.error(roofs_node != nullptr ? *roofs_node : *precisions_node,
                     path + ": '" + id + "' has no peak at " + join(f.precisions) + ", so it has no roof to draw");
          }
        }
      }
    }
    if (const YamlNode* n = item.find("width")) {
      static const std::vector<std::string> widths = {"double", "single"};
      if (r_.expect_scalar(*n, path + ".width")) {
        const auto it = std::find(widths.begin(), widths.end(), n->text);
        if (it == widths.end()) {
          r_.unknown(*n, "figure width", widths);
        } else {
          f.width = static_cast<FigureWidth>(it - widths.begin());
        }
      }
    }
    read_figure_text(item, path, f, kind_ok);
    if (r_.diags().error_count() == errors_before) s_.figures.push_back(std::move(f));
  }
}

// x_label, y_label, legend_title, series_labels, x_range, y_range.
void StudyLoader::read_figure_text(const YamlNode& item, const std::string& path, FigureDecl& f, bool kind_ok) {
  const bool bars = kind_ok && f.kind == FigureKind::bars;
  const bool heatmap = kind_ok && f.kind == FigureKind::heatmap;
  // The dimension of what an axis shows (dimensionless for a categorical parameter or one not known).
  const auto dimension_of = [&](const std::string& name) {
    if (const int m = metric_index(name); m >= 0) return metric_spec(static_cast<std::size_t>(m)).dimension;
    if (const int p = param_index(name); p >= 0) return spec(static_cast<std::size_t>(p)).dimension;
    return Dimension::dimensionless;
  };
  const auto categorical = [&](const std::string& name) {
    const int p = param_index(name);
    return (p >= 0 && is_categorical(spec(static_cast<std::size_t>(p)))) || (p < 0 && metric_index(name) < 0);
  };
  // The quantity on each axis of the picture: bars put their y metrics on the value axis.
  const std::string y_name = f.y.empty() ? std::string() : f.y.front();

  const auto text = [&](std::string_view key, std::string& out) -> const YamlNode* {
    const YamlNode* n = item.find(key);
    if (n != nullptr) {
      if (auto t = r_.string(*n, path + "." + std::string(key))) out = *t;
    }
    return n;
  };
  const YamlNode* x_label = text("x_label", f.x_label);
  const YamlNode* y_label = text("y_label", f.y_label);
  const YamlNode* legend_title = text("legend_title", f.legend_title);
  if (legend_title != nullptr && heatmap) {
    r_.error(*legend_title, path + ".legend_title: a heatmap has no legend (its colour box is titled by z)");
  }
  // A unit in parentheses at the end of a label sets the axis's unit, so it must be one dsx can
  // scale the values to: a unit of the axis's dimension ("(ms)", "(h)", "(GB)").
  for (const auto& [node, key, name] : {std::tuple{x_label, "x_label", f.x}, {y_label, "y_label", y_name}}) {
    if (node == nullptr || !node->is_scalar() || heatmap) continue;
    const std::string_view unit = figure_label_unit(node->text);
    const Dimension d = dimension_of(name);
    if (unit.empty() || !figure_unit_checked(d)) continue;
    const Unit* u = find_unit(unit);
    if (u == nullptr || u->dimension != d) {
      const std::size_t at = node->text.size() - 1 - unit.size();
      const std::vector<std::string> choices = unit_symbols(d);
      const std::string near = closest_match(unit, choices);
      r_.error(*node,
               path + "." + key + ": '(" + std::string(unit) + ")' ends the label, so it sets the unit of the axis, but '" +
                   std::string(unit) + "' is not a unit of " + std::string(dimension_name(d)) + " ('" + name + "')" +
                   (near.empty() ? "; " : "; did you mean '" + near + "'? ") + "valid " + std::string(dimension_name(d)) +
                   " units: " + join(choices) + "; or leave the parentheses out and dsx appends the unit it scales "
                   "the axis to",
               at, unit.size());
    }
  }

  if (const YamlNode* n = item.find("series_labels")) {
    if (heatmap) {
      r_.error(*n, path + ".series_labels: a heatmap has no series (each cell is one design point)");
    } else if (f.group.empty()) {
      r_.error(*n, path + ".series_labels: names the series of group, and this figure has no group; add group: "
                       "<swept parameter>");
    } else if (r_.expect_mapping(*n, path + ".series_labels")) {
      std::vector<std::string> values;
      for (const Axis& a : s_.axes) {
        if (a.param != f.group) continue;
        for (const AxisValue& v : a.values) values.push_back(v.label);
      }
      for (const YamlEntry& e : n->entries) {
        if (std::find(values.begin(), values.end(), e.key.text) == values.end()) {
          r_.unknown(e.key, f.group + " value", values, "series_labels");
          continue;
        }
        if (auto t = r_.string(e.value, path + ".series_labels." + e.key.text)) f.series_labels.emplace_back(e.key.text, *t);
      }
    }
  }

  // Ranges: [min, max] in the axis's quantity, either end `auto`.
  const auto range = [&](std::string_view key, const std::string& name, bool log, FigureRange& out) {
    const YamlNode* n = item.find(key);
    if (n == nullptr || !kind_ok) return;
    const std::string at = path + "." + std::string(key);
    if (heatmap) {
      r_.error(*n, at + ": a heatmap's axes are its swept values, one column or row each; choose them with where");
      return;
    }
    if (bars && key == "x_range") {
      r_.error(*n, at + ": x of a bars figure is its categories; y_range sets its value axis");
      return;
    }
    if (name.empty()) return;
    if (categorical(name)) {
      r_.error(*n, at + ": '" + name + "' is categorical, so its axis has no range");
      return;
    }
    if (!n->is_sequence() || n->items.size() != 2) {
      r_.error(*n, at + ": expected [min, max] (either may be auto), e.g. [0, " +
                       std::string(unit_example(dimension_of(name))) + "], got " +
                       (n->is_sequence() ? "a list of " + std::to_string(n->items.size()) : n->describe()));
      return;
    }
    const Dimension d = dimension_of(name);
    bool ok = true;
    FigureRange r;
    r.set = true;
    for (std::size_t i = 0; i < 2; ++i) {
      const YamlNode& end = n->items[i];
      FigureLimit& limit = i == 0 ? r.min : r.max;
      if (!r_.expect_scalar(end, at)) {
        ok = false;
        continue;
      }
      limit.label = end.text;
      if (end.text == "auto") continue;
      const auto q = r_.quantity(end, d, at + (i == 0 ? " min" : " max"));
      if (!q) {
        ok = false;
        continue;
      }
      limit.value = q->value;
      if (log && !(q->value > 0)) {
        r_.error(end, at + ": the axis is logarithmic, so its " + (i == 0 ? "min" : "max") + " must be above zero, got " +
                          end.text);
        ok = false;
      }
    }
    if (ok && r.min.value && r.max.value && !(*r.min.value < *r.max.value)) {
      r_.error(*n, at + ": min (" + r.min.label + ") must be below max (" + r.max.label + ")");
      ok = false;
    }
    if (ok) out = std::move(r);
  };
  range("x_range", f.x, f.log_x, f.x_range);
  range("y_range", y_name, f.log_y, f.y_range);
}

}  // namespace dsx::study_loading

namespace dsx {

std::string_view figure_label_unit(std::string_view label) {
  if (label.size() < 3 || label.back() != ')') return {};
  const std::size_t open = label.rfind('(');
  if (open == std::string_view::npos || open + 2 > label.size() - 1) return {};
  return label.substr(open + 1, label.size() - open - 2);
}

bool figure_unit_checked(Dimension d) {
  switch (d) {
    case Dimension::time:
    case Dimension::bytes:
    case Dimension::bandwidth:
    case Dimension::flops:
    case Dimension::flop_rate:
    case Dimension::power:
    case Dimension::energy:
    case Dimension::money: return true;
    default: return false;
  }
}

}  // namespace dsx
