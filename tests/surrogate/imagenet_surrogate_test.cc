// The ImageNet surrogate: features that see operators, leave-one-family-out fitting on the shipped
// published table, loading only its own kind, and the range check.
#include "surrogate/imagenet_surrogate.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>

#include "common/data_dir.h"
#include "common/errors.h"
#include "models/zoo/zoo.h"

namespace dcnas::surrogate {
namespace {

using Catch::Contains;

size_t Index(const std::string& name) {
  const auto names = ImageNetFeatureNames();
  return static_cast<size_t>(std::find(names.begin(), names.end(), name) - names.begin());
}

TEST_CASE("ImageNet features see the activation function and squeeze-excite") {
  models::BuildOptions o;
  o.resolution = 224;
  const auto b0 = ImageNetFeatures(models::BuiltinModels().Build("timm:efficientnet_b0", o));
  const auto lite0 = ImageNetFeatures(models::BuiltinModels().Build("timm:efficientnet_lite0", o));
  REQUIRE(b0.size() == ImageNetFeatureNames().size());
  CHECK(b0[Index("act.swish_share")] == 1.0);
  CHECK(b0[Index("act.relu_share")] == 0.0);
  CHECK(lite0[Index("act.relu_share")] == 1.0);  // relu6
  CHECK(b0[Index("graph.se_multiplies")] == 16);
  CHECK(lite0[Index("graph.se_multiplies")] == 0);
  CHECK(b0[Index("resolution")] == 224);
}

TEST_CASE("the ImageNet surrogate on the shipped table: family held out, saved, loaded") {
  const ImageNetFit fit =
      FitImageNetSurrogateTable(DataPath("accuracy/published-timm-in1k.csv"), 0, 100);
  CHECK(fit.report.networks == 78);
  CHECK(fit.report.families.size() == 11);
  // Every network was predicted with its own family out of the fit, and the pooled ranking is
  // far from chance (the shipped zero-cost label ranks these networks at 0.70).
  CHECK(fit.report.lofo_tau.tau > 0.8);
  CHECK(fit.report.lofo_matched.pairs > 100);
  const auto path = std::filesystem::temp_directory_path() / "dcnas-imagenet-test.ubj";
  SaveSurrogate(path.string(), *fit.ensemble, fit.metadata);
  const ImageNetSurrogate s = ImageNetSurrogate::Load(path.string());
  models::BuildOptions o;
  o.resolution = 224;
  double mean = 0.0;
  double sd = 0.0;
  s.Predict(models::BuiltinModels().Build("timm:efficientnet_b0", o), mean, sd);
  CHECK(std::fabs(mean - 77.7) < 2.0);
  CHECK(s.OutsideRange(models::BuiltinModels().Build("timm:efficientnet_b0", o)).empty());
  o.resolution = 2000;
  const auto outside = s.OutsideRange(models::BuiltinModels().Build("timm:efficientnet_b0", o));
  CHECK(std::find(outside.begin(), outside.end(), "resolution") != outside.end());
  // A search space's surrogate is not an ImageNet surrogate.
  CHECK_THROWS_WITH(ImageNetSurrogate::Load(DataPath("surrogates/dc-accelerator-naswot.ubj")),
                    Contains("metadata.kind: not an ImageNet surrogate"));
}

TEST_CASE("the ImageNet surrogate needs networks and families") {
  CHECK_THROWS_WITH(FitImageNetSurrogate({}, {}, 0, 10), Contains("at least 10 networks"));
}

}  // namespace
}  // namespace dcnas::surrogate
