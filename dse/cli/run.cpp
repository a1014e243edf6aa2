// `dsx run` and `dsx report`: sweep into the store, then analyse and render from what was stored.
#include <fmt/core.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <map>
#include <thread>
#include <optional>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "dse/cli/analyse.hpp"
#include "dse/cli/commands.hpp"
#include "dse/cli/distributed.hpp"
#include "dse/cli/options.hpp"
#include "dse/cli/progress.hpp"
#include "dse/analysis/analysed_run.hpp"
#include "dse/analysis/report_columns.hpp"
#include "dse/grid.hpp"
#include "dse/pareto.hpp"
#include "dse/physics_fingerprint.hpp"
#include "dse/result_identity.hpp"
#include "dse/shard.hpp"
#include "dse/store.hpp"
#include "dse/study.hpp"
#include "dse/sweep.hpp"
#include "dse/sweep_store.hpp"
#include "output/analysis_figures.hpp"
#include "output/analysis_report.hpp"
#include "output/comparisons.hpp"
#include "output/csv.hpp"
#include "output/figures.hpp"
#include "output/files.hpp"
#include "output/run_folder.hpp"
#include "output/format.hpp"
#include "output/report.hpp"

namespace dsx::cli {

namespace {

// Set by SIGINT/SIGTERM; the sweep stops after the block in hand is committed.
volatile std::sig_atomic_t g_stop_signal = 0;

extern "C" void request_stop(int signal_number) { g_stop_signal = signal_number; }

// Restores the previous SIGINT/SIGTERM handlers when the sweep is over.
class StopOnSignal {
 public:
  StopOnSignal() {
    g_stop_signal = 0;
    previous_int_ = std::signal(SIGINT, request_stop);
    previous_term_ = std::signal(SIGTERM, request_stop);
  }
  ~StopOnSignal() {
    std::signal(SIGINT, previous_int_);
    std::signal(SIGTERM, previous_term_);
  }
  StopOnSignal(const StopOnSignal&) = delete;
  StopOnSignal& operator=(const StopOnSignal&) = delete;

 private:
  void (*previous_int_)(int) = SIG_DFL;
  void (*previous_term_)(int) = SIG_DFL;
};

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// What the report says about the run. Counts come from the rows when every row is kept, else from
// the counts the sweep committed with them.
RunInfo run_info(const ResolvedStudy& study, const ResultStore& store, const ResultTable& results,
                 const std::optional<SweepCounts>& counts) {
  RunInfo info;
  info.dsx_version = store.meta("dsx_version").value_or("");
  info.git_revision = store.meta("git_revision").value_or("");
  info.study_hash = store.meta("study_hash").value_or("");
  info.catalog_hash = store.meta("catalog_hash").value_or("");
  info.kept_rows = results.rows();
  info.grid_points = Grid(study).size();
  info.points_swept = counts ? counts->points_done : info.grid_points;
  if (counts && counts->formulas_applied) {
    info.points = counts->evaluated;
    info.feasible = counts->feasible;
    info.infeasible = counts->infeasible;
    info.errors = counts->errors;
    info.infeasible_by_reason = counts->infeasible_by_reason(study);
    info.keep = keep_description(study);
  } else {
    count_rows(results, info);
  }
  if (counts) {
    const StudyAnalyses& a = analyses_of(study);
    for (std::size_t c = 0; c < counts->excluded.size() && c < a.grid_constraints.size(); ++c) {
      info.excluded.emplace_back(a.grid_constraints[c].name + " (" + a.grid_constraints[c].expr + ")", counts->excluded[c]);
    }
  }
  return info;
}

// The metric columns of the whole analysed table when it was loaded with only some of them.
std::vector<std::string> every_analysed_column(const ResolvedStudy& study, const ResultTable& analysed) {
  std::optional<std::vector<std::string>> names = analysed_metric_names(study, &analysed);
  if (!names) throw std::logic_error("the report's table was loaded with some columns, but the study's columns depend on its rows");
  return std::move(*names);
}

// The outputs that hold every metric column, for a table loaded with some (AnalysedRun::
// columns_selected), in one pass over the store's blocks: results.csv's rows, the store's intervals
// table, and the returned text of pareto.csv. `front` lists the front's points in pareto.csv's order.
std::string write_every_column_outputs(const ResolvedStudy& study, ResultStore& store, const ResultTable& header,
                                       const std::vector<std::uint64_t>& front, std::span<const FixedInput> fixed,
                                       const std::function<void(std::string_view)>& to_results_file) {
  std::vector<std::uint64_t> front_sorted = front;
  std::sort(front_sorted.begin(), front_sorted.end());
  ResultTable front_rows;
  front_rows.axis_names = header.axis_names;
  front_rows.metric_names = header.metric_names;
  AnalysedBlockReader blocks(study, store, header.metric_names, kAnalysedBlockRows);
  const auto take = [&](const ResultTable& block) {
    results_csv_pieces(block, fixed, to_results_file, 1 << 20, false);
    for (std::size_t r = 0; r < block.rows(); ++r) {
      if (std::binary_search(front_sorted.begin(), front_sorted.end(), block.point_index[r])) front_rows.append_row(block, r);
    }
  };
  // The intervals table: point_index and every interval column, after the solver and derived metrics,
  // a row per stored row (output/analysis_report.hpp write_analysis_outputs writes it when the table
  // holds every column).
  const std::size_t first_interval = study.solver->metrics().size() + analyses_of(study).derived.size();
  StoreTable intervals;
  intervals.name = "intervals";
  intervals.columns = {{"point_index", StoreTable::Type::integer}};
  for (std::size_t m = first_interval; m < header.metric_names.size(); ++m) {
    intervals.columns.push_back({header.metric_names[m], StoreTable::Type::real});
  }
  if (intervals.columns.size() == 1) {
    while (const ResultTable* block = blocks.next()) take(*block);
    store.drop_table("intervals");
  } else {
    const ResultTable* block = nullptr;
    std::size_t first = 0;
    store.write_table(intervals, store.row_count(), [&](std::size_t r, std::vector<std::string>&, std::vector<double>& numbers) {
      while (block == nullptr || r >= first + block->rows()) {
        if (block != nullptr) first += block->rows();
        block = blocks.next();
        if (block == nullptr) throw std::logic_error("the store holds fewer rows than it counts");
        take(*block);
      }
      const std::size_t row = r - first;
      numbers.push_back(static_cast<double>(block->point_index[row]));
      for (std::size_t m = first_interval; m < header.metric_names.size(); ++m) numbers.push_back(block->metric(row, m));
    });
    if (blocks.next() != nullptr) throw std::logic_error("the store holds more rows than it counts");
  }
  return results_csv(front_rows, rows_of_points(front_rows, front), fixed);
}

}  // namespace

// The sweep's rows come from the store; break-even and sensitivity analyses re-evaluate the solver
// at the points they need.
int analyse_and_render(const ResolvedStudy& study, ResultStore& store, const std::string& run_dir,
                       const std::string& template_dir, nlohmann::ordered_json& manifest,
                       const volatile std::sig_atomic_t* stop, bool trust_study_html) {
  const auto checkpoint = [stop] {
    if (stop != nullptr && *stop != 0) throw StopRequested{};
  };
  const auto start = Clock::now();
  const std::optional<SweepCounts> counts = stored_sweep_counts(store, study);
  const AnalysedRun analysed = analyse_run(study, read_report_rows(study, store), counts ? &*counts : nullptr);
  const ResultTable& all = analysed.table;       // every row, derived columns, constraints applied
  const ResultTable& results = analysed.shown();   // the rows the study's filters keep
  const std::vector<std::size_t>& front = analysed.fronts.rows;
  checkpoint();
  store.write_pareto(point_indices_of(results, front));
  const std::vector<FixedInput> fixed = fixed_inputs(study);
  AtomicFileWriter results_file(run_dir + "/results.csv");
  const auto to_results_file = [&results_file](std::string_view piece) { results_file.append(piece); };
  // Every column of every row: from the table when it holds them all (a study whose formulas read
  // every metric: its derived intervals are computed once), else read back from the store block by
  // block, the table holding only the columns the study reads.
  if (!analysed.columns_selected) {
    results_csv_pieces(all, fixed, to_results_file, 1 << 20);
    results_file.commit();
    write_file_atomic(run_dir + "/pareto.csv", results_csv(results, front, fixed));
  } else {
    write_derived_store_table(study, analysed, store);
    ResultTable header;
    header.axis_names = all.axis_names;
    header.metric_names = every_analysed_column(study, all);
    results_csv_pieces(header, fixed, to_results_file);
    const std::string pareto =
        write_every_column_outputs(study, store, header, point_indices_of(results, front), fixed, to_results_file);
    results_file.commit();
    write_file_atomic(run_dir + "/pareto.csv", pareto);
  }
  write_file_atomic(run_dir + "/comparisons.csv", comparisons_csv(evaluate_comparisons(study, all)));
  checkpoint();
  write_analysis_outputs(study, analysed, store, run_dir);

  const RunInfo info = run_info(study, store, all, counts);
  ReportInputs inputs{study, results, front, info, run_dir, template_dir};
  inputs.trust_study_html = trust_study_html;
  checkpoint();
  std::size_t figures_not_drawn = 0;
  const auto print_not_drawn = [&](const RenderedFigure& f) {
    if (f.error.empty()) return;
    ++figures_not_drawn;
    fmt::print(stderr, "dsx: error: {}\n", f.error);
  };
  const auto figures = render_figures(inputs);
  for (const RenderedFigure& f : figures) print_not_drawn(f);
  const std::vector<AnalysisFigure> analysis_figures = render_analysis_figures(study, analysed, run_dir);
  for (const AnalysisFigure& f : analysis_figures) print_not_drawn(f.figure);
  inputs.analysed = &analysed;
  inputs.analysis_figures = &analysis_figures;
  checkpoint();
  render_report(inputs, figures);
  manifest["rows"] = {{"points", info.points},
                      {"feasible", info.feasible},
                      {"infeasible", info.infeasible},
                      {"errors", info.errors},
                      {"pareto", front.size()}};
  manifest["rows"]["kept"] = info.kept_rows;
  manifest["rows"]["infeasible_by_reason"] = nlohmann::ordered_json::object();
  for (const auto& [reason, n] : info.infeasible_by_reason) manifest["rows"]["infeasible_by_reason"][reason] = n;
  manifest["rows"]["excluded_by_grid_constraint"] = nlohmann::ordered_json::object();
  for (const auto& [name, n] : info.excluded) manifest["rows"]["excluded_by_grid_constraint"][name] = n;
  manifest["timings_s"]["analyse_and_render"] = seconds_since(start);
  for (const std::string& line : failed_analysis_lines(analysed)) fmt::print(stderr, "dsx: error: {}\n", line);
  for (const ComputedValue& v : analysed.values) {
    if (!v.warning.empty()) fmt::print(stderr, "dsx: warning: {}\n", v.warning);
  }
  for (const std::string& line : failed_assertion_lines(study, analysed)) fmt::print(stderr, "dsx: {}\n", line);
  if (figures_not_drawn > 0) {
    fmt::print(stderr, "dsx: the report is written without {} figure{}; it says why in {} place\n",
               figures_not_drawn, figures_not_drawn == 1 ? "" : "s", figures_not_drawn == 1 ? "its" : "their");
  }
  if (!analysed.assertions_hold()) return kAssertionFailed;
  return analysed.analyses_ran() && figures_not_drawn == 0 ? kSuccess : kReportIncomplete;
}

namespace {

std::uint64_t stored_points_done(const ResultStore& store, const ResolvedStudy& study) {
  const std::optional<SweepCounts> counts = stored_sweep_counts(store, study);
  return counts ? counts->points_done : 0;
}

void print_summary(const nlohmann::ordered_json& manifest, double sweep_seconds, std::uint64_t evaluated) {
  const auto& rows = manifest["rows"];
  auto count = [&](const char* key) { return format_grouped(rows[key].get<double>()); };
  fmt::print(stderr, "dsx run: {} points: {} feasible, {} infeasible, {} errors; swept {} in {} ({})\n",
             count("points"), count("feasible"), count("infeasible"), count("errors"),
             format_grouped(static_cast<double>(evaluated)), format_si(sweep_seconds, "s"),
             sweep_seconds > 0 ? format_si(static_cast<double>(evaluated) / sweep_seconds, "points/s") : "n/a");
  for (const auto& [reason, n] : rows["infeasible_by_reason"].items()) {
    fmt::print(stderr, "  infeasible, {}: {}\n", reason, format_grouped(n.get<double>()));
  }
  for (const auto& [name, n] : rows["excluded_by_grid_constraint"].items()) {
    fmt::print(stderr, "  skipped by grid constraint {}: {}\n", name, format_grouped(n.get<double>()));
  }
  if (rows["kept"].get<double>() != rows["points"].get<double>()) {
    fmt::print(stderr, "  rows kept in the store: {}\n", count("kept"));
  }
}

}  // namespace

std::string template_dir_for(const std::string& option, const ResolvedStudy& study) {
  if (!option.empty()) return option;
  const std::string own = study.template_dir();
  return own.empty() ? default_template_dir() : own;
}

// Checked before any work, so a mistyped --template fails in the first second, not after the sweep.
bool report_templates_usable(std::string_view command, const std::string& template_dir) {
  try {
    check_report_templates(template_dir);
    return true;
  } catch (const std::runtime_error& e) {
    fmt::print(stderr, "dsx {}: error: the report templates cannot be used; nothing was done\n{}", command, e.what());
    return false;
  }
}

int run_command(const std::vector<std::string>& args) {
  po::options_description options("dsx run options");
  std::string file, out_dir, catalog_dir, template_dir, shard_text;
  unsigned threads = 0;
  std::uint64_t block_points = SweepOptions{}.block_points;
  bool fresh = false, quiet = false, trust_study_html = false;
  options.add_options()("study", po::value(&file)->required(), "study file")(
      "block-points", po::value(&block_points)->default_value(block_points),
      "points per committed block: what a kill can lose, and the unit mpirun ranks share")(
      "shard", po::value(&shard_text), "sweep only shard I of N (I/N) into this run folder; join them with dsx merge")(
      "out", po::value(&out_dir), "run folder (default runs/<study>)")(
      "threads", po::value(&threads)->default_value(0), "evaluation threads (0 = all cores); with more than one, the results store is written on a thread of its own")(
      "fresh", po::bool_switch(&fresh), "discard results already in the run folder")(
      "quiet", po::bool_switch(&quiet), "no progress output")(
      "trust-study-html", po::bool_switch(&trust_study_html),
      "render raw HTML in the study's text as HTML and leave out report.html's script-forbidding policy")(
      "catalog", po::value(&catalog_dir)->default_value(default_catalog_dir()), "catalog folder")(
      "template", po::value(&template_dir), "report template folder (default: the shipped templates)");
  po::positional_options_description positional;
  positional.add("study", 1);
  po::variables_map vm;
  if (auto code = parse_options("run", "dsx run STUDY.yaml [--out DIR] [--threads N] [--fresh] [--quiet] [--shard I/N]",
                                args, options, positional, vm)) {
    return *code;
  }
  constexpr unsigned kMaxThreads = 1024;  // far above any machine's cores; TBB fails past its own limits
  if (threads > kMaxThreads) {
    fmt::print(stderr, "dsx run: error: --threads {}: at most {} (0 uses every core, {} here)\n", threads, kMaxThreads,
               std::thread::hardware_concurrency());
    return kBadInput;
  }
  if (world_rank() > 0) return serve_sweep(threads);
  WorkerStart workers;  // under mpirun: stops the other ranks unless the sweep starts
  std::optional<ShardSpec> shard;
  if (!shard_text.empty()) {
    std::string problem;
    shard = parse_shard(shard_text, problem);
    if (!shard) {
      fmt::print(stderr, "dsx run: error: --shard {}: {}\n", shard_text, problem);
      return kBadInput;
    }
  }
  const auto start = Clock::now();
  // SIGINT and SIGTERM only set a flag for the whole command: the sweep stops after the block in
  // hand, the report step at its next file; either way the run exits 1 and says how to continue.
  const StopOnSignal stop_on_signal;
  Diagnostics diags;
  auto loaded = load_study(file, catalog_dir, diags);
  if (!loaded) {
    fmt::print(stderr, "{}", diags.format());
    return kBadInput;
  }
  const ResolvedStudy& study = *loaded;
  if (!shard && !report_templates_usable("run", template_dir_for(template_dir, study))) return kBadInput;
  const std::string run_dir = out_dir.empty() ? "runs/" + study.name : out_dir;
  const RunFolderClaim claim = claim_run_folder(run_dir, "dsx run " + file, WhenHeld::fail);
  if (!claim.lock) {
    fmt::print(stderr, "dsx run: error: {}\n", claim.error);
    return claim.not_a_run_folder ? kBadInput : kRuntimeFailure;
  }
  const std::string store_path = result_store_path(run_dir);
  if (fresh) {
    // Start over: results and everything rendered from them, never a file dsx did not write.
    remove_result_store(store_path);
    const std::vector<std::string> left = remove_written_files(run_dir);
    if (!left.empty()) {
      fmt::print(stderr, "dsx run: --fresh left {} file{} in {} that dsx did not write: {}{}\n", left.size(),
                 left.size() == 1 ? "" : "s", run_dir, left.front(), left.size() > 1 ? ", ..." : "");
    }
  }

  ResultStore store(store_path);
  record_written_file(store_path);
  // What the stored rows depend on (dse/result_identity.hpp): a study whose title, prose or figures
  // changed resumes, re-rendered with the new text; one whose grid or inputs changed is refused.
  const std::vector<std::pair<std::string, std::string>> identity = {
      {kResultIdentityKey, result_identity(study)},
      {"catalog_hash", catalog_hash(study.catalog)},
      {"dsx_version", DSX_VERSION},
      {kShardKey, shard ? shard->text() : ""},
      {kPhysicsFingerprintKey, physics_fingerprint(study)},
  };
  if (store.has_results()) {
    // A folder of a dsx that recorded only the hash of the whole study text resumes only that text.
    const bool before_identity = !store.meta(kResultIdentityKey);
    const std::pair<std::string, std::string> text_hash = {"study_hash", study.content_hash};
    for (const auto& [key, value] : identity) {
      const auto& [shown_key, expected] = before_identity && key == kResultIdentityKey ? text_hash : std::pair{key, value};
      const std::string stored = store.meta(shown_key).value_or("");
      if (stored == expected) continue;
      if (key == kPhysicsFingerprintKey) {
        fmt::print(stderr,
                   "dsx run: error: {} holds rows that another version of the {} solver computed: its results at "
                   "the study's probe points differ ({} {} there, {} now), so resuming would mix two physics\n"
                   "  to start over in this folder: dsx run {} --fresh\n",
                   run_dir, study.solver->name(), shown_key, stored.empty() ? "missing" : stored, expected, file);
        return kBadInput;
      }
      fmt::print(stderr,
                 "dsx run: error: {} holds a run of a different study: {} is {} there and {} now\n"
                 "  to start over in this folder: dsx run {} --fresh\n",
                 run_dir, shown_key, stored.empty() ? "missing" : stored, expected, file);
      return kBadInput;
    }
  }
  store.set_meta(identity);
  store.set_meta("study_hash", study.content_hash);  // of the text this run read: what the report cites
  store.set_meta("git_revision", DSX_GIT_REVISION);
  store.set_meta("study_file", file);
  const std::string resolved = resolved_study_yaml(study);
  write_file_atomic(run_dir + "/study.resolved.yaml", resolved);
  store.set_meta(kResolvedStudyHashKey, resolved_study_hash(resolved));

  store.ensure_schema(make_result_table(study));
  const Grid grid(study);
  const PointRange range = shard ? shard_range(*shard, grid.size()) : PointRange{0, grid.size()};
  if (shard) {
    const std::vector<std::pair<std::string, std::string>> bounds = {{kShardFirstKey, std::to_string(range.first)},
                                                                      {kShardEndKey, std::to_string(range.end)}};
    store.set_meta(bounds);
  }
  const std::uint64_t total = range.end - range.first;
  const std::uint64_t stored_done = store.has_results() ? stored_points_done(store, study) : 0;
  const std::uint64_t resumed = stored_done > range.first ? stored_done - range.first : 0;
  if (!quiet) {
    const bool keeps_all = analyses_of(study).keep.all;
    fmt::print(stderr, "dsx run: {} design points{}{}{}\n", format_grouped(static_cast<double>(total)),
               shard ? fmt::format(" (shard {}: points {} to {} of {})", shard->text(), range.first, range.end - 1,
                                   grid.size())
                     : "",
               keeps_all ? "" : "; keeping " + keep_description(study),
               resumed > 0 ? fmt::format(", resuming after {} done", format_grouped(static_cast<double>(resumed)))
                           : "");
  }
  const auto sweep_start = Clock::now();
  std::uint64_t next = resumed;
  {
    SweepProgress progress;
    std::optional<ProgressReporter> reporter;
    if (!quiet && resumed < total) reporter.emplace(progress, total, resumed, isatty(STDERR_FILENO) != 0);
    SweepOptions options;
    options.threads = threads;
    options.stop = &g_stop_signal;
    options.progress = &progress;
    options.first = range.first;
    options.end = range.end;
    options.block_points = block_points;
    workers.go(resolved);
    next = coordinate_sweep(study, grid, store, options).points_done - range.first;
    if (reporter) reporter->stop();
  }
  const double sweep_seconds = seconds_since(sweep_start);
  if (next < total) {
    fmt::print(stderr,
               "dsx run: stopped by signal {} after {} of {} points; the results of every evaluated point are committed to {}\n"
               "  to continue where it stopped: dsx run {}{}{}\n",
               static_cast<int>(g_stop_signal), format_grouped(static_cast<double>(next)),
               format_grouped(static_cast<double>(total)), store_path, file,
               out_dir.empty() ? "" : " --out " + out_dir, shard ? " --shard " + shard->text() : "");
    return kRuntimeFailure;
  }
  const auto stopped_before_report = [&](const char* when) {
    fmt::print(stderr,
               "dsx run: stopped by signal {} {}; the results of every point are committed to {}\n"
               "  to write the report: dsx report {}\n",
               static_cast<int>(g_stop_signal), when, store_path, run_dir);
    return kRuntimeFailure;
  };
  if (g_stop_signal != 0 && !shard) return stopped_before_report("after the sweep, before the report");
  if (shard) {
    if (!quiet) {
      fmt::print(stderr, "dsx run: shard {} done: {} points in {}\n", shard->text(),
                 format_grouped(static_cast<double>(total)), format_si(sweep_seconds, "s"));
    }
    fmt::print("shard {}: {}\n  when every shard is done: dsx merge OUT {}\n", shard->text(), run_dir,
               "SHARD_DIR...");
    return kSuccess;
  }

  nlohmann::ordered_json manifest;
  manifest["dsx_version"] = DSX_VERSION;
  manifest["git_revision"] = DSX_GIT_REVISION;
  manifest["study"] = file;
  manifest["study_hash"] = study.content_hash;
  manifest[kResultIdentityKey] = result_identity(study);
  manifest["catalog_hash"] = catalog_hash(study.catalog);
  manifest[kPhysicsFingerprintKey] = store.meta(kPhysicsFingerprintKey).value_or("");
  manifest["threads"] = threads == 0 ? std::thread::hardware_concurrency() : threads;
  manifest["resumed_after_points"] = resumed;
  manifest["timings_s"]["sweep"] = sweep_seconds;
  int status = kSuccess;
  try {
    status = analyse_and_render(study, store, run_dir, template_dir_for(template_dir, study), manifest, &g_stop_signal,
                                trust_study_html);
  } catch (const StopRequested&) {
    return stopped_before_report("while writing the report");
  } catch (const std::exception&) {
    // The signal also reached a child (gnuplot shares the terminal's process group).
    if (g_stop_signal != 0) return stopped_before_report("while writing the report");
    throw;
  }
  manifest["timings_s"]["total"] = seconds_since(start);
  write_file_atomic(run_dir + "/manifest.json", manifest.dump(2) + "\n");
  if (!quiet) print_summary(manifest, sweep_seconds, total - resumed);
  fmt::print("report: {}/report.html\n        {}/report.md\n", run_dir, run_dir);
  return status;
}

int report_command(const std::vector<std::string>& args) {
  po::options_description options("dsx report options");
  std::string run_dir, template_dir;
  bool trust_study_html = false;
  options.add_options()("run", po::value(&run_dir)->required(), "run folder written by dsx run")(
      "template", po::value(&template_dir), "report template folder (default: the shipped templates)")(
      "trust-study-html", po::bool_switch(&trust_study_html),
      "render raw HTML in the study's text as HTML and leave out report.html's script-forbidding policy");
  po::positional_options_description positional;
  positional.add("run", 1);
  po::variables_map vm;
  if (auto code = parse_options("report", "dsx report RUN_DIR [--template DIR] [--trust-study-html]", args, options, positional, vm)) {
    return *code;
  }
  const std::string resolved = run_dir + "/study.resolved.yaml";
  const std::string store_path = result_store_path(run_dir);
  if (!std::filesystem::exists(resolved) || !std::filesystem::exists(store_path)) {
    fmt::print(stderr, "dsx report: error: {} is not a run folder (needs study.resolved.yaml and results.sqlite)\n",
               run_dir);
    return kBadInput;
  }
  const RunFolderClaim claim =
      claim_run_folder(run_dir, "dsx report " + run_dir, WhenHeld::wait, [&](std::string_view holder) {
        fmt::print(stderr, "dsx report: {} is in use by {}; waiting for it to finish\n", run_dir, holder);
      });
  if (!claim.lock) {
    fmt::print(stderr, "dsx report: error: {}\n", claim.error);
    return claim.not_a_run_folder ? kBadInput : kRuntimeFailure;
  }
  Diagnostics diags;
  // The resolved study carries every catalog entry it uses: no catalog folder is read, so later
  // catalog edits cannot change a re-rendered report.
  auto study = load_study(resolved, "", diags);
  if (!study) {
    fmt::print(stderr, "{}", diags.format());
    return kBadInput;
  }
  if (!report_templates_usable("report", template_dir_for(template_dir, *study))) return kBadInput;
  ResultStore store(store_path, StoreMode::read_write);
  if (const std::string problem = store_mismatch(store, *study, read_file(resolved)); !problem.empty()) {
    fmt::print(stderr, "dsx report: error: {}\n  to sweep the study again: dsx run STUDY.yaml --out {} --fresh\n",
               problem, run_dir);
    return kRuntimeFailure;
  }
  study->file = store.meta("study_file").value_or(study->file);
  nlohmann::ordered_json manifest;
  const std::string manifest_path = run_dir + "/manifest.json";
  if (std::filesystem::exists(manifest_path)) manifest = nlohmann::ordered_json::parse(read_file(manifest_path));
  const StopOnSignal stop_on_signal;
  int status = kSuccess;
  try {
    status = analyse_and_render(*study, store, run_dir, template_dir_for(template_dir, *study), manifest, &g_stop_signal,
                                trust_study_html);
  } catch (const std::exception&) {
    if (g_stop_signal == 0) throw;
  } catch (const StopRequested&) {
  }
  if (g_stop_signal != 0) {
    fmt::print(stderr, "dsx report: stopped by signal {}; to finish the report: dsx report {}\n",
               static_cast<int>(g_stop_signal), run_dir);
    return kRuntimeFailure;
  }
  write_file_atomic(manifest_path, manifest.dump(2) + "\n");
  fmt::print("report: {}/report.html\n        {}/report.md\n", run_dir, run_dir);
  return status;
}

}  // namespace dsx::cli
