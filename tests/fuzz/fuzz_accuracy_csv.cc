// Accuracy-data CSVs (data/accuracy/*.csv): the reader, checked against the shipped
// dc-accelerator space (fingerprints, encodings), with and without a torn last line allowed.
#include "search/accuracy_data.h"
#include "search/space.h"
#include "tests/fuzz/fuzz_common.h"

namespace {

void Body(const std::string& text) {
  static const dcnas::search::Space kSpace =
      dcnas::search::Space::Load(dcnas::fuzz::Data() + "/search_spaces/dc-accelerator.yaml");
  (void)dcnas::search::ParseAccuracyData(text, "fuzz.csv", nullptr, true);
  const dcnas::search::AccuracyData d =
      dcnas::search::ParseAccuracyData(text, "fuzz.csv", &kSpace, false);
  if (!d.rows.empty()) (void)dcnas::search::RequireOneRecipe(d);
}

}  // namespace

DCNAS_FUZZ_TARGET(Body)
