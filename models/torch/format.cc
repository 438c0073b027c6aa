#include "models/torch/format.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "common/errors.h"
#include "models/torch/measure.h"
#include "models/torch/train.h"

namespace dcnas::models::libtorch {

void CheckDeviceName(const std::string& device) {
  if (device == "cpu" || device == "cuda") return;
  if (device.rfind("cuda:", 0) == 0 && device.size() > 5 && device.size() <= 8 &&
      std::all_of(device.begin() + 5, device.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return;
  }
  throw InputError("--device '" + device + "' is not cpu, cuda or cuda:N");
}

std::string FormatDuration(double seconds) {
  const auto total = static_cast<int64_t>(std::llround(std::max(0.0, seconds)));
  const int64_t h = total / 3600, m = (total % 3600) / 60, s = total % 60;
  char buffer[32];
  if (h > 0) {
    std::snprintf(buffer, sizeof buffer, "%lldh%02lldm", static_cast<long long>(h),
                  static_cast<long long>(m));
  } else if (m > 0) {
    std::snprintf(buffer, sizeof buffer, "%lldm%02llds", static_cast<long long>(m),
                  static_cast<long long>(s));
  } else {
    std::snprintf(buffer, sizeof buffer, "%llds", static_cast<long long>(s));
  }
  return buffer;
}

std::string Percent(double fraction) {
  std::ostringstream s;
  s.setf(std::ios::fixed);
  s.precision(2);
  s << 100.0 * fraction << "%";
  return s.str();
}

std::string Fixed(double value, int digits) {
  std::ostringstream s;
  s.setf(std::ios::fixed);
  s.precision(digits);
  s << value;
  return s.str();
}

std::string StepLine(int epoch, int epochs, double done_fraction, double mean_loss, double accuracy,
                     double images_per_s) {
  return "epoch " + std::to_string(epoch) + "/" + std::to_string(epochs) + " " +
         Fixed(100.0 * done_fraction, 0) + "%  loss " + Fixed(mean_loss, 4) + "  acc " +
         Percent(accuracy) + "  " + Fixed(images_per_s, 0) + " img/s";
}

std::string EpochLine(const EpochMetrics& m, int epochs) {
  return "epoch " + std::to_string(m.epoch) + "/" + std::to_string(epochs) + "  loss " +
         Fixed(m.train_loss, 4) + "  acc " + Percent(m.train_accuracy) + "  val_loss " +
         Fixed(m.val_loss, 4) + "  val_acc " + Percent(m.val_accuracy) + "  " +
         Fixed(m.images_per_s, 0) + " img/s  " + FormatDuration(m.epoch_time_s) + "  ETA " +
         FormatDuration(m.eta_s);
}

}  // namespace dcnas::models::libtorch
