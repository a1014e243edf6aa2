// CSV exports of a run's results: results.csv (every row) and pareto.csv (the front's rows).
//
// Format: RFC 4180 fields (a field holding a comma, a double quote, CR or LF is enclosed in double
// quotes, and each double quote inside it is doubled); records end with LF. Columns: point_index,
// the axis names, the fixed inputs (every solver parameter that is not swept, with its value as the
// study wrote it or the default/calibrated value it took, the same in every row, so that the CSVs of
// two studies can be concatenated without losing what distinguished them), status, detail, the metric
// names. Without fixed inputs this is the layout of the store's results table.
// Numbers are written in the C locale as the shortest decimal that reads back to the same double
// (fmt's default format, which uses the Dragonbox algorithm: J. Jeon, 2020), so every value round-trips exactly through strtod;
// NaN is an empty field, infinities are "inf" and "-inf", and -0.0 is written "0" because the
// result store cannot keep the sign of a zero (dse/store.hpp) and a CSV re-rendered from the store
// must equal the one written by the sweep byte for byte.
//
// Text is returned rather than written so that it can be tested; the caller writes it with
// output/files.hpp write_file_atomic, or, for every row of a large run, takes it in pieces
// (results_csv_pieces) and appends them to an AtomicFileWriter, so the export never sits in
// memory whole.
#pragma once

#include <cstddef>
#include <functional>
#include <span>
#include <string>
#include <string_view>

#include "dse/results.hpp"

namespace dsx {

// Every row of `table`, in table order.
std::string results_csv(const ResultTable& table, std::span<const FixedInput> fixed = {});
// The same text handed to `sink` in pieces of whole records, each about `piece_bytes` long (the
// header first, with the first records; none when `header` is false, for the rows of a table that
// continues another under the same columns).
void results_csv_pieces(const ResultTable& table, std::span<const FixedInput> fixed,
                        const std::function<void(std::string_view)>& sink, std::size_t piece_bytes = 1 << 20,
                        bool header = true);
// The given rows of `table`, in the order given, under the same header. Throws
// std::invalid_argument for a row the table does not hold.
std::string results_csv(const ResultTable& table, std::span<const std::size_t> rows,
                        std::span<const FixedInput> fixed = {});
// The rows of a Pareto front (row indices as dse/pareto.hpp returns them), in ascending row order.
std::string pareto_csv(const ResultTable& table, std::span<const std::size_t> front_rows);

// One field, quoted when it must be.
void append_csv_field(std::string& out, std::string_view field);
// One number as described above.
void append_csv_number(std::string& out, double value);

}  // namespace dsx
