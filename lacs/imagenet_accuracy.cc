#include "lacs/imagenet_accuracy.h"

#include "models/block_string.h"
#include "search/surrogate_objective.h"

namespace dcnas::lacs {
namespace {

class ImageNetAccuracy : public ProxyAccuracy {
 public:
  explicit ImageNetAccuracy(std::unique_ptr<search::ImageNetTop1> top1) : top1_(std::move(top1)) {}

  std::vector<std::optional<proxy::TrainedResult>> Evaluate(
      const std::vector<ProxyRequest>& requests) override {
    std::vector<std::optional<proxy::TrainedResult>> out;
    for (const ProxyRequest& r : requests) {
      models::BuildOptions o;
      o.resolution = r.spec.resolution;
      proxy::TrainedResult t;
      t.val_accuracy = top1_->Predict(models::BuildBlockNetwork(r.label, r.spec, o));
      t.test_accuracy = t.val_accuracy;
      out.emplace_back(t);
    }
    return out;
  }

  nlohmann::json Config() const override { return top1_->Config(); }

 private:
  std::unique_ptr<search::ImageNetTop1> top1_;
};

}  // namespace

std::unique_ptr<ProxyAccuracy> MakeImageNetAccuracy(const std::string& path, double min_tau) {
  return std::make_unique<ImageNetAccuracy>(search::ImageNetTop1::Load(path, min_tau));
}

}  // namespace dcnas::lacs
