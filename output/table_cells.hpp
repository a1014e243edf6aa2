// How the report's tables hold their cells, in report.md and report.html alike.
//
// A value or an interval stays on one line: in a Markdown table row, a cell that is a number with
// its unit, or two of them ("1.20 ms to 1.50 ms", "[0.120, 0.150]", "+12 % / -30 %", "25.0 k USD"),
// has its spaces made non-breaking (U+00A0), so neither a Markdown viewer nor the browser breaks it
// between a number and its unit or in the middle of the interval. Lists of values ("5 µs, 10 µs,
// 20 µs") and words wrap as text does.
//
// Columns of prose in report.html (a table's "source" and "explanation" columns) get room: their
// cells take class="prose", which sets a minimum width and wraps at spaces only, never inside a word;
// a table with such a column, or with seven columns or more, takes class="wide" and may use the width
// of the window beside the text column (at 1280 px, some 1,200 px instead of 900), so its numbers
// keep their columns without a scroll bar.
#pragma once

#include <string>
#include <string_view>

namespace dsx {

// The cell's text with its spaces non-breaking when it is one value or an interval (above).
std::string keep_value_whole(std::string_view cell);
// Every table row of `markdown` ("| a | b |" lines) with keep_value_whole applied to each cell.
std::string keep_table_values_whole(std::string_view markdown);
// md4c's HTML with the classes above on tables and their prose columns.
std::string mark_table_columns(const std::string& html);
// The style of those classes, for the page's <style>.
std::string_view table_column_style();

}  // namespace dsx
