// The XGBoost accuracy surrogate: fit (from Python data or CSV files), predict, save, load; and
// the surrogate's features of architectures.
#include <mutex>
#include <string>
#include <vector>

#include "common/errors.h"
#include "common/sha256.h"
#include "common/table.h"
#include "common/text.h"
#include "python/bind.h"
#ifdef DCNAS_WITH_XGBOOST
#include "surrogate/accuracy_surrogate.h"
#include "surrogate/arch_features.h"
#endif

namespace dcnas::python {

#ifdef DCNAS_WITH_XGBOOST
namespace {

namespace sg = surrogate;

// A surrogate and the lock that keeps one booster from predicting on two threads at once.
struct SurrogateHandle {
  explicit SurrogateHandle(sg::AccuracySurrogate s) : surrogate(std::move(s)) {}
  sg::AccuracySurrogate surrogate;
  std::unique_ptr<std::mutex> lock = std::make_unique<std::mutex>();
};

py::array_t<float> Matrix(const space::FeatureSet& f) {
  py::array_t<float> out(
      {static_cast<py::ssize_t>(f.rows), static_cast<py::ssize_t>(f.names.size())});
  std::copy(f.values.begin(), f.values.end(), out.mutable_data());
  return out;
}

py::tuple Predict(SurrogateHandle& h, const space::FeatureSet& f) {
  std::vector<float> mean, stddev;
  {
    py::gil_scoped_release release;
    const std::lock_guard<std::mutex> guard(*h.lock);
    h.surrogate.PredictFeatures(f, mean, stddev);
  }
  return py::make_tuple(py::array_t<float>(static_cast<py::ssize_t>(mean.size()), mean.data()),
                        py::array_t<float>(static_cast<py::ssize_t>(stddev.size()), stddev.data()));
}

sg::SurrogateFitOptions FitOptions(const py::object& seed, double holdout,
                                   const std::string& target, const std::string& features,
                                   int members, bool learning_curve) {
  if (!(holdout >= 0.0 && holdout < 1.0)) {
    throw InputError("holdout " + FormatShortest(holdout) + ": expected a fraction in [0, 1)");
  }
  sg::SurrogateFitOptions o;
  o.seed = SeedFrom(seed, "seed");
  o.holdout = holdout;
  o.target = target;
  o.features = sg::FeatureSpec::Parse(features);
  if (o.features.Has("zero-cost")) {
    throw InputError("features: zero-cost features need `dcnas surrogate fit --zero-cost`");
  }
  if (members < 1) throw InputError("members must be >= 1");
  o.ensemble.members = members;
  o.learning_curve = learning_curve;
  return o;
}

}  // namespace

void InitSurrogate(py::module_& m) {
  py::class_<SurrogateHandle>(m, "Surrogate",
                              "The XGBoost accuracy surrogate (surrogate/README.md): a bagged "
                              "ensemble over an architecture's features, predicting accuracy "
                              "(percent) with a spread.")
      .def_static(
          "load",
          [](const std::string& path, int nthread) {
            return SurrogateHandle(sg::AccuracySurrogate::Load(path, nthread));
          },
          py::arg("path"), py::arg("nthread") = 1, "Reads a surrogate file (.ubj or .json).")
      .def_static(
          "fit",
          [](const SpaceHandle& sh, const py::object& encodings,
             const std::vector<double>& accuracies, const py::object& seed, double holdout,
             const std::string& target, const std::string& features, int members,
             bool learning_curve) {
            const std::vector<space::Encoding> list = EncodingsFrom(sh.space, encodings);
            if (list.size() != accuracies.size()) {
              throw InputError("fit: " + std::to_string(list.size()) + " encodings and " +
                               std::to_string(accuracies.size()) + " accuracies");
            }
            // The data as the plain CSV form `dcnas surrogate fit` reads (its hash is recorded).
            std::string csv = "encoding,accuracy\n";
            for (size_t i = 0; i < list.size(); ++i) {
              csv += sh.space.ToText(list[i]) + "," + FormatShortest(accuracies[i]) + "\n";
            }
            const sg::SurrogateFitOptions o =
                FitOptions(seed, holdout, target, features, members, learning_curve);
            py::gil_scoped_release release;
            const proxy::AccuracyData data = proxy::ParseAccuracyData(csv, "<python>", &sh.space);
            sg::SurrogateFit fit =
                sg::FitAccuracySurrogate(sh.space, sh.yaml, data, Sha256Hex(csv), o);
            return SurrogateHandle(sg::AccuracySurrogate::FromSurrogate(
                {std::move(fit.ensemble), std::move(fit.metadata)}, "<fitted in Python>"));
          },
          py::arg("space"), py::arg("encodings"), py::arg("accuracies"), py::arg("seed") = 0,
          py::arg("holdout") = sg::kDefaultHoldout, py::arg("target") = "auto",
          py::arg("features") = "onehot,counts,graph", py::arg("members") = 5,
          py::arg("learning_curve") = false,
          "Fits a surrogate to architectures of `space` and their accuracies (percent; a "
          "network listed several times is averaged), as `dcnas surrogate fit` fits a plain "
          "encoding,accuracy CSV. Its held-out report is in .report.")
      .def_static(
          "fit_files",
          [](const std::string& space_file, const std::vector<std::string>& data_files,
             const std::string& out, const py::object& seed, double holdout,
             const std::string& target, const std::string& features, int members,
             bool learning_curve) {
            const sg::SurrogateFitOptions o =
                FitOptions(seed, holdout, target, features, members, learning_curve);
            {
              py::gil_scoped_release release;
              sg::FitAccuracySurrogateFiles(space_file, data_files, out, o);
            }
            return SurrogateHandle(sg::AccuracySurrogate::Load(out));
          },
          py::arg("space_file"), py::arg("data_files"), py::arg("out"), py::arg("seed") = 0,
          py::arg("holdout") = sg::kDefaultHoldout, py::arg("target") = "auto",
          py::arg("features") = "onehot,counts,graph", py::arg("members") = 5,
          py::arg("learning_curve") = true,
          "`dcnas surrogate fit`: fits to accuracy CSVs, writes OUT, OUT.report.json and "
          "OUT.parity.svg, and returns the surrogate.")
      .def(
          "save", [](const SurrogateHandle& h, const std::string& path) { h.surrogate.Save(path); },
          py::arg("path"), "Writes the surrogate (.ubj or .json, atomically).")
      .def_property_readonly(
          "space",
          [](const SurrogateHandle& h) {
            const auto& meta = h.surrogate.metadata();
            return SpaceHandle{h.surrogate.space(), meta["space_yaml"].get<std::string>()};
          })
      .def_property_readonly(
          "metadata", [](const SurrogateHandle& h) { return ToPython(h.surrogate.metadata()); })
      .def_property_readonly(
          "report",
          [](const SurrogateHandle& h) { return ToPython(h.surrogate.metadata()["report"]); },
          "The held-out report recorded at fit time (test RMSE, R^2, Kendall tau, ...).")
      .def_property_readonly("heldout_tau",
                             [](const SurrogateHandle& h) { return h.surrogate.heldout_tau(); })
      .def_property_readonly("feature_names",
                             [](const SurrogateHandle& h) {
                               return sg::SurrogateFeatureNames(h.surrogate.space(),
                                                                h.surrogate.features());
                             })
      .def(
          "features",
          [](const SurrogateHandle& h, const py::object& encodings, const py::object& scalings) {
            const auto list = EncodingsFrom(h.surrogate.space(), encodings);
            const auto sc = ScalingsFrom(scalings, list.size());
            py::gil_scoped_release release;
            const space::FeatureSet f = h.surrogate.Features(list, sc);
            py::gil_scoped_acquire gil;
            return Matrix(f);
          },
          py::arg("encodings"), py::arg("scalings") = py::none(),
          "The feature matrix (rows x feature_names) the surrogate predicts from.")
      .def(
          "predict",
          [](SurrogateHandle& h, const py::object& encodings, const py::object& scalings) {
            const auto list = EncodingsFrom(h.surrogate.space(), encodings);
            const auto sc = ScalingsFrom(scalings, list.size());
            space::FeatureSet f;
            {
              py::gil_scoped_release release;
              f = h.surrogate.Features(list, sc);
            }
            return Predict(h, f);
          },
          py::arg("encodings"), py::arg("scalings") = py::none(),
          "Mean and std of the predicted accuracy (percent) per architecture: two float32 "
          "arrays.")
      .def(
          "predict_features",
          [](SurrogateHandle& h,
             const py::array_t<float, py::array::c_style | py::array::forcecast>& x) {
            const auto names =
                sg::SurrogateFeatureNames(h.surrogate.space(), h.surrogate.features());
            if (x.ndim() != 2 || static_cast<size_t>(x.shape(1)) != names.size()) {
              throw InputError("predict_features: expected a matrix of " +
                               std::to_string(names.size()) + " columns (feature_names)");
            }
            space::FeatureSet f;
            f.names = names;
            f.rows = static_cast<size_t>(x.shape(0));
            f.values.assign(x.data(), x.data() + x.size());
            return Predict(h, f);
          },
          py::arg("features"),
          "Predicts rows of a feature matrix (the batch form for many architectures).");

  m.def(
      "features",
      [](const SpaceHandle& sh, const py::object& encodings, const py::object& scalings,
         const std::string& sets) {
        const auto list = EncodingsFrom(sh.space, encodings);
        const auto sc = ScalingsFrom(scalings, list.size());
        const sg::FeatureSpec spec = sg::FeatureSpec::Parse(sets);
        if (spec.Has("zero-cost")) {
          throw InputError("features: zero-cost features need a zero-cost table");
        }
        space::FeatureSet f;
        {
          py::gil_scoped_release release;
          f = sg::SurrogateFeatures(sh.space, list, sc, nullptr, spec);
        }
        return py::make_tuple(f.names, Matrix(f));
      },
      py::arg("space"), py::arg("encodings"), py::arg("scalings") = py::none(),
      py::arg("sets") = "onehot,counts",
      "The surrogate's features of architectures: (names, float32 matrix). Sets: onehot, "
      "counts, graph.");
}

#else

void InitSurrogate(py::module_& m) {
  // This build has no XGBoost: the names exist and say so.
  const auto missing = [](const py::args&, const py::kwargs&) -> py::object {
    throw InputError(
        "this dcnas was built without XGBoost (apt-get install libxgboost-dev, then rebuild)");
  };
  m.def("features", missing);
  py::module_ types = py::module_::import("types");
  py::object ns = types.attr("SimpleNamespace")();
  for (const char* name : {"load", "fit", "fit_files"}) ns.attr(name) = py::cpp_function(missing);
  m.attr("Surrogate") = ns;
}

#endif

}  // namespace dcnas::python
