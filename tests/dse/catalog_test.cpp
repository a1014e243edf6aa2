#include "dse/catalog.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace dsx {
namespace {

namespace fs = std::filesystem;

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

// A100 80GB SXM: NVIDIA A100 Tensor Core GPU datasheet (2021); dense peaks, 2,039 GB/s, 400 W.
const char* const kHardware = R"yaml(hardware:
  - id: a100_80gb_sxm
    name: NVIDIA A100 80GB SXM
    source: "NVIDIA A100 datasheet (2021)"
    peak_flops: {fp32: 19.5 TFLOP/s, tf32: 156 TFLOP/s, fp16: 312 TFLOP/s, bf16: 312 TFLOP/s, int8: 624 TOP/s}
    memory: 80 GiB
    memory_bandwidth: 2.039 TB/s
    host_link: 32 GB/s
    accelerator_link: 300 GB/s
    tdp: 400 W
    idle_power_fraction: 0.3
    price: 15000 USD
    release_year: 2020
  - id: edge_npu
    name: Edge NPU
    source: "seeds/000 lab_07 edge context: 10 TOPS INT8, 68 GB/s"
    peak_flops: {int8: 10 TOPS}
    memory: 8 GiB
    memory_bandwidth: 68 GB/s
    host_link: 68 GB/s
    accelerator_link: 0 GB/s
    tdp: 5 W
    idle_power_fraction: 0.3
    price: 0 USD
    release_year: unknown
)yaml";

// seeds/000 lab_07 Act 1: KWS ~1,000 kernels of ~5 us on an A100 (fp16 312 TFLOP/s at eta 0.5).
const char* const kModels = R"yaml(models:
  - id: kws_profile
    name: KWS profile
    source: "seeds/000 lab_07 Act 1"
    architecture: kernel_profile
    params: {kernels: 1000, kernel_compute_time: 5 us, reference_peak: 312 TFLOP/s, reference_eta: 0.5}
)yaml";

class TempDir {
 public:
  TempDir() {
    path_ = fs::temp_directory_path() /
            ("dsx_catalog_test_" + std::to_string(::getpid()) + "_" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TempDir() { fs::remove_all(path_); }
  void write(const std::string& name, const std::string& text) const { std::ofstream(path_ / name) << text; }
  std::string str() const { return path_.string(); }

 private:
  fs::path path_;
};

TEST(CatalogTest, LoadsHardwareInSiUnits) {
  Diagnostics d;
  Catalog c;
  load_hardware_text("hw.yaml", kHardware, c, d);
  ASSERT_FALSE(d.has_errors()) << d.format();
  ASSERT_EQ(c.hardware.size(), 2U);
  const HardwareSpec* a100 = c.find_hardware("a100_80gb_sxm");
  ASSERT_NE(a100, nullptr);
  EXPECT_EQ(a100->name, "NVIDIA A100 80GB SXM");
  EXPECT_EQ(a100->source, "NVIDIA A100 datasheet (2021)");
  EXPECT_DOUBLE_EQ(a100->peak(Precision::fp16), 312e12);
  EXPECT_DOUBLE_EQ(a100->peak(Precision::int8), 624e12);
  EXPECT_DOUBLE_EQ(a100->peak(Precision::fp32), 19.5e12);
  EXPECT_FALSE(a100->supports(Precision::fp8));
  EXPECT_DOUBLE_EQ(a100->memory_bytes, 80 * kGiB);
  EXPECT_DOUBLE_EQ(a100->memory_bandwidth_bytes_per_s, 2.039e12);
  EXPECT_DOUBLE_EQ(a100->host_link_bandwidth_bytes_per_s, 32e9);
  EXPECT_DOUBLE_EQ(a100->accelerator_link_bandwidth_bytes_per_s, 300e9);
  EXPECT_DOUBLE_EQ(a100->tdp_w, 400);
  EXPECT_DOUBLE_EQ(a100->idle_power_fraction, 0.3);
  EXPECT_DOUBLE_EQ(a100->price_usd, 15000);
  EXPECT_EQ(c.hardware_ids(), (std::vector<std::string>{"a100_80gb_sxm", "edge_npu"}));
  EXPECT_EQ(c.find_hardware("h100_sxm"), nullptr);
}

// A short name is what figures print for a chip with a long name; the name stays the entry's.
TEST(CatalogTest, ShortNameIsOptionalAndKeptBesideTheName) {
  Diagnostics d;
  Catalog c;
  std::string text = kHardware;
  text.replace(text.find("    source: \"NVIDIA A100"), 0, "    short_name: A100 80GB\n");
  load_hardware_text("hw.yaml", text, c, d);
  ASSERT_FALSE(d.has_errors()) << d.format();
  EXPECT_EQ(c.find_hardware("a100_80gb_sxm")->name, "NVIDIA A100 80GB SXM");
  EXPECT_EQ(c.find_hardware("a100_80gb_sxm")->short_name, "A100 80GB");
  EXPECT_EQ(c.find_hardware("edge_npu")->short_name, "");
  // A what-if copied with `base:` keeps it; one that renames itself does not.
  load_hardware_text("study.yaml", R"yaml(hardware:
  - {id: a100_cheap, base: a100_80gb_sxm, source: "what-if", price: 10000 USD}
  - {id: a100_renamed, base: a100_80gb_sxm, name: A100 as a what-if, source: "what-if"}
)yaml", c, d);
  ASSERT_FALSE(d.has_errors()) << d.format();
  EXPECT_EQ(c.find_hardware("a100_cheap")->short_name, "A100 80GB");
  EXPECT_EQ(c.find_hardware("a100_renamed")->short_name, "");
}

// A diagnostic's message, without the source line and caret that follow it.
std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

TEST(CatalogTest, ShortNameMustBeShortNonEmptyAndTellChipsApart) {
  const auto errors = [](const std::string& short_name) {
    Diagnostics d;
    Catalog c;
    std::string text = kHardware;
    text.replace(text.find("    source: \"seeds/000"), 0, "    short_name: " + short_name + "\n");
    load_hardware_text("hw.yaml", text, c, d);
    return first_line(d.format());
  };
  EXPECT_EQ(errors("\"\""), "hw.yaml:16:18: error: hardware[1].short_name: expected a non-empty string, got nothing");
  EXPECT_EQ(errors("\"  \""), "hw.yaml:16:18: error: hardware[1].short_name: empty; leave it out and figures print the name");
  EXPECT_EQ(errors("Edge NPU chip"),
            "hw.yaml:16:17: error: hardware[1].short_name: 'Edge NPU chip' is not shorter than the name 'Edge NPU'; "
            "leave it out and figures print the name");
  EXPECT_EQ(errors("NVIDIA A100 80GB SXM"),
            "hw.yaml:16:17: error: hardware[1].short_name: 'NVIDIA A100 80GB SXM' is not shorter than the name 'Edge "
            "NPU'; leave it out and figures print the name");
  Diagnostics d;
  Catalog c;
  std::string text = kHardware;
  text.replace(text.find("    name: Edge NPU"), 18, "    name: Edge NPU with a name as long as a sentence");
  text.replace(text.find("    source: \"seeds/000"), 0, "    short_name: NVIDIA A100 80GB SXM\n");
  load_hardware_text("hw.yaml", text, c, d);
  EXPECT_EQ(first_line(d.format()),
            "hw.yaml:16:17: error: hardware[1].short_name: 'NVIDIA A100 80GB SXM' is already what figures call "
            "'a100_80gb_sxm'");
  Diagnostics d2;
  Catalog c2;
  text = kHardware;
  text.replace(text.find("    name: Edge NPU"), 18, "    name: Edge NPU with a name as long as a sentence");
  text.replace(text.find("    source: \"seeds/000"), 0, "    short_name: Edge NPU with a long name\n");
  load_hardware_text("hw.yaml", text, c2, d2);
  EXPECT_EQ(first_line(d2.format()),
            "hw.yaml:16:17: error: hardware[1].short_name: 'Edge NPU with a long name' has 25 characters; a figure's "
            "label takes at most 24");
}

// A model's short name follows a chip's rules: figures print it, tables and sentences the name.
TEST(CatalogTest, ModelShortNameIsValidatedAsAChipsIs) {
  const std::string two_models = std::string(kModels) + R"yaml(  - id: kws_long
    name: KWS profile with a name as long as a sentence
    source: "seeds/000 lab_07 Act 1"
    architecture: kernel_profile
    params: {kernels: 1000, kernel_compute_time: 5 us, reference_peak: 312 TFLOP/s, reference_eta: 0.5}
)yaml";
  const auto load = [&](const std::string& short_name, Catalog& c) {
    Diagnostics d;
    std::string text = two_models;
    text.replace(text.find("    source:", text.find("kws_long")), 0, "    short_name: " + short_name + "\n");
    load_models_text("models.yaml", text, c, d);
    return first_line(d.format());
  };
  Catalog c;
  EXPECT_EQ(load("KWS, long", c), "");
  EXPECT_EQ(c.find_model("kws_long")->short_name, "KWS, long");
  EXPECT_EQ(c.find_model("kws_long")->name, "KWS profile with a name as long as a sentence");
  EXPECT_EQ(c.find_model("kws_profile")->short_name, "");
  // A copy with `base:` keeps it; one that renames itself does not.
  Diagnostics d;
  load_models_text("study.yaml", R"yaml(models:
  - {id: kws_copy, base: kws_long, source: "what-if"}
  - {id: kws_renamed, base: kws_long, name: KWS as a what-if, source: "what-if"}
)yaml", c, d);
  ASSERT_FALSE(d.has_errors()) << d.format();
  EXPECT_EQ(c.find_model("kws_copy")->short_name, "KWS, long");
  EXPECT_EQ(c.find_model("kws_renamed")->short_name, "");
  Catalog c2, c3, c4;
  EXPECT_EQ(load("KWS profile", c2), "models.yaml:9:17: error: models[1].short_name: 'KWS profile' is already what "
                                     "figures call 'kws_profile'");
  EXPECT_EQ(load("KWS profile with a long name", c3),
            "models.yaml:9:17: error: models[1].short_name: 'KWS profile with a long name' has 28 characters; a "
            "figure's label takes at most 24");
  EXPECT_EQ(load("\"  \"", c4), "models.yaml:9:18: error: models[1].short_name: empty; leave it out and figures print the name");
}

TEST(CatalogTest, BuildsModelGraphsFromArchitectureParameters) {
  Diagnostics d;
  Catalog c;
  load_models_text("models.yaml", kModels, c, d);
  ASSERT_FALSE(d.has_errors()) << d.format();
  const CatalogModel* m = c.find_model("kws_profile");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->architecture, "kernel_profile");
  EXPECT_EQ(m->prepared.eager.id, "kws_profile");
  EXPECT_EQ(m->prepared.eager.name, "KWS profile");
  EXPECT_EQ(m->prepared.eager.source, "seeds/000 lab_07 Act 1");
  // kernel_profile (engine/model_builders.hpp): N kernels of t_c x peak x eta FLOP each.
  EXPECT_DOUBLE_EQ(m->prepared.eager.total_kernels(), 1000);
  EXPECT_NEAR(m->prepared.eager.total_flops_per_sample(), 1000 * 5e-6 * 312e12 * 0.5, 1e-6 * 1000 * 5e-6 * 312e12);
  // Every architecture parameter is recorded, defaults included, in the architecture's order.
  const auto& p = m->params;
  ASSERT_GE(p.size(), 4U);
  EXPECT_EQ(p[0], (std::pair<std::string, std::string>{"kernels", "1000"}));
  EXPECT_EQ(p[1], (std::pair<std::string, std::string>{"kernel_compute_time", "5 us"}));
  EXPECT_EQ(p[4].first, "elementwise_per_group");
  EXPECT_EQ(p[4].second, "0");
}

TEST(CatalogTest, ReportsEveryProblemOfAnEntry) {
  Diagnostics d;
  Catalog c;
  load_hardware_text("hw.yaml", R"yaml(hardware:
  - id: bad
    name: Bad
    source: "test"
    peak_flops: {fp16: 10 TFLOPs, fq64: 1 TFLOP/s}
    memory: 8
    memory_bandwidth: 100 GB/s
    host_link: 0 GB/s
    tdp: 5 W
    idle_power_fraction: 1.5
    price: 0 USD
    colour: red
)yaml", c, d);
  EXPECT_TRUE(c.hardware.empty());
  const std::string units =
      "FLOP/s, kFLOP/s, MFLOP/s, GFLOP/s, TFLOP/s, PFLOP/s, EFLOP/s, GFLOPS, TFLOPS, PFLOPS, OP/s, kOP/s, MOP/s, "
      "GOP/s, TOP/s, POP/s, EOP/s, GOPS, TOPS, POPS";
  EXPECT_EQ(d.format(),
            "hw.yaml:12:5: error: unknown key 'colour' in hardware[0]; valid keys: id, base, name, short_name, source, "
            "peak_flops, "
            "memory, memory_bandwidth, weight_memory, host_link, accelerator_link, tdp, idle_power_fraction, price, rental, "
            "shared_memory_per_block, shared_memory_per_sm, registers_per_thread, registers_per_sm, "
            "max_threads_per_block, compute_units, cores, sparse_speedup, fp8_gemm_relative_efficiency, release_year, "
            "unchecked\n"
            "      colour: red\n"
            "      ^~~~~~\n"
            "hw.yaml:5:27: error: unknown FLOP/s unit 'TFLOPs'; did you mean 'TFLOPS'? valid FLOP/s units: " +
                units + "\n"
                "      peak_flops: {fp16: 10 TFLOPs, fq64: 1 TFLOP/s}\n"
                "                            ^~~~~~\n"
                "hw.yaml:5:35: error: unknown precision 'fq64'; did you mean 'fp64'? valid precisions: fp64, fp32, tf32, fp16, bf16, fp8, fp6, fp4, int8, "
                "int4\n"
                "      peak_flops: {fp16: 10 TFLOPs, fq64: 1 TFLOP/s}\n"
                "                                    ^~~~\n"
                "hw.yaml:6:13: error: missing unit: hardware[0].memory is a size in bytes, e.g. '80 GiB'\n"
                "      memory: 8\n"
                "              ^\n"
                "hw.yaml:8:16: error: hardware[0].host_link = 0 GB/s is out of range: it must be greater than 0 B/s\n"
                "      host_link: 0 GB/s\n"
                "                 ^~~~~~\n"
                "hw.yaml:2:5: error: hardware[0]: missing required key 'accelerator_link'\n"
                "    - id: bad\n"
                "      ^\n"
                "hw.yaml:10:26: error: hardware[0].idle_power_fraction = 1.5 is out of range: it must be in [0, 1]\n"
                "      idle_power_fraction: 1.5\n"
                "                           ^~~\n"
                "hw.yaml:2:5: error: hardware[0]: missing required key 'release_year'\n"
                "    - id: bad\n"
                "      ^\n");
}

TEST(CatalogTest, LoadsAFolderAndNamesMissingFiles) {
  TempDir dir;
  dir.write("hardware.yaml", kHardware);
  dir.write("models.yaml", kModels);
  Diagnostics d;
  const Catalog c = load_catalog(dir.str(), d);
  EXPECT_FALSE(d.has_errors()) << d.format();
  EXPECT_EQ(c.hardware.size(), 2U);
  EXPECT_EQ(c.model_ids(), (std::vector<std::string>{"kws_profile"}));

  TempDir empty;
  Diagnostics missing;
  const Catalog none = load_catalog(empty.str(), missing);
  EXPECT_TRUE(none.hardware.empty());
  ASSERT_EQ(missing.errors().size(), 2U);
  EXPECT_EQ(missing.errors()[0].where.file, empty.str() + "/hardware.yaml");
  EXPECT_EQ(missing.errors()[0].message, "cannot read the hardware catalog: No such file or directory");
  EXPECT_EQ(missing.errors()[1].where.file, empty.str() + "/models.yaml");
}

TEST(CatalogTest, DuplicateIdsAreErrorsAndBaseEntriesCopy) {
  Diagnostics d;
  Catalog c;
  load_hardware_text("hw.yaml", std::string(kHardware) + R"yaml(  - id: edge_npu
    base: a100_80gb_sxm
    source: "copy"
  - id: a100_tweaked
    base: a100_80gb_sxm
    peak_flops: {fp16: 0 TFLOP/s, fp8: 624 TFLOP/s}
    tdp: 300 W
    source: "what-if"
)yaml", c, d);
  EXPECT_EQ(d.format(),
            "hw.yaml:26:9: error: duplicate hardware id 'edge_npu': already defined at line 14, column 9\n"
            "    - id: edge_npu\n"
            "          ^~~~~~~~\n");
  const HardwareSpec* t = c.find_hardware("a100_tweaked");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->name, "NVIDIA A100 80GB SXM");
  EXPECT_EQ(t->source, "what-if");
  EXPECT_DOUBLE_EQ(t->tdp_w, 300);
  EXPECT_DOUBLE_EQ(t->memory_bytes, 80 * kGiB);
  // peak_flops merges per precision: listed ones change, the others are the base's.
  EXPECT_FALSE(t->supports(Precision::fp16));
  EXPECT_DOUBLE_EQ(t->peak(Precision::fp8), 624e12);
  EXPECT_DOUBLE_EQ(t->peak(Precision::bf16), 312e12);
}

TEST(CatalogTest, ALaterBlockReplacesAnEntryWithTheSameId) {
  Diagnostics d;
  Catalog c;
  load_hardware_text("hw.yaml", kHardware, c, d);
  load_hardware_text("study.yaml", R"yaml(hardware:
  - {id: edge_npu, base: edge_npu, memory: 16 GiB, source: "what-if: 16 GiB"}
)yaml", c, d);
  ASSERT_FALSE(d.has_errors()) << d.format();
  ASSERT_EQ(c.hardware_ids(), (std::vector<std::string>{"a100_80gb_sxm", "edge_npu"}));
  EXPECT_DOUBLE_EQ(c.hardware[1].memory_bytes, 16 * kGiB);
  EXPECT_DOUBLE_EQ(c.hardware[1].peak(Precision::int8), 10e12);
}

// Optional kernel limits (CUDA C Programming Guide, compute capability 8.0: 163 KB shared memory per
// block, 164 KB per SM, KB = 1024 B; 255 registers per thread; 64 K registers per SM; 1,024 threads).
TEST(CatalogTest, KernelLimitsAreOptional) {
  Diagnostics d;
  Catalog c;
  load_hardware_text("hw.yaml", std::string(kHardware) + R"yaml(  - id: a100_limits
    base: a100_80gb_sxm
    source: "CUDA C Programming Guide, compute capability 8.0"
    shared_memory_per_block: 163 KiB
    shared_memory_per_sm: 164 KiB
    registers_per_thread: 255
    registers_per_sm: 65536
    max_threads_per_block: 1024
  - id: a100_copy
    base: a100_limits
    source: "copy keeps the limits"
    tdp: 300 W
)yaml", c, d);
  ASSERT_FALSE(d.has_errors()) << d.format();
  // Left out: unknown (0).
  const HardwareSpec* plain = c.find_hardware("a100_80gb_sxm");
  ASSERT_NE(plain, nullptr);
  EXPECT_DOUBLE_EQ(plain->shared_memory_per_block_bytes, 0);
  EXPECT_DOUBLE_EQ(plain->registers_per_sm, 0);
  EXPECT_DOUBLE_EQ(plain->max_threads_per_block, 0);
  for (const char* id : {"a100_limits", "a100_copy"}) {
    const HardwareSpec* h = c.find_hardware(id);
    ASSERT_NE(h, nullptr) << id;
    EXPECT_DOUBLE_EQ(h->shared_memory_per_block_bytes, 163 * 1024.0) << id;
    EXPECT_DOUBLE_EQ(h->shared_memory_per_sm_bytes, 164 * 1024.0) << id;
    EXPECT_DOUBLE_EQ(h->registers_per_thread, 255) << id;
    EXPECT_DOUBLE_EQ(h->registers_per_sm, 65536) << id;
    EXPECT_DOUBLE_EQ(h->max_threads_per_block, 1024) << id;
  }
  EXPECT_DOUBLE_EQ(c.find_hardware("a100_copy")->tdp_w, 300);
}

TEST(CatalogTest, KernelLimitsAreCheckedLikeOtherFields) {
  Diagnostics d;
  Catalog c;
  load_hardware_text("hw.yaml", std::string(kHardware) + R"yaml(  - id: bad_limits
    base: a100_80gb_sxm
    source: "test"
    shared_memory_per_block: 163
    registers_per_thread: 25.5
    max_threads_per_block: -1
)yaml", c, d);
  EXPECT_EQ(c.find_hardware("bad_limits"), nullptr);
  EXPECT_EQ(d.format(),
            "hw.yaml:29:30: error: missing unit: hardware[2].shared_memory_per_block is a size in bytes, e.g. "
            "'80 GiB'\n"
            "      shared_memory_per_block: 163\n"
            "                               ^~~\n"
            "hw.yaml:30:27: error: hardware[2].registers_per_thread must be an integer, got '25.5'\n"
            "      registers_per_thread: 25.5\n"
            "                            ^~~~\n"
            "hw.yaml:31:28: error: hardware[2].max_threads_per_block = -1 is out of range: it must be at least 0\n"
            "      max_threads_per_block: -1\n"
            "                             ^~\n");
}

// fp8_gemm_relative_efficiency is optional (left out: 0, the same fraction of peak as bf16), kept by a
// base: copy, and checked against its plausible range like the other ratios.
TEST(CatalogTest, Fp8GemmRelativeEfficiencyIsOptionalAndChecked) {
  Diagnostics d;
  Catalog c;
  load_hardware_text("hw.yaml", std::string(kHardware) + R"yaml(  - {id: r, base: a100_80gb_sxm, source: "t", fp8_gemm_relative_efficiency: 0.882}
  - {id: copy, base: r, source: "copy keeps the ratio"}
)yaml", c, d);
  ASSERT_FALSE(d.has_errors()) << d.format();
  EXPECT_EQ(c.find_hardware("a100_80gb_sxm")->fp8_gemm_relative_efficiency, 0.0);
  EXPECT_DOUBLE_EQ(c.find_hardware("r")->fp8_gemm_relative_efficiency, 0.882);
  EXPECT_DOUBLE_EQ(c.find_hardware("copy")->fp8_gemm_relative_efficiency, 0.882);

  Diagnostics bad;
  Catalog b;
  load_hardware_text("hw.yaml", std::string(kHardware) + R"yaml(  - {id: r1, base: a100_80gb_sxm, source: "t", fp8_gemm_relative_efficiency: 88.2}
)yaml", b, bad);
  EXPECT_NE(bad.format().find("hardware[2].fp8_gemm_relative_efficiency = 88.2 is outside the plausible range "
                              "[0.25, 2]"),
            std::string::npos)
      << bad.format();
}

// An entry written in full gives the year its part first shipped or says `unknown`; a `base:` entry
// keeps its base's; anything else is an error at the value.
TEST(CatalogTest, ReleaseYearIsAYearOrUnknown) {
  Diagnostics d;
  Catalog c;
  load_hardware_text("hw.yaml", std::string(kHardware) + R"yaml(  - {id: a100_2021, base: a100_80gb_sxm, source: "year", release_year: 2021}
  - {id: copy, base: a100_2021, source: "copy keeps the year"}
  - {id: npu_copy, base: edge_npu, source: "copy keeps unknown"}
)yaml", c, d);
  ASSERT_FALSE(d.has_errors()) << d.format();
  EXPECT_EQ(c.find_hardware("a100_80gb_sxm")->release_year, 2020);
  EXPECT_EQ(c.find_hardware("edge_npu")->release_year, 0);  // release_year: unknown
  EXPECT_EQ(c.find_hardware("a100_2021")->release_year, 2021);
  EXPECT_EQ(c.find_hardware("copy")->release_year, 2021);
  EXPECT_EQ(c.find_hardware("npu_copy")->release_year, 0);

  Diagnostics bad;
  Catalog b;
  load_hardware_text("hw.yaml", std::string(kHardware) + R"yaml(  - {id: y1, base: a100_80gb_sxm, source: "t", release_year: 1820}
  - {id: y2, base: a100_80gb_sxm, source: "t", release_year: 2020.5}
  - {id: y3, base: a100_80gb_sxm, source: "t", release_year: 2100, unchecked: [release_year]}
  - {id: y4, base: a100_80gb_sxm, source: "t", release_year: unknwon}
  - {id: y5, base: a100_80gb_sxm, source: "t", release_year: [2020]}
  - {id: y6, name: Y6, source: "t", peak_flops: {fp16: 1 TFLOP/s}, memory: 1 GiB, memory_bandwidth: 1 GB/s,
     host_link: 1 GB/s, accelerator_link: 0 GB/s, idle_power_fraction: 0.3, price: 0 USD}
)yaml", b, bad);
  EXPECT_EQ(bad.format(),
            "hw.yaml:26:62: error: hardware[2].release_year = 1820 is outside the plausible range [1970, 2040]; if it "
            "is deliberate, add 'release_year' to the entry's unchecked: list\n"
            "    - {id: y1, base: a100_80gb_sxm, source: \"t\", release_year: 1820}\n"
            "                                                               ^~~~\n"
            "hw.yaml:27:62: error: hardware[3].release_year must be an integer, got '2020.5'\n"
            "    - {id: y2, base: a100_80gb_sxm, source: \"t\", release_year: 2020.5}\n"
            "                                                               ^~~~~~\n"
            "hw.yaml:29:62: error: hardware[5].release_year: expected the year the part first shipped (an integer in "
            "[1970, 2040]) or 'unknown', got 'unknwon'; did you mean 'unknown'?\n"
            "    - {id: y4, base: a100_80gb_sxm, source: \"t\", release_year: unknwon}\n"
            "                                                               ^~~~~~~\n"
            "hw.yaml:30:62: error: hardware[6].release_year: expected the year the part first shipped (an integer in "
            "[1970, 2040]) or 'unknown', got a list\n"
            "    - {id: y5, base: a100_80gb_sxm, source: \"t\", release_year: [2020]}\n"
            "                                                               ^\n"
            "hw.yaml:31:5: error: hardware[7]: missing required key 'release_year'\n"
            "    - {id: y6, name: Y6, source: \"t\", peak_flops: {fp16: 1 TFLOP/s}, memory: 1 GiB, memory_bandwidth: 1 GB/s,\n"
            "      ^\n");
  EXPECT_EQ(b.find_hardware("y1"), nullptr);
  EXPECT_EQ(b.find_hardware("y4"), nullptr);
  EXPECT_EQ(b.find_hardware("y6"), nullptr);
  ASSERT_NE(b.find_hardware("y3"), nullptr);
  EXPECT_EQ(b.find_hardware("y3")->release_year, 2100);
}

// Plausible ranges: a slipped unit or exponent is an error naming the field, the value and the range.
TEST(CatalogTest, ImplausibleValuesAreErrorsUnlessMarkedDeliberate) {
  Diagnostics d;
  Catalog c;
  load_hardware_text("hw.yaml", std::string(kHardware) + R"yaml(  - id: typo
    base: a100_80gb_sxm
    source: "t"
    peak_flops: {fp16: 312 EFLOP/s}
    memory: 1 PB
    memory_bandwidth: 1e-300 B/s
    accelerator_link: 1 B/s
    tdp: 1 MW
    price: 15e9 USD
)yaml", c, d);
  EXPECT_EQ(c.find_hardware("typo"), nullptr);
  const std::string text = d.format();
  for (const char* expected : {
           "hw.yaml:29:24: error: hardware[2].peak_flops.fp16 = 312 EFLOP/s is outside the plausible range "
           "[1 MFLOP/s, 1 EFLOP/s] or 0; if it is deliberate, add 'peak_flops' to the entry's unchecked: list",
           "hw.yaml:30:13: error: hardware[2].memory = 1 PB is outside the plausible range [1 KiB, 64 TiB]",
           "hw.yaml:31:23: error: hardware[2].memory_bandwidth = 1e-300 B/s is outside the plausible range "
           "[1 MB/s, 100 PB/s]",
           "hw.yaml:32:23: error: hardware[2].accelerator_link = 1 B/s is outside the plausible range "
           "[1 MB/s, 100 TB/s] or 0",
           "hw.yaml:33:10: error: hardware[2].tdp = 1 MW is outside the plausible range [1 mW, 100 kW]",
       }) {
    EXPECT_NE(text.find(expected), std::string::npos) << expected << "\nin:\n" << text;
  }
  EXPECT_EQ(d.errors().size(), 6U) << text;  // and the price

  // Marked deliberate: loaded as written. An unknown field name in the list is an error.
  Diagnostics ok;
  Catalog c2;
  load_hardware_text("hw.yaml", std::string(kHardware) + R"yaml(  - id: wafer
    base: a100_80gb_sxm
    source: "a deliberate what-if"
    memory: 1 PB
    tdp: 1 MW
    unchecked: [memory, tdp]
  - {id: bad_list, base: a100_80gb_sxm, source: "t", unchecked: [memroy]}
)yaml", c2, ok);
  ASSERT_NE(c2.find_hardware("wafer"), nullptr) << ok.format();
  EXPECT_DOUBLE_EQ(c2.find_hardware("wafer")->memory_bytes, 1e15);
  EXPECT_EQ(implausible_hardware_fields(*c2.find_hardware("wafer")), (std::vector<std::string>{"memory", "tdp"}));
  EXPECT_TRUE(implausible_hardware_fields(*c2.find_hardware("a100_80gb_sxm")).empty());
  ASSERT_EQ(ok.errors().size(), 1U) << ok.format();
  EXPECT_NE(ok.format().find("unknown field with a plausible range 'memroy'; did you mean 'memory'?"),
            std::string::npos)
      << ok.format();
}

// The ranges admit both ends of the market: a Cortex-M microcontroller (1 MiB of SRAM, about
// 1 GFLOP/s, a fraction of a watt, a few dollars) and a GB200 (186 GiB, 8 TB/s, 10 PFLOP/s fp4, 1.2 kW).
TEST(CatalogTest, PlausibleRangesAdmitAMicrocontrollerAndAGb200) {
  Diagnostics d;
  Catalog c;
  load_hardware_text("hw.yaml", R"yaml(hardware:
  - {id: mcu, name: MCU, source: "t", peak_flops: {fp32: 0.96 GFLOP/s}, memory: 1 MiB, memory_bandwidth: 1.9 GB/s,
     host_link: 1.9 GB/s, accelerator_link: 0 GB/s, tdp: 0.3 W, idle_power_fraction: 0.3, price: 10 USD,
     release_year: 2017}
  - {id: gb200, name: GB200, source: "t", peak_flops: {fp4: 10 PFLOP/s}, memory: 186 GiB, memory_bandwidth: 8 TB/s,
     host_link: 450 GB/s, accelerator_link: 900 GB/s, tdp: 1200 W, idle_power_fraction: 0.3, price: 0 USD,
     release_year: 2024}
)yaml", c, d);
  EXPECT_FALSE(d.has_errors()) << d.format();
  EXPECT_EQ(c.hardware.size(), 2U);
}

// TDP is the one optional number field of kHardwareFields: some vendors publish none (Google's
// TPUs). Left out it is 0 = unknown; written, it must still be > 0 and plausible. `cores` (a host
// CPU's core count) is optional, a non-negative integer within [1, 100,000] or 0.
TEST(CatalogTest, TdpMayBeLeftOutAndCoresAreOptional) {
  Diagnostics d;
  Catalog c;
  load_hardware_text("hw.yaml", R"yaml(hardware:
  - {id: tpu, name: TPU, source: "t", peak_flops: {bf16: 459 TFLOP/s}, memory: 95 GiB, memory_bandwidth: 2.765 TB/s,
     host_link: 32 GB/s, accelerator_link: 600 GB/s, idle_power_fraction: 0.3, price: 0 USD, release_year: 2023}
  - {id: cpu, name: CPU, source: "t", peak_flops: {fp64: 7.1 TFLOP/s}, memory: 960 GB, memory_bandwidth: 1 TB/s,
     host_link: 1 TB/s, accelerator_link: 450 GB/s, tdp: 500 W, idle_power_fraction: 0.3, price: 0 USD, cores: 144,
     release_year: unknown}
  - {id: tpu_copy, base: tpu, source: "t"}
)yaml", c, d);
  ASSERT_FALSE(d.has_errors()) << d.format();
  const HardwareSpec* tpu = c.find_hardware("tpu");
  ASSERT_NE(tpu, nullptr);
  EXPECT_EQ(tpu->tdp_w, 0);
  EXPECT_FALSE(tpu->tdp_known());
  EXPECT_EQ(tpu->cores, 0);
  EXPECT_TRUE(implausible_hardware_fields(*tpu).empty());
  EXPECT_FALSE(c.find_hardware("tpu_copy")->tdp_known());
  const HardwareSpec* cpu = c.find_hardware("cpu");
  ASSERT_NE(cpu, nullptr);
  EXPECT_TRUE(cpu->tdp_known());
  EXPECT_DOUBLE_EQ(cpu->cores, 144);
  EXPECT_TRUE(implausible_hardware_fields(*cpu).empty());

  // Written as 0 W the TDP is an error (leave it out instead); a fractional or huge core count too.
  Diagnostics bad;
  Catalog c2;
  load_hardware_text("hw.yaml", R"yaml(hardware:
  - {id: ok, name: OK, source: "t", peak_flops: {bf16: 1 TFLOP/s}, memory: 1 GiB, memory_bandwidth: 1 GB/s,
     host_link: 1 GB/s, accelerator_link: 0 GB/s, idle_power_fraction: 0.3, price: 0 USD, release_year: unknown}
  - {id: zero, base: ok, source: "t", tdp: 0 W}
  - {id: half, base: ok, source: "t", cores: 2.5}
  - {id: many, base: ok, source: "t", cores: 1e6}
)yaml", c2, bad);
  const std::string text = bad.format();
  EXPECT_NE(text.find("hardware[1].tdp = 0 W is out of range: it must be greater than 0 W"), std::string::npos) << text;
  EXPECT_NE(text.find("hardware[2].cores"), std::string::npos) << text;
  EXPECT_NE(text.find("hardware[3].cores = 1e6 is outside the plausible range [1, 100000] or 0"), std::string::npos)
      << text;
  EXPECT_EQ(bad.errors().size(), 3U) << text;
  EXPECT_NE(c2.find_hardware("ok"), nullptr);
  EXPECT_EQ(c2.find_hardware("many"), nullptr);
}

TEST(CatalogTest, HashIsFnv1aOfTheCanonicalContent) {
  // FNV-1a 64 of no bytes is the offset basis 0xcbf29ce484222325 (Fowler, Noll, Vo).
  EXPECT_EQ(catalog_hash(Catalog{}), "cbf29ce484222325");
  Diagnostics d;
  Catalog a;
  Catalog b;
  load_hardware_text("hw.yaml", kHardware, a, d);
  load_hardware_text("other.yaml", kHardware, b, d);
  ASSERT_FALSE(d.has_errors());
  EXPECT_EQ(catalog_hash(a), catalog_hash(b));
  EXPECT_EQ(catalog_hash(a).size(), 16U);
  b.hardware[0].tdp_w += 1;
  EXPECT_NE(catalog_hash(a), catalog_hash(b));
  // The optional kernel limits are part of the content.
  Catalog e = a;
  e.hardware[0].registers_per_sm = 65536;
  EXPECT_NE(catalog_hash(a), catalog_hash(e));
  Catalog y = a;
  y.hardware[0].release_year = 2021;
  EXPECT_NE(catalog_hash(a), catalog_hash(y));
  // A rental price, its date and its page are content too.
  Catalog r = a;
  r.hardware[0].rental_usd_per_hour = 4.1;
  r.hardware[0].rental_date = "2022-02-26";
  r.hardware[0].rental_source = "page";
  EXPECT_NE(catalog_hash(a), catalog_hash(r));
  Catalog r2 = r;
  r2.hardware[0].rental_date = "2023-02-26";
  EXPECT_NE(catalog_hash(r), catalog_hash(r2));
}

// `weight_memory: {capacity, read_bandwidth}` is optional; given, both are required, > 0 and within the
// memory fields' plausible ranges; a `base:` entry keeps its base's; it is part of the catalog's content.
TEST(CatalogTest, WeightMemoryIsOptionalAndChecked) {
  Diagnostics d;
  Catalog c;
  load_hardware_text("hw.yaml", std::string(kHardware) + R"yaml(  - id: mcu
    base: a100_80gb_sxm
    source: "t"
    memory: 1 MiB
    weight_memory: {capacity: 2 MiB, read_bandwidth: 1.536 GB/s}
  - {id: mcu_copy, base: mcu, source: "t"}
)yaml", c, d);
  ASSERT_FALSE(d.has_errors()) << d.format();
  EXPECT_FALSE(c.find_hardware("a100_80gb_sxm")->has_weight_memory());
  const HardwareSpec* mcu = c.find_hardware("mcu");
  ASSERT_NE(mcu, nullptr);
  EXPECT_TRUE(mcu->has_weight_memory());
  EXPECT_DOUBLE_EQ(mcu->weight_memory_bytes, 2.0 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(mcu->weight_memory_bandwidth_bytes_per_s, 1.536e9);
  EXPECT_DOUBLE_EQ(c.find_hardware("mcu_copy")->weight_memory_bytes, 2.0 * 1024 * 1024);
  Catalog without = c;
  without.hardware.back().weight_memory_bandwidth_bytes_per_s = 1.92e9;
  EXPECT_NE(catalog_hash(c), catalog_hash(without));

  Diagnostics bad;
  Catalog c2;
  load_hardware_text("hw.yaml", std::string(kHardware) + R"yaml(  - {id: w1, base: a100_80gb_sxm, source: "t", weight_memory: {capacity: 2 MiB}}
  - {id: w2, base: a100_80gb_sxm, source: "t", weight_memory: {capacity: 0 B, read_bandwidth: 1 GB/s}}
  - {id: w3, base: a100_80gb_sxm, source: "t", weight_memory: {capacity: 2 MiB, read_bandwidth: 1e-3 B/s}}
  - {id: w4, base: a100_80gb_sxm, source: "t", weight_memory: {capacity: 2 MiB, read_bandwidth: 1 GB/s, write: 1 GB/s}}
)yaml", c2, bad);
  const std::string text = bad.format();
  for (const char* expected : {
           "error: hardware[2].weight_memory: missing required key 'read_bandwidth'",
           "error: hardware[3].weight_memory.capacity = 0 B is out of range: it must be greater than 0 B",
           "error: hardware[4].weight_memory.read_bandwidth = 1e-3 B/s is outside the plausible range",
           "error: unknown key 'write' in hardware[5].weight_memory; valid keys: capacity, read_bandwidth",
       }) {
    EXPECT_NE(text.find(expected), std::string::npos) << expected << "\nin:\n" << text;
  }
  EXPECT_EQ(bad.errors().size(), 4U) << text;
  for (const char* id : {"w1", "w2", "w3", "w4"}) EXPECT_EQ(c2.find_hardware(id), nullptr) << id;
}

// `rental: {per_hour, date, source}` is optional; given, all three are required, the price is money
// per accelerator-hour within [0.01, 1,000] USD unless marked deliberate, and the date reads
// YYYY-MM-DD or YYYY-MM. A `base:` entry does not inherit its base's rental: it gives its own or has none.
TEST(CatalogTest, RentalPricesAreOptionalDatedAndChecked) {
  Diagnostics d;
  Catalog c;
  load_hardware_text("hw.yaml", std::string(kHardware) + R"yaml(  - id: rented
    base: a100_80gb_sxm
    source: "t"
    rental: {per_hour: 4.10 USD, date: 2022-02-26, source: "AWS P4 page, p4d.24xlarge / 8"}
  - {id: copy, base: rented, source: "t"}
  - {id: monthly, base: rented, source: "t", rental: {per_hour: 1.5 USD, date: 2023-06, source: "s"}}
)yaml", c, d);
  ASSERT_FALSE(d.has_errors()) << d.format();
  EXPECT_FALSE(c.find_hardware("a100_80gb_sxm")->rental_known());
  const HardwareSpec* rented = c.find_hardware("rented");
  ASSERT_NE(rented, nullptr);
  EXPECT_TRUE(rented->rental_known());
  EXPECT_DOUBLE_EQ(rented->rental_usd_per_hour, 4.10);
  EXPECT_EQ(rented->rental_date, "2022-02-26");
  EXPECT_EQ(rented->rental_source, "AWS P4 page, p4d.24xlarge / 8");
  EXPECT_FALSE(c.find_hardware("copy")->rental_known());
  EXPECT_TRUE(c.find_hardware("copy")->rental_source.empty());
  EXPECT_EQ(c.find_hardware("monthly")->rental_date, "2023-06");
  EXPECT_TRUE(implausible_hardware_fields(*rented).empty());

  Diagnostics bad;
  Catalog c2;
  load_hardware_text("hw.yaml", std::string(kHardware) + R"yaml(  - {id: r1, base: a100_80gb_sxm, source: "t", rental: {per_hour: 4 USD, date: 2022-02-26}}
  - {id: r2, base: a100_80gb_sxm, source: "t", rental: {per_hour: 4 USD, date: 26/02/2022, source: "s"}}
  - {id: r3, base: a100_80gb_sxm, source: "t", rental: {per_hour: 4000 USD, date: 2022-13, source: "s"}}
  - {id: r4, base: a100_80gb_sxm, source: "t", rental: {per_hour: 0 USD, date: 2022-02, source: "s", price: 1 USD}}
  - {id: r5, base: a100_80gb_sxm, source: "t", rental: {per_hour: 4000 USD, date: 2022-02, source: "s"}, unchecked: [rental]}
)yaml", c2, bad);
  const std::string text = bad.format();
  for (const char* expected : {
           "hw.yaml:26:56: error: hardware[2].rental: missing required key 'source'",
           "hw.yaml:27:80: error: hardware[3].rental.date: '26/02/2022' is not a date: write YYYY-MM-DD or YYYY-MM "
           "(2025-06-15, 2025-06)",
           "hw.yaml:28:67: error: hardware[4].rental.per_hour = 4000 USD is outside the plausible range "
           "[0.01 USD, 1000 USD]; if it is deliberate, add 'rental' to the entry's unchecked: list",
           "hw.yaml:28:83: error: hardware[4].rental.date: '2022-13' is not a date",
           "hw.yaml:29:67: error: hardware[5].rental.per_hour = 0 USD is out of range: it must be greater than 0 USD",
           "hw.yaml:29:102: error: unknown key 'price' in hardware[5].rental; valid keys: per_hour, date, source",
       }) {
    EXPECT_NE(text.find(expected), std::string::npos) << expected << "\nin:\n" << text;
  }
  EXPECT_EQ(bad.errors().size(), 6U) << text;
  for (const char* id : {"r1", "r2", "r3", "r4"}) EXPECT_EQ(c2.find_hardware(id), nullptr) << id;
  ASSERT_NE(c2.find_hardware("r5"), nullptr);
  EXPECT_EQ(implausible_hardware_fields(*c2.find_hardware("r5")), (std::vector<std::string>{"rental"}));
  EXPECT_NE(hardware_plausible_ranges_text().find("rental [0.01 USD, 1000 USD]"), std::string::npos)
      << hardware_plausible_ranges_text();
}

}  // namespace
}  // namespace dsx
