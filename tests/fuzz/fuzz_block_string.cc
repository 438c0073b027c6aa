// Block strings (`--blocks`, search spaces): one per line, optionally a first line
// "width depth resolution" of coefficients; parse, build the network, count.
#include <sstream>

#include "common/text.h"
#include "models/block_string.h"
#include "models/counts.h"
#include "tests/fuzz/fuzz_common.h"

namespace {

void Body(const std::string& text) {
  dcnas::models::BlockNetworkSpec spec;
  dcnas::models::BuildOptions options;
  options.resolution = 32;
  std::vector<std::string> lines = dcnas::Split(text, '\n');
  if (!lines.empty() && !lines[0].empty() && lines[0][0] == '#') {
    std::istringstream in(lines[0].substr(1));
    in >> spec.width >> spec.depth >> options.resolution;
    lines.erase(lines.begin());
  }
  if (lines.size() > 64) return;  // the network builder is not the target; keep runs short
  for (const std::string& line : lines)
    spec.blocks.push_back(dcnas::models::ParseBlockString(line));
  if (!(spec.width > 0) || !(spec.depth > 0)) return;  // the CLI refuses these before building
  const dcnas::models::Graph g = dcnas::models::BuildBlockNetwork("fuzz", spec, options);
  (void)dcnas::models::CountGraph(g);
}

}  // namespace

DCNAS_FUZZ_TARGET(Body)
