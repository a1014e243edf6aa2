// Numbers as a reader of a report or a figure sees them: significant figures, SI prefixes with
// units, percentages for shares, and thousands separators for counts. One formatter serves the
// report tables, the captions and the figure axes, so a value reads the same everywhere.
//
// Conventions (BIPM SI Brochure, 9th ed., sections 3 and 5.4): a space between number and unit,
// decimal prefixes (k = 1e3 ... E = 1e18, m = 1e-3 ... p = 1e-12; micro is "µ", U+00B5), "%" also
// after a space. Bytes use binary prefixes (KiB, MiB, GiB, TiB; IEC 80000-13) only when the value is
// an exact multiple of one, so "80 GiB" of device memory stays 80.0 GiB and 40 GB stays 40.0 GB.
// Rounding is to significant figures with trailing zeros kept (15e-6 s -> "15.0 µs"), done on the
// decimal string so a value that rounds up crosses into the next prefix (999.96 µs -> "1.00 ms").
// Money from 10,000 USD on reads in k, M, G USD, as its figure axes do ("25.0 k USD").
// All output is locale-independent.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "engine/units.hpp"

namespace dsx {

enum class NumberStyle : std::uint8_t {
  si,       // SI prefix on the unit: "15.0 µs", "2.04 TB/s", "312 TFLOP/s"
  grouped,  // plain digits with thousands separators: "134,000 images", "1,024"
  percent,  // a fraction shown x100: 0.333 -> "33.3 %"
};

// How a metric or parameter is shown: the words, the unit and the number style.
struct QuantityDisplay {
  std::string label;  // "latency", "GPU utilization", "throughput"
  std::string unit;   // SI unit or counted thing: "s", "B/s", "samples/s", "FLOP/B", ""; "%" for percent
  NumberStyle style = NumberStyle::grouped;
  Dimension dimension = Dimension::dimensionless;
};

// Reads the unit from the metric or parameter name (snake_case with the SI unit as suffix,
// DESIGN.md section 2) and its dimension: latency_s -> {"latency", "s", si};
// throughput_samples_per_s -> {"throughput", "samples/s", grouped}; a rate names what it counts
// (tokens_per_s_per_gpu -> {"throughput per GPU", "tokens/s"}) or reads "/s" (arrival_rate);
// gpu_utilization -> {"GPU utilization", "%", percent}; launch_overhead (time) -> {"launch overhead", "s"};
// the solvers' eta (achieved fraction of peak FLOP/s) -> {"efficiency η", "%", percent}.
// A plain number whose name holds a prefixed FLOP rate reads in that unit: tflops_per_gpu
// (dimensionless, 295 meaning 295 TFLOP/s) -> {"FLOP rate per GPU", "TFLOP/s", grouped}.
QuantityDisplay describe_quantity(std::string_view name, Dimension dimension);

// "15.0 µs", "2.04 TB/s"; `unit` is an SI unit symbol ("s", "B", "B/s", "FLOP", "FLOP/s", "W", "J").
std::string format_si(double value, std::string_view unit, int digits = 3);
// A time as a reader says it, the way a figure's axis shows it: below ten minutes with SI prefixes
// ("15.0 µs", "540 s"), from ten minutes on in min, h, days or years ("45.0 min", "203 days").
// Every time in a report's text and tables reads this way; CSV files and the store keep seconds.
std::string format_duration(double seconds, int digits = 3);
// Bytes with binary prefixes when exact multiples (80 x 2^30 -> "80.0 GiB"), else decimal.
std::string format_bytes(double bytes, int digits = 3);
// Integers exactly ("1,024"), other values to `digits` significant figures ("2,150", "0.00120").
std::string format_grouped(double value, int digits = 3);
// A fraction as a percentage: 1/3 -> "33.3 %".
std::string format_percent(double fraction, int digits = 3);
// The value in the style and unit of `display` (a time through format_duration, a rate as
// "2,150 samples/s" or "3.20/s").
std::string format_quantity(double value, const QuantityDisplay& display, int digits = 3);
// `value` in the unit format_quantity gives `reference`, so two numbers set side by side read alike:
// bytes take the reference's binary (GiB) or decimal (GB) prefixes; other quantities choose their
// prefix per value as format_quantity does.
std::string format_quantity_like(double value, double reference, const QuantityDisplay& display, int digits = 3);
// The inverse of format_quantity's choice of unit: the factor that turns a number printed with
// `printed_unit` ("µs", "GiB", "mJ", "k USD", "days", "%", "tokens/s") back into the SI value a metric
// of `display` holds (1e-6, 2^30, 1e-3, 1e3, 86400, 0.01, 1); nullopt for a unit format_quantity never
// prints for `display`. Read from the same prefix, binary and calendar tables the formatter prints with.
std::optional<double> printed_unit_factor(std::string_view printed_unit, const QuantityDisplay& display);
// The same for a printed number whose quantity is not known: the factor of the first quantity
// format_quantity prints `printed_unit` for (a time's "days", a size's "GiB", money's "k USD", a
// share's "%"); 1 for a unit it prints unprefixed or never ("USD", "tokens/s").
double printed_unit_factor(std::string_view printed_unit);
// A signed difference with one decimal: "+2.1 %", "-0.5 pp", "+0.0 %" (never "-0.0").
std::string format_signed(double value, std::string_view unit);
// Round-trip exact, C locale: the numbers written into figure data files.
std::string format_exact(double value);

// The scaling of a figure axis: data values (SI) times `factor` read 1..1000 in `unit`. Times of
// ten minutes or more read in min, from three hours in h, from three days in days and from three
// years in years (of 365 days), never "17,500,000 s"; money above 10,000 USD in "k USD", "M USD";
// bytes in kB ... EB (choose_bytes_axis_scale).
struct AxisScale {
  double factor = 1;
  std::string unit;  // "µs", "TB/s", "%", "k samples/s", "thousands" or ""
};
AxisScale choose_axis_scale(const QuantityDisplay& display, double max_abs);
// An axis of bytes: binary prefixes (KiB, MiB, GiB, ...) when every non-zero value is an exact
// multiple of 1024 and not of 1000, the rule format_bytes applies to one value, so an axis of
// 80 GiB devices reads "GiB"; decimal prefixes (kB, MB, GB, ...) otherwise.
AxisScale choose_bytes_axis_scale(std::span<const double> values);
// `value` in the unit of `scale` to `digits` significant figures: 85.9e9 on a GB axis -> "85.9 GB",
// 0.333 on a percent axis -> "33.3 %". Labels on a figure use it so they read like its axis.
std::string format_in_scale(double value, const AxisScale& scale, int digits = 3);
// "latency (µs)", "kernel count (thousands)", "batch".
std::string axis_title(const QuantityDisplay& display, const AxisScale& scale);

}  // namespace dsx
