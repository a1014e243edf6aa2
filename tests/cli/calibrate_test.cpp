// dsx calibrate and dsx accuracy as a user runs them: bad measurement files exit 2 and write
// nothing; a good one gives a profile a study can name, and an accuracy report.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "tests/cli/shell.hpp"
#include "tests/test_files.hpp"

namespace dsx {
namespace {

namespace fs = std::filesystem;

const std::string kCatalog = std::string(DSX_SOURCE_DIR) + "/tests/malformed/catalog";

// Synthetic rows of the efficiency solver over the fixture catalog (see tests/dse/calibration_test.cpp).
std::string measurements() {
  std::string text =
      "regimes:\n  - name: batched\n    fit: [{parameter: efficiency.eta, prior: 0.5}]\n    intervals:\n"
      "      - {solver: efficiency, metrics: {predicted_throughput_items_per_s: rate}}\nmeasurements:\n";
  const char* rows[][4] = {{"r1", "a100_80gb_sxm", "lab07_gpt2_layer", "63 /s"},
                           {"r2", "a100_80gb_sxm", "lab07_kws", "114 /s"},
                           {"r3", "h100_sxm", "lab07_gpt2_layer", "194 /s"},
                           {"r4", "h100_sxm", "lab07_kws", "372.8 /s"},
                           {"r5", "h100_sxm", "lab07_kws", "380 /s"}};
  int source = 0;
  for (const auto& r : rows) {
    text += std::string("  - id: ") + r[0] + "\n    regime: batched\n    solver: efficiency\n    inputs: {hardware: " + r[1] +
            ", model: " + r[2] +
            ", precision: fp16, regime: decode_batched, devices: 1, throughput: 1 /s, batch: 1}\n"
            "    metric: predicted_throughput_items_per_s\n    measured: " +
            r[3] + "\n    source: {citation: \"source " + std::to_string(++source) + "\", read: \"table 1\"}\n";
  }
  text += "  - id: r6\n    regime: batched\n    cannot_predict: \"no TPU in the catalog\"\n    workload: \"a TPU\"\n"
          "    measured: 5 /s\n    source: {citation: \"source 6\", read: \"figure 1\"}\n";
  return text;
}

TEST(CalibrateCli, ABadFileExitsTwoAndWritesNothing) {
  TempDir dir("calibrate_cli");
  const std::string file = dir.path() + "/m.yaml";
  std::ofstream(file) << "measurements:\n  - id: x\n    regime: nowhere\n";
  const std::string profile = dir.path() + "/p.yaml";
  const CommandResult r = run_dsx("calibrate '" + file + "' --out '" + profile + "' --catalog '" + kCatalog + "'");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find(file + ":3:13: error: unknown regime 'nowhere'"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(file + ":2:5: error: measurements[0]: missing required key 'source'"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(profile));
}

TEST(CalibrateCli, WritesAProfileAStudyCanName) {
  TempDir dir("calibrate_cli");
  std::ofstream(dir.path() + "/m.yaml") << measurements();
  const CommandResult r = run_dsx("calibrate '" + dir.path() + "' --out '" + dir.path() + "/mine.yaml' --catalog '" + kCatalog + "'");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("6 measurements, 5 predicted; profile 'mine' written"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("efficiency.eta: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("constrained by: r1, r2, r3, r4, r5"), std::string::npos) << r.out;
  const std::string profile = read_text(dir.path() + "/mine.yaml");
  EXPECT_NE(profile.find("profile: mine\n"), std::string::npos);
  // A study in the same folder names the profile by its file, and dsx eval by --calibration.
  std::ofstream(dir.path() + "/s.yaml")
      << "study: s\ntitle: T\nquestion: Q?\nsolver: efficiency\ncalibration: mine.yaml\n"
         "axes:\n  hardware: [a100_80gb_sxm]\nfixed:\n  model: lab07_kws\n  precision: fp16\n"
         "  regime: decode_batched\n  devices: 1\n  throughput: 1 /s\n  batch: 1\n";
  const CommandResult v = run_dsx("validate '" + dir.path() + "/s.yaml' --catalog '" + kCatalog + "'");
  EXPECT_EQ(v.exit_code, 0) << v.out;
  const CommandResult e = run_dsx("eval efficiency hardware=a100_80gb_sxm model=lab07_kws precision=fp16 regime=decode_batched "
                       "devices=1 throughput='1 /s' batch=1 --json --calibration '" + dir.path() + "/mine.yaml' --catalog '" +
                       kCatalog + "'");
  ASSERT_EQ(e.exit_code, 0) << e.out;
  EXPECT_NE(e.out.find("\"calibrated_inputs\": [\n    \"eta\"\n  ]"), std::string::npos) << e.out;
  EXPECT_NE(e.out.find("\"predicted_throughput_items_per_s\": {\n      \"p10\""), std::string::npos) << e.out;
  // The study's report says which profile set eta, how well, and which metrics carry an interval.
  const CommandResult run = run_dsx("run '" + dir.path() + "/s.yaml' --out '" + dir.path() + "/run' --catalog '" + kCatalog + "'");
  ASSERT_EQ(run.exit_code, 0) << run.out;
  const std::string report = read_text(dir.path() + "/run/report.md");
  EXPECT_NE(report.find("take the values of calibration profile **mine** (mine.yaml), which `dsx calibrate` fitted to 5 of 6 "
                        "published measurements"),
            std::string::npos)
      << report;
  EXPECT_NE(report.find("| eta | "), std::string::npos) << report;
  EXPECT_NE(report.find("| predicted_throughput_items_per_s | always | batched | 5 | 5 | "), std::string::npos) << report;
  EXPECT_NE(report.find("(calibrated: profile mine.yaml)"), std::string::npos) << report;
  const std::string csv = read_text(dir.path() + "/run/results.csv");
  EXPECT_NE(csv.find("predicted_throughput_items_per_s_p10,predicted_throughput_items_per_s_p90"), std::string::npos);
}

// The report's calibration table gives a regime's coverage both ways, as the profile states them:
// held out 75 %, in-sample 90 % (and held-out MAPE 12 %, the interval e^-0.2 - 1 = -18 % to
// e^0.1 - 1 = +11 % of a rate).
TEST(CalibrateCli, TheReportShowsHeldOutAndInSampleCoverage) {
  TempDir dir("calibrate_cli");
  std::ofstream(dir.path() + "/s.yaml")
      << "study: s\ntitle: T\nquestion: Q?\nsolver: efficiency\n"
         "calibration:\n  profile: fixture\n  parameters:\n"
         "    - {solver: efficiency, name: eta, value: 0.3, spread: 0.01, prior: 0.5, identified: true, rows: 4}\n"
         "  regimes:\n    - {name: batched, rows: 20, sources: 7, log_error_p10: -0.1, log_error_p90: 0.2, mape_cv: 0.12, "
         "coverage: 0.9, coverage_cv: 0.75}\n"
         "  intervals:\n    - {solver: efficiency, metric: predicted_throughput_items_per_s, regime: batched, orientation: rate}\n"
         "axes:\n  hardware: [a100_80gb_sxm]\nfixed:\n  model: lab07_kws\n  precision: fp16\n"
         "  regime: decode_batched\n  devices: 1\n  throughput: 1 /s\n  batch: 1\n";
  const CommandResult run = run_dsx("run '" + dir.path() + "/s.yaml' --out '" + dir.path() + "/run' --catalog '" + kCatalog + "'");
  ASSERT_EQ(run.exit_code, 0) << run.out;
  const std::string report = read_text(dir.path() + "/run/report.md");
  EXPECT_NE(report.find("| held-out MAPE | 80 % interval, measured / predicted | held-out coverage | in-sample coverage |"),
            std::string::npos)
      << report;
  const std::string pc = "\xc2\xa0%";  // a report joins a number and its unit with a no-break space
  EXPECT_NE(report.find("| predicted_throughput_items_per_s | always | batched | 20 | 7 | 12" + pc + " | -18" + pc + "\xc2\xa0/\xc2\xa0+11" +
                        pc + " | 75" + pc + " | 90" + pc + " |"),
            std::string::npos)
      << report;
}

TEST(AccuracyCli, WritesTheReportTheCsvAndTheParityFigure) {
  TempDir dir("accuracy_cli");
  std::ofstream(dir.path() + "/m.yaml") << measurements();
  const std::string out = dir.path() + "/report";
  const CommandResult r = run_dsx("accuracy '" + dir.path() + "/m.yaml' --out '" + out + "' --catalog '" + kCatalog + "'");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  for (const char* f : {"report.md", "report.html", "accuracy.csv", "regimes.csv", "figures/parity.svg",
                        "figures/parity.pdf", "figures/parity.gp"}) {
    EXPECT_TRUE(fs::exists(out + "/" + f)) << f;
  }
  const std::string csv = read_text(out + "/accuracy.csv");
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 7);  // header + 6 rows, the one dsx cannot predict included
  EXPECT_NE(csv.find("r6,batched,cannot_predict,"), std::string::npos) << csv;
  // The campaign column names what is held out together: without a campaign or URL, the citation.
  EXPECT_NE(csv.find(",citation,url,read,campaign\n"), std::string::npos) << csv;
  EXPECT_NE(csv.find(",source 6,,figure 1,source 6\n"), std::string::npos) << csv;
  const std::string md = read_text(out + "/report.md");
  EXPECT_NE(md.find("dsx predicted 5 of the 6 published measurements"), std::string::npos) << md;
  EXPECT_NE(md.find("| r6 | batched | a TPU | 5 /s | no TPU in the catalog |"), std::string::npos) << md;
  const std::string html = read_text(out + "/report.html");
  EXPECT_NE(html.find("<svg"), std::string::npos);  // the parity figure inlined
}

}  // namespace
}  // namespace dsx
