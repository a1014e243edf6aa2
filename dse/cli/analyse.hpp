// The step after a sweep, shared by `dsx run`, `dsx merge` and `dsx report`: analyse the rows a
// run folder's store holds and write its CSVs, figures and report.
#pragma once

#include <csignal>
#include <nlohmann/json.hpp>
#include <string>

#include "dse/store.hpp"
#include "dse/study.hpp"

namespace dsx::cli {

// Derived metrics, constraints and filters, Pareto fronts, the study's declared analyses, CSV,
// figures, report; fills the manifest's row counts and timing. Returns the exit code: 3 when an
// assertion failed, else 5 when a figure was not drawn or an analysis could not run (each printed on
// stderr; the report is written with a note in its place). When `stop`
// becomes nonzero (SIGINT, SIGTERM) it throws StopRequested before its next file: every file it
// wrote is whole (written atomically), and `dsx report` writes the rest. `trust_study_html`:
// output/report.hpp, markdown_page_html.
struct StopRequested {};
int analyse_and_render(const ResolvedStudy& study, ResultStore& store, const std::string& run_dir,
                       const std::string& template_dir, nlohmann::ordered_json& manifest,
                       const volatile std::sig_atomic_t* stop = nullptr, bool trust_study_html = false);

// --template wins, then the study's own `template:` folder, then the shipped templates.
std::string template_dir_for(const std::string& option, const ResolvedStudy& study);

}  // namespace dsx::cli
