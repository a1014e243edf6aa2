// The study loader's parts, shared by the files that read a study by role: study.cpp (the
// top level, objectives, compare entries, sections), study_axes.cpp (axes, ranges, fixed values,
// bundles, defaults), study_figures.cpp (figure declarations), study_values.cpp (values: cited by the
// prose) and study_yaml.cpp (the resolved YAML).
// Internal to dse/: the public interface is dse/study.hpp.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "dse/bundles.hpp"
#include "dse/layouts.hpp"
#include "dse/quantity.hpp"
#include "dse/study.hpp"
#include "dse/yaml_reader.hpp"

namespace dsx::study_loading {

// A refused name as a message shows it: control characters (a NUL, a line break) as \xNN, so the
// message stays one line.
std::string shown_name(std::string_view s);

bool same_number(double a, double b);

bool valid_name(std::string_view s);

std::string hex64(std::uint64_t h);

// FNV-1a, 64 bit (Fowler, Noll, Vo; http://www.isthe.com/chongo/tech/comp/fnv/).
std::uint64_t fnv1a(std::string_view data);

std::string index_path(std::string_view path, std::size_t i);

std::string at_text(const YamlNode& n);

QuantityBounds bounds_of(const ParamSpec& spec);

bool is_categorical(const ParamSpec& spec);

std::string join(const std::vector<std::string>& items);

// All axes together hold at most this many values (40-byte AxisValues: 400 MB), checked before each
// range or set of layouts is generated; a grid of 1e18 points still needs only a few values per axis.
inline constexpr std::uint64_t kMaxTotalAxisValues = 10'000'000;

class StudyLoader {
 public:
  StudyLoader(const std::string& file, Diagnostics& diags) : r_(file, diags) {}

  std::optional<ResolvedStudy> load(const std::string& text, const std::string& catalog_dir);
  // A one-point study of `solver`: the parameters written in `inputs` (a mapping read like fixed:),
  // every other at its default, over `catalog`; `at` is where a missing value is reported.
  std::optional<ResolvedStudy> load_point(const Solver& solver, const YamlNode& inputs, const YamlNode& at,
                                          const Catalog& catalog, std::string name, const CalibrationProfile* starts);

 private:
  const ParamSpec& spec(std::size_t p) const { return s_.solver->params()[p]; }

  int param_index(std::string_view name) const;
  // A metric by index into metric_names_: the solver's, then the study's derived metrics.
  MetricSpec metric_spec(std::size_t index) const;
  int metric_index(std::string_view name) const;
  const Axis* axis_of(std::size_t p) const;
  std::string solver_what() const { return std::string(s_.solver->name()) + " parameter"; }

  // A misspelt parameter under axes: or fixed:. The parameter it was probably meant to be is not
  // reported again as missing.
  void unknown_param(const YamlNode& key);

  // One value of a parameter, as an axis element, a fixed value or a selector. Catalog ids are
  // stored as indices into catalog_ until keep_used_catalog_entries() renumbers them.
  std::optional<AxisValue> read_value(const ParamSpec& p, const YamlNode& node, const std::string& path) const;

  std::string expected_phrase(const ParamSpec& p) const;

  // The label for a parameter's default value.
  static std::string default_label(const ParamSpec& p);

  void read_axes(const YamlNode& axes);

  // Whether `count` more values keep all axes within kMaxTotalAxisValues; reported at `node` if not.
  bool fits_total(const YamlNode& node, const std::string& path, std::string_view gives, std::uint64_t count);

  std::string example_values(const ParamSpec& p) const;

  // A generated range: {from, to, scale: linear|log, count | step | factor}.
  bool read_range(const ParamSpec& ps, const YamlNode& range, const std::string& path, Axis& axis);

  void read_fixed(const YamlNode* fixed);

  // ---- bundles (dse/catalog.hpp, dse/bundles.hpp) ----

  // The catalog entry `node` names, or nullptr after reporting why not.
  const CatalogBundle* lookup_bundle(const BundleKind& kind, const YamlNode& node, const std::string& path) const;

  // The settings of `b` for this study's solver; nullopt after an error at `node`.
  std::optional<std::vector<BundleSetting>> settings_of(const CatalogBundle& b, const YamlNode& node, const std::string& path,
                                                        bool with_topology = false) const;

  static std::string names_of(const std::vector<BundleSetting>& settings, std::span<const ParamSpec> params);

  // axes: region: [us_average, quebec]. Every value must set the same parameters of the solver.
  // After an error in a bundle, the parameters its kind sets are not also reported as missing.
  void quiet_bundle_params(const BundleKind& kind);

  void read_bundle_axis(const BundleKind& kind, const YamlEntry& e);

  void read_bundle_axis_values(const BundleKind& kind, const YamlEntry& e);

  // fixed: region: quebec.
  void read_fixed_bundle(const BundleKind& kind, const YamlEntry& e);

  void read_fixed_bundle_value(const BundleKind& kind, const YamlEntry& e);

  // ---- layout axes (dse/layouts.hpp) ----

  // axes: layout: {gpus: 1024, tp: [1, 2, 4, 8], pp: any, cp: [1, 2]}, or a list of layouts
  // ["tp8 pp16 dp128", ...] (the form a resolved study writes). A bundle-like axis: each value sets
  // gpus, tp, pp, cp and ep (those the solver has) together. The constraint form is expanded by
  // expand_layouts once the fixed values and defaults it filters on are known.
  void read_layout_axis(const YamlEntry& e);
  std::optional<LayoutChoice> read_layout_choice(const YamlNode& node, const std::string& path, std::size_t p,
                                                 bool allow_any);
  void expand_layouts();
  // The value of a parameter every point shares (fixed, defaulted or set by a fixed bundle), or nullopt.
  std::optional<double> known_value(std::string_view name) const;

  // A parameter is set by at most one of: an axis, fixed:, a bundle. The parameters of a fixed
  // bundle become fixed values; those of a bundle axis are set per point (Grid::inputs).
  void apply_bundles(const YamlNode* fixed);

  // The bundle use of kind `name` in this study, or nullptr.
  const BundleUse* bundle_use(std::string_view name) const;
  // A parameter swept under axes:, or a bundle kind with an axis (figures plot its ids).
  bool is_swept_name(std::string_view name) const;
  bool set_by_bundle_axis(std::size_t p) const;

  // `calibration:` none | default | a profile name in the catalog's calibration/ folder | a profile
  // file relative to the study | an inline profile (the resolved form). Absent: the catalog's
  // default profile when there is one.
  void read_calibration(const YamlNode* node, const std::string& catalog_dir);

  void fill_defaults(const YamlNode& solver_node);
  // Gives each catalog entry copied with `base:` that the profile does not measure the per-chip
  // factors of its nearest measured base, written into the study's copy of the profile (so the
  // resolved study, which writes entries in full, carries them).
  void inherit_hardware_factors();
  // Records a calibrated parameter whose value the profile scales per chip (ResolvedStudy::hardware_scaled).
  void scale_per_hardware(std::size_t p, const FittedParameter& fitted);

  // A parameter written under axes: or fixed: whose value had an error (already reported).
  bool failed_param(std::size_t p) const;
  bool fixed_written(std::size_t p) const { return fixed_keys_.count(param_names_[p]) > 0; }

  void check_point_count(const YamlNode& axes);

  void read_objectives(const YamlNode& list);
  void check_objectives_meet() const;

  bool read_metric(const YamlNode& node, const std::string& path, std::string& name, std::size_t& index) const;

  // Selectors "param: value" that keep rows: the param must be swept or fixed and the value one it
  // takes. Labels are normalised to the axis (or fixed) label. With `lists`, a parameter may take a
  // list of values (several selectors of one parameter: any of them).
  std::optional<std::vector<Selector>> read_selectors(const YamlNode& where, const std::string& path,
                                                      bool lists = false) const;
  // One "param: value" of a selector, appended to `out`; false after reporting why not.
  bool read_selector(const YamlNode& key, const YamlNode& value, const std::string& item,
                     std::vector<Selector>& out) const;

  void read_comparisons(const YamlNode& list);
  // values: (dse/study_values.cpp).
  void read_values(const YamlNode& list);
  // One `when:` condition of a cited aggregate: feasible | infeasible | error | filters | METRIC OP VALUE.
  std::optional<CitedCondition> read_condition(const YamlNode& node, const std::string& path) const;
  // An error at `node` unless `where` gives a value for every axis with more than one value, so
  // that it selects exactly one design point; `what` names the entry ("a comparison").
  void require_one_point(const YamlNode& node, const std::string& path, const std::vector<Selector>& where,
                         std::string_view what, std::string_view key = "where");

  // A study's own template folder: a relative path below the study file's folder, so a study can
  // never make dsx read templates from elsewhere.
  void read_template(const YamlNode& node);

  void read_sections(const YamlNode& list);
  // Every {{...}} in a section's text must name a value the study computes (dse/study_references.hpp).
  void check_references(const YamlNode& node, const std::string& text, const std::string& path);

  // Metrics of the solver that a roofline can place: intensities on x (FLOP per byte, named
  // *_flop_per_byte) and FLOP/s on y.
  std::vector<std::string> metrics_where(bool (*keep)(const MetricSpec&)) const;
  static bool is_intensity(const MetricSpec& m);
  static bool is_flop_rate(const MetricSpec& m) { return m.dimension == Dimension::flop_rate; }
  static std::string list_or_none(const std::vector<std::string>& items);
  // The first parameter of `kind` the solver has, or -1.
  int param_of_kind(ParamKind kind) const;
  // The labels a parameter takes among the rows `where` keeps: the selected label, the axis values
  // or the fixed value.
  std::vector<std::string> labels_in_rows(std::size_t p, const std::vector<Selector>& where) const;

  void read_figures(const YamlNode& list);
  void read_figure_text(const YamlNode& item, const std::string& path, FigureDecl& f, bool kind_ok);

  // The resolved study keeps only the catalog entries it uses, in catalog order, so that its
  // resolved YAML (which writes exactly those) loads back to the same indices.
  void keep_used_catalog_entries();

  YamlReader r_;
  ResolvedStudy s_;
  Catalog catalog_;
  std::vector<std::string> param_names_;
  std::vector<std::string> metric_names_;
  std::vector<const YamlNode*> axis_nodes_;  // keys under axes: that name a parameter
  std::uint64_t axis_values_ = 0;            // values of the axes read so far
  std::array<bool, kMaxParams> fixed_{};     // fixed or defaulted
  std::set<std::string> fixed_keys_;
  std::set<std::string> misspelt_;          // parameters a misspelt key probably meant
  std::vector<std::string> broken_ids_;     // catalog block entries that had errors
  std::vector<const YamlNode*> bundle_keys_;            // the key of each of s_.bundles
  std::set<std::string> bundle_quiet_;  // parameters a bundle with errors may set: not reported missing
  std::vector<std::vector<BundleSetting>> bundle_rows_;  // a fixed bundle's settings (empty for an axis)
  struct PendingLayout {
    std::size_t axis = 0;           // into s_.axes
    const YamlNode* node = nullptr;  // the constraint mapping
    LayoutRequest request;
    bool show_pp = false, show_cp = false, show_ep = false;
  };
  std::vector<PendingLayout> pending_layouts_;
  bool objectives_written_ = false;
  std::vector<const YamlNode*> objective_nodes_;  // the mapping of each of s_.objectives
  std::string fixed_path_ = "fixed";  // how messages name the mapping of fixed values
};

}  // namespace dsx::study_loading
