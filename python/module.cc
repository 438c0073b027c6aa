// The `dcnas` Python module: exceptions, conversions and the module's entry point. The bindings
// live one file per library layer (py_models.cc, py_sim.cc, py_search.cc, py_surrogate.cc,
// py_torch.cc); python/dcnas.pyi documents the API with types.
#include <cmath>
#include <filesystem>
#include <string>

#include "common/data_dir.h"
#include "common/errors.h"
#include "common/process_stats.h"
#include "common/table.h"
#include "common/text.h"
#include "python/bind.h"

namespace dcnas::python {

std::string TypeName(const py::handle& value) {
  return std::string(py::str(py::type::of(value).attr("__name__")));
}

uint64_t SeedFrom(const py::handle& seed, const std::string& what) {
  if (!py::isinstance<py::int_>(seed) || py::isinstance<py::bool_>(seed)) {
    throw InputError(what + ": expected an int, got " + TypeName(seed));
  }
  const py::int_ value = py::reinterpret_borrow<py::int_>(seed);
  if (value < py::int_(0) ||
      value >= py::int_(py::module_::import("builtins").attr("pow")(2, 64))) {
    throw InputError(what + ": " + std::string(py::str(seed)) + " out of range [0, 2^64)");
  }
  return value.cast<uint64_t>();
}

std::string CallableName(const py::handle& fn) {
  if (py::hasattr(fn, "__qualname__")) return py::str(fn.attr("__qualname__"));
  return py::str(py::type::of(fn).attr("__qualname__"));
}

double AccuracyFrom(const py::handle& value, const py::handle& fn, const std::string& about) {
  double v = 0.0;
  bool number = !py::isinstance<py::bool_>(value);
  if (number) {
    try {
      v = value.cast<double>();
    } catch (const py::cast_error&) {
      number = false;
    }
  }
  if (!number) {
    throw InputError("accuracy function " + CallableName(fn) + " returned " + TypeName(value) +
                     " for " + about + ", expected a number (percent)");
  }
  if (!(v >= 0.0 && v <= 100.0)) {
    throw InputError("accuracy function " + CallableName(fn) + " returned " + FormatShortest(v) +
                     " for " + about + ", expected a percentage in [0, 100]");
  }
  return v;
}

py::object ToPython(const nlohmann::json& j) {
  switch (j.type()) {
    case nlohmann::json::value_t::null:
    case nlohmann::json::value_t::discarded:
      return py::none();
    case nlohmann::json::value_t::boolean:
      return py::bool_(j.get<bool>());
    case nlohmann::json::value_t::number_integer:
      return py::int_(j.get<int64_t>());
    case nlohmann::json::value_t::number_unsigned:
      return py::int_(j.get<uint64_t>());
    case nlohmann::json::value_t::number_float:
      return py::float_(j.get<double>());
    case nlohmann::json::value_t::string:
      return py::str(j.get_ref<const std::string&>());
    case nlohmann::json::value_t::array: {
      py::list out;
      for (const auto& e : j) out.append(ToPython(e));
      return std::move(out);
    }
    case nlohmann::json::value_t::object: {
      py::dict out;
      for (const auto& [k, v] : j.items()) out[py::str(k)] = ToPython(v);
      return std::move(out);
    }
    case nlohmann::json::value_t::binary:
      break;
  }
  throw InternalError("ToPython: a JSON value of an unexpected type");
}

nlohmann::json FromPython(const py::handle& value, const std::string& what) {
  if (value.is_none()) return nullptr;
  if (py::isinstance<py::bool_>(value)) return value.cast<bool>();
  if (py::isinstance<py::int_>(value)) return value.cast<int64_t>();
  if (py::isinstance<py::float_>(value)) return value.cast<double>();
  if (py::isinstance<py::str>(value)) return value.cast<std::string>();
  if (py::isinstance<py::dict>(value)) {
    nlohmann::json out = nlohmann::json::object();
    for (const auto& [k, v] : value.cast<py::dict>()) {
      if (!py::isinstance<py::str>(k)) {
        throw InputError(what + ": dict keys must be str, got " + TypeName(k));
      }
      const std::string key = k.cast<std::string>();
      out[key] = FromPython(v, what + "." + key);
    }
    return out;
  }
  if (py::isinstance<py::list>(value) || py::isinstance<py::tuple>(value)) {
    nlohmann::json out = nlohmann::json::array();
    size_t i = 0;
    for (const auto& v : value)
      out.push_back(FromPython(v, what + "[" + std::to_string(i++) + "]"));
    return out;
  }
  throw InputError(what + ": a value of type " + TypeName(value) + " has no JSON form");
}

std::string OverrideValue(const py::handle& value, const std::string& key) {
  if (py::isinstance<py::bool_>(value)) return value.cast<bool>() ? "true" : "false";
  if (py::isinstance<py::int_>(value)) return std::string(py::str(value));
  if (py::isinstance<py::float_>(value)) {
    const double v = value.cast<double>();
    if (!std::isfinite(v)) throw InputError("override " + key + ": not a finite number");
    return FormatShortest(v);  // 1800.0 as 1800, as the command line would write it
  }
  if (py::isinstance<py::str>(value)) return value.cast<std::string>();
  throw InputError("override " + key + ": expected a number, bool or str, got " + TypeName(value));
}

std::vector<Override> OverridesFrom(const py::object& overrides) {
  std::vector<Override> out;
  if (overrides.is_none()) return out;
  if (!py::isinstance<py::dict>(overrides)) {
    throw InputError("overrides: expected a dict {\"key.path\": value}, got " +
                     TypeName(overrides));
  }
  for (const auto& [k, v] : overrides.cast<py::dict>()) {
    if (!py::isinstance<py::str>(k)) throw InputError("overrides: keys must be str");
    const std::string key = k.cast<std::string>();
    if (key.find_first_not_of(" \t") == std::string::npos) throw InputError("overrides: empty key");
    out.push_back({key, OverrideValue(v, key)});
  }
  return out;
}

void Columns::Add(const std::string& name, std::vector<double> values) {
  rows_ = values.size();
  columns_.emplace_back(name, std::move(values));
}
void Columns::Add(const std::string& name, std::vector<int64_t> values) {
  rows_ = values.size();
  columns_.emplace_back(name, std::move(values));
}
void Columns::Add(const std::string& name, std::vector<std::string> values) {
  rows_ = values.size();
  columns_.emplace_back(name, std::move(values));
}

py::list Columns::Records() const {
  py::list out;
  for (size_t r = 0; r < rows_; ++r) {
    py::dict row;
    for (const auto& [name, column] : columns_) {
      std::visit([&row, &name, r](const auto& v) { row[py::str(name)] = py::cast(v[r]); }, column);
    }
    out.append(std::move(row));
  }
  return out;
}

py::dict Columns::Arrays() const {
  py::dict out;
  const py::module_ numpy = py::module_::import("numpy");
  for (const auto& [name, column] : columns_) {
    if (const auto* d = std::get_if<std::vector<double>>(&column)) {
      out[py::str(name)] = py::array_t<double>(static_cast<py::ssize_t>(d->size()), d->data());
    } else if (const auto* i = std::get_if<std::vector<int64_t>>(&column)) {
      out[py::str(name)] = py::array_t<int64_t>(static_cast<py::ssize_t>(i->size()), i->data());
    } else {
      out[py::str(name)] =
          numpy.attr("array")(py::cast(std::get<std::vector<std::string>>(column)), "str");
    }
  }
  return out;
}

}  // namespace dcnas::python

PYBIND11_MODULE(dcnas, m) {
  namespace py = pybind11;
  using namespace dcnas::python;  // NOLINT(google-build-using-namespace)
  m.doc() =
      "dcnas: simulate CNNs and transformers on datacenter accelerators, search architecture "
      "spaces and scale model families (EfficientNet-X, Li et al., CVPR 2021), from Python.\n\n"
      "The module is thin over dcnas's C++ libraries: every function returns what the "
      "corresponding `dcnas` command computes. Bad input raises dcnas.InputError (a ValueError) "
      "with the message the command prints.";
  m.attr("__version__") = DCNAS_VERSION;
  static py::exception<dcnas::InputError> input_error(m, "InputError", PyExc_ValueError);
  input_error.doc() =
      "Bad input: a malformed file, an unknown name or key, an impossible value. The message "
      "names the file, line, key or value (the CLI's exit code 2).";
  static py::exception<dcnas::InternalError> internal_error(m, "InternalError", PyExc_RuntimeError);
  internal_error.doc() = "A broken invariant inside dcnas: a bug (the CLI's exit code 1).";
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const dcnas::InputError& e) {
      PyErr_SetString(input_error.ptr(), e.what());
    } catch (const dcnas::InternalError& e) {
      PyErr_SetString(internal_error.ptr(), e.what());
    } catch (const std::filesystem::filesystem_error& e) {
      // A path the user gave that the system refuses (not a directory, no permission), as the
      // CLI reports it (exit 2).
      PyErr_SetString(input_error.ptr(), (e.path1().string() + ": " + e.code().message()).c_str());
    }
  });
  m.def("data_dir", &dcnas::DataDir,
        "The data folder this module reads accelerators, stacks, calibrations and search spaces "
        "from: $DCNAS_DATA_DIR, else the installed <datadir>/dcnas beside the module, else the "
        "source tree's data/ for a module in its build tree.");
  m.def(
      "build_info",
      [] {
        py::dict d;
        d["version"] = DCNAS_VERSION;
#ifdef DCNAS_WITH_TORCH
        d["torch"] = true;
#else
        d["torch"] = false;
#endif
#ifdef DCNAS_WITH_XGBOOST
        d["xgboost"] = true;
#else
        d["xgboost"] = false;
#endif
#ifdef DCNAS_WITH_ONNX
        d["onnx"] = true;
#else
        d["onnx"] = false;
#endif
        return d;
      },
      "What this build has: version, and whether LibTorch (measure, train), XGBoost "
      "(Surrogate, features) and ONNX import (Graph.from_onnx) are in it.");
  m.def(
      "set_malloc_policy",
      [](const std::string& name) { dcnas::ApplyMallocPolicy(dcnas::ParseMallocPolicy(name)); },
      py::arg("policy"),
      "How glibc treats large allocations in this process: 'keep' holds freed memory in the heap "
      "(mmap threshold 512 MiB, trim threshold 1 GiB: what dcnas's LibTorch commands use; a "
      "per-op report then costs no page faults to allocate), 'system' leaves glibc's dynamic "
      "thresholds (the default; an earlier 'keep' stays in effect).");
  InitModels(m);
  InitSim(m);
  InitSearch(m);
  InitSurrogate(m);
  InitTorch(m);
}
