// Sortable tables in report.html: one short script, inline in the page, makes every table with a
// header and at least two rows sort by the column whose header a reader clicks (or focuses and
// presses Enter); a second click sorts the other way. A column whose cells are all numbers, as
// output/format.hpp writes them ("1,024", "15.0 us", "1.00 ms", "203 days", "80.0 GiB", "33.3 %",
// "2,150 samples/s"), sorts by value, prefixes and calendar units taken into account; any other
// column sorts as text, digits by value ("b200" after "a100"). Empty and "n/a" cells stay last.
// The script loads nothing; the report's Content-Security-Policy allows it by its SHA-256 and no
// other script.
#pragma once

#include <string>
#include <string_view>

namespace dsx {

// The script's text, without the <script> element around it.
std::string_view sortable_tables_script();

// The Content-Security-Policy source that allows an inline script whose text is exactly `script`:
// "'sha256-" + base64 of its SHA-256 digest + "'" (CSP Level 3, section 8.4).
std::string csp_script_hash_source(std::string_view script);

// The style of the headers a reader can click: a pointer, and an arrow after the one the table is
// sorted by (up ascending, down descending).
std::string_view sortable_tables_style();

// `html` with the script as an inline <script> element before its last </body> (at its end when it
// has none), and a <style> element of sortable_tables_style() and `extra_style` before the template's
// first <style> in its <head> (else before </head>, else at its start). Every report template gets
// both, a study's own included; its own style comes later in the page and wins where it sets the same
// thing.
std::string with_sortable_tables(std::string html, std::string_view extra_style = {});

}  // namespace dsx
