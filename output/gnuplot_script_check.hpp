// Whether a gnuplot script may run: the check every figure script passes before gnuplot sees it,
// the generated ones and those a study keeps by hand (keep_script, studies/README.md "figures").
//
// A figure script only reads its NAME.dat and writes NAME.svg, NAME.pdf and NAME.png beside it. The
// check refuses, outside comments and string literals unless said otherwise, whatever would do more:
//  - a backquote anywhere on a line that is not a comment (gnuplot hands `...` to the shell, inside
//    double-quoted strings too);
//  - the commands and functions that run a shell or other scripts, also abbreviated as gnuplot
//    accepts them: system, shell, `!` at the start of a command, load (a lone `l` only where a
//    command starts, since `with l` draws lines), call, evaluate, save, import, cd; and `@`, a
//    macro, which can build any of these from strings;
//  - a string that starts with `<` or `|` (a file name gnuplot reads from or writes to a pipe);
//  - `set output`, `set print`, `set table` or `fit`'s `logfile` naming anything but a plain file
//    name in the script's folder (a literal string without '/', not starting with '.', not built
//    from other strings) or a datablock.
// It reads the text as gnuplot 5.4 does and errs towards refusing (a title string starting with '<'
// is refused too). It is a guard, not a sandbox: a script can still compute a pipe's name at run
// time (sprintf("%c", 60) is '<'), so a kept script should be one its reader wrote or read.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace dsx {

// Where and why a script may not run.
struct ScriptHazard {
  std::size_t line = 0, column = 0;  // 1-based; the column counts characters
  std::string what;                  // "'system' runs a shell command"
};

// The first thing in `script` that may not run; none when it may.
std::optional<ScriptHazard> gnuplot_script_hazard(std::string_view script);

}  // namespace dsx
