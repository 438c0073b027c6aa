#include "surrogate/accuracy_curve.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>

#include "common/errors.h"
#include "common/file_io.h"
#include "common/text.h"
#include "tests/surrogate/synthetic_accuracy.h"

namespace dcnas::surrogate {
namespace {

namespace fs = std::filesystem;
using Catch::Contains;

std::string SpacePath() {
  const char* root = std::getenv("DCNAS_SOURCE_ROOT");
  return std::string(root ? root : ".") + "/data/search_spaces/dc-accelerator.yaml";
}

TEST_CASE("the learning curve: taus on the rest, baselines, the label's ceiling; threads agree") {
  const space::Space space = space::Space::Load(SpacePath());
  const proxy::AccuracyData data =
      testing::SyntheticAccuracy(space, 150, 11, /*replicates=*/2, /*noise=*/0.3);
  CurveOptions o;
  o.sizes = {60, 20};
  o.seeds = 3;
  o.ensemble.members = 2;
  const AccuracyCurve one = ComputeAccuracyCurve(space, data, o);
  o.threads = 2;
  size_t calls = 0;
  const AccuracyCurve two = ComputeAccuracyCurve(space, data, o, [&](size_t done, size_t total) {
    CHECK(total == 6);
    CHECK(done <= total);
    calls += 1;
  });
  CHECK(calls >= 1);
  REQUIRE(one.points.size() == 6);
  REQUIRE(two.points.size() == 6);
  for (size_t i = 0; i < one.points.size(); ++i) {
    CHECK(one.points[i].tau == two.points[i].tau);
    CHECK(one.points[i].top_half_tau == two.points[i].top_half_tau);
  }
  CHECK(one.architectures == 150);
  CHECK(one.rows == 300);
  CHECK(one.target == "val_accuracy");
  CHECK(one.points.front().size == 20);  // sizes sorted
  CHECK(one.points.front().predicted == 130);
  REQUIRE(one.summary.size() == 2);
  // The synthetic law is learnable from 60 architectures, and FLOPs rank it poorly.
  INFO("tau " << one.summary[1].tau.median << " FLOPs " << one.summary[1].flops_tau.median);
  CHECK(one.summary[1].tau.median > 0.35);
  CHECK(one.summary[1].tau.median > one.summary[0].tau.median);
  CHECK(one.summary[1].tau.median > one.summary[1].flops_tau.median + 0.15);
  CHECK(one.summary[1].tau.q1 <= one.summary[1].tau.median);
  CHECK(one.summary[1].tau.median <= one.summary[1].tau.q3);
  // The ceiling: a perfect predictor of the mean against one replicate beats one replicate
  // against the other (the mean holds half of each replicate's noise), both below 1.
  CHECK(one.ceiling.architectures == 150);
  CHECK(one.ceiling.replicates == 2);
  CHECK(one.ceiling.mean_vs_single_tau > one.ceiling.replicate_tau);
  CHECK(one.ceiling.mean_vs_single_tau < 1.0);
  CHECK(one.ceiling.replicate_tau > 0.5);
  // The ceiling of what is scored (the mean of the 2 trainings): above seed-to-seed agreement.
  CHECK(one.ceiling.label_seeds == 2);
  CHECK(one.ceiling.ceiling_tau > one.ceiling.replicate_tau);
  CHECK(one.ceiling.ceiling_tau < 1.0);
  CHECK(one.ceiling.normal_ceiling_tau > one.ceiling.replicate_tau);

  const fs::path dir = fs::temp_directory_path() / ("dcnas-curve-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  WriteAccuracyCurve(one, (dir / "out").string());
  CHECK(Split(ReadFile((dir / "out" / "curve.csv").string()), '\n').size() == 1 + 6 + 1);
  const auto json = nlohmann::json::parse(ReadFile((dir / "out" / "curve.json").string()));
  CHECK(json["summary"].size() == 2);
  CHECK(json["points"].size() == 6);
  CHECK(json["label_transform"] == "log_error");
  CHECK_THAT(ReadFile((dir / "out" / "curve.svg").string()), Contains("<svg"));
  CHECK_THAT(ReadFile((dir / "out" / "curve.txt").string()), Contains("label ceiling"));
  fs::remove_all(dir);
}

TEST_CASE("curve sizes must leave architectures to rank; the top half is above the median") {
  const space::Space space = space::Space::Load(SpacePath());
  const proxy::AccuracyData data = testing::SyntheticAccuracy(space, 40, 2);
  CurveOptions o;
  o.seeds = 1;
  o.sizes = {35};
  CHECK_THROWS_WITH(ComputeAccuracyCurve(space, data, o),
                    Contains("synthetic.csv: size 35") && Contains("sizes 20 to 30"));
  o.sizes = {10};
  CHECK_THROWS_WITH(ComputeAccuracyCurve(space, data, o), Contains("at least 20"));
  CHECK(TopHalfKendallTau({1, 2, 3, 4}, {1, 2, 4, 3}) == Approx(-1.0));
  CHECK(TopHalfKendallTau({1, 2, 3, 4}, {4, 3, 1, 2}) == Approx(1.0));
}

}  // namespace
}  // namespace dcnas::surrogate
