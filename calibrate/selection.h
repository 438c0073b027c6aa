// What one calibration fits to (`dcnas calibrate --accel A,B --where ... --set ...`): the pooled
// chips with their what-if overrides, and the rows of the measurement files for each chip, with
// the reason when a selection keeps no row. Items for one chip only are written DEVICE:ITEM.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "calibrate/measurement.h"
#include "sim/spec.h"

namespace dcnas::models {
class ModelRegistry;
}

namespace dcnas::calibrate {

// Splits "DEVICE:ITEM" (an item for one pooled chip) from "ITEM" (for every chip): the index of
// DEVICE in `devices` and ITEM, or -1 and the whole text. A colon after the first '=' belongs to
// the value. Throws InputError naming `option` when DEVICE is not one of `devices`.
std::pair<int, std::string> SplitDeviceItem(const std::string& option, const std::string& text,
                                            const std::vector<std::string>& devices);

// The items of `items` that apply to chip `index` of `devices`, without their DEVICE: prefix.
std::vector<std::string> DeviceItems(const std::string& option,
                                     const std::vector<std::string>& items,
                                     const std::vector<std::string>& devices, size_t index);

// COLUMN=VALUE items as a filter (Selection::where). Throws InputError for an item without '=' or
// column, and for a column that is a timing (FilterableColumn).
std::map<std::string, std::string> ParseWhere(const std::vector<std::string>& items);

// The chips of a fit: each accelerator's device name (its file's `name`, which the measurement
// rows use) and its spec with the overrides of `set_items` (KEY=VALUE for every chip,
// DEVICE:KEY=VALUE for one). Throws InputError for an accelerator named twice.
struct PooledChips {
  std::vector<std::string> devices;
  std::vector<sim::AcceleratorSpec> specs;
  std::vector<std::string> SpecNames() const;
};
PooledChips LoadPooledChips(const std::vector<std::string>& accels,
                            const std::vector<std::string>& set_items);

// The rows to select: each device's rows of one stack, precision and (when given) regime, filtered
// by `where_items` (COLUMN=VALUE for every device, DEVICE:COLUMN=VALUE for one).
struct RowRequest {
  std::vector<std::string> devices;
  std::string stack;
  std::string precision;
  std::string regime;  // empty: the rows' only regime
  std::vector<std::string> where_items;
};

struct SelectedRows {
  std::string sha256;             // of the measurement files (LoadMeasurementFiles)
  Selection selection;            // devices joined by ',', the filter for every device
  std::string regime;             // of the selected rows
  std::vector<Measurement> rows;  // device by device
  Resolved resolved;              // the rows whose model the registry builds, and the others
};

// Loads the files (device names: the shipped accelerators and the request's devices; stacks: the
// shipped ones), selects each device's rows and resolves their models. Throws InputError saying
// why a device keeps no row: "--where leaves none of the N rows for D / S / P[ / R]:" and what
// each filter misses (WhereMisses), or "no measurement rows for D / S / P[ / R]; the files hold:"
// and the rows per device, stack, precision and regime; and when the rows span several regimes.
SelectedRows SelectRows(const std::vector<std::string>& files, const RowRequest& request,
                        const models::ModelRegistry& registry);

// One line per (device, stack, precision, regime) of `rows` with its row count, each line
// starting with "\n  " (what a file holds, for messages).
std::string HeldRows(const std::vector<Measurement>& rows);

}  // namespace dcnas::calibrate
