// An accelerator as the solvers see it: peak rates, memory, links, power and price.
//
// Values come from studies/catalog/hardware.yaml (each entry cites its datasheet). Peaks are dense
// (not 2:4 sparse) per precision; a zero peak means the precision is not supported. Link bandwidths
// are one-way (per direction): NVLink 4 on H100 is 900 GB/s bidirectional = 450 GB/s one-way.
#pragma once

#include <array>
#include <string>

#include "engine/precision.hpp"

namespace dsx {

struct HardwareSpec {
  std::string id;
  std::string name;
  std::array<double, kPrecisionCount> peak_flops_per_s{};  // dense; 0 = unsupported
  double memory_bytes = 0;
  double memory_bandwidth_bytes_per_s = 0;
  double host_link_bandwidth_bytes_per_s = 0;         // e.g. PCIe, one-way
  double accelerator_link_bandwidth_bytes_per_s = 0;  // e.g. NVLink, one-way; 0 = none
  double tdp_w = 0;
  double idle_power_fraction = 0;  // share of TDP drawn when idle
  double price_usd = 0;            // 0 = unknown
  std::string source;

  double peak(Precision p) const { return peak_flops_per_s[index_of(p)]; }
  bool supports(Precision p) const { return peak(p) > 0; }
};

}  // namespace dsx
