// Graph JSON (models/graph_json.h, `--graph FILE`): parse, infer shapes, count, simulate.
#include "models/counts.h"
#include "models/graph_json.h"
#include "tests/fuzz/fuzz_common.h"

namespace {

void Body(const std::string& text) {
  const dcnas::models::Graph g = dcnas::models::GraphFromJsonString(text, "fuzz.json");
  (void)dcnas::models::CountGraph(g);
  (void)dcnas::models::CountBlocks(g);
  const auto& s = dcnas::fuzz::DefaultSetup();
  dcnas::fuzz::SimulateChecked(g, s.spec, s.stack, s.calibration);
}

}  // namespace

DCNAS_FUZZ_TARGET(Body)
