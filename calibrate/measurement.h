// Published latency measurements: the CSV schema of data/measurements/*.csv, its strict loader,
// and the selection of the rows one calibration uses.
//
// Every row is one (model, device, stack, precision, batch, image size) measurement with its
// provenance. Rows belong to exactly one regime (see data/README.md); a calibration never mixes
// regimes.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace dcnas::models {
class ModelRegistry;
}

namespace dcnas::calibrate {

// The measurement regimes (data/README.md): what the published number includes.
inline constexpr const char* kRegimeLargeBatch = "large_batch";
inline constexpr const char* kRegimeEngineLatency = "engine_latency";
inline constexpr const char* kRegimeFrameworkLatency = "framework_latency";
// dcnas's own timings on the host CPU (`dcnas measure`, LibTorch eager): compute time per batch.
inline constexpr const char* kRegimeHostCpu = "host_cpu";
// One data-parallel training step (forward, backward, all-reduce, update) of the global batch
// `batch_size` over `chips` chips with `optimizer`; latency_ms is the step time.
inline constexpr const char* kRegimeTraining = "training";
const std::vector<std::string>& RegimeNames();
const std::vector<std::string>& PrecisionNames();  // fp32, tf32, fp16, bf16, int8

struct Measurement {
  std::string model;      // dcnas zoo name
  std::string device;     // dcnas accelerator name
  std::string stack;      // dcnas stack name
  std::string precision;  // fp32, tf32, fp16, bf16, int8
  int batch_size = 0;
  int image_size = 0;
  double latency_ms = 0;            // per batch; from throughput when only that was published
  double throughput_img_per_s = 0;  // 0 when not published
  std::string regime;
  // Training rows only (columns `chips` and `optimizer`, required in the training regime): the
  // chips of the slice (batch_size is the global batch) and the optimizer (sim/train_step.h).
  int chips = 1;
  std::string optimizer;
  std::string source_id;
  std::string source_ref;
  std::string source_model;                  // the source's own name (optional column)
  std::map<std::string, std::string> extra;  // other columns (notes, layout, stack_version, ...)
  std::string file;
  int line = 0;

  double latency_per_image_ms() const { return latency_ms / batch_size; }
  // "file:line" for messages.
  std::string where() const { return file + ":" + std::to_string(line); }
  // The value of an extra column, or "" when absent.
  std::string Extra(const std::string& column) const;
  // The value of any column a selection can filter on: the named text and integer columns
  // (model, device, stack, precision, regime, batch_size, image_size, chips, optimizer,
  // source_id, source_ref) as parsed, others as Extra. "" when absent.
  std::string Cell(const std::string& column) const;
};

// Whether `--where COLUMN=VALUE` may name the column: every column but the two timings
// (latency_ms, throughput_img_per_s), whose parsed values have no exact text to match.
bool FilterableColumn(const std::string& column);

// Names a measurement file may use; an empty set accepts any name.
struct Vocabulary {
  std::set<std::string> devices;
  std::set<std::string> stacks;
};

// One named column of the measurement CSV schema.
struct MeasurementColumn {
  const char* name;
  bool required;  // every measurement file has it
  bool timing;    // `dcnas measure` writes it
};

// The schema: every named column, in the order `dcnas measure` writes its columns. Files may
// hold other columns too (kept in Measurement::extra).
const std::vector<MeasurementColumn>& MeasurementColumns();

// Columns every measurement file must have. `latency_ms` may be empty in a row when
// `throughput_img_per_s` is given (then latency = batch / throughput).
const std::vector<std::string>& RequiredColumns();

// The columns `dcnas measure` writes, in order: the required ones and the host-timing ones.
const std::vector<std::string>& TimingColumns();

// One point timed by `dcnas measure`: the fields of a TimingColumns() row.
struct Timing {
  std::string model;
  std::string device;
  std::string stack;
  std::string precision;
  int batch_size = 0;
  int image_size = 0;
  double latency_ms = 0;         // median of the timed runs
  double latency_spread_ms = 0;  // max - min of the timed runs
  double throughput_img_per_s = 0;
  int repeats = 0;
  std::string regime;
  std::string source_id;
  std::string source_ref;
  std::string cpu_model;
  int threads = 0;
  std::string notes;
};

// The CSV cells of a timing in TimingColumns() order (latencies with 3 decimals, throughput 2).
std::vector<std::string> TimingCells(const Timing& timing);

// The rows of a file written by `dcnas measure`, as cells in TimingColumns() order; nullopt when
// the file is empty or its header is not TimingColumns(). Throws InputError naming file:line for
// a row with the wrong number of fields or a CSV syntax error.
std::optional<std::vector<std::vector<std::string>>> ParseTimingRows(const std::string& text,
                                                                     const std::string& file_name);

// The cell of `column` in a row of TimingColumns() cells; InternalError for another column.
const std::string& TimingCell(const std::vector<std::string>& row, const std::string& column);

// Parses CSV text. Throws InputError naming file:line and column for: a missing required
// column, a row with the wrong number of fields, a malformed, non-finite, zero or negative
// number, an unknown device, stack, precision or regime.
std::vector<Measurement> ParseMeasurements(const std::string& text, const std::string& file_name,
                                           const Vocabulary& vocabulary);

// Reads and parses one file.
std::vector<Measurement> LoadMeasurements(const std::string& path, const Vocabulary& vocabulary);

// The rows of several measurement files and the provenance hash of their contents.
struct LoadedMeasurements {
  std::vector<Measurement> rows;  // file by file, in order
  std::string sha256;             // SHA-256 (hex) of the files' contents, concatenated in order
};

// Reads and parses each file (see ParseMeasurements).
LoadedMeasurements LoadMeasurementFiles(const std::vector<std::string>& paths,
                                        const Vocabulary& vocabulary);

// Which rows a calibration uses: exact matches on device, stack, precision and regime (empty =
// any) and on other columns (`where`: column -> value, compared with Measurement::Cell).
struct Selection {
  std::string device;
  std::string stack;
  std::string precision;
  std::string regime;
  std::map<std::string, std::string> where;
};

std::vector<Measurement> Select(const std::vector<Measurement>& rows, const Selection& selection);

// Why `where` leaves none of `rows` (the rows the selection's other fields keep): for each filter
// that matches no row, "COLUMN=VALUE: no row has the column" or "COLUMN=VALUE: the column holds
// V1, V2, ..." (its distinct values, at most `max_values`, then "... (N in all)"); and when each
// filter matches some rows but not the same ones, one line saying so.
std::vector<std::string> WhereMisses(const std::vector<Measurement>& rows,
                                     const std::map<std::string, std::string>& where,
                                     size_t max_values = 6);

// Throws InputError when the rows span more than one regime: the regimes are never mixed. The
// message lists the regimes and their row counts and asks for --regime.
void RequireSingleRegime(const std::vector<Measurement>& rows);

// A row set aside, with the reason.
struct Exclusion {
  Measurement row;
  std::string reason;
};

struct Resolved {
  std::vector<Measurement> usable;
  std::vector<Exclusion> excluded;
  // reason -> count, for reports ("unknown model 'x'" rows are counted under "unknown model").
  std::map<std::string, int> CountsByReason() const;
};

// Splits rows into those whose model the registry can build and those it cannot (reason
// "unknown model"). Nothing is dropped silently.
Resolved ResolveModels(const std::vector<Measurement>& rows, const models::ModelRegistry& registry);

}  // namespace dcnas::calibrate
