// End-to-end checks of the dsx binary as a user runs it.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "tests/test_files.hpp"

namespace {

namespace fs = std::filesystem;
using dsx::read_text;

struct Result {
  int exit_code = -1;
  std::string out;
};

// Runs dsx with `args` (trusted test strings) from the source folder; stderr joins stdout.
Result dsx(const std::string& args) {
  const std::string command = std::string("cd '") + DSX_SOURCE_DIR + "' && '" + DSX_BINARY + "' " + args + " 2>&1";
  Result r;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return r;
  char buffer[4096];
  while (std::fgets(buffer, sizeof buffer, pipe) != nullptr) r.out += buffer;
  const int status = pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

class QuickstartRun : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = fs::temp_directory_path() / ("dsx_cli_test_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    one_ = dsx("run studies/quickstart.yaml --quiet --threads 1 --out '" + (dir_ / "t1").string() + "'");
    two_ = dsx("run studies/quickstart.yaml --quiet --threads 2 --out '" + (dir_ / "t2").string() + "'");
  }
  static void TearDownTestSuite() { fs::remove_all(dir_); }
  static inline fs::path dir_;
  static inline Result one_, two_;
};

TEST_F(QuickstartRun, WritesTheRunFolder) {
  ASSERT_EQ(one_.exit_code, 0) << one_.out;
  for (const char* f : {"report.md", "report.html", "results.sqlite", "results.csv", "pareto.csv",
                        "study.resolved.yaml", "manifest.json", "figures/pareto.svg", "figures/pareto.pdf",
                        "figures/pareto.png", "figures/pareto.gp", "figures/waterfall.svg"}) {
    EXPECT_TRUE(fs::exists(dir_ / "t1" / f)) << f;
  }
  EXPECT_NE(one_.out.find("report.html"), std::string::npos) << one_.out;
}

TEST_F(QuickstartRun, ResultsCarryTheFixedInputsAfterTheAxes) {
  ASSERT_EQ(one_.exit_code, 0) << one_.out;
  for (const char* file : {"results.csv", "pareto.csv"}) {
    std::istringstream csv(read_text(dir_ / "t1" / file));
    std::string header, first;
    std::getline(csv, header);
    std::getline(csv, first);
    const std::size_t fixed_at = header.find(",precision,batch,eta,");
    ASSERT_NE(fixed_at, std::string::npos) << file << ": " << header;
    EXPECT_LT(header.find(",launch_overhead,"), fixed_at) << header;
    EXPECT_LT(fixed_at, header.find(",status,")) << header;
    EXPECT_NE(first.find(",fp16,1,0.5,"), std::string::npos) << file << ": " << first;
  }
}

TEST_F(QuickstartRun, ReportShowsTheSeedHeadline) {
  ASSERT_EQ(one_.exit_code, 0) << one_.out;
  const std::string md = read_text(dir_ / "t1" / "report.md");
  EXPECT_NE(md.find("KWS eager utilization"), std::string::npos);
  EXPECT_NE(md.find("33.3"), std::string::npos);
  const std::string html = read_text(dir_ / "t1" / "report.html");
  EXPECT_NE(html.find("33.3"), std::string::npos);
  EXPECT_NE(html.find("<svg"), std::string::npos);
}

TEST_F(QuickstartRun, ResultsAndReportsAreIdenticalOnOneAndTwoThreads) {
  ASSERT_EQ(one_.exit_code, 0) << one_.out;
  ASSERT_EQ(two_.exit_code, 0) << two_.out;
  for (const char* f : {"results.csv", "pareto.csv", "report.md", "report.html", "study.resolved.yaml",
                        "figures/pareto.svg", "figures/pareto.pdf", "figures/pareto.png"}) {
    EXPECT_EQ(read_text(dir_ / "t1" / f), read_text(dir_ / "t2" / f)) << f;
  }
}

TEST_F(QuickstartRun, ReportReRendersFromStoredResults) {
  ASSERT_EQ(one_.exit_code, 0) << one_.out;
  const std::string before = read_text(dir_ / "t1" / "report.md");
  fs::remove(dir_ / "t1" / "report.md");
  const Result r = dsx("report '" + (dir_ / "t1").string() + "'");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(read_text(dir_ / "t1" / "report.md"), before);
}

TEST_F(QuickstartRun, RerunningTheSameStudyResumesAndChangesNothing) {
  ASSERT_EQ(one_.exit_code, 0) << one_.out;
  const std::string before = read_text(dir_ / "t1" / "results.csv");
  const Result r = dsx("run studies/quickstart.yaml --quiet --out '" + (dir_ / "t1").string() + "'");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(read_text(dir_ / "t1" / "results.csv"), before);
}

TEST_F(QuickstartRun, ADifferentStudyInTheSameFolderIsRefused) {
  ASSERT_EQ(one_.exit_code, 0) << one_.out;
  const Result r = dsx("run tests/bench/sweep_grid.yaml --quiet --out '" + (dir_ / "t1").string() + "'");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("--fresh"), std::string::npos) << r.out;
}

TEST(Cli, HelpListsEveryCommand) {
  const Result r = dsx("--help");
  EXPECT_EQ(r.exit_code, 0);
  for (const char* c : {"run", "validate", "eval", "catalog", "report"}) {
    EXPECT_NE(r.out.find(c), std::string::npos) << c;
    EXPECT_EQ(dsx(std::string(c) + " --help").exit_code, 0) << c;
  }
}

TEST(Cli, UnknownCommandSuggestsTheClosest) {
  const Result r = dsx("rnu studies/quickstart.yaml");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.out.find("did you mean 'run'?"), std::string::npos) << r.out;
}

TEST(Cli, BadOptionIsExitCodeTwo) {
  EXPECT_EQ(dsx("run studies/quickstart.yaml --bogus").exit_code, 2);
}

TEST(Cli, ThreadsAreBoundedBeforeAnythingIsWritten) {
  const Result r = dsx("run studies/quickstart.yaml --threads 65537 --out /nonexistent/threads");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("dsx run: error: --threads 65537: at most 1024 (0 uses every core, "), std::string::npos)
      << r.out;
}

TEST(Cli, ValidateAcceptsTheQuickstartAndRejectsAMalformedStudy) {
  const Result ok = dsx("validate studies/quickstart.yaml");
  EXPECT_EQ(ok.exit_code, 0) << ok.out;
  EXPECT_NE(ok.out.find("144 design points"), std::string::npos) << ok.out;
  const Result bad = dsx("validate tests/malformed/unknown_key.yaml");
  EXPECT_EQ(bad.exit_code, 2) << bad.out;
  EXPECT_NE(bad.out.find("tests/malformed/unknown_key.yaml:"), std::string::npos) << bad.out;
}

// The benchmark studies README's performance section runs stay valid as the solvers change.
TEST(Cli, BenchmarkStudiesValidate) {
  for (const char* study : {"tests/bench/sweep_grid.yaml", "tests/bench/keep_all_report.yaml"}) {
    const Result r = dsx(std::string("validate ") + study);
    EXPECT_EQ(r.exit_code, 0) << study << "\n" << r.out;
  }
  EXPECT_NE(dsx("validate tests/bench/keep_all_report.yaml").out.find("2,592,000 design points"), std::string::npos);
}

// Prose that names a decision's choice outright where the computed decision chooses another is a
// warning, at the claim's line and column, and the study still validates (exit 0).
TEST(Cli, ValidateWarnsWhenTheProseNamesAChoiceTheDecisionDoesNotMake) {
  const fs::path dir = fs::temp_directory_path() / ("dsx_prose_claims_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::string text = read_text(fs::path(DSX_SOURCE_DIR) / "studies" / "purchase_sensitivity.yaml");
  const std::string last = "comparison lives.";
  // Every alternative of the NVIDIA decision is "the choice" once: at most one of them is right.
  text.insert(text.find(last) + last.size(), " a100_80gb_sxm wins. h100_sxm wins. h200 wins. b200 wins.");
  std::ofstream(dir / "study.yaml") << text;
  const Result r = dsx("validate '" + (dir / "study.yaml").string() + "'");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find(": ok: solver inference"), std::string::npos) << r.out;
  std::istringstream lines(r.out);
  std::size_t warnings = 0;
  for (std::string line; std::getline(lines, line);) {
    const std::size_t at = line.find(": warning: the prose says '");
    if (at == std::string::npos) continue;
    ++warnings;
    // file:LINE:COL points at the claimed id.
    const std::size_t col_colon = line.rfind(':', at - 1), line_colon = line.rfind(':', col_colon - 1);
    const int line_no = std::stoi(line.substr(line_colon + 1, col_colon - line_colon - 1));
    const int column = std::stoi(line.substr(col_colon + 1, at - col_colon - 1));
    const std::string id = line.substr(at + 27, line.find(' ', at + 27) - at - 27);
    std::istringstream study(text);
    std::string source_line;
    for (int n = 0; n < line_no; ++n) std::getline(study, source_line);
    EXPECT_EQ(source_line.substr(static_cast<std::size_t>(column - 1), id.size()), id) << line;
    EXPECT_NE(line.find("decision 'nvidia_purchase' chooses "), std::string::npos) << line;
  }
  EXPECT_GE(warnings, 3u) << r.out;
  fs::remove_all(dir);
}

TEST(Cli, EvalPrintsEveryMetricAsJson) {
  const Result r = dsx(
      "eval inference hardware=a100_80gb_sxm model=lab07_kws precision=fp16 'launch_overhead=10 us' eta=0.5 --json");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("\"gpu_utilization\": 0.333333"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"status\": \"ok\""), std::string::npos) << r.out;
}

// An infeasible point is evaluated and printed as before, with its reason, and exits 4, so a
// script can tell it from a point that works.
TEST(Cli, EvalOfAnInfeasiblePointExits4WithTheReason) {
  const std::string point = "eval training hardware=l4 model=llama3_70b gpus=8 tp=8 pp=1";
  const Result text = dsx(point);
  EXPECT_EQ(text.exit_code, 4) << text.out;
  EXPECT_NE(text.out.find("solver training: infeasible ("), std::string::npos) << text.out;
  const Result json = dsx(point + " --json");
  EXPECT_EQ(json.exit_code, 4) << json.out;
  EXPECT_NE(json.out.find("\"status\": \"infeasible\""), std::string::npos) << json.out;
  EXPECT_NE(json.out.find("\"reason\": "), std::string::npos) << json.out;
}

TEST(Cli, EvalReportsABadValueWithLocation) {
  const Result r = dsx("eval inference hardware=a100_80gb_sxmm model=lab07_kws precision=fp16 "
                       "launch_overhead=10 eta=0.5");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("did you mean 'a100_80gb_sxm'?"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("unit"), std::string::npos) << r.out;
}

// A disaggregated prefill pool on another chip (Splitwise-HA: H100 prefill, A100 decode): the KV leaves
// at the A100's NVLink 3, 300 GB/s one-way, and the prefill GPU-hour is the H100's 31,250 USD over 3 years.
TEST(Cli, EvalTakesAPrefillHardwareOrNone) {
  const std::string point =
      "eval serving hardware=a100_80gb_sxm model=llama3_8b precision=fp16 batch=16 disaggregated=on";
  const Result r = dsx(point + " prefill_hardware=h100_sxm --json");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("\"kv_transfer_s\": 0.00089478485"), std::string::npos) << r.out;  // 2,048 x 131,072 B / 300 GB/s
  EXPECT_NE(r.out.find("\"prefill_gpu_hour_price_usd\": 1.18911719"), std::string::npos) << r.out;
  EXPECT_EQ(dsx(point + " prefill_hardware=none").exit_code, 0);
  const Result bad = dsx(point + " prefill_hardware=h100_sx");
  EXPECT_EQ(bad.exit_code, 2) << bad.out;
  EXPECT_NE(bad.out.find("did you mean 'h100_sxm'?"), std::string::npos) << bad.out;
  // Without disaggregation the prefill pool does not exist.
  const Result colocated = dsx(
      "eval serving hardware=a100_80gb_sxm model=llama3_8b precision=fp16 prefill_hardware=h100_sxm");
  EXPECT_EQ(colocated.exit_code, 4) << colocated.out;
  EXPECT_NE(colocated.out.find("prefill_hardware needs disaggregated: on"), std::string::npos) << colocated.out;
}

// gpu_hour_price=catalog rents each chip at its catalog rental price: the A100 80GB at AWS p4de's
// 40.96 USD over 8 GPUs, its H100 prefill pool at p5's 55.04 USD over 8; a chip without one is
// infeasible (exit 4) and named, and a misspelt word is an error (exit 2) with the closest match.
TEST(Cli, EvalTakesTheCatalogRentalPrice) {
  const std::string point = "eval serving model=llama3_8b precision=fp16 batch=16 gpu_hour_price=catalog";
  const Result r = dsx(point + " hardware=a100_80gb_sxm disaggregated=on prefill_hardware=h100_sxm --json");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("\"gpu_hour_price\": \"catalog\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"gpu_hour_price_usd\": 5.12"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"prefill_gpu_hour_price_usd\": 6.88"), std::string::npos) << r.out;
  const Result unpriced = dsx(point + " hardware=gaudi3");
  EXPECT_EQ(unpriced.exit_code, 4) << unpriced.out;
  EXPECT_NE(unpriced.out.find("gpu_hour_price is catalog, but gaudi3 has no rental price in the catalog"),
            std::string::npos)
      << unpriced.out;
  const Result prefill = dsx(point + " hardware=h100_sxm disaggregated=on prefill_hardware=gaudi3");
  EXPECT_EQ(prefill.exit_code, 4) << prefill.out;
  EXPECT_NE(prefill.out.find("the prefill hardware has no rental price"), std::string::npos) << prefill.out;
  const Result bad = dsx("eval serving model=llama3_8b precision=fp16 hardware=h100_sxm gpu_hour_price=catalgo");
  EXPECT_EQ(bad.exit_code, 2) << bad.out;
  EXPECT_NE(bad.out.find("did you mean 'catalog'?"), std::string::npos) << bad.out;
  const Result solvers = dsx("catalog solvers --json");
  ASSERT_EQ(solvers.exit_code, 0);
  EXPECT_NE(solvers.out.find("\"kind\": \"amount of money or catalog\""), std::string::npos);
}

TEST(Cli, EvalTakesARegionAndShowsWhatItSets) {
  const Result r = dsx("eval training region=quebec node=dgx_h100 model=llama3_70b tp=8 pp=8 --json");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("\"region\": \"quebec\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"carbon_intensity_g_per_kwh\": \"20 g/kWh\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"electricity_usd_per_kwh\": \"0.041 USD/kWh\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"water_l\": 0"), std::string::npos) << r.out;
  const Result text = dsx("eval training region=quebec node=dgx_h100 model=llama3_70b tp=8 pp=8");
  ASSERT_EQ(text.exit_code, 0) << text.out;
  EXPECT_NE(text.out.find("region quebec: pue = 1.06, carbon_intensity_g_per_kwh = 20 g/kWh"), std::string::npos)
      << text.out;
  const Result bad = dsx("eval training region=quebek model=llama3_70b");
  EXPECT_EQ(bad.exit_code, 2) << bad.out;
  EXPECT_NE(bad.out.find("did you mean 'quebec'?"), std::string::npos) << bad.out;
}

TEST(Cli, CatalogListsBundlesWithTheirValuesAndSources) {
  const Result r = dsx("catalog regions");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("regions ("), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("sets: carbon_intensity_g_per_kwh = 429 g/kWh, pue = 1.12"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("source: mlsysim grid profile US_Avg"), std::string::npos) << r.out;
  const Result all = dsx("catalog --json");
  ASSERT_EQ(all.exit_code, 0) << all.out;
  for (const char* key : {"\"regions\"", "\"fabrics\"", "\"nodes\"", "\"dgx_h100\"", "\"nvlink4\""}) {
    EXPECT_NE(all.out.find(key), std::string::npos) << key;
  }
  // A torus node shows its topology in both forms.
  const Result nodes = dsx("catalog nodes");
  EXPECT_NE(nodes.out.find("sets: hardware = tpu_v6e, gpus_per_node = 256, topology = torus 16 x 16"), std::string::npos)
      << nodes.out;
  const std::string compact = [&] {
    std::string out;
    for (char c : all.out) {
      if (c != ' ' && c != '\n') out += c;
    }
    return out;
  }();
  EXPECT_NE(compact.find("\"topology\":{\"torus\":[4,4,4]}"), std::string::npos);
}

// `dsx catalog compression_accuracy` lists every figure of studies/catalog/compression_accuracy.yaml
// with its setting and source. The figures checked are the LLaMA-2-7B row of the Wanda repository's
// README table (github.com/locuslab/wanda, "Pruning LLaMA-2"): dense 5.12, 2:4 SparseGPT 10.17,
// unstructured 50 % Wanda 6.42 WikiText-2 perplexity.
TEST(Cli, CatalogListsCompressionAccuracyFigures) {
  const Result r = dsx("catalog compression_accuracy");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  std::ifstream file(std::string(DSX_SOURCE_DIR) + "/studies/catalog/compression_accuracy.yaml");
  std::size_t entries = 0;
  for (std::string line; std::getline(file, line);) entries += line.rfind("  - {model:", 0) == 0 ? 1 : 0;
  ASSERT_GT(entries, 0u);
  EXPECT_NE(r.out.find("compression_accuracy (" + std::to_string(entries) + " entries"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("llama2_7b        wikitext2_perplexity: 5.12 uncompressed, 10.17 compressed\n"
                       "    setting: method = sparsegpt, weight_precision = fp16, quantize = weights_only, "
                       "group_size = none, sparsity = 0, structured_2_4 = on\n"
                       "    source: Sun et al. 2023"),
            std::string::npos)
      << r.out;
  // Accuracies read in percent, as the source prints them: Huang et al. 2024 (arXiv:2404.14047), LLaMA3-8B
  // table of github.com/Macaronlin/LLaMA3-Quantization, row RTN W8 per-channel, CommonSenseQA Avg. 68.9
  // against 68.6 for the 16-bit model.
  EXPECT_NE(r.out.find("llama3_8b        zero_shot_average_accuracy: 68.6 % uncompressed, 68.9 % compressed\n"
                       "    setting: method = rtn, weight_precision = int8, quantize = weights_only, "
                       "group_size = per_channel"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("hardware ("), std::string::npos) << "only the section asked for";
  const Result json = dsx("catalog compression_accuracy --json");
  ASSERT_EQ(json.exit_code, 0) << json.out;
  const auto rows = nlohmann::json::parse(json.out).at("compression_accuracy");
  EXPECT_EQ(rows.size(), entries);
  bool found = false;
  for (const auto& row : rows) {
    if (row.at("model") != "llama2_7b" || row.at("method") != "wanda" || row.at("structured_2_4") != "off") continue;
    found = true;
    EXPECT_EQ(row.at("sparsity"), 0.5);
    EXPECT_EQ(row.at("baseline"), 5.12);
    EXPECT_EQ(row.at("compressed"), 6.42);
    EXPECT_NE(row.at("source").get<std::string>().find("arXiv:2306.11695"), std::string::npos);
  }
  EXPECT_TRUE(found) << json.out;
  EXPECT_NE(nlohmann::json::parse(dsx("catalog --json").out).count("compression_accuracy"), 0u);
  const Result typo = dsx("catalog compression_acuracy");
  EXPECT_EQ(typo.exit_code, 2);
  EXPECT_NE(typo.out.find("did you mean 'compression_accuracy'?"), std::string::npos) << typo.out;
}

TEST(Cli, CatalogSolversShowEachParametersKindDefaultAndRange) {
  const Result text = dsx("catalog solvers");
  ASSERT_EQ(text.exit_code, 0) << text.out;
  EXPECT_NE(text.out.find("count (integer); default 2048; [1, 10000000]"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("model id or none; default none"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("one of continuous, static; default continuous"), std::string::npos) << text.out;
  const Result json = dsx("catalog solvers --json");
  ASSERT_EQ(json.exit_code, 0) << json.out;
  const auto parsed = nlohmann::json::parse(json.out);
  bool found = false;
  for (const auto& solver : parsed.at("solvers")) {
    if (solver.at("name") != "serving") continue;
    for (const auto& param : solver.at("params")) {
      if (param.at("name") != "prompt_tokens") continue;
      found = true;
      EXPECT_EQ(param.at("kind"), "count (integer)");
      EXPECT_EQ(param.at("default"), "2048");
      EXPECT_EQ(param.at("range"), "[1, 10000000]");
    }
  }
  EXPECT_TRUE(found);
}

TEST(Cli, CatalogListsSources) {
  const Result r = dsx("catalog hardware");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("h100_sxm"), std::string::npos);
  EXPECT_NE(r.out.find("source:"), std::string::npos);
  EXPECT_EQ(dsx("catalog hardwar").exit_code, 2);
  // A dated rental price is printed with its date; --json gives it per accelerator-hour, or null.
  EXPECT_NE(r.out.find("rental: 1.08 USD per accelerator-hour on demand (2023-04-12), source: AWS Neuron"),
            std::string::npos)
      << r.out;
  const Result j = dsx("catalog hardware --json");
  ASSERT_EQ(j.exit_code, 0) << j.out;
  EXPECT_NE(j.out.find("\"rental\": {\n        \"usd_per_hour\": 1.08175,\n        \"date\": \"2023-04-12\""),
            std::string::npos)
      << j.out.substr(0, 2000);
  EXPECT_NE(j.out.find("\"rental\": null"), std::string::npos);
}

}  // namespace

namespace {

// A study can bring its own report templates (`template:`), found relative to the study file.
TEST(Cli, AStudyRendersWithItsOwnTemplateFolder) {
  const fs::path dir = fs::temp_directory_path() / ("dsx_template_test_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  fs::copy(fs::path(DSX_SOURCE_DIR) / "templates", dir / "house", fs::copy_options::recursive);
  const std::string md = read_text(dir / "house" / "report.md.mustache");
  std::ofstream(dir / "house" / "report.md.mustache") << "Prepared for the purchasing committee.\n\n" << md;
  std::ofstream(dir / "study.yaml") << read_text(fs::path(DSX_SOURCE_DIR) / "studies" / "quickstart.yaml")
                                    << "template: house\n";
  const Result r = dsx("run '" + (dir / "study.yaml").string() + "' --quiet --out '" + (dir / "run").string() + "'");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(read_text(dir / "run" / "report.md").rfind("Prepared for the purchasing committee.", 0), 0u);
  fs::remove_all(dir);
}

// A template folder that cannot render is found before the sweep: exit 2, no run folder.
TEST(Cli, UnusableTemplatesFailBeforeTheSweep) {
  const fs::path dir = fs::temp_directory_path() / ("dsx_template_early_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  const Result missing = dsx("run studies/quickstart.yaml --quiet --template '" + (dir / "none").string() +
                             "' --out '" + (dir / "run").string() + "'");
  EXPECT_EQ(missing.exit_code, 2) << missing.out;
  EXPECT_NE(missing.out.find("the report templates cannot be used; nothing was done"), std::string::npos) << missing.out;
  EXPECT_NE(missing.out.find("none/report.md.mustache: error: report template not found"), std::string::npos)
      << missing.out;
  EXPECT_FALSE(fs::exists(dir / "run"));

  fs::create_directories(dir);
  fs::copy(fs::path(DSX_SOURCE_DIR) / "templates", dir / "broken", fs::copy_options::recursive);
  std::ofstream(dir / "broken" / "partials" / "answer.mustache", std::ios::app) << "{{#rows}} never closed\n";
  const Result broken = dsx("run studies/quickstart.yaml --quiet --template '" + (dir / "broken").string() +
                            "' --out '" + (dir / "run").string() + "'");
  EXPECT_EQ(broken.exit_code, 2) << broken.out;
  EXPECT_NE(broken.out.find("answer.mustache:"), std::string::npos) << broken.out;
  EXPECT_NE(broken.out.find(": error: unclosed section \"rows\""), std::string::npos) << broken.out;
  EXPECT_FALSE(fs::exists(dir / "run"));

  ASSERT_EQ(dsx("run studies/quickstart.yaml --quiet --out '" + (dir / "run").string() + "'").exit_code, 0);
  const Result report = dsx("report '" + (dir / "run").string() + "' --template '" + (dir / "broken").string() + "'");
  EXPECT_EQ(report.exit_code, 2) << report.out;
  EXPECT_NE(report.out.find("dsx report: error: the report templates cannot be used"), std::string::npos) << report.out;
  const Result help = dsx("report --help");
  EXPECT_NE(help.out.find("usage: dsx report RUN_DIR [--template DIR]"), std::string::npos) << help.out;
  fs::remove_all(dir);
}

TEST(Cli, ATemplateFolderOutsideTheStudyIsRefused) {
  const fs::path dir = fs::temp_directory_path() / ("dsx_template_escape_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "study.yaml") << read_text(fs::path(DSX_SOURCE_DIR) / "studies" / "quickstart.yaml")
                                    << "template: ../elsewhere\n";
  const Result r = dsx("validate '" + (dir / "study.yaml").string() + "'");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("must be a folder below the study file's folder"), std::string::npos) << r.out;
  fs::remove_all(dir);
}

}  // namespace
