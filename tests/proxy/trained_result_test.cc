// The one trained-result type and its JSON form.
#include "proxy/trained_result.h"

#include <catch2/catch.hpp>
#include <limits>
#include <nlohmann/json.hpp>

#include "common/errors.h"

namespace dcnas::proxy {
namespace {

TEST_CASE("a trained result round-trips through JSON", "[trained_result]") {
  const TrainedResult r{
      .val_accuracy = 71.5, .test_accuracy = 70.25, .proxy_params = 123456, .train_time_s = 12.5};
  nlohmann::json j = {{"name", "b0"}};
  AddTrainedFields(r, j);
  CHECK(j.at("name") == "b0");
  CHECK(TrainedFromJson(j, "f:1: ") == r);
}

TEST_CASE("a failed training is its error alone", "[trained_result]") {
  nlohmann::json j = nlohmann::json::object();
  AddTrainedFields({.error = "out of memory"}, j);
  CHECK(j == nlohmann::json{{"error", "out of memory"}});
  CHECK(TrainedFromJson(j, "f:1: ").error == "out of memory");
  CHECK_THROWS_WITH(TrainedFromJson({{"error", ""}}, "f:2: "),
                    Catch::StartsWith("f:2: 'error' must be"));
}

TEST_CASE("bad results are refused naming where", "[trained_result]") {
  const nlohmann::json good = {
      {"val_accuracy", 50.0}, {"test_accuracy", 49.0}, {"proxy_params", 10}, {"train_time_s", 1.0}};
  auto with = [&](const char* key, const nlohmann::json& value) {
    nlohmann::json j = good;
    j[key] = value;
    return j;
  };
  CHECK_NOTHROW(TrainedFromJson(good, "x: "));
  CHECK_THROWS_WITH(TrainedFromJson(with("val_accuracy", -5), "x: "),
                    Catch::Contains("x: accuracy outside 0..100"));
  CHECK_THROWS_WITH(TrainedFromJson(with("test_accuracy", 100.5), "x: "),
                    Catch::Contains("outside 0..100"));
  CHECK_THROWS_WITH(TrainedFromJson(with("test_accuracy", "high"), "x: "),
                    Catch::Contains("non-numeric 'test_accuracy'"));
  CHECK_THROWS_WITH(TrainedFromJson(with("proxy_params", 1.5), "x: "),
                    Catch::Contains("'proxy_params' must be a non-negative integer"));
  CHECK_THROWS_WITH(TrainedFromJson(with("train_time_s", -1), "x: "),
                    Catch::Contains("'train_time_s' is negative"));
  nlohmann::json missing = good;
  missing.erase("train_time_s");
  CHECK_THROWS_WITH(TrainedFromJson(missing, "x: "), Catch::Contains("'train_time_s'"));
  CHECK_THROWS_AS(TrainedFromJson(nlohmann::json::array(), "x: "), InputError);
}

}  // namespace
}  // namespace dcnas::proxy
