#include "lacs/imagenet_accuracy.h"

#include "common/errors.h"
#include "common/file_io.h"
#include "common/sha256.h"
#include "models/block_string.h"
#include "surrogate/imagenet_surrogate.h"

namespace dcnas::lacs {
namespace {

class ImageNetAccuracy : public ProxyAccuracy {
 public:
  ImageNetAccuracy(surrogate::ImageNetSurrogate s, std::string path, std::string sha256)
      : surrogate_(std::move(s)), path_(std::move(path)), sha256_(std::move(sha256)) {}

  std::vector<std::optional<proxy::TrainedResult>> Evaluate(
      const std::vector<ProxyRequest>& requests) override {
    std::vector<std::optional<proxy::TrainedResult>> out;
    for (const ProxyRequest& r : requests) {
      models::BuildOptions o;
      o.resolution = r.spec.resolution;
      double mean = 0.0;
      double sd = 0.0;
      surrogate_.Predict(models::BuildBlockNetwork(r.label, r.spec, o), mean, sd);
      proxy::TrainedResult t;
      t.val_accuracy = mean;
      t.test_accuracy = mean;
      out.emplace_back(t);
    }
    return out;
  }

  nlohmann::json Config() const override {
    return {{"kind", "imagenet"},
            {"file", path_},
            {"sha256", sha256_},
            {"lofo_tau", surrogate_.metadata()["report"]["lofo_tau"]["tau"]}};
  }

 private:
  surrogate::ImageNetSurrogate surrogate_;
  std::string path_;
  std::string sha256_;
};

}  // namespace

std::unique_ptr<ProxyAccuracy> MakeImageNetAccuracy(const std::string& path, double min_tau) {
  surrogate::ImageNetSurrogate s = surrogate::ImageNetSurrogate::Load(path);
  const nlohmann::json& m = s.metadata();
  const double tau = m.contains("report") ? m["report"]["lofo_tau"].value("tau", -2.0) : -2.0;
  if (!(tau >= min_tau)) {
    throw InputError(path + ": leave-one-family-out tau " + std::to_string(tau) +
                     " is below the floor " + std::to_string(min_tau));
  }
  return std::make_unique<ImageNetAccuracy>(std::move(s), path, Sha256Hex(ReadFile(path)));
}

}  // namespace dcnas::lacs
