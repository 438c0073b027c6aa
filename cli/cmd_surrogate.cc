// dcnas surrogate fit | eval | predict
#include <iostream>
#include <nlohmann/json.hpp>
#include <vector>

#include "cli/cli.h"
#include "common/file_io.h"
#include "common/table.h"
#include "common/text.h"
#include "surrogate/accuracy_surrogate.h"
#include "surrogate/surrogate_file.h"

namespace dcnas::cli {
namespace {

std::string Metric(double v, int digits = 3) {
  return std::isfinite(v) ? FormatFixed(v, digits) : "n/a";
}

void PrintQuality(const surrogate::QualityReport& q, double flops_tau, Table& t) {
  t.AddRow({"RMSE (pp)", Metric(q.rmse)});
  t.AddRow({"R^2", Metric(q.r_squared)});
  t.AddRow({"Kendall tau", Metric(q.kendall_tau)});
  t.AddRow({"sparse Kendall tau (0.1 pp)", Metric(q.sparse_kendall_tau)});
  t.AddRow({"top-10% recall", Metric(q.top10_recall)});
  t.AddRow({"within 1 / 2 std",
            Metric(q.calibration.within_1_std, 2) + " / " + Metric(q.calibration.within_2_std, 2)});
  t.AddRow({"FLOPs-only baseline tau", Metric(flops_tau)});
}

int Fit(const Args& args) {
  po::options_description options("options");
  std::vector<std::string> data_files;
  std::string space_file, out;
  surrogate::SurrogateFitOptions o;
  bool no_curve = false;
  options.add_options()("data", po::value(&data_files)->multitoken(),
                        "accuracy CSVs (`dcnas accuracy-data`), one proxy recipe")(
      "space", po::value(&space_file),
      "the space the data was sampled from (embedded in the model)")(
      "target", po::value(&o.target)->default_value(o.target), "val_accuracy or test_accuracy")(
      "seed", po::value(&o.seed)->default_value(0), "seed of the split and the ensemble")(
      "members", po::value(&o.ensemble.members)->default_value(o.ensemble.members),
      "ensemble members (bagged, different seeds)")("no-learning-curve", po::bool_switch(&no_curve),
                                                    "skip the learning curve")(
      "out", po::value(&out),
      "surrogate file (.ubj or .json); also writes OUT.report.json and "
      "OUT.parity.svg");
  po::variables_map vm;
  if (!Parse(args,
             "dcnas surrogate fit --data data.csv [more.csv ...] --space FILE --out model.ubj "
             "[--seed S]",
             "Fits the XGBoost accuracy surrogate: 80/10/10 split by architecture, early stopping "
             "on validation, a bagged ensemble; reports held-out RMSE, R^2, Kendall tau, sparse "
             "tau, top-10% recall, std calibration, a FLOPs-only baseline and a learning curve.",
             options, {}, vm)) {
    return 0;
  }
  if (data_files.empty() || space_file.empty() || out.empty()) {
    throw UsageError("surrogate fit: --data, --space and --out are required");
  }
  o.learning_curve = !no_curve;
  const auto fit = surrogate::FitAccuracySurrogateFiles(space_file, data_files, out, o);
  const auto& r = fit.report;
  std::cout << "surrogate of " << fit.metadata["space"].get<std::string>() << ": " << r.groups
            << " architectures (" << r.rows << " rows): train " << r.train << ", valid " << r.valid
            << ", test " << r.test << "\n";
  Table t({"held-out metric", "value"});
  PrintQuality(r.test_quality, r.flops_baseline_tau, t);
  t.AddRow({"params-only baseline tau", Metric(r.params_baseline_tau)});
  for (const auto& p : r.learning_curve) {
    t.AddRow({"learning curve: tau at " + std::to_string(p.train_rows) + " rows",
              Metric(p.test_kendall_tau)});
  }
  std::cout << t.ToText() << "-> " << out << " (+ .report.json, .parity.svg)\n";
  return 0;
}

int Eval(const Args& args) {
  po::options_description options("options");
  std::string data_file, model, target, parity;
  options.add_options()("data", po::value(&data_file), "held-out accuracy CSV")(
      "model", po::value(&model), "surrogate file")(
      "target", po::value(&target)->default_value("val_accuracy"), "val_accuracy or test_accuracy")(
      "parity", po::value(&parity), "write a parity chart SVG here");
  po::variables_map vm;
  if (!Parse(args, "dcnas surrogate eval --data held-out.csv --model model.ubj [--parity p.svg]",
             "Scores a surrogate on accuracy data it was not fitted to (architectures averaged "
             "over replicates).",
             options, {}, vm)) {
    return 0;
  }
  if (data_file.empty() || model.empty()) throw UsageError("surrogate eval: --data and --model");
  const auto s = surrogate::AccuracySurrogate::Load(model);
  const auto data = proxy::ReadAccuracyData(data_file, &s.space());
  const auto e = surrogate::EvaluateAccuracySurrogate(s, data, target);
  if (!parity.empty()) {
    WriteFileAtomic(parity, surrogate::ParityChartSvg(e.truth, e.mean, e.stddev));
  }
  Table t({"metric (" + std::to_string(e.groups) + " architectures)", "value"});
  PrintQuality(e.quality, e.flops_baseline_tau, t);
  std::cout << t.ToText();
  return 0;
}

int Predict(const Args& args) {
  po::options_description options("options");
  std::string model, list_file, format;
  std::vector<std::string> encodings;
  std::vector<double> scaling;
  options.add_options()("model", po::value(&model), "surrogate file")(
      "encoding", po::value(&encodings)->multitoken(), "architecture encodings")(
      "file", po::value(&list_file), "a file with one encoding per line")(
      "scaling", po::value(&scaling)->multitoken(), "depth width resolution coefficients")(
      "format", po::value(&format)->default_value("text"), "text or csv");
  po::positional_options_description pos;
  pos.add("encoding", -1);
  po::variables_map vm;
  if (!Parse(args, "dcnas surrogate predict --model model.ubj ENCODING... | --file list.txt",
             "Predicted accuracy (mean and std of the ensemble) of architectures.", options, pos,
             vm)) {
    return 0;
  }
  if (model.empty()) throw UsageError("surrogate predict: --model is required");
  if (!list_file.empty()) {
    for (const auto& line : Split(ReadFile(list_file), '\n')) {
      if (!line.empty()) encodings.push_back(line);
    }
  }
  if (encodings.empty()) throw UsageError("surrogate predict: no encodings");
  space::Scaling sc;
  if (!scaling.empty()) {
    if (scaling.size() != 3)
      throw UsageError("--scaling takes three values: depth width resolution");
    sc = {scaling[0], scaling[1], scaling[2]};
  }
  const auto s = surrogate::AccuracySurrogate::Load(model);
  std::vector<space::Encoding> es;
  for (const auto& text : encodings) es.push_back(s.space().FromText(text));
  std::vector<float> mean, stddev;
  s.Predict(es, std::vector<space::Scaling>(es.size(), sc), mean, stddev);
  Table t({"encoding", "predicted_accuracy", "std"});
  for (size_t i = 0; i < es.size(); ++i) {
    t.AddRow({s.space().ToText(s.space().Canonical(es[i])), FormatFixed(mean[i], 3),
              FormatFixed(stddev[i], 3)});
  }
  std::cout << (ParseFormat(format) == Format::kCsv ? t.ToCsv() : t.ToText());
  return 0;
}

}  // namespace

int RunSurrogate(const Args& args) {
  return RunSubcommand(
      "surrogate", args,
      {{"fit", "fit the XGBoost accuracy surrogate to accuracy data, with its held-out report",
        Fit},
       {"eval", "score a surrogate on other accuracy data", Eval},
       {"predict", "predicted accuracy of encodings", Predict}},
      "");
}

}  // namespace dcnas::cli
