#include "calibrate/selection.h"

#include <algorithm>

#include "common/config_tree.h"
#include "common/errors.h"
#include "common/text.h"
#include "sim/stack.h"

namespace dcnas::calibrate {

std::pair<int, std::string> SplitDeviceItem(const std::string& option, const std::string& text,
                                            const std::vector<std::string>& devices) {
  const size_t colon = text.find(':');
  if (colon == std::string::npos || colon > text.find('=')) return {-1, text};
  const std::string target = text.substr(0, colon);
  const auto it = std::find(devices.begin(), devices.end(), target);
  if (it == devices.end()) {
    throw InputError(option + " " + text + ": " + target + " is not one of --accel " +
                     Join(devices, ","));
  }
  return {static_cast<int>(it - devices.begin()), text.substr(colon + 1)};
}

std::vector<std::string> DeviceItems(const std::string& option,
                                     const std::vector<std::string>& items,
                                     const std::vector<std::string>& devices, size_t index) {
  std::vector<std::string> out;
  for (const std::string& item : items) {
    const auto [device, text] = SplitDeviceItem(option, item, devices);
    if (device < 0 || static_cast<size_t>(device) == index) out.push_back(text);
  }
  return out;
}

std::map<std::string, std::string> ParseWhere(const std::vector<std::string>& items) {
  std::map<std::string, std::string> where;
  for (const std::string& item : items) {
    const size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0) {
      throw InputError("--where expects COLUMN=VALUE, got '" + item + "'");
    }
    const std::string column = item.substr(0, eq);
    if (!FilterableColumn(column)) {
      throw InputError("--where " + item + ": " + column +
                       " is a timing, not a column to select rows by");
    }
    where[column] = item.substr(eq + 1);
  }
  return where;
}

std::vector<std::string> PooledChips::SpecNames() const {
  std::vector<std::string> names;
  for (const sim::AcceleratorSpec& s : specs) names.push_back(s.name);
  return names;
}

PooledChips LoadPooledChips(const std::vector<std::string>& accels,
                            const std::vector<std::string>& set_items) {
  PooledChips chips;
  // Measurements name the accelerator file; overrides (what-ifs) only change the simulated spec.
  for (const std::string& name : accels) {
    chips.devices.push_back(sim::LoadAccelerator(name).name);
    if (std::count(chips.devices.begin(), chips.devices.end(), chips.devices.back()) > 1) {
      throw InputError("--accel names " + chips.devices.back() + " twice");
    }
  }
  for (size_t i = 0; i < accels.size(); ++i) {
    std::vector<Override> overrides;
    for (const std::string& item : DeviceItems("--set", set_items, chips.devices, i)) {
      overrides.push_back(ParseOverride(item));
    }
    chips.specs.push_back(sim::LoadAccelerator(accels[i], overrides));
  }
  return chips;
}

std::string HeldRows(const std::vector<Measurement>& rows) {
  std::map<std::string, int> counts;
  for (const Measurement& m : rows) {
    ++counts[m.device + " / " + m.stack + " / " + m.precision + " / " + m.regime];
  }
  std::string out;
  for (const auto& [key, n] : counts) out += "\n  " + key + ": " + std::to_string(n) + " rows";
  return out;
}

namespace {

// One device's rows of the files, or the reason there are none.
std::vector<Measurement> DeviceRows(const std::vector<Measurement>& all, const Selection& one) {
  const std::vector<Measurement> rows = Select(all, one);
  if (!rows.empty()) return rows;
  const std::string what = one.device + " / " + one.stack + " / " + one.precision +
                           (one.regime.empty() ? "" : " / " + one.regime);
  if (!one.where.empty()) {
    Selection unfiltered = one;
    unfiltered.where.clear();
    const std::vector<Measurement> before = Select(all, unfiltered);
    if (!before.empty()) {
      throw InputError("--where leaves none of the " + std::to_string(before.size()) +
                       " rows for " + what + ":\n  " +
                       Join(WhereMisses(before, one.where), "\n  "));
    }
  }
  throw InputError("no measurement rows for " + what + "; the files hold:" + HeldRows(all));
}

}  // namespace

SelectedRows SelectRows(const std::vector<std::string>& files, const RowRequest& request,
                        const models::ModelRegistry& registry) {
  Vocabulary vocabulary;
  for (const std::string& n : sim::AcceleratorNames()) vocabulary.devices.insert(n);
  // An accelerator given by path (a calibrate-host chip file).
  for (const std::string& d : request.devices) vocabulary.devices.insert(d);
  for (const std::string& n : sim::StackNames()) vocabulary.stacks.insert(n);
  const LoadedMeasurements loaded = LoadMeasurementFiles(files, vocabulary);
  SelectedRows out;
  out.sha256 = loaded.sha256;
  out.selection = {Join(request.devices, ","), request.stack, request.precision, request.regime,
                   ParseWhere(request.where_items)};
  for (size_t i = 0; i < request.devices.size(); ++i) {
    Selection one = out.selection;
    one.device = request.devices[i];
    one.where = ParseWhere(DeviceItems("--where", request.where_items, request.devices, i));
    const std::vector<Measurement> rows = DeviceRows(loaded.rows, one);
    out.rows.insert(out.rows.end(), rows.begin(), rows.end());
  }
  RequireSingleRegime(out.rows);
  out.regime = out.rows.front().regime;
  out.resolved = ResolveModels(out.rows, registry);
  return out;
}

}  // namespace dcnas::calibrate
