// Solver "fleet": how many accelerators a token load needs, what they cost to own over a lifetime,
// and what renting the same work would cost instead.
//
// Cost model: total cost of ownership = capital expense + operating expense over the lifetime, the
// form of Barroso, Hölzle and Ranganathan, "The Datacenter as a Computer", 3rd ed., Morgan & Claypool
// 2018, chapter 6 "Modeling Costs" (server capex depreciated over its life plus server opex: power at
// the facility's PUE and repairs). Building costs (their datacenter capex per watt) are not modelled;
// fold them into host_network_fraction or ops_fraction_per_year. Formulas live in
// engine/economics.hpp (per-device-hour costs, TCO, $ per million tokens) and engine/carbon.hpp
// (device power at a utilization); this solver only sizes the fleet and composes them.
//
// Sizing:
//   peak load = load x peak_to_average; GPUs needed = ceil(peak load / (tokens_per_s_per_gpu x
//   target_utilization)), rounded up to whole nodes of gpus_per_node: gpus = nodes x gpus_per_node.
//   fleet_utilization u = load / (gpus x tokens_per_s_per_gpu): the average share of the fleet's
//   sustainable throughput the load uses.
//   racks = ceil(nodes / nodes per rack); nodes per rack = nodes_per_rack, or when 0
//   floor(rack_power / (gpus_per_node x (TDP + host_power_per_gpu))).
//   it_power_w = gpus x (TDP + host_power_per_gpu): provisioned for the peak; facility = x PUE.
// Owning (per GPU, engine/economics.hpp OwnershipInput): capex = capex_per_gpu (0: the catalog
//   price) x (1 + host_network_fraction), depreciated straight-line over `lifetime`; maintenance =
//   ops_fraction_per_year x that capex a year (the whole per-GPU capex, servers and network included,
//   as engine/economics.hpp and the training solver charge it); energy at the average draw
//   TDP (idle + (1 - idle) u) (Fan, Weber and Barroso, ISCA 2007) + host_power_per_gpu, x PUE x price.
//   tco_usd = capex + lifetime x opex_per_year.
// Renting: the same work on rented GPUs billed per GPU-hour used: gpus x lifetime hours x u x
//   cloud_gpu_hour_price, i.e. GPU-hours at the same per-GPU throughput, with no peak provisioning
//   and no whole nodes (elastic renting, the most favourable case for renting).
//   rent_vs_buy_ratio = cloud_cost_usd / tco_usd (> 1: buying is cheaper).
//   break_even_utilization: owning costs F + V u (F: capex, maintenance and idle energy; V: the energy
//   that grows with u), renting R u, so they are equal at u* = F / (R - V); +inf when R <= V (renting
//   is cheaper at any utilization). u* > 1 means renting wins even for a fully used fleet.
// Unlike mlsysim's EconomicsModel (shared/reference mlsysim-models 2.25, 6.17): an unknown price is
// infeasible, not $0; there is no 700 W fallback for a missing TDP; power follows utilization, not TDP.
#pragma once

#include "engine/solver.hpp"

namespace dsx {

class FleetSolver final : public TabledSolver {
 public:
  enum Param : std::size_t {
    hardware,
    tokens_per_s_per_gpu,
    load,
    peak_to_average,
    target_utilization,
    gpus_per_node,
    nodes_per_rack,
    rack_power,
    host_power_per_gpu,
    pue,
    electricity_usd_per_kwh,
    cloud_gpu_hour_price,
    lifetime,
    capex_per_gpu,
    host_network_fraction,
    ops_fraction_per_year,
    kParamCount
  };
  enum Metric : std::size_t {
    gpus,
    nodes,
    racks,
    nodes_per_rack_used,
    peak_load_tokens_per_s,
    fleet_utilization,
    it_power_w,
    facility_power_w,
    capex_usd,
    energy_per_year_usd,
    opex_per_year_usd,
    tco_usd,
    owned_gpu_hour_usd,
    cloud_cost_usd,
    rent_vs_buy_ratio,
    break_even_utilization,
    own_cost_per_million_tokens_usd,
    rent_cost_per_million_tokens_usd,
    kMetricCount
  };
  enum Reason : std::uint8_t { no_price, no_tdp, no_rack_size, node_exceeds_rack };

  FleetSolver();
  PointResult evaluate(const PointInputs& in, std::span<double> out) const override;
};

}  // namespace dsx
