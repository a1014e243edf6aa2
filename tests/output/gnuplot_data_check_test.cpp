// A kept figure script against the data it will read (output/gnuplot_data_check.hpp): a column or
// `index` block the .dat no longer has is refused at its place in the script with what the data now
// holds; every reference that fits, one computed at run time, and text in comments, strings and
// datablocks pass.
#include "output/gnuplot_data_check.hpp"

#include <gtest/gtest.h>

#include <string>

namespace dsx {
namespace {

// Two blocks of five columns, the second row of block 1 with a quoted label as one column.
const std::string kData =
    "# dsx figure data 'f' (line plot, study 's')\n"
    "# columns: x y point_index design_point hover\n"
    "# index 0: a\n"
    "1 2 0 \"hardware=a b\" \"x 1\"\n"
    "2 3 1 \"hardware=a c\" \"x 2\"\n"
    "\n\n"
    "# index 1: b\n"
    "1 4 2 \"hardware=b b\" \"x 3\"\n";

std::string says(const std::string& script) {
  const auto m = gnuplot_data_mismatch(script, kData, "f.dat");
  return m ? std::to_string(m->line) + ":" + std::to_string(m->column) + ": " + m->what : "";
}

TEST(GnuplotDataCheck, ReferencesThatFitPass) {
  for (const char* script : {
           "plot \"f.dat\" index 0 using 1:2 with lines, \"\" index 1 using ($1*1e6):($2*1e2):5 with labels\n",
           "plot \"f.dat\" i 1 u 1:(column(2)):xtic(4) w lp\n",
           "plot \"f.dat\" index 0:1 using 0:(valid(5) ? $5 : 1/0)\n",
           "plot for [i=0:7] \"f.dat\" index i using 1:(column(i))\n",  // computed: gnuplot's to check
           "# plot \"f.dat\" using 1:9 index 4\n"                        // a comment
           "set title \"using 1:9, $9 and index 4\"\nplot \"f.dat\" using 1:2\n",
           "$block << EOD\n1 2 3 4 5 6 7 8 9\nusing 1:9 index 4 $9\nEOD\nplot $block using 1:2, \"f.dat\" using 1:2\n",
           "set xrange [0:12]\nset xtics 0, 5\nx = 1.5e3; y = 10:\nplot \"f.dat\" using 1:2 every 2::1\n",
       }) {
    EXPECT_EQ(says(script), "") << script;
  }
}

TEST(GnuplotDataCheck, AColumnTheDataNoLongerHasIsRefusedWhereItIsRead) {
  struct Case {
    const char* script;
    const char* says;
  };
  for (const Case& c : {
           Case{"plot \"f.dat\" using 1:6 with lines\n", "1:22: the script reads column 6 of f.dat"},
           Case{"set key\nplot \"f.dat\" u 1:($6*1e3)\n", "2:19: the script reads column 6 of f.dat"},
           Case{"plot \"f.dat\" using 1:(column(7))\n", "1:30: the script reads column 7 of f.dat"},
           Case{"plot \"f.dat\" using 2:xtic(6)\n", "1:27: the script reads column 6 of f.dat"},
           Case{"plot \"f.dat\" using 1:2:(0.5):6 with labels\n", "1:30: the script reads column 6 of f.dat"},
           Case{"plot \"f.dat\" using 1:2, \\\n     \"\" using 1:12\n", "2:17: the script reads column 12 of f.dat"},
       }) {
    const std::string got = says(c.script);
    EXPECT_EQ(got.substr(0, std::string(c.says).size()), c.says) << c.script << "\n" << got;
  }
  EXPECT_EQ(says("plot \"f.dat\" using 1:6\n"),
            "1:22: the script reads column 6 of f.dat, which now has 5 columns "
            "(its header: # columns: x y point_index design_point hover)");
}

TEST(GnuplotDataCheck, ABlockTheDataNoLongerHasIsRefused) {
  EXPECT_EQ(says("plot \"f.dat\" index 0 using 1:2, \"\" index 3 using 1:2\n"),
            "1:42: the script reads index 3 (block 4) of f.dat, which now has 2 blocks "
            "(index 0 to 1; its header: # columns: x y point_index design_point hover)");
  EXPECT_NE(says("plot \"f.dat\" index 0:2 using 1:2\n").find("reads index 2 (block 3)"), std::string::npos);
  EXPECT_NE(says("plot \"f.dat\" i 2 u 1:2\n").find("reads index 2"), std::string::npos);
}

TEST(GnuplotDataCheck, TheFirstMismatchInTheScriptIsTheOneReported) {
  EXPECT_EQ(says("plot \"f.dat\" using ($9):7\n").substr(0, 45), "1:21: the script reads column 9 of f.dat, whi");
}

TEST(GnuplotDataCheck, DataWithoutRowsOrHeaderIsJudgedByWhatItHas) {
  EXPECT_FALSE(gnuplot_data_mismatch("plot \"e.dat\" using 1:9 index 5\n", "# no rows\n", "e.dat").has_value());
  const auto m = gnuplot_data_mismatch("plot \"g.dat\" using 1:3\n", "1 2\n3 4\n", "g.dat");
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->what, "the script reads column 3 of g.dat, which now has 2 columns (it has no '# columns:' line)");
}

}  // namespace
}  // namespace dsx
