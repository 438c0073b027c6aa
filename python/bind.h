// Shared pieces of the Python module's translation units: JSON <-> Python conversion, tables as
// records or NumPy columns, and the simulated setup as the module holds it. The module converts
// and calls the libraries; it has no logic of its own (python/README.md).
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/override.h"
#include "sim/engine.h"
#include "space/space.h"

namespace dcnas::python {

namespace py = pybind11;

// The Python type name of a value ("list", "int", ...), for messages.
std::string TypeName(const py::handle& value);

// `value` as T, or an InputError "WHAT: expected EXPECTED, got TYPE" (pybind11's own cast error
// says neither what nor where).
template <typename T>
T CastArg(const py::handle& value, const std::string& what, const std::string& expected) {
  try {
    return value.cast<T>();
  } catch (const py::cast_error&) {
    throw InputError(what + ": expected " + expected + ", got " + TypeName(value) + " " +
                     std::string(py::repr(value)).substr(0, 80));
  }
}

// A seed: an int in [0, 2^64); InputError naming `what` otherwise (the CLI's --seed range).
uint64_t SeedFrom(const py::handle& seed, const std::string& what);

// A name for a Python callable in a configuration: its __qualname__, else its type's.
std::string CallableName(const py::handle& fn);

// An accuracy (percent) a Python function returned: a number in [0, 100], else InputError naming
// the function and what it was asked about.
double AccuracyFrom(const py::handle& value, const py::handle& fn, const std::string& about);

// nlohmann::json -> dict / list / str / int / float / bool / None.
py::object ToPython(const nlohmann::json& j);
// The reverse for JSON-like Python values (dict with str keys, list, tuple, str, int, float,
// bool, None); anything else is an InputError naming `what`.
nlohmann::json FromPython(const py::handle& value, const std::string& what);

// A value of a data file's key as the YAML reader takes it: True/False as true/false, numbers
// in Python's shortest round-trip form, strings as they are.
std::string OverrideValue(const py::handle& value, const std::string& key);
// {"hbm.bandwidth_gbps": 1800, ...} (or None) -> overrides in the dict's order.
std::vector<Override> OverridesFrom(const py::object& overrides);

// A table by columns: as records (a list of dicts, pandas.DataFrame-ready) or as NumPy arrays.
class Columns {
 public:
  void Add(const std::string& name, std::vector<double> values);
  void Add(const std::string& name, std::vector<int64_t> values);
  void Add(const std::string& name, std::vector<std::string> values);
  // A column of `get(row)` over `rows`: text, integers or numbers by what `get` returns.
  template <typename Rows, typename Get>
  void AddFrom(const std::string& name, const Rows& rows, Get get) {
    using Value = std::decay_t<decltype(get(*rows.begin()))>;
    if constexpr (std::is_convertible_v<Value, std::string>) {
      std::vector<std::string> v;
      for (const auto& r : rows) v.emplace_back(get(r));
      Add(name, std::move(v));
    } else if constexpr (std::is_integral_v<Value> || std::is_enum_v<Value>) {
      std::vector<int64_t> v;
      for (const auto& r : rows) v.push_back(static_cast<int64_t>(get(r)));
      Add(name, std::move(v));
    } else {
      std::vector<double> v;
      for (const auto& r : rows) v.push_back(static_cast<double>(get(r)));
      Add(name, std::move(v));
    }
  }
  py::list Records() const;
  py::dict Arrays() const;  // numbers as float64 / int64 arrays, text as numpy str arrays

 private:
  using Column = std::variant<std::vector<double>, std::vector<int64_t>, std::vector<std::string>>;
  std::vector<std::pair<std::string, Column>> columns_;
  size_t rows_ = 0;
};

// A simulated setup as `dcnas.Setup` holds it: what it was loaded from (for pickling and repr)
// and the loaded value.
struct Setup {
  std::string accelerator;
  std::string stack;
  std::string calibration;
  std::vector<Override> overrides;
  std::string precision;  // as given ("": the accelerator kind's default)
  sim::SimSetup sim;
};
// Loads a setup as `dcnas sim --accel --stack --calibration --set --precision --batch` would.
Setup LoadSetup(const std::string& accelerator, const std::string& stack,
                const std::string& calibration, std::vector<Override> overrides,
                const std::string& precision, int batch, bool fusion);

// A search space as `dcnas.Space` holds it: the space and the YAML text it was read from (a
// surrogate fitted from Python embeds it, as `dcnas surrogate fit` does the file's).
struct SpaceHandle {
  space::Space space;
  std::string yaml;
};

// The Space argument `value` (InputError naming `what` when it is not a dcnas.Space).
const SpaceHandle& SpaceOf(const py::handle& value, const std::string& what);

// A list of encodings (each a sequence of ints, or the space's text form) as encodings of
// `space`, checked: InputError naming the bad one.
std::vector<space::Encoding> EncodingsFrom(const space::Space& space, const py::handle& encodings);
space::Encoding EncodingFrom(const space::Space& space, const py::handle& encoding);
// Scalings given as None (the base for every encoding) or one (depth, width, resolution) per
// encoding.
std::vector<space::Scaling> ScalingsFrom(const py::handle& scalings, size_t count);

void InitModels(py::module_& m);
void InitSim(py::module_& m);
void InitSearch(py::module_& m);
void InitSurrogate(py::module_& m);  // without XGBoost: the names raise InputError saying so
void InitTorch(py::module_& m);      // without LibTorch: the names raise InputError saying so

}  // namespace dcnas::python
