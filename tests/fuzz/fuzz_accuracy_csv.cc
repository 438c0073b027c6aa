// Accuracy-data CSVs (data/accuracy/*.csv): the reader, checked against the shipped
// dc-accelerator space (fingerprints, encodings), with and without a torn last line allowed.
#include "proxy/accuracy_data.h"
#include "space/space.h"
#include "tests/fuzz/fuzz_common.h"

namespace {

void Body(const std::string& text) {
  static const dcnas::space::Space kSpace =
      dcnas::space::Space::Load(dcnas::fuzz::Data() + "/search_spaces/dc-accelerator.yaml");
  (void)dcnas::proxy::ParseAccuracyData(text, "fuzz.csv", nullptr, true);
  const dcnas::proxy::AccuracyData d =
      dcnas::proxy::ParseAccuracyData(text, "fuzz.csv", &kSpace, false);
  if (!d.rows.empty()) (void)dcnas::proxy::RequireOneRecipe(d);
}

}  // namespace

DCNAS_FUZZ_TARGET(Body)
