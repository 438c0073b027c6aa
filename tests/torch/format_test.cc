#include "models/torch/format.h"

#include <catch2/catch.hpp>

#include "models/torch/train.h"

namespace dcnas::models::libtorch {
namespace {

TEST_CASE("durations, percentages and progress lines") {
  CHECK(FormatDuration(0.4) == "0s");
  CHECK(FormatDuration(12.4) == "12s");
  CHECK(FormatDuration(185) == "3m05s");
  CHECK(FormatDuration(3720) == "1h02m");
  CHECK(FormatDuration(-5) == "0s");
  CHECK(Percent(0.91234) == "91.23%");
  CHECK(Fixed(2.0 / 3.0, 3) == "0.667");
  CHECK(StepLine(2, 10, 0.4, 0.81234, 0.7125, 950.4) ==
        "epoch 2/10 40%  loss 0.8123  acc 71.25%  950 img/s");
  EpochMetrics m;
  m.epoch = 3;
  m.train_loss = 0.5;
  m.train_accuracy = 0.8;
  m.val_loss = 0.6;
  m.val_accuracy = 0.75;
  m.images_per_s = 1234.4;
  m.epoch_time_s = 65;
  m.eta_s = 130;
  CHECK(EpochLine(m, 5) ==
        "epoch 3/5  loss 0.5000  acc 80.00%  val_loss 0.6000  val_acc 75.00%  1234 img/s  "
        "1m05s  ETA 2m10s");
}

}  // namespace
}  // namespace dcnas::models::libtorch
