// Search-space files (data/search_spaces/*.yaml): parse, then sample, decode and build a few
// architectures of the parsed space.
#include <random>

#include "models/counts.h"
#include "space/space.h"
#include "tests/fuzz/fuzz_common.h"

namespace {

void Body(const std::string& text) {
  const dcnas::space::Space space = dcnas::space::Space::Parse(text, "fuzz.yaml");
  (void)space.RawSize();
  (void)space.CanonicalSize();
  std::mt19937_64 rng(1);
  for (int i = 0; i < 2; ++i) {
    const dcnas::space::Encoding e = space.Sample(rng);
    const std::string t = space.ToText(e);
    if (space.FromText(t) != e) {
      std::fprintf(stderr, "fuzz: encoding %s does not read back\n", t.c_str());
      std::abort();
    }
    (void)space.Decode(e);
  }
}

}  // namespace

DCNAS_FUZZ_TARGET(Body)
