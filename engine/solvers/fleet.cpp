#include "engine/solvers/fleet.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "engine/carbon.hpp"
#include "engine/economics.hpp"

namespace dsx {

namespace {

constexpr double kSecondsPerYear = kHoursPerYear * 3600.0;

constexpr std::array<ParamSpec, FleetSolver::kParamCount> kParams = {{
    {.name = "hardware", .kind = ParamKind::hardware,
     .description = "accelerator (catalog id): its TDP, idle power fraction and price"},
    {.name = "tokens_per_s_per_gpu", .kind = ParamKind::number, .dimension = Dimension::rate,
     .description = "tokens/s one accelerator sustains at the latency target (e.g. a serving study's "
                    "tokens_per_s_per_gpu)",
     .min_value = 0, .max_value = 1e12, .min_exclusive = true},
    {.name = "load", .kind = ParamKind::number, .dimension = Dimension::rate,
     .description = "average token load of the service (e.g. '100000 M/day')", .min_value = 0, .max_value = 1e15,
     .min_exclusive = true},
    {.name = "peak_to_average", .kind = ParamKind::number, .dimension = Dimension::dimensionless,
     .description = "peak load over the average load the fleet must carry (1: a flat load)", .has_default = true,
     .default_value = 1, .min_value = 1, .max_value = 1000},
    {.name = "target_utilization", .kind = ParamKind::number, .dimension = Dimension::dimensionless,
     .description = "share of each GPU's sustainable throughput used at the peak, the headroom a latency SLA "
                    "needs (1: none)",
     .has_default = true, .default_value = 1, .min_value = 0, .max_value = 1, .min_exclusive = true},
    {.name = "gpus_per_node", .kind = ParamKind::number, .dimension = Dimension::count,
     .description = "GPUs per server; the fleet is bought in whole servers (8: HGX/DGX)", .has_default = true,
     .default_value = 8, .min_value = 1, .max_value = 1024, .integer = true},
    {.name = "nodes_per_rack", .kind = ParamKind::number, .dimension = Dimension::count,
     .description = "servers per rack; 0 = as many as rack_power allows", .has_default = true, .default_value = 0,
     .min_value = 0, .max_value = 1e6, .integer = true},
    {.name = "rack_power", .kind = ParamKind::number, .dimension = Dimension::power,
     .description = "power limit of one rack (0 = none; needed when nodes_per_rack is 0)", .has_default = true,
     .default_value = 0, .min_value = 0, .max_value = 1e9},
    {.name = "host_power_per_gpu", .kind = ParamKind::number, .dimension = Dimension::power,
     .description = "host CPU, memory, NIC and switch power per GPU, drawn whatever the load", .has_default = true,
     .default_value = 0, .min_value = 0, .max_value = 1e6},
    {.name = "pue", .kind = ParamKind::number, .dimension = Dimension::dimensionless,
     .description = "power usage effectiveness of the data centre (default 1.12: the best air-cooled tier, "
                    "Uptime Institute 2022, as mlsysim and the training solver use)",
     .has_default = true, .default_value = 1.12, .min_value = 1, .max_value = 5},
    {.name = "electricity_usd_per_kwh", .kind = ParamKind::number, .dimension = Dimension::energy_price,
     .description = "electricity price (default 0.12 USD/kWh: mlsysim EconomicsModel's default, as the training "
                    "solver uses; a region sets it)",
     .has_default = true, .default_value = 0.12, .min_value = 0, .max_value = 10},
    {.name = "cloud_gpu_hour_price", .kind = ParamKind::number, .dimension = Dimension::money,
     .description = "rental price of one GPU-hour", .min_value = 0, .max_value = 1e6, .min_exclusive = true},
    {.name = "lifetime", .kind = ParamKind::number, .dimension = Dimension::time,
     .description = "ownership period: capex is depreciated over it and rent is compared over it",
     .has_default = true, .default_value = 3 * kSecondsPerYear, .min_value = 0, .max_value = 100 * kSecondsPerYear,
     .min_exclusive = true},
    {.name = "capex_per_gpu", .kind = ParamKind::number, .dimension = Dimension::money,
     .description = "purchase price of one accelerator (0 = the catalog price)", .has_default = true,
     .default_value = 0, .min_value = 0, .max_value = 1e9},
    {.name = "host_network_fraction", .kind = ParamKind::number, .dimension = Dimension::dimensionless,
     .description = "capex of hosts, network and installation per GPU, as a fraction of the accelerator's price",
     .has_default = true, .default_value = 0, .min_value = 0, .max_value = 100},
    {.name = "ops_fraction_per_year", .kind = ParamKind::number, .dimension = Dimension::dimensionless,
     .description = "yearly maintenance and operations as a fraction of capex (mlsysim uses 0.05)",
     .has_default = true, .default_value = 0, .min_value = 0, .max_value = 10},
}};

constexpr std::array<MetricSpec, FleetSolver::kMetricCount> kMetrics = {{
    {"gpus", Dimension::count, "nodes x gpus_per_node"},
    {"nodes", Dimension::count, "ceil(ceil(peak load / (tokens_per_s_per_gpu x target_utilization)) / gpus_per_node)"},
    {"racks", Dimension::count, "ceil(nodes / nodes_per_rack_used)"},
    {"nodes_per_rack_used", Dimension::count, "nodes_per_rack, or floor(rack_power / node power at TDP)"},
    {"peak_load_tokens_per_s", Dimension::rate, "load x peak_to_average"},
    {"fleet_utilization", Dimension::dimensionless, "load / (gpus x tokens_per_s_per_gpu): average use of the fleet", MetricDomain::fraction},
    {"it_power_w", Dimension::power, "gpus x (TDP + host_power_per_gpu), provisioned for the peak"},
    {"facility_power_w", Dimension::power, "it_power_w x PUE"},
    {"capex_usd", Dimension::money, "gpus x capex per GPU x (1 + host_network_fraction)"},
    {"energy_per_year_usd", Dimension::money,
     "gpus x (TDP (idle + (1 - idle) u) + host power) x PUE x electricity price x 8,760 h"},
    {"opex_per_year_usd", Dimension::money, "energy_per_year_usd + ops_fraction_per_year x capex_usd"},
    {"tco_usd", Dimension::money, "capex_usd + lifetime x opex_per_year_usd"},
    {"owned_gpu_hour_usd", Dimension::money, "tco_usd / (gpus x lifetime hours)"},
    {"cloud_cost_usd", Dimension::money, "gpus x lifetime hours x u x cloud_gpu_hour_price (elastic renting)"},
    {"rent_vs_buy_ratio", Dimension::dimensionless, "cloud_cost_usd / tco_usd: above 1 buying is cheaper"},
    {"break_even_utilization", Dimension::dimensionless,
     "u at which renting costs what owning does: F / (R - V); infinite when renting is always cheaper"},
    {"own_cost_per_million_tokens_usd", Dimension::money, "tco_usd per million tokens served over the lifetime"},
    {"rent_cost_per_million_tokens_usd", Dimension::money, "cloud_gpu_hour_price / (tokens_per_s_per_gpu x 3,600) x 1e6"},
}};

constexpr std::array<std::string_view, 4> kReasons = {
    "no accelerator price: the catalog price is 0 and capex_per_gpu is not given",
    "the hardware entry gives no TDP",
    "no rack size: set nodes_per_rack or rack_power",
    "a rack's nodes (nodes_per_rack, or a single one) draw more than rack_power at TDP",
};

// ceil() that ignores the last bits of rounding error, so that 3.0000000000000004 GPUs stay 3.
double whole_units(double x) { return std::ceil(x * (1.0 - 1e-12)); }

}  // namespace

FleetSolver::FleetSolver()
    : TabledSolver("fleet",
                   "accelerators, racks and power a token load needs; TCO of owning vs renting and the "
                   "break-even utilization",
                   kParams, kMetrics, kReasons) {}

PointResult FleetSolver::evaluate(const PointInputs& in, std::span<double> out) const {
  std::fill(out.begin(), out.end(), std::numeric_limits<double>::quiet_NaN());
  const HardwareSpec& hw = *in.hardware;
  const auto& v = in.values;
  const double price = v[Param::capex_per_gpu] > 0 ? v[Param::capex_per_gpu] : hw.price_usd;
  if (!(price > 0)) return {PointStatus::infeasible, no_price};
  if (!(hw.tdp_w > 0)) return {PointStatus::infeasible, no_tdp};

  const double per_gpu = v[Param::tokens_per_s_per_gpu];
  const double per_node = v[Param::gpus_per_node];
  const double node_power_w = per_node * (hw.tdp_w + v[Param::host_power_per_gpu]);
  double rack_nodes = v[Param::nodes_per_rack];
  if (rack_nodes == 0) {
    if (v[Param::rack_power] == 0) return {PointStatus::infeasible, no_rack_size};
    rack_nodes = std::floor(v[Param::rack_power] / node_power_w);
  }
  if (rack_nodes < 1 || (v[Param::rack_power] > 0 && rack_nodes * node_power_w > v[Param::rack_power])) {
    return {PointStatus::infeasible, node_exceeds_rack};
  }

  const double peak = v[Param::load] * v[Param::peak_to_average];
  const double needed = whole_units(peak / (per_gpu * v[Param::target_utilization]));
  const double n_nodes = whole_units(needed / per_node);
  const double n = n_nodes * per_node;
  const double u = v[Param::load] / (n * per_gpu);
  const double hours = v[Param::lifetime] / 3600.0;

  OwnershipInput own;
  own.capex_usd = price * (1.0 + v[Param::host_network_fraction]);
  own.lifetime_years = hours / kHoursPerYear;
  own.maintenance_fraction_per_year = v[Param::ops_fraction_per_year];
  own.pue = v[Param::pue];
  own.electricity_usd_per_kwh = v[Param::electricity_usd_per_kwh];
  own.power_w = device_power_w(hw.tdp_w, hw.idle_power_fraction, u) + v[Param::host_power_per_gpu];
  const Tco tco = total_cost_of_ownership(own, n, hours);

  // Owning at utilization x is F + V x: F at x = 0, V the energy the busy share adds.
  OwnershipInput idle = own;
  idle.power_w = device_power_w(hw.tdp_w, hw.idle_power_fraction, 0.0) + v[Param::host_power_per_gpu];
  OwnershipInput busy = own;
  busy.power_w = device_power_w(hw.tdp_w, hw.idle_power_fraction, 1.0) + v[Param::host_power_per_gpu];
  const double fixed = total_cost_of_ownership(idle, n, hours).total_usd;
  const double variable = (energy_usd_per_hour(busy) - energy_usd_per_hour(idle)) * n * hours;
  const double rent = v[Param::cloud_gpu_hour_price];
  const double rent_full = rent * n * hours;

  out[gpus] = n;
  out[nodes] = n_nodes;
  out[nodes_per_rack_used] = rack_nodes;
  out[racks] = whole_units(n_nodes / rack_nodes);
  out[peak_load_tokens_per_s] = peak;
  out[fleet_utilization] = u;
  out[it_power_w] = node_power_w * n_nodes;
  out[facility_power_w] = node_power_w * n_nodes * v[Param::pue];
  out[capex_usd] = tco.capex_usd;
  out[energy_per_year_usd] = energy_usd_per_hour(own) * n * kHoursPerYear;
  out[opex_per_year_usd] = (energy_usd_per_hour(own) + maintenance_usd_per_hour(own)) * n * kHoursPerYear;
  out[tco_usd] = tco.total_usd;
  out[owned_gpu_hour_usd] = owned_usd_per_device_hour(own);
  out[cloud_cost_usd] = rent_full * u;
  out[rent_vs_buy_ratio] = rent_full * u / tco.total_usd;
  out[break_even_utilization] =
      rent_full > variable ? fixed / (rent_full - variable) : std::numeric_limits<double>::infinity();
  out[own_cost_per_million_tokens_usd] = usd_per_million_tokens(owned_usd_per_device_hour(own), n, v[Param::load]);
  out[rent_cost_per_million_tokens_usd] = usd_per_million_tokens(rent, 1.0, per_gpu);
  return {};
}

}  // namespace dsx
