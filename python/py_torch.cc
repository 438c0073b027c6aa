// LibTorch: timing a graph on this CPU (`dcnas measure`) and training one (`dcnas train`).
#include <string>

#include "common/errors.h"
#include "python/bind.h"
#ifdef DCNAS_WITH_TORCH
#include "models/torch/measure.h"
#include "models/torch/module.h"
#include "models/torch/train.h"
#endif

namespace dcnas::python {

#ifdef DCNAS_WITH_TORCH
namespace lt = models::libtorch;

void InitTorch(py::module_& m) {
  m.def(
      "torch_module", [] { return lt::LoadedModulePath(); },
      "The LibTorch half of dcnas this module loaded (libdcnas_torch.so; loads it if needed).");
  m.def(
      "measure",
      [](const models::Graph& graph, const std::string& mode, int threads, int warmup, int repeats,
         const py::object& seed, bool cpu_clock, const std::string& device) {
        lt::MeasureOptions o;
        o.device = device;
        if (mode == "infer") {
          o.mode = lt::MeasureMode::kInference;
        } else if (mode == "train") {
          o.mode = lt::MeasureMode::kTrain;
        } else {
          throw InputError("mode: expected infer or train, got '" + mode + "'");
        }
        o.threads = threads;
        o.warmup = warmup;
        o.repeats = repeats;
        o.seed = SeedFrom(seed, "seed");
        o.cpu_clock = cpu_clock;
        lt::Measurement r;
        {
          py::gil_scoped_release release;
          r = lt::MeasureGraph(graph, o);
        }
        py::dict d;
        d["model"] = r.model;
        d["batch"] = r.batch;
        d["resolution_px"] = r.resolution_px;
        d["threads"] = r.threads;
        d["mode"] = mode;
        d["samples_ms"] = r.samples_ms;
        d["median_ms"] = r.median_ms;
        d["spread_ms"] = r.spread_ms;
        d["throughput_img_per_s"] = r.throughput_img_per_s;
        return d;
      },
      py::arg("graph"), py::arg("mode") = "infer", py::arg("threads") = 1, py::arg("warmup") = 2,
      py::arg("repeats") = 5, py::arg("seed") = 0, py::arg("cpu_clock") = false,
      py::arg("device") = "cpu",
      "Times the graph with LibTorch (`dcnas measure`) on this CPU or a CUDA `device`: warm-up "
      "runs, then timed "
      "runs; mode infer (a forward pass) or train (one SGD step). Returns the samples, median, "
      "spread and images/s.");
  m.def(
      "train",
      [](const models::Graph& graph, const std::string& out, int epochs, int batch,
         const std::string& optimizer, double learning_rate, const py::object& seed, int threads,
         int64_t limit_train, int64_t limit_eval, const std::string& data_dir, bool resume,
         const py::object& progress, const std::string& dataset, const std::string& device,
         int image_size) {
        lt::TrainOptions t;
        if (out.empty()) throw InputError("train: out (the run directory) is required");
        t.out_dir = out;
        t.epochs = epochs;
        t.batch = batch;
        t.optimizer = lt::ParseOptimizer(optimizer);
        t.learning_rate = learning_rate;
        t.seed = SeedFrom(seed, "seed");
        t.threads = threads;
        t.limit_train = limit_train;
        t.limit_eval = limit_eval;
        if (!data_dir.empty()) t.data_dir = data_dir;
        t.dataset = dataset;
        t.device = device;
        t.image_size = image_size;
        t.resume = resume;
        // Ctrl-C stops the training at the next progress line (resume=True continues from the
        // last epoch's checkpoint).
        const lt::ProgressFn on_progress = [&progress](const std::string& line, bool final) {
          py::gil_scoped_acquire gil;
          if (PyErr_CheckSignals() != 0) throw py::error_already_set();
          if (!progress.is_none()) progress(line, final);
        };
        lt::TrainResult r;
        {
          py::gil_scoped_release release;
          r = lt::Train(graph, t, on_progress);
        }
        py::dict d;
        d["model"] = r.model;
        d["finished"] = r.finished;
        d["params"] = r.params;
        d["epochs"] = r.epochs;
        d["test_loss"] = r.test_loss;
        d["test_accuracy"] = r.test_accuracy;
        d["val_accuracy"] = r.val_accuracy;
        d["train_time_s"] = r.train_time_s;
        d["images_per_s"] = r.images_per_s;
        py::list history;
        for (const auto& e : r.history) {
          py::dict h;
          h["epoch"] = e.epoch;
          h["learning_rate"] = e.learning_rate;
          h["train_loss"] = e.train_loss;
          h["train_accuracy"] = e.train_accuracy;
          h["val_loss"] = e.val_loss;
          h["val_accuracy"] = e.val_accuracy;
          h["images_per_s"] = e.images_per_s;
          h["epoch_time_s"] = e.epoch_time_s;
          history.append(std::move(h));
        }
        d["history"] = history;
        return d;
      },
      py::arg("graph"), py::arg("out"), py::arg("epochs") = 10, py::arg("batch") = 128,
      py::arg("optimizer") = "sgd", py::arg("learning_rate") = 0.0, py::arg("seed") = 0,
      py::arg("threads") = 1, py::arg("limit_train") = 0, py::arg("limit_eval") = 0,
      py::arg("data_dir") = "", py::arg("resume") = false, py::arg("progress") = py::none(),
      py::arg("dataset") = "fashion-mnist", py::arg("device") = "cpu", py::arg("image_size") = 0,
      "Trains the graph with LibTorch (`dcnas train --graph`) on `dataset`: fashion-mnist[:DIR] "
      "(the default), cifar10:DIR, cifar100:DIR or imagefolder:DIR (decoded once into a tensor "
      "file beside `out`, at image_size px, 0: the graph's resolution). The graph needs the "
      "dataset's input channels (1 or 3 for Fashion-MNIST, 3 otherwise) and classes "
      "(Graph.zoo(..., num_classes=10) takes 3, or a space's build_proxy). device: cpu, "
      "cuda or cuda:N (a LibTorch built with CUDA). Writes a checkpoint per epoch, metrics.jsonl "
      "and result.json in `out`; accuracies are fractions. learning_rate 0: the optimizer's "
      "default.");
}

#else

void InitTorch(py::module_& m) {
  const auto missing = [](const py::args&, const py::kwargs&) -> py::object {
    throw InputError(
        "this dcnas was built without LibTorch (apt-get install libtorch-dev, then rebuild)");
  };
  m.def("torch_module", missing);
  m.def("measure", missing);
  m.def("train", missing);
}

#endif

}  // namespace dcnas::python
