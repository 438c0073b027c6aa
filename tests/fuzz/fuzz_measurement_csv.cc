// Measurement CSVs (data/measurements/*.csv, `calibrate --measurements`): the CSV reader, the
// schema and vocabulary checks, and the `dcnas measure` timing-row reader.
#include "calibrate/csv_reader.h"
#include "calibrate/measurement.h"
#include "tests/fuzz/fuzz_common.h"

namespace {

void Body(const std::string& text) {
  static const dcnas::calibrate::Vocabulary kVocabulary = [] {
    dcnas::calibrate::Vocabulary v;
    v.devices = {"v100", "a100", "t4", "rtx-3090", "rtx-4090", "tpu-v3", "host-cpu"};
    v.stacks = {"tensorrt", "pytorch-eager", "xla-tpu", "libtorch-cpu"};
    return v;
  }();
  (void)dcnas::calibrate::ParseCsv(text, "fuzz.csv");
  (void)dcnas::calibrate::ParseTimingRows(text, "fuzz.csv");
  (void)dcnas::calibrate::ParseMeasurements(text, "fuzz.csv", kVocabulary);
}

}  // namespace

DCNAS_FUZZ_TARGET(Body)
