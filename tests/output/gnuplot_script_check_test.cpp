// What a figure script may not do before gnuplot runs it (output/gnuplot_script_check.hpp): run a
// shell or another script, or write outside its folder, also abbreviated or hidden in an escape;
// while the house style, its terminals and text that only mentions such words pass.
#include "output/gnuplot_script_check.hpp"

#include <gtest/gtest.h>

#include <string>

#include "output/figures.hpp"

namespace dsx {
namespace {

TEST(GnuplotScriptCheck, AFigureScriptAndHarmlessTextPass) {
  const std::string script = house_style() +
                             "set title \"system load, shell, `ls` and save as text\" noenhanced\n"
                             "set key title \"\\nSeries\" noenhanced\n"
                             "# system(\"ls\") in a comment\n"
                             "set print $log\nunset output\nload_factor = 2; if (load_factor > 1) x = 1\n" +
                             house_terminals("fig", 17, 10, "plot \"fig.dat\" index 0 using 1:2 with l lt 1 title 'a'");
  // A backquote inside a string on a code line is refused (gnuplot expands it there too), so the
  // title above must not count: check the script without it first.
  std::string no_backquote = script;
  no_backquote.erase(no_backquote.find("`ls` and "), 9);
  const auto passed = gnuplot_script_hazard(no_backquote);
  EXPECT_FALSE(passed.has_value()) << passed->line << ": " << passed->what;
  EXPECT_TRUE(gnuplot_script_hazard(script).has_value());
}

TEST(GnuplotScriptCheck, WhatWouldRunACommandOrWriteElsewhereIsRefused) {
  struct Case {
    const char* script;
    const char* says;  // "LINE:COLUMN: what" or its start
  };
  for (const Case& c : {
           Case{"set title \"ok\"\nx = `id`\n", "2:5: a backquote"},
           Case{"x = system(\"id\")\n", "1:5: 'system' runs a shell command"},
           Case{"sys \"id\"\n", "'sys' runs a shell command"},
           Case{"sh\n", "'sh' starts a shell"},
           Case{"! id\n", "'!' at the start of a command"},
           Case{"set grid; !id\n", "1:11: '!' at the start of a command"},
           Case{"if (1) !id\n", "'!' at the start of a command"},
           Case{"l \"other.gp\"\n", "'l' at the start of a command"},
           Case{"if (1) { l 'other.gp' }\n", "'l' at the start of a command"},
           Case{"load \"other.gp\"\n", "'load' runs another script"},
           Case{"ca 'other.gp'\n", "'ca' runs another script"},
           Case{"eval \"x=1\"\n", "'eval' runs a command"},
           Case{"cmd = \"x\"\n@cmd\n", "2:1: '@' expands a macro"},
           Case{"import f(x) from \"lib.so\"\n", "'import' loads a plugin"},
           Case{"sa \"state.gp\"\n", "'sa' writes a file"},
           Case{"cd \"/tmp\"\n", "'cd' changes the folder"},
           Case{"plot \"< id\" using 1:2\n", "names a pipe"},
           Case{"plot \"\\074id\"\n", "names a pipe"},
           Case{"plot \"\\x3cid\"\n", "starts with an escape"},
           Case{"set output \"|lpr\"\n", "names a pipe"},
           Case{"set output \"../../x.svg\"\n", "'output' may write only a plain file name"},
           Case{"set o \"a\".\"/b\"\n", "'o' may write only a plain file name"},
           Case{"name = \"x.svg\"\nset output name\n", "2:5: 'output' takes a file name written as one string"},
           Case{"set print \"/tmp/x\"\n", "'print' may write only a plain file name"},
           Case{"set table \".hidden\"\n", "'table' may write only a plain file name"},
           Case{"set fit logfile \"/tmp/fit.log\"\n", "'logfile' may write only a plain file name"},
       }) {
    const auto hazard = gnuplot_script_hazard(c.script);
    ASSERT_TRUE(hazard.has_value()) << c.script;
    const std::string said = std::to_string(hazard->line) + ":" + std::to_string(hazard->column) + ": " + hazard->what;
    EXPECT_NE(said.find(c.says), std::string::npos) << c.script << " -> " << said;
  }
}

}  // namespace
}  // namespace dsx
