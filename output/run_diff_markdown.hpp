// `dsx diff --markdown FILE`: the comparison of two runs (dse/run_diff.hpp) as a Markdown section
// ("## Changes from A to B") a report can include. Every value from the runs (folder names, study
// paths and values, labels, reasons) goes through markdown_escape (output/report.hpp), so a study's
// text cannot put markup into the page that includes it.
#pragma once

#include <string>

#include "dse/run_diff.hpp"

namespace dsx {

std::string run_diff_markdown(const RunDiff& diff);

}  // namespace dsx
