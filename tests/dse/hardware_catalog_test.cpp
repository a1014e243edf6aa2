// The shipped hardware catalog against its datasheets: every accelerator's ridge point (dense peak at
// its main precision over memory bandwidth, engine/roofline.hpp) is recomputed here from the numbers
// its source cites, so a slipped digit in hardware.yaml fails a test that names the datasheet.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "dse/catalog.hpp"
#include "tests/dse/shipped_catalog.hpp"
#include "engine/roofline.hpp"

namespace dsx {
namespace {

const Catalog& catalog() { return shipped_catalog(); }

struct Datasheet {
  const char* id;
  Precision precision;      // the part's main dense matrix precision
  double peak_tflop_per_s;  // as its source prints it, sparse figures halved
  double bandwidth_tb_per_s;
  const char* source;
};

// Every accelerator of studies/catalog/hardware.yaml, in file order.
const std::vector<Datasheet>& datasheets() {
  static const std::vector<Datasheet> d = {
      {"a100_40gb_sxm", Precision::fp16, 312, 1.555, "A100 datasheet (2020): 312 TFLOPS, 1,555 GB/s"},
      {"a100_80gb_sxm", Precision::fp16, 312, 2.039, "A100 datasheet (2021): 312 TFLOPS, 2,039 GB/s"},
      {"h100_sxm", Precision::fp16, 1979.0 / 2, 3.35, "H100 datasheet: 1,979 sparse, 3.35 TB/s"},
      {"h200", Precision::fp16, 1979.0 / 2, 4.8, "H200 datasheet: 1,979 sparse, 4.8 TB/s"},
      {"b200", Precision::fp16, 36000.0 / 8 / 2, 8, "HGX B200 datasheet: 36 PFLOPS sparse for 8 GPUs, 8 TB/s"},
      {"mi300x", Precision::fp16, 1307.4, 5.3, "MI300X data sheet: 1,307.4 TFLOPS, 5.3 TB/s"},
      {"l4", Precision::fp16, 242.0 / 2, 0.3, "L4 datasheet: 242 sparse, 300 GB/s"},
      {"jetson_agx_orin_64gb", Precision::fp16, 170.0 / 2 / 2, 0.2048,
       "Jetson AGX Orin: GPU 170 sparse INT8 TOPS, fp16 at half the int8 rate, 204.8 GB/s"},
      {"mobile_npu", Precision::int8, 10, 0.068, "seeds/000 lab_07: 10 TOPS, 68 GB/s"},
      {"v100_16gb_sxm2", Precision::fp16, 125, 0.9, "V100 datasheet: 125 Tensor TFLOPS, 900 GB/s"},
      {"v100_32gb_sxm2", Precision::fp16, 125, 0.9, "V100 datasheet: 125 Tensor TFLOPS, 900 GB/s"},
      {"t4", Precision::fp16, 65, 0.32, "T4 datasheet: 65 TFLOPS mixed precision, 320 GB/s"},
      {"l40s", Precision::fp16, 362.05, 0.864, "L40S datasheet: 362.05 dense (733 sparse), 864 GB/s"},
      {"a100_40gb_pcie", Precision::fp16, 312, 1.555, "A100 datasheet (2020), PCIe: 312 TFLOPS, 1,555 GB/s"},
      {"a100_80gb_pcie", Precision::fp16, 312, 1.935, "A100 datasheet (2021), 80GB PCIe: 312 TFLOPS, 1,935 GB/s"},
      {"h100_pcie", Precision::fp16, 1513.0 / 2, 2.0, "H100 datasheet, PCIe: 1,513 sparse, 2 TB/s"},
      {"gh200_96gb", Precision::fp16, 1979.0 / 2, 4.0, "GH200: H100 compute, 96 GB HBM3 at 4 TB/s"},
      {"gb200", Precision::fp16, 2500, 8, "GB200 NVL72 per GPU: 2.5 PFLOPS dense, 8 TB/s"},
      {"mi250x", Precision::fp16, 383, 3.2768, "MI250X data sheet: 383 TFLOPS, 3.2768 TB/s"},
      {"mi325x", Precision::fp16, 1307.4, 6, "MI325X: MI300X compute, 6 TB/s"},
      {"mi355x", Precision::fp16, 2400e6 * 512 * 2 * 1024 / 1e12, 8,
       "MI355X: 2,400 MHz x 512 FMA x 2 x 1,024 matrix cores, 8 TB/s"},
      {"gaudi2", Precision::bf16, 432, 2.46, "Gaudi 2 white paper: 432 BF16 TFLOPS, 2.46 TB/s"},
      {"gaudi3", Precision::bf16, 1835, 3.7, "Gaudi 3 white paper: 1,835 BF16 TFLOPS, 3.7 TB/s"},
      {"trn2", Precision::bf16, 667, 2.9, "AWS Trainium2 architecture: 667 BF16 TFLOPS, 2.9 TB/s"},
      {"tpu_v4", Precision::bf16, 275, 1.2, "Cloud TPU v4 docs: 275 TFLOPS, 1,200 GBps"},
      {"tpu_v5e", Precision::bf16, 197, 0.819, "Cloud TPU v5e docs: 197 TFLOPs, 819 GBps"},
      {"tpu_v5p", Precision::bf16, 459, 2.765, "Cloud TPU v5p docs: 459 TFLOPs, 2,765 GBps"},
      {"tpu_v6e", Precision::bf16, 918, 1.638, "Cloud TPU v6e docs: 918 TFLOPs, 1,638 GBps"},
      {"tpu7x", Precision::bf16, 2307, 7.38, "Cloud TPU7x docs: 2,307 TFLOPs, 7,380 GBps"},
      {"trn1", Precision::bf16, 190, 0.82, "AWS Trainium architecture: 190 BF16 TFLOPS, 820 GB/s"},
      {"inf2", Precision::bf16, 190, 0.82, "AWS Inferentia2 architecture: 190 BF16 TFLOPS, 820 GB/s"},
      {"inf1", Precision::bf16, 64, 50.0 * 1024 * 1024 * 1024 / 1e12,
       "AWS Inferentia architecture: 64 BF16 TFLOPS, 50 GiB/s"},
      {"trn3", Precision::bf16, 671, 4.9, "AWS Trainium3 architecture: 671 BF16 TFLOPS, 4.9 TB/s"},
      {"a10", Precision::fp16, 250.0 / 2, 0.6, "A10 datasheet: 250 sparse, 600 GB/s"},
      {"a40", Precision::fp16, 299.4 / 2, 0.696, "A40 datasheet: 149.7 | 299.4 sparse, 696 GB/s"},
      {"rtx_4090", Precision::fp16, 330.30 / 2, 1.008,
       "RTX 4090: 330.30 sparse FP16 (FP32 accumulate), 384-bit x 21 Gbps = 1,008 GB/s"},
      {"b100", Precision::fp16, 3500.0 / 2, 8, "B100: 3.5 PFLOPS sparse FP16, 8 TB/s"},
      {"b300", Precision::fp16, 2250, 8, "DGX B300 per GPU: 2,250 dense, 8 TB/s"},
      {"mi350x", Precision::fp16, 2200e6 * 512 * 2 * 1024 / 1e12, 8,
       "MI350X: 2,200 MHz x 512 FMA x 2 x 1,024 matrix cores, 8 TB/s"},
      {"mi250", Precision::fp16, 362, 3.2768, "MI250: 362 TFLOPS, 3.2768 TB/s as mi250x"},
      {"tpu_v3", Precision::bf16, 123, 0.9, "Cloud TPU v3 docs: 123 teraflops, 900 GBps"},
      {"jetson_orin_nano_8gb", Precision::int8, 40.0 / 2, 0.068, "Jetson Orin Nano 8GB: 40 sparse TOPS, 68 GB/s"},
      {"coral_edge_tpu", Precision::int8, 4, 5e9 * 8 / 10 / 8 / 1e12,
       "Coral USB Accelerator: 4 TOPS; USB 3.0 5 Gb/s less 8b/10b"},
      {"apple_m4_ane", Precision::int8, 38, 0.12, "Apple M4: 38 TOPS Neural Engine, 120 GB/s"},
      {"snapdragon_x_elite", Precision::int8, 45, 0.136, "Snapdragon X Elite: 45 TOPS NPU, 136 GB/s"},
      {"stm32h743", Precision::fp32, 480e6 * 2 / 1e12, 64.0 / 8 * 240e6 / 1e12,
       "STM32H743: 480 MHz x one FMA; 64-bit AXI at 240 MHz"},
      {"grace_cpu_superchip", Precision::fp64, 7.1, 1.0, "Grace CPU Superchip: 7.1 TFLOPS FP64, 1 TB/s"},
      {"epyc_9654", Precision::fp64, 96 * 2.4e9 * 16 / 1e12, 12 * 4800e6 * 8 / 1e12,
       "EPYC 9654: 96 cores x 2.4 GHz x 16 FP64 FLOP; 12 x DDR5-4800"},
      {"xeon_8480p", Precision::bf16, 56 * 2.0e9 * 1024 / 1e12, 8 * 4800e6 * 8 / 1e12,
       "Xeon 8480+: 56 cores x 2.0 GHz x 1,024 AMX BF16 ops; 8 x DDR5-4800"},
      {"gh200_141gb", Precision::fp16, 1979.0 / 2, 4.8, "GH200 (HBM3e): H100 compute, 4.8 TB/s"},
      {"groq_lpu", Precision::int8, 750, 80, "Groq LPU: 750 TOPS INT8, 80 TB/s of on-chip SRAM"},
      // NVIDIA RTX 6000 Ada (grafikkarten.com from NVIDIA's product page; Hugging Face hardware page):
      // 91.1 TFLOPS FP32, 960 GB/s. No tensor rate was found, so the ridge is FP32's.
      {"rtx_6000_ada", Precision::fp32, 91.1, 0.96, "RTX 6000 Ada: 91.1 TFLOPS FP32, 960 GB/s"},
      // NVIDIA Jetson Orin Nano Series data sheet: 4GB module 10 dense INT8 TOPS; 64-bit LPDDR5, half
      // the 8GB module's 128-bit bus at 68 GB/s.
      {"jetson_orin_nano_4gb", Precision::int8, 10, 0.068 * 64 / 128,
       "Jetson Orin Nano 4GB: 10 dense INT8 TOPS; 68 GB/s x 64 / 128 bits"},
      // NVIDIA H100 datasheet, H100 NVL column: BF16 Tensor Core 1,671 TFLOPS with sparsity, 3.9 TB/s.
      {"h100_nvl", Precision::bf16, 1671.0 / 2, 3.9, "H100 datasheet, NVL: 1,671 sparse, 3.9 TB/s"},
      // NVIDIA's A10G datasheet for AWS as the-full-stack/website transcribes it: 70 FP16 TFLOPS; 600 GB/s
      // (Baseten).
      {"a10g", Precision::fp16, 70, 0.6, "A10G datasheet for AWS: 70 FP16 TFLOPS; 600 GB/s"},
      // The AGX Orin GPU's 170 sparse INT8 TOPS per 5.3 FP32 TFLOPS, at the Orin NX 16GB GPU's FP32
      // (1,024 CUDA cores x 2 x 918 MHz), halved for dense; 102.4 GB/s.
      {"jetson_orin_nx_16gb", Precision::int8, 1024 * 2 * 0.918e9 / 1e12 * 170 / 5.3 / 2, 0.1024,
       "Jetson Orin NX 16GB GPU: AGX Orin's INT8 per FP32 x 1.880 TFLOPS, halved; 102.4 GB/s"},
  };
  return d;
}

TEST(HardwareCatalog, EveryAcceleratorHasADatasheetRidgeTest) {
  std::vector<std::string> tested;
  for (const Datasheet& d : datasheets()) tested.emplace_back(d.id);
  EXPECT_EQ(catalog().hardware_ids(), tested) << "add the new entry's datasheet arithmetic to datasheets()";
}

TEST(HardwareCatalog, RidgePointsMatchTheDatasheets) {
  for (const Datasheet& d : datasheets()) {
    const HardwareSpec* hw = catalog().find_hardware(d.id);
    ASSERT_NE(hw, nullptr) << d.id;
    const double expected = d.peak_tflop_per_s / d.bandwidth_tb_per_s;  // FLOP per byte
    const double ridge = ridge_point_flop_per_byte(hw->peak(d.precision), hw->memory_bandwidth_bytes_per_s);
    EXPECT_NEAR(ridge, expected, 1e-3 * expected) << d.id << ": " << d.source;
  }
}

// Published ridge points: seeds/003 (and DESIGN.md section 3) quote the H100 SXM's 989 TFLOP/s over
// 3.35 TB/s as about 295 FLOP/byte; the B200's 2.25 PFLOP/s over 8 TB/s is 281 (NVIDIA HGX B200).
TEST(HardwareCatalog, PublishedRidgePoints) {
  const auto ridge = [](const char* id) {
    const HardwareSpec* hw = catalog().find_hardware(id);
    return hw == nullptr ? 0.0 : ridge_point_flop_per_byte(hw->peak(Precision::fp16), hw->memory_bandwidth_bytes_per_s);
  };
  EXPECT_NEAR(ridge("h100_sxm"), 295, 1);
  EXPECT_NEAR(ridge("b200"), 281, 1);
  // A memory-rich part with the same compute has a lower ridge: MI325X vs MI300X, H200 vs H100.
  EXPECT_LT(ridge("mi325x"), ridge("mi300x"));
  EXPECT_LT(ridge("h200"), ridge("h100_sxm"));
}

// Every entry carries a source and a release year, or says `release_year: unknown` (the loader takes
// nothing else): only the seed's illustrative NPU and the Orin NX, whose first shipment no source read
// dates; ids are lowercase snake_case.
TEST(HardwareCatalog, EntriesAreComplete) {
  std::set<std::string> seen;
  std::vector<std::string> unknown_year;
  for (const HardwareSpec& hw : catalog().hardware) {
    EXPECT_FALSE(hw.source.empty()) << hw.id;
    if (hw.release_year == 0) {
      unknown_year.push_back(hw.id);
    } else {
      EXPECT_GE(hw.release_year, 2016) << hw.id;
    }
    for (char c : hw.id) {
      EXPECT_TRUE((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_') << hw.id;
    }
    EXPECT_TRUE(implausible_hardware_fields(hw).empty()) << hw.id;
    EXPECT_TRUE(seen.insert(hw.id).second) << hw.id;
  }
  EXPECT_EQ(unknown_year, (std::vector<std::string>{"mobile_npu", "jetson_orin_nx_16gb"}));
  EXPECT_EQ(catalog().find_hardware("a10g")->release_year, 2021);  // AWS G5's general availability
}

// A TDP is left out only where the vendor publishes none, and the entry's source says so; every
// host CPU and SoC entry (one with `cores`) names its core count in its source.
TEST(HardwareCatalog, UnknownTdpsAreExplained) {
  int unknown = 0;
  for (const HardwareSpec& hw : catalog().hardware) {
    if (hw.tdp_known()) continue;
    ++unknown;
    EXPECT_NE(hw.source.find("TDP"), std::string::npos) << hw.id << ": say why the TDP is left out";
  }
  EXPECT_GE(unknown, 5);  // Google's TPUs at least
  const HardwareSpec* v5p = catalog().find_hardware("tpu_v5p");
  ASSERT_NE(v5p, nullptr);
  EXPECT_FALSE(v5p->tdp_known());
  EXPECT_DOUBLE_EQ(v5p->accelerator_link_bandwidth_bytes_per_s, 600e9);  // 1,200 GBps bidirectional, halved
  for (const char* id : {"grace_cpu_superchip", "epyc_9654", "xeon_8480p", "apple_m4_ane", "snapdragon_x_elite"}) {
    const HardwareSpec* cpu = catalog().find_hardware(id);
    ASSERT_NE(cpu, nullptr) << id;
    EXPECT_GT(cpu->cores, 0) << id;
  }
}

// The H100 NVL against NVIDIA's own figures: the datasheet's FP8 3,341 sparse TFLOPS halve to 1,670.5
// (not the 133 TFLOPS some GPU databases list, the non-tensor FP16 rate); the product brief's 6,016-bit
// HBM3 at 2,619 MHz double data rate gives its 3,938 GB/s, within 1 % of the datasheet's 3.9 TB/s;
// 132 SMs x 128 FP32 lanes x 2 x 1.785 GHz is the datasheet's 60 TFLOPS FP32; the ridge at BF16 is
// 835.5 / 3.9 = 214 FLOP per byte, below the H100 SXM's 295 (more bandwidth, fewer FLOP/s).
TEST(HardwareCatalog, H100NvlMatchesNvidiasNvlColumn) {
  const HardwareSpec* nvl = catalog().find_hardware("h100_nvl");
  ASSERT_NE(nvl, nullptr);
  EXPECT_DOUBLE_EQ(nvl->peak(Precision::fp8), 3341.0 / 2 * 1e12);
  EXPECT_DOUBLE_EQ(nvl->peak(Precision::tf32), 835.0 / 2 * 1e12);
  const double brief_bandwidth = 6016.0 / 8 * 2619e6 * 2;
  EXPECT_NEAR(nvl->memory_bandwidth_bytes_per_s, brief_bandwidth, 0.01 * brief_bandwidth);
  EXPECT_NEAR(nvl->peak(Precision::fp32), 132 * 128 * 2 * 1.785e9, 0.01 * nvl->peak(Precision::fp32));
  EXPECT_NEAR(ridge_point_flop_per_byte(nvl->peak(Precision::bf16), nvl->memory_bandwidth_bytes_per_s), 214.2, 0.1);
  EXPECT_DOUBLE_EQ(nvl->accelerator_link_bandwidth_bytes_per_s, 300e9);  // NVLink bridge 600 GB/s, halved
  EXPECT_DOUBLE_EQ(nvl->tdp_w, 400);
  EXPECT_EQ(nvl->sparse_speedup, 2.0);
}

// Rental prices against the instance prices their pages print, divided here by the instance's
// accelerators: AWS's us-east-1 on-demand prices of January 2026, p5.48xlarge 55.04 USD over 8
// H100, p5en.48xlarge 63.296 USD over 8 H200, p6-b200.48xlarge 113.9328 USD over 8 B200,
// g4dn.xlarge 0.526 USD for one T4, g6.xlarge 0.8048 for one L4 and g6e.xlarge 1.861 for one L40S;
// p6-b300.48xlarge 142.416 USD over 8 B300 (us-west-2, January 2026) and trn2.48xlarge 35.76 USD over
// 16 Trainium2 chips (us-east-2, November 2025);
// AWS Neuron's Inf2.48xlarge 12.981 USD over 12 Inferentia2 chips, trn1.32xlarge 21.50 USD over 16
// Trainium chips and inf1.24xlarge 4.721 USD over 16 Inferentia chips; AWS's p4d.24xlarge 32.77 USD
// over 8 A100 40GB, p4de.24xlarge 40.96 USD over 8 A100 80GB, p3.2xlarge 3.06 USD for one V100 and
// p3dn.24xlarge 31.21 USD over 8 V100 32GB; Azure's one-GPU NC24ads A100 v4 3.67 USD and NC40ads
// H100 v5 6.98 USD; Google's per-chip-hour TPU v3 2.00, v4 3.22, v5e 1.20 and v6e 2.70 USD and its
// tpu-v5p-12288 slice (12,288 TensorCores, 6,144 chips) at 25,804.8 USD; DigitalOcean's 8-GPU MI300X
// Droplet 15.92 USD; Oracle's VM.GPU.A10.1 2.00 USD; Lambda's one-GPU A100 PCIe 40GB 1.29 and H100
// PCIe 2.49 USD and one-GH200 instance 2.29 USD (September 2026); RunPod's per-GPU A40 0.44, RTX 6000
// Ada 0.77 and RTX 4090 0.69 USD; TensorWave's MI325X at 1.95 USD per GPU-hour as a 2026 research note
// quotes it; CoreWeave's four-GPU GB200 NVL72 instance at 42.00 USD (North America, September 2026).
// Every rental is dated and sourced; an entry made from a base (the
// 32GB V100, the A40) states its own.
TEST(HardwareCatalog, RentalPricesMatchTheirPricingPages) {
  const struct {
    const char* id;
    double instance_usd_per_hour;
    int accelerators;
    const char* date;
  } expected[] = {
      {"inf2", 12.981, 12, "2023-04-12"},      {"a100_40gb_sxm", 32.77, 8, "2022-02-26"},
      {"v100_16gb_sxm2", 3.06, 1, "2018-06-08"}, {"tpu_v4", 3.22, 1, "2023-06-01"},
      {"tpu_v3", 2.00, 1, "2021-11-17"},      {"trn1", 21.50, 16, "2023-02-08"},
      {"a100_80gb_sxm", 40.96, 8, "2025-03-02"}, {"h100_sxm", 55.04, 8, "2026-01-21"},
      {"h200", 63.296, 8, "2026-01-21"},       {"a100_80gb_pcie", 3.67, 1, "2025-03-02"},
      {"h100_nvl", 6.98, 1, "2025-03-17"},     {"tpu_v5e", 1.20, 1, "2025-03-03"},
      {"tpu_v6e", 2.70, 1, "2025-03-03"},      {"tpu_v5p", 25804.8, 12288 / 2, "2026-01-27"},
      {"t4", 0.526, 1, "2026-01-21"},          {"v100_32gb_sxm2", 31.21, 8, "2022-08-04"},
      {"inf1", 4.721, 16, "2024-04-11"},       {"a10", 2.00, 1, "2023-10-23"},
      {"a100_40gb_pcie", 1.29, 1, "2025-02-28"}, {"h100_pcie", 2.49, 1, "2025-02-28"},
      {"gh200_96gb", 2.29, 1, "2026-09-20"},   {"l4", 0.8048, 1, "2026-01-21"},
      {"l40s", 1.861, 1, "2026-01-21"},        {"a40", 0.44, 1, "2025-03-03"},
      {"rtx_6000_ada", 0.77, 1, "2025-03-03"}, {"rtx_4090", 0.69, 1, "2025-03-03"},
      {"b200", 113.9328, 8, "2026-01-21"},     {"mi300x", 15.92, 8, "2026-05-29"},
      {"b300", 142.416, 8, "2026-01-21"},      {"trn2", 35.76, 16, "2025-11-30"},
      {"mi325x", 1.95, 1, "2026-05-18"},       {"gb200", 42.00, 4, "2026-09-20"},
      {"a10g", 1.006, 1, "2025-11-30"},
  };
  std::set<std::string> priced;
  for (const auto& e : expected) {
    const HardwareSpec* hw = catalog().find_hardware(e.id);
    ASSERT_NE(hw, nullptr) << e.id;
    EXPECT_NEAR(hw->rental_usd_per_hour, e.instance_usd_per_hour / e.accelerators, 1e-9) << e.id;
    EXPECT_EQ(hw->rental_date, e.date) << e.id;
    priced.insert(e.id);
  }
  for (const HardwareSpec& hw : catalog().hardware) {
    if (!hw.rental_known()) continue;
    EXPECT_TRUE(priced.count(hw.id)) << hw.id << ": add its pricing-page arithmetic above";
    EXPECT_FALSE(hw.rental_date.empty()) << hw.id;
    EXPECT_NE(hw.rental_source.find("on-demand"), std::string::npos) << hw.id << ": say it is the on-demand price";
  }
  // The parts no source read prices by the hour stay without one, never 0 USD.
  for (const char* id : {"tpu7x", "mi355x", "gaudi2", "gaudi3", "gh200_141gb"}) {
    EXPECT_FALSE(catalog().find_hardware(id)->rental_known()) << id;
  }
}

// Purchase prices against the figures their sources print, divided here where a source prices a kit:
// Intel's Computex 2024 list prices of 65,000 USD for eight Gaudi 2 and 125,000 USD for eight Gaudi 3,
// Microway's single-unit V100 SXM2 prices (16GB 10,664, 32GB 11,458 USD), The Next Platform's 2020
// A100 40GB list price (15,000 USD, SXM and PCIe) and MI250X estimate (14,500 USD), a reseller's
// H100 PCIe (24,500 USD), resellers' A100 80GB PCIe (16,338.77 USD) and H100 94GB, the H100 NVL
// (35,098.15 USD), the GroqCard (19,948 USD), the Coral USB Accelerator at launch (75 USD), the
// Jetson Orin Nano Super Developer Kit (249 USD), the RTX 4090 and RTX 6000 Ada launch MSRPs, and
// AMD's list price of the EPYC 9654 as 3dnews.ru quotes it (11,805 USD).
// The A100 80GB SXM is The Next Platform's 2020 list price (17,500 USD), the H100 SXM a reseller's
// single unit (31,250 USD); the H200 is an 8-GPU HGX baseboard (270,565 USD), the MI300X an 8-GPU
// OAM baseboard (205,869.68 USD) and the B200 a whole DGX B200 system (379,273.04 USD), each / 8.
TEST(HardwareCatalog, ListPricesMatchTheirSources) {
  const struct {
    const char* id;
    double usd;
    int units;
  } expected[] = {
      {"gaudi2", 65000, 8},          {"gaudi3", 125000, 8},       {"v100_16gb_sxm2", 10664, 1},
      {"v100_32gb_sxm2", 11458, 1},  {"a100_40gb_sxm", 15000, 1}, {"a100_40gb_pcie", 15000, 1},
      {"mi250x", 14500, 1},          {"h100_pcie", 24500, 1},     {"groq_lpu", 19948, 1},
      {"coral_edge_tpu", 75, 1},     {"jetson_orin_nano_8gb", 249, 1}, {"rtx_4090", 1599, 1},
      {"rtx_6000_ada", 6800, 1},     {"a100_80gb_pcie", 16338.77, 1}, {"h100_nvl", 35098.15, 1},
      {"a100_80gb_sxm", 17500, 1},   {"h100_sxm", 31250, 1},      {"h200", 270565, 8},
      {"mi300x", 205869.68, 8},      {"b200", 379273.04, 8},      {"epyc_9654", 11805, 1},
  };
  for (const auto& e : expected) {
    const HardwareSpec* hw = catalog().find_hardware(e.id);
    ASSERT_NE(hw, nullptr) << e.id;
    EXPECT_NEAR(hw->price_usd, e.usd / e.units, 1e-9) << e.id;
  }
  for (const HardwareSpec& hw : catalog().hardware) {
    if (hw.price_usd <= 0) continue;
    const bool says = hw.source.find("price") != std::string::npos || hw.source.find("Price") != std::string::npos;
    EXPECT_TRUE(says) << hw.id << ": a price says where it comes from";
    EXPECT_EQ(hw.source.find("illustrative"), std::string::npos) << hw.id << ": a buyer cannot rank parts on illustrative prices";
  }
  // A price per GPU taken from a board or a system says which, and whether the rest of the system is in it.
  for (const char* id : {"h200", "mi300x"}) {
    EXPECT_NE(catalog().find_hardware(id)->source.find("EXCLUDES the rest of the system"), std::string::npos) << id;
  }
  EXPECT_NE(catalog().find_hardware("b200")->source.find("INCLUDING the rest of the system"), std::string::npos);
  // A developer kit's price is not the 4GB module's: the derived entry says it has none.
  EXPECT_EQ(catalog().find_hardware("jetson_orin_nano_4gb")->price_usd, 0);
}

// The STM32H743 keeps weights that overflow its 1 MiB of SRAM in its 2 MiB of flash, read one 32-byte
// flash word per 4 wait states + 1 cycles of the 240 MHz AXI clock (RM0433 Table 17, VOS0,
// 225-240 MHz); no other entry has a second tier.
TEST(HardwareCatalog, Stm32h743ReadsWeightsFromFlash) {
  const HardwareSpec* mcu = catalog().find_hardware("stm32h743");
  ASSERT_NE(mcu, nullptr);
  EXPECT_DOUBLE_EQ(mcu->memory_bytes, 1024.0 * 1024);
  EXPECT_DOUBLE_EQ(mcu->weight_memory_bytes, 2.0 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(mcu->weight_memory_bandwidth_bytes_per_s, 32 * 240e6 / (4 + 1));
  EXPECT_LT(mcu->weight_memory_bandwidth_bytes_per_s, mcu->memory_bandwidth_bytes_per_s);
  for (const HardwareSpec& hw : catalog().hardware) {
    if (hw.id != "stm32h743") {
      EXPECT_FALSE(hw.has_weight_memory()) << hw.id;
    }
  }
}

// The catalog spans the market from a microcontroller to a rack-scale GPU: at least 50 entries.
TEST(HardwareCatalog, HasAtLeastFiftyEntries) { EXPECT_GE(catalog().hardware.size(), 50U); }

}  // namespace
}  // namespace dsx

namespace dsx {
namespace {

// 2:4 structured sparsity runs at twice the dense tensor rate on NVIDIA Ampere and later (their
// datasheets print sparse rates at 2x the dense ones); other parts state no sparse rate.
TEST(HardwareCatalog, SparseTensorCoresAreNvidiaAmpereOrLater) {
  for (const char* id : {"a100_80gb_sxm", "a100_40gb_pcie", "a10", "a40", "l4", "l40s", "rtx_4090", "h100_sxm",
                         "h200", "gh200_141gb", "b200", "gb200", "jetson_agx_orin_64gb", "jetson_orin_nx_16gb"}) {
    const HardwareSpec* hw = catalog().find_hardware(id);
    ASSERT_NE(hw, nullptr) << id;
    EXPECT_EQ(hw->sparse_speedup, 2.0) << id;
  }
  for (const char* id : {"v100_16gb_sxm2", "t4", "mi300x", "tpu_v5p", "gaudi3", "trn2"}) {
    const HardwareSpec* hw = catalog().find_hardware(id);
    ASSERT_NE(hw, nullptr) << id;
    EXPECT_EQ(hw->sparse_speedup, 0.0) << id;
  }
}

}  // namespace
}  // namespace dsx

namespace dsx {
namespace {

// fp8_gemm_relative_efficiency against the TFLOP/s of stas00/ml-engineering's Maximum Achievable
// Matmul FLOPS table (compute/accelerator/README.md): (fp8 MAMF / fp8 peak) / (bf16 MAMF / bf16
// peak), the H200's bf16 from the H100 SXM row ("H200 is the same"). A base entry keeps its base's
// ratio (the GH200 96GB's GPU is the H100 SXM's); a chip the table does not measure has none.
TEST(HardwareCatalog, Fp8GemmRelativeEfficiencyIsTheMamfRatio) {
  const struct {
    const char* id;
    double fp8_tflops, fp8_peak, bf16_tflops, bf16_peak;
  } expected[] = {
      {"h100_sxm", 1402.6, 1979, 794.5, 989},   {"h200", 1453.4, 1979, 794.5, 989},
      {"gh200_141gb", 1535.0, 1979, 828.6, 989}, {"b200", 3432.5, 4500, 1745.0, 2250},
      {"b300", 3353.3, 4500, 1769.0, 2250},      {"gb200", 3615.6, 5000, 1822.0, 2500},
      {"gaudi2", 826.5, 865, 418.7, 432},        {"gaudi3", 1289.5, 1677, 1243.0, 1677},
  };
  for (const auto& e : expected) {
    const HardwareSpec* hw = catalog().find_hardware(e.id);
    ASSERT_NE(hw, nullptr) << e.id;
    EXPECT_NEAR(hw->fp8_gemm_relative_efficiency, (e.fp8_tflops / e.fp8_peak) / (e.bf16_tflops / e.bf16_peak), 0.0005)
        << e.id;
    EXPECT_NE(hw->source.find("fp8_gemm_relative_efficiency: stas00/ml-engineering"), std::string::npos) << e.id;
  }
  const HardwareSpec* h100 = catalog().find_hardware("h100_sxm");
  EXPECT_DOUBLE_EQ(h100->gemm_peak(Precision::fp8), 1979e12 * 0.882);
  EXPECT_DOUBLE_EQ(h100->gemm_peak(Precision::bf16), 989e12);
  EXPECT_DOUBLE_EQ(catalog().find_hardware("gh200_96gb")->fp8_gemm_relative_efficiency, 0.882);
  for (const char* id : {"mi300x", "h100_pcie", "a100_80gb_sxm", "l40s"}) {
    const HardwareSpec* hw = catalog().find_hardware(id);
    ASSERT_NE(hw, nullptr) << id;
    EXPECT_EQ(hw->fp8_gemm_relative_efficiency, 0.0) << id;
    EXPECT_DOUBLE_EQ(hw->gemm_peak(Precision::fp8), hw->peak(Precision::fp8)) << id;
  }
}

}  // namespace
}  // namespace dsx
