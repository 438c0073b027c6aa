// The channel-search spaces (data/search_spaces/mobilenetv2-cifar-width.yaml and
// resnet20-cifar-width.yaml) against a count written here from the papers' layer definitions,
// independently of the builder: for sampled networks, the parameters and the MACs (which check
// every layer's input and output shapes) of the full-size graph.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <random>
#include <string>

#include "models/counts.h"
#include "space/space.h"

namespace dcnas::space {
namespace {

std::string SpacePath(const std::string& name) {
  const char* root = std::getenv("DCNAS_SOURCE_ROOT");
  return std::string(root ? root : ".") + "/data/search_spaces/" + name + ".yaml";
}

// The reference round_filters at width 1: to the nearest multiple of 8, never below 90%.
int64_t Round8(double filters) {
  int64_t r = std::max<int64_t>(8, static_cast<int64_t>(filters + 4) / 8 * 8);
  if (static_cast<double>(r) < 0.9 * filters) r += 8;
  return r;
}

struct Count {
  int64_t params = 0;
  int64_t macs = 0;
  // A k x k conv (groups 1 or depthwise) with BN (2 parameters per channel), on `out_px` output
  // pixels.
  void ConvBn(int64_t in, int64_t out, int64_t k, int64_t out_px, bool depthwise = false) {
    const int64_t weights = depthwise ? out * k * k : in * out * k * k;
    params += weights + 2 * out;
    macs += weights * out_px;
  }
};

int64_t Px(int64_t size) { return size * size; }

// MobileNetV2 for CIFAR: stem 3x3/1 to 32, the inverted residuals, 1x1 to 1280, pool, FC 10.
Count MobileNetV2Count(const Space& space, const Encoding& e, std::vector<int64_t>& widths) {
  Count c;
  int64_t size = 32, in = 32;
  c.ConvBn(3, 32, 3, Px(size));
  for (size_t u = 0; u < space.units().size(); ++u) {
    const Unit& unit = space.units()[u];
    const StageSkeleton& stage = space.stages()[static_cast<size_t>(unit.stage)];
    const LayerPatch f = space.UnitFields(e, u);
    const int64_t out = Round8(static_cast<double>(stage.filters) * *f.filters_multiplier);
    const int64_t hidden = static_cast<int64_t>(static_cast<double>(in) * *f.expand);
    const int64_t stride = unit.layer <= 0 ? stage.stride : 1;
    const int64_t out_size = (size + stride - 1) / stride;
    if (*f.expand != 1.0) c.ConvBn(in, hidden, 1, Px(size));
    c.ConvBn(hidden, hidden, 3, Px(out_size), /*depthwise=*/true);
    c.ConvBn(hidden, out, 1, Px(out_size));
    widths.push_back(out);
    in = out;
    size = out_size;
  }
  c.ConvBn(in, 1280, 1, Px(size));
  c.params += 1280 * 10 + 10;
  c.macs += 1280 * 10;
  return c;
}

// ResNet-20 for CIFAR: stem 3x3/1 to 16, basic blocks (3x3 to the hidden width, 3x3 to the
// output, a 1x1 projection where the shapes differ), pool, FC 10.
Count ResNetCount(const Space& space, const Encoding& e, std::vector<int64_t>& widths) {
  Count c;
  int64_t size = 32, in = 16;
  c.ConvBn(3, 16, 3, Px(size));
  for (size_t u = 0; u < space.units().size(); ++u) {
    const Unit& unit = space.units()[u];
    const StageSkeleton& stage = space.stages()[static_cast<size_t>(unit.stage)];
    const LayerPatch f = space.UnitFields(e, u);
    const int64_t out = *f.filters, hidden = *f.hidden;
    const int64_t stride = unit.layer == 0 ? stage.stride : 1;
    const int64_t out_size = (size + stride - 1) / stride;
    c.ConvBn(in, hidden, 3, Px(out_size));
    c.ConvBn(hidden, out, 3, Px(out_size));
    if (stride != 1 || in != out) c.ConvBn(in, out, 1, Px(out_size));
    widths.push_back(out);
    in = out;
    size = out_size;
  }
  c.params += in * 10 + 10;
  c.macs += in * 10;
  return c;
}

// The output width of every block of the built graph (the last op of each blocks.N scope).
std::vector<int64_t> BlockWidths(const Space& space, const Encoding& e) {
  std::vector<int64_t> widths;
  for (const std::string& block : space.Decode(e).blocks) {
    const size_t o = block.find("_o");
    widths.push_back(std::stoll(block.substr(o + 2)));
  }
  return widths;
}

void CheckSpace(const std::string& name,
                Count (*count)(const Space&, const Encoding&, std::vector<int64_t>&),
                int64_t reference_params) {
  const Space space = Space::Load(SpacePath(name));
  std::mt19937_64 rng(7);
  for (int i = 0; i < 200; ++i) {
    const Encoding e = space.Sample(rng);
    std::vector<int64_t> widths;
    const Count want = count(space, e, widths);
    const models::OpCounts got = models::CountGraph(space.BuildFull(e, {}, {}));
    INFO(name << " " << space.ToText(e));
    CHECK(got.params == want.params);
    CHECK(got.macs == want.macs);
    CHECK(BlockWidths(space, e) == widths);
  }
  // The largest choice everywhere is the reference network.
  Encoding widest(space.vector_length(), 0);
  for (size_t i = 0; i < widest.size(); ++i) widest[i] = space.choice_counts()[i] - 1;
  std::vector<int64_t> widths;
  CHECK(count(space, widest, widths).params ==
        models::CountGraph(space.BuildFull(widest, {}, {})).params);
  if (reference_params > 0) {
    CHECK(models::CountGraph(space.BuildFull(widest, {}, {})).params == reference_params);
  }
}

TEST_CASE("MobileNetV2 width space: params, MACs and widths match an independent count") {
  // At expansion 6 and full width everywhere: MobileNetV2 for CIFAR as kuangliu/pytorch-cifar
  // counts it (2,296,922) less what that code adds to the paper's network: 1x1 projection
  // shortcuts on the four stride-1 width changes (512+32, 384+48, 6,144+192, 51,200+640 = 59,152)
  // and a 1x1 expansion conv at expansion 1 in the first block (1,024+64 = 1,088).
  CheckSpace("mobilenetv2-cifar-width", MobileNetV2Count, 2296922 - 59152 - 1088);
}

TEST_CASE("ResNet-20 width space: params, MACs and widths match an independent count") {
  // At the 1x widths: not the widest point (1.5x), so no reference here; ResNet-20 itself is
  // checked below.
  CheckSpace("resnet20-cifar-width", ResNetCount, 0);
  const Space space = Space::Load(SpacePath("resnet20-cifar-width"));
  // Output and hidden width index 1 (16 / 32 / 64) everywhere: ResNet-20 with projection
  // shortcuts at the two stride-2 stages: 269,722 with option A (0.27M, He et al., Table 6) + the
  // two 1x1 convs + BN.
  const Encoding base(space.vector_length(), 1);
  const int64_t params = models::CountGraph(space.BuildFull(base, {}, {})).params;
  CHECK(params == 269722 + (16 * 32 + 64) + (32 * 64 + 128));
}

TEST_CASE("width spaces: a shortcut joins equal widths only, or projects where the space says") {
  const Space mb = Space::Load(SpacePath("mobilenetv2-cifar-width"));
  // Stage 4 (64 filters, 4 layers): layer 2 at 0.5 x (32) after layer 1 at 1 x (64): no add.
  Encoding e(mb.vector_length(), 2);
  const models::Graph same = mb.BuildFull(e, {}, {});
  const auto& names = mb.choice_names();
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i] == "stage4.layer2.filters_multiplier") e[i] = 0;
  }
  const models::Graph narrowed = mb.BuildFull(e, {}, {});
  auto adds = [](const models::Graph& g) {
    int n = 0;
    for (const models::Op& op : g.ops()) n += op.kind == models::OpKind::kAdd ? 1 : 0;
    return n;
  };
  // Layer 2 loses its shortcut, and layer 3 (32 -> 64) too.
  CHECK(adds(narrowed) == adds(same) - 2);
}

}  // namespace
}  // namespace dcnas::space
