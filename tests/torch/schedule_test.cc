#include "models/torch/schedule.h"

#include <catch2/catch.hpp>

#include <cmath>

namespace dcnas::models::libtorch {
namespace {

TEST_CASE("the learning rate warms up linearly, then decays along a cosine to 0") {
  const LrSchedule s = LrSchedule::ForEpochs(0.1, 0.5, 10, 3);
  CHECK(s.warmup_steps == 5);
  CHECK(s.total_steps == 30);
  CHECK(s.At(0) == Approx(0.02));
  CHECK(s.At(4) == Approx(0.1));
  CHECK(s.At(5) == Approx(0.1));
  CHECK(s.At(17) == Approx(0.05 * (1 + std::cos(M_PI * 12 / 25))));
  CHECK(s.At(29) > 0.0);
  CHECK(s.At(30) == Approx(0.0).margin(1e-15));
  CHECK(s.At(40) == Approx(0.0).margin(1e-15));
  for (int64_t step = 6; step < 30; ++step) CHECK(s.At(step) < s.At(step - 1));
}

TEST_CASE("no warm-up starts at the peak learning rate") {
  const LrSchedule s = LrSchedule::ForEpochs(0.2, 0.0, 10, 1);
  CHECK(s.warmup_steps == 0);
  CHECK(s.At(0) == 0.2);
}

TEST_CASE("optimizers have names and defaults") {
  for (Optimizer o : {Optimizer::kSgd, Optimizer::kRmsProp, Optimizer::kAdamW}) {
    CHECK(ParseOptimizer(OptimizerName(o)) == o);
    CHECK(DefaultLearningRate(o) > 0);
    CHECK(DefaultWeightDecay(o) > 0);
  }
  CHECK_THROWS_WITH(ParseOptimizer("adam"), Catch::Contains("sgd, rmsprop, adamw"));
}

}  // namespace
}  // namespace dcnas::models::libtorch
