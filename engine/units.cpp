#include "engine/units.hpp"

namespace dsx {

std::string_view si_unit(Dimension d) {
  switch (d) {
    case Dimension::dimensionless: return "";
    case Dimension::count: return "";
    case Dimension::time: return "s";
    case Dimension::bytes: return "B";
    case Dimension::bandwidth: return "B/s";
    case Dimension::flops: return "FLOP";
    case Dimension::flop_rate: return "FLOP/s";
    case Dimension::power: return "W";
    case Dimension::energy: return "J";
    case Dimension::money: return "USD";
    case Dimension::rate: return "1/s";
    case Dimension::carbon_intensity: return "g/kWh";
    case Dimension::energy_price: return "USD/kWh";
  }
  return "";
}

std::string_view dimension_name(Dimension d) {
  switch (d) {
    case Dimension::dimensionless: return "dimensionless";
    case Dimension::count: return "count";
    case Dimension::time: return "time";
    case Dimension::bytes: return "bytes";
    case Dimension::bandwidth: return "bandwidth";
    case Dimension::flops: return "FLOP";
    case Dimension::flop_rate: return "FLOP/s";
    case Dimension::power: return "power";
    case Dimension::energy: return "energy";
    case Dimension::money: return "money";
    case Dimension::rate: return "rate";
    case Dimension::carbon_intensity: return "carbon intensity";
    case Dimension::energy_price: return "energy price";
  }
  return "";
}

}  // namespace dsx
