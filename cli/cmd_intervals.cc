// dcnas intervals: calibrate the simulator's prediction intervals on held-out residuals, and
// measure their coverage on residuals they were not calibrated on.
#include <iostream>

#include "calibrate/intervals.h"
#include "cli/cli.h"
#include "common/file_io.h"
#include "sim/intervals.h"

namespace dcnas::cli {

int RunIntervals(const Args& args) {
  po::options_description options("options");
  std::string sources;
  std::string out;
  std::string report;
  options.add_options()("sources", po::value(&sources),
                        "the residual tables (YAML; the shipped set: "
                        "data/intervals/sources.yaml)")("out", po::value(&out),
                                                        "write the error model (YAML) here")(
      "report", po::value(&report), "write the coverage tables (markdown) here");
  po::variables_map vm;
  if (!Parse(args,
             "dcnas intervals --sources SOURCES.yaml [--out error-model.yaml] [--report R.md]",
             "Calibrates the prediction intervals every latency and speedup the simulator\n"
             "prints carries: per regime (large-batch GPU, small-batch GPU, TPU, CPU, GPU\n"
             "training) and situation (the chip in the profile's fit; a pooled profile on a\n"
             "chip outside it; one chip's profile on another; the built-in defaults), the\n"
             "split-conformal 80% and 95% quantiles of the held-out log residual\n"
             "ln(predicted / measured), and the correlation of two predictions' residuals\n"
             "(the same model on two chips; two models on one chip) for speedups. Then measures\n"
             "coverage held out: each family's (each chip's) rows against intervals calibrated\n"
             "without them, and each speedup pair against intervals calibrated without its\n"
             "chips. Prints the coverage tables. calibrate/README.md, \"Prediction intervals\".",
             options, {}, vm)) {
    return 0;
  }
  if (sources.empty()) throw UsageError("dcnas intervals: give --sources FILE.yaml");
  const auto rows = calibrate::LoadResiduals(calibrate::LoadIntervalSources(sources));
  sim::ErrorModel model = calibrate::BuildErrorModel(rows);
  model.generated += " from " + sources;
  const auto cells = calibrate::MeasureCoverage(rows);
  const auto pairs = calibrate::MeasurePairCoverage(rows);
  const std::string md = calibrate::CoverageMarkdown(model, cells, pairs);
  if (!out.empty()) WriteFileAtomic(out, sim::ErrorModelToYaml(model));
  if (!report.empty()) WriteFileAtomic(report, md);
  std::cout << md;
  return 0;
}

}  // namespace dcnas::cli
