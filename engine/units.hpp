// Physical dimensions and SI conventions shared by the whole engine.
//
// Internally every quantity is SI: seconds, bytes, FLOP, FLOP/s, bytes/s, watts, joules, USD.
// Two exceptions keep the units grid data is published in, which the engine's carbon and
// economics formulas use (engine/carbon.hpp, engine/economics.hpp): a carbon intensity is held in
// g CO2e per kWh and an energy price in USD per kWh.
// Decimal prefixes (GB = 1e9 B) and binary prefixes (GiB = 2^30 B) are distinct; the study reader
// (dse/quantity.hpp) converts user strings such as "80 GiB" or "15 us" into these values and
// checks that the dimension matches what a parameter expects.
#pragma once

#include <cstdint>
#include <string_view>

namespace dsx {

// What a scalar measures. A parameter or metric declares its dimension so the reader can reject
// "batch: 5 us" or "launch_overhead: 5" (a bare number where a unit is needed).
enum class Dimension : std::uint8_t {
  dimensionless,  // ratios, efficiencies, fractions
  count,          // batch sizes, kernel counts, inferences (integers)
  time,           // s
  bytes,          // B
  bandwidth,      // B/s
  flops,          // FLOP
  flop_rate,      // FLOP/s
  power,          // W
  energy,         // J
  money,          // USD
  rate,           // events per second (samples/s, tokens/s, requests/s)
  carbon_intensity,  // g CO2e per kWh of electricity (not SI, see above)
  energy_price,      // USD per kWh of electricity (not SI, see above)
};

// The SI unit written after a value of this dimension ("s", "B/s", ...); empty for dimensionless/count.
std::string_view si_unit(Dimension d);
// A short human name ("time", "bandwidth", ...), used in diagnostics.
std::string_view dimension_name(Dimension d);

inline constexpr double kKilo = 1e3;
inline constexpr double kMega = 1e6;
inline constexpr double kGiga = 1e9;
inline constexpr double kTera = 1e12;
inline constexpr double kKibi = 1024.0;
inline constexpr double kMebi = 1024.0 * 1024.0;
inline constexpr double kGibi = 1024.0 * 1024.0 * 1024.0;
inline constexpr double kMicro = 1e-6;

}  // namespace dsx
