// `dsx diff RUN_A RUN_B`: what changed between two run folders of the same or a similar study (a
// re-run after a catalog edit, a new dsx version, a changed fixed input).
//
// - Identity: each run's study name, study and catalog hashes, dsx version and git revision
//   (manifest.json), and what differs in the resolved studies, compared as parsed YAML, not as text:
//   one line per changed path ("fixed.eta: 0.5 -> 0.6", "axes.batch: added 64",
//   "catalog.hardware[h100_sxm].tdp: 700 W -> 800 W"); list entries with an `id` or `name` are
//   matched by it.
// - Rows: design points are matched by their axis labels, never by point_index (the grids may
//   differ). The key is the labels of every axis of either run; an axis one run does not sweep takes
//   that run's fixed value (or "" when it has none). Both stores are read row by row, ordered by the
//   key (ResultStore::RowCursor), and merged, so memory does not grow with the rows.
// - Metrics: the solver's and the study's derived ones (and the status the study's constraints set,
//   from the store's `derived` table where the analyses wrote one). Over rows ok in both runs, per
//   metric both runs have, the count of rows whose relative
//   change (B - A) / |A| exceeds the tolerance (A = 0: 0 when B = 0 too, else infinite; one value
//   missing: infinite) and the largest changes by magnitude (ties: the earlier key first).
// - Decisions, as far as both runs have the file: the rank-1 row per objective (top_k.csv), Pareto
//   membership (pareto.csv), verdicts (comparisons.csv) and break-even crossings (breakeven_*.csv).
//
// The runs agree when the resolved studies are equal and no row, metric or decision differs beyond
// the tolerance; versions and hashes are shown but a different dsx version or catalog hash alone is
// no difference (the question is whether the results moved). Every list is sorted.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dsx {

struct RunDiffOptions {
  double tolerance = 1e-9;  // relative
  std::size_t top = 10;     // largest changes per metric, examples per list
};

// (B - A) / |A|; 0 when both are equal (infinities and missing values included); infinite (with B's
// sign) when A is 0 and B is not, or when only one of them is missing (NaN).
double relative_change(double a, double b);
// |relative_change(a, b)| > tolerance.
bool changed_beyond(double a, double b, double tolerance);

// A design point as the labels of RunDiff::key_axes.
using PointKey = std::vector<std::string>;

struct MetricChange {
  PointKey point;
  double a = 0;
  double b = 0;
  double relative = 0;
};

// The `capacity` largest |relative| changes seen, largest first; among equal magnitudes the one
// offered first (the smaller key, since rows stream in key order) ranks first.
class LargestChanges {
 public:
  explicit LargestChanges(std::size_t capacity) : capacity_(capacity) {}
  void offer(const PointKey& point, double a, double b, double relative);
  const std::vector<MetricChange>& changes() const { return changes_; }

 private:
  std::size_t capacity_;
  std::vector<MetricChange> changes_;
};

struct MetricDiff {
  std::string name;
  std::uint64_t compared = 0;  // rows ok in both
  std::uint64_t changed = 0;   // beyond the tolerance
  std::vector<MetricChange> largest;
};

struct StatusChange {
  PointKey point;
  std::string a_status, a_detail, b_status, b_detail;
};

// One line of the identity or study comparison, or of a decision: `what` changed from `a` to `b`
// ("" where a side has nothing).
struct Change {
  std::string what;
  std::string a;
  std::string b;
};

struct RunIdentity {
  std::string dir, study, study_hash, catalog_hash, dsx_version, git_revision, physics_fingerprint;
};

struct RunDiff {
  RunIdentity a, b;
  double tolerance = 0;
  std::vector<Change> study_changes;  // paths in study.resolved.yaml, sorted

  std::vector<std::string> key_axes;
  std::vector<std::string> metrics_only_a, metrics_only_b;
  std::uint64_t rows_a = 0, rows_b = 0, matched = 0, only_a = 0, only_b = 0, status_changed = 0;
  std::vector<PointKey> only_a_examples, only_b_examples;                 // the first by key
  std::vector<StatusChange> status_examples;                              // the first by key
  std::vector<std::pair<std::string, std::uint64_t>> status_transitions;  // "ok -> infeasible (why)", sorted

  std::vector<MetricDiff> metrics;  // every common metric, in run A's column order

  // Decisions: each list holds only what changed; `decisions_compared` names the files compared and
  // `files_only_a` / `files_only_b` the analysis files one run lacks.
  std::vector<Change> top_k, pareto, comparisons, breakeven;
  std::vector<std::string> decisions_compared, files_only_a, files_only_b;

  bool differs() const;
};

// Reads and compares two run folders. Nullopt with one line per problem in `problems` when either is
// not a readable run folder (a missing file is named); a caller exits 2 then.
std::optional<RunDiff> diff_runs(const std::string& dir_a, const std::string& dir_b, const RunDiffOptions& options,
                                 std::vector<std::string>& problems);

// "hardware=h100_sxm, batch=8".
std::string describe_point(const std::vector<std::string>& axes, const PointKey& point);

// Renderings: plain text for a terminal and JSON (every number exact); output/run_diff_markdown.hpp
// writes a Markdown section.
std::string run_diff_text(const RunDiff& diff);
std::string run_diff_json(const RunDiff& diff);

// What the renderings share. A number as the shortest text that reads back to it ("" for NaN,
// "inf", "-inf"); a relative change as a signed percentage ("+25 %", "-inf"); a long value cut
// at `at` characters with "..."; the identity rows (study, hashes, version, revision, physics); the
// decision lists with their titles.
std::string format_diff_number(double v);
std::string format_relative_change(double relative);
std::string shorten_diff_value(const std::string& s, std::size_t at = 160);
std::vector<Change> identity_rows(const RunDiff& diff);
struct DecisionSection {
  std::string title;
  const std::vector<Change>* changes;
};
std::vector<DecisionSection> decision_sections(const RunDiff& diff);

}  // namespace dsx
