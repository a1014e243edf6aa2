// Table cells in the report: a value or an interval never breaks across lines, in report.md and
// report.html; prose columns get room and wrap at spaces only (output/table_cells.hpp).
#include "output/table_cells.hpp"

#include <gtest/gtest.h>

#include <string>

namespace dsx {
namespace {

const std::string kNbsp = "\xC2\xA0";

TEST(TableCells, AValueOrAnIntervalKeepsItsSpacesUnbroken) {
  EXPECT_EQ(keep_value_whole(" 1.20 ms to 1.50 ms "), " 1.20" + kNbsp + "ms" + kNbsp + "to" + kNbsp + "1.50" + kNbsp + "ms ");
  EXPECT_EQ(keep_value_whole(" [0.120, 0.150] "), " [0.120," + kNbsp + "0.150] ");
  EXPECT_EQ(keep_value_whole("+12 % / -30 %"), "+12" + kNbsp + "%" + kNbsp + "/" + kNbsp + "-30" + kNbsp + "%");
  EXPECT_EQ(keep_value_whole("25.0 k USD"), "25.0" + kNbsp + "k" + kNbsp + "USD");
  EXPECT_EQ(keep_value_whole("15.0 \u00b5s"), "15.0" + kNbsp + "\u00b5s");
  // Lists of values, prose and words wrap as text does.
  EXPECT_EQ(keep_value_whole(" 5 \u00b5s, 10 \u00b5s, 20 \u00b5s "), " 5 \u00b5s, 10 \u00b5s, 20 \u00b5s ");
  EXPECT_EQ(keep_value_whole("3 GPUs idle because the queue is empty"), "3 GPUs idle because the queue is empty");
  EXPECT_EQ(keep_value_whole("hardware = h100_sxm"), "hardware = h100_sxm");
  EXPECT_EQ(keep_value_whole("agrees"), "agrees");
}

TEST(TableCells, OnlyTableRowsChange) {
  const std::string md =
      "The range is 1.2 ms to 1.5 ms.\n\n| input | range |\n|---|---:|\n| eta | 0.40 to 0.60 |\n| a \\| b | 1 s to 2 s |\n";
  const std::string out = keep_table_values_whole(md);
  EXPECT_NE(out.find("The range is 1.2 ms to 1.5 ms.\n"), std::string::npos) << out;
  EXPECT_NE(out.find("| eta | 0.40" + kNbsp + "to" + kNbsp + "0.60 |\n"), std::string::npos) << out;
  EXPECT_NE(out.find("| a \\| b | 1" + kNbsp + "s" + kNbsp + "to" + kNbsp + "2" + kNbsp + "s |\n"), std::string::npos) << out;
  EXPECT_NE(out.find("|---|---:|\n"), std::string::npos) << out;
}

TEST(TableCells, SourceAndExplanationColumnsAreProseAndTheirTablesWide) {
  const std::string html =
      "<p>x</p>\n<table>\n<thead>\n<tr>\n<th>comparison</th>\n<th>source</th>\n<th align=\"right\">dsx</th>\n"
      "<th>explanation</th>\n</tr>\n</thead>\n<tbody>\n<tr>\n<td>a</td>\n<td>Llama 3 config</td>\n"
      "<td align=\"right\">1 ms</td>\n<td>why</td>\n</tr>\n</tbody>\n</table>\n"
      "<table>\n<thead>\n<tr>\n<th>axis</th>\n<th>values</th>\n</tr>\n</thead>\n<tbody>\n<tr>\n<td>batch</td>\n"
      "<td>1, 8</td>\n</tr>\n</tbody>\n</table>\n";
  const std::string out = mark_table_columns(html);
  EXPECT_NE(out.find("<table class=\"wide\">\n<thead>"), std::string::npos) << out;
  EXPECT_NE(out.find("<th class=\"prose\">source</th>"), std::string::npos) << out;
  EXPECT_NE(out.find("<th class=\"prose\">explanation</th>"), std::string::npos) << out;
  EXPECT_NE(out.find("<td class=\"prose\">Llama 3 config</td>\n<td align=\"right\">1 ms</td>\n<td class=\"prose\">why</td>"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("<td>a</td>"), std::string::npos) << out;
  // A small table without prose columns is left alone.
  EXPECT_NE(out.find("<table>\n<thead>\n<tr>\n<th>axis</th>"), std::string::npos) << out;
  EXPECT_EQ(out.size(), html.size() + std::string(" class=\"wide\"").size() + 4 * std::string(" class=\"prose\"").size());
  // Prose wraps at spaces, never inside a word, and has room.
  const std::string style(table_column_style());
  EXPECT_NE(style.find("overflow-wrap: normal"), std::string::npos);
  EXPECT_NE(style.find("min-width"), std::string::npos);
}

}  // namespace
}  // namespace dsx
