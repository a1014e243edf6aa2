// Whether a kept figure script (keep_script, studies/README.md "figures") still fits the data it
// will read: the study may have changed since the script was kept, so that NAME.dat now has fewer
// columns or fewer `index` blocks than the script names. gnuplot itself would draw such a script
// with a column missing or stop mid-way; this check refuses it first, saying which reference and
// what the data now holds.
//
// A reference is an integer literal, outside comments, strings and datablocks, in any of:
//  - a `using` (or `u`) specification, each ':'-separated entry that is a bare column number:
//    `using 1:5`;
//  - `$N` in an expression: `using 1:($6*1e3)`;
//  - column(N), stringcolumn(N), strcol(N), valid(N) and the tick-label functions xtic(N),
//    xticlabels(N) (and y, x2, y2, z, cb);
//  - `index N` or `index N:M` (also abbreviated to `i`): blocks are counted from 0.
// Columns computed at run time (`column(i)`, `index i`) cannot be checked and are let through;
// gnuplot reports them if they are wrong. A reference is checked against the widest block of the
// data: a data file with no rows is not checked at all.
#pragma once

#include <optional>
#include <string_view>

#include "output/gnuplot_script_check.hpp"

namespace dsx {

// The first column or block that `script` reads but `data` (the text of `data_name`) lacks, with its
// place in the script; none when every literal reference fits. The message names the reference,
// what the data now holds and its `# columns:` header line when it has one.
std::optional<ScriptHazard> gnuplot_data_mismatch(std::string_view script, std::string_view data,
                                                  std::string_view data_name);

}  // namespace dsx
