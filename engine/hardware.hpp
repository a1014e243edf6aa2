// An accelerator as the solvers see it: peak rates, memory, links, power and price, and optionally
// the per-block and per-SM limits a GPU kernel's tile must fit (shared memory, registers, threads).
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
  // What figures print for the chip where its name is long ("NVIDIA GB200" for "NVIDIA GB200 (one
  // Blackwell GPU of a Grace Blackwell Superchip)"): keys, bar categories, sensitivity axes. Tables and
  // sentences keep `name`. Empty = the name.
  std::string short_name;
  std::array<double, kPrecisionCount> peak_flops_per_s{};  // dense; 0 = unsupported
  double memory_bytes = 0;
  double memory_bandwidth_bytes_per_s = 0;
  // A second, read-only tier that holds the weights where they do not fit in `memory` beside the
  // activations: a microcontroller's flash beside its SRAM (STM32H743: 2 MiB of flash read in 256-bit
  // words, 1 MiB of SRAM). The `inference` solver streams the weights from it at its read bandwidth
  // when weights and activations overflow `memory`; 0 = no such tier.
  double weight_memory_bytes = 0;
  double weight_memory_bandwidth_bytes_per_s = 0;
  double host_link_bandwidth_bytes_per_s = 0;         // e.g. PCIe, one-way
  double accelerator_link_bandwidth_bytes_per_s = 0;  // e.g. NVLink, one-way; 0 = none
  double tdp_w = 0;                // 0 = unknown (not published): power and energy become NaN
  double idle_power_fraction = 0;  // share of TDP drawn when idle
  double price_usd = 0;            // 0 = unknown
  // On-demand rental price of one accelerator for one hour (a cloud instance's hourly price divided
  // by its accelerators), as a dated pricing page states it; 0 = none published or none read. Cloud-only
  // parts (TPUs, Trainium, Inferentia) have no purchase price, so this is the price a buyer compares.
  double rental_usd_per_hour = 0;
  std::string rental_date;    // YYYY-MM or YYYY-MM-DD: when the page stated the price
  std::string rental_source;  // the pricing page, its region and the instance the price is divided from
  // Optional on-chip limits of one kernel launch (NVIDIA: CUDA C Programming Guide, "Technical
  // Specifications per Compute Capability"); 0 = unknown.
  double shared_memory_per_block_bytes = 0;  // largest shared-memory allocation of one thread block
  double shared_memory_per_sm_bytes = 0;
  double registers_per_thread = 0;           // 32-bit registers one thread may use
  double registers_per_sm = 0;               // 32-bit registers in one SM's register file
  double max_threads_per_block = 0;
  // Parallel compute units a kernel's thread blocks are spread over (NVIDIA SMs, AMD CUs): the
  // denominator of wave quantization (engine/solvers/gemm.hpp); 0 = unknown.
  double compute_units = 0;
  // CPU cores of a host processor (Xeon, EPYC, Grace, a laptop SoC's CPU); 0 = unknown or not a CPU.
  // Informational (`dsx catalog hardware` shows it; a data_pipeline study sizes cpu_workers by it):
  // no solver reads it.
  double cores = 0;
  // How much faster the tensor cores run a 2:4 structured-sparse matrix than the dense rate (2 on
  // NVIDIA Ampere and later, whose datasheets print sparse rates at twice the dense ones: NVIDIA A100
  // Tensor Core GPU Architecture whitepaper, "Fine-Grained Structured Sparsity"); 0 = no such support.
  double sparse_speedup = 0;
  // The fraction of the fp8 peak that the chip's best fp8 GEMMs reach, over the fraction of the bf16
  // peak that its best bf16 GEMMs reach, as one benchmark measures both on one chip (stas00/ml-engineering,
  // compute/accelerator/README.md, "Maximum Achievable Matmul FLOPS comparison table": H100 SXM fp8
  // 1,402.6 of 1,979 TFLOP/s, bf16 794.5 of 989, (1402.6 / 1979) / (794.5 / 989) = 0.882). Its
  // mamf-finder.py times torch._scaled_mm without fast accumulation, the mode Transformer Engine runs its
  // dgrad and wgrad GEMMs in (transformer_engine/pytorch/module/base.py: _2X_ACC_DGRAD = _2X_ACC_WGRAD =
  // True; the forward's _2X_ACC_FPROP = False has no measured ratio and gets the same one). fp8 GEMMs run
  // at eta x this x the fp8 peak; 0 = not measured: the same fraction as bf16 (a ratio of 1).
  double fp8_gemm_relative_efficiency = 0;
  int release_year = 0;  // year the part first shipped or was announced for sale; 0 = unknown
  std::string source;

  double peak(Precision p) const { return peak_flops_per_s[index_of(p)]; }
  // The rate a GEMM of precision p reaches at efficiency 1: the peak, times the fp8 ratio for fp8.
  double gemm_peak(Precision p) const {
    return p == Precision::fp8 && fp8_gemm_relative_efficiency > 0 ? peak(p) * fp8_gemm_relative_efficiency : peak(p);
  }
  bool supports(Precision p) const { return peak(p) > 0; }
  bool tdp_known() const { return tdp_w > 0; }
  bool has_weight_memory() const { return weight_memory_bytes > 0 && weight_memory_bandwidth_bytes_per_s > 0; }
  bool rental_known() const { return rental_usd_per_hour > 0; }
};

}  // namespace dsx
