#include "search/accuracy_factory.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <random>
#include <string>

#include "common/data_dir.h"
#include "common/errors.h"
#include "common/file_io.h"
#include "common/sha256.h"
#include "search/objectives.h"

namespace dcnas::search {
namespace {

namespace fs = std::filesystem;

const space::Space& DcSpace() {
  static const space::Space space =
      space::Space::Load(DataPath("search_spaces/dc-accelerator.yaml"));
  return space;
}

std::string TempPath(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("dcnas-factory-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  return (dir / name).string();
}

// The message of the InputError `make` throws.
template <typename F>
std::string InputErrorOf(F make) {
  try {
    make();
  } catch (const InputError& e) {
    return e.what();
  }
  FAIL("no InputError");
  return "";
}

// An accuracy objective that only describes itself.
class Described : public AccuracyObjective {
 public:
  explicit Described(nlohmann::json config) : config_(std::move(config)) {}
  double Accuracy(const space::Encoding&) override { return 0.0; }
  nlohmann::json Config() const override { return config_; }

 private:
  nlohmann::json config_;
};

TEST_CASE("an objective spec splits at its first colon") {
  CHECK(SplitObjectiveSpec("table:acc.csv").kind == "table");
  CHECK(SplitObjectiveSpec("table:acc.csv").argument == "acc.csv");
  CHECK(SplitObjectiveSpec("table:dir:x/acc.csv").argument == "dir:x/acc.csv");
  CHECK(SplitObjectiveSpec("sim").kind == "sim");
  CHECK(SplitObjectiveSpec("sim").argument.empty());
  CHECK(SplitObjectiveSpec("train:").argument.empty());
}

TEST_CASE("accuracy specs: every kind, and the messages for bad ones") {
  CHECK(ParseAccuracySpec("surrogate:s.ubj").argument == "s.ubj");
  CHECK(ParseAccuracySpec("counterpart:s.ubj").kind == "counterpart");
  CHECK(ParseAccuracySpec("table:acc.csv").kind == "table");
  CHECK(ParseAccuracySpec("imagenet:i.ubj").kind == "imagenet");
  CHECK(InputErrorOf([] { ParseAccuracySpec("imagenet"); }) ==
        "--accuracy imagenet: needs a surrogate file (imagenet:FILE)");
  CHECK(ParseAccuracySpec("train").argument.empty());
  CHECK(ParseAccuracySpec("train:r16_e2").argument == "r16_e2");
  CHECK(InputErrorOf([] { ParseAccuracySpec("guess:x"); }) ==
        "unknown --accuracy 'guess:x' (valid: surrogate:FILE, counterpart:FILE, imagenet:FILE, "
        "table:FILE, train[:RECIPE])");
  CHECK(InputErrorOf([] { ParseAccuracySpec(""); }).find("unknown --accuracy ''") == 0);
  CHECK(InputErrorOf([] { ParseAccuracySpec("table"); }) ==
        "--accuracy table: needs a file (table:FILE)");
  CHECK(InputErrorOf([] { ParseAccuracySpec("surrogate:"); }) ==
        "--accuracy surrogate: needs a file (surrogate:FILE)");
  CHECK(InputErrorOf([] { ParseAccuracySpec("counterpart"); }) ==
        "--accuracy counterpart: needs a surrogate file (counterpart:FILE)");
}

TEST_CASE("a table spec makes the table objective, hashed into its configuration") {
  const space::Space& space = DcSpace();
  std::mt19937_64 rng(3);
  const space::Encoding e = space.Sample(rng);
  const std::string path = TempPath("acc.csv");
  WriteFileAtomic(path, "encoding,accuracy\n" + space.ToText(e) + ",71.5\n");
  const auto accuracy = MakeAccuracyObjective("table:" + path, space, {});
  CHECK(accuracy->Accuracy(e) == 71.5);
  const nlohmann::json config = accuracy->Config();
  CHECK(config.at("sha256") == Sha256Hex(ReadFile(path)));
  CHECK(config.dump().find("table") != std::string::npos);
  const std::string missing = TempPath("missing.csv");
  CHECK(InputErrorOf([&] { MakeAccuracyObjective("table:" + missing, space, {}); }).find(missing) !=
        std::string::npos);
  CHECK_THROWS_AS(MakeAccuracyObjective("guess", space, {}), InputError);
}

TEST_CASE("an accuracy table holds percent in [0, 100]; replicates average") {
  const space::Space& space = DcSpace();
  std::mt19937_64 rng(5);
  const space::Encoding e = space.Sample(rng);
  const std::string path = TempPath("acc-bounds.csv");
  // Above 100 is refused naming the line (the journal would refuse it on resume).
  WriteFileAtomic(path, "encoding,accuracy\n" + space.ToText(e) + ",140.57\n");
  const std::string message = InputErrorOf([&] { ReadAccuracyTable(path, space); });
  CHECK(message.find(path + ":2: column 'accuracy': bad value '140.57'") != std::string::npos);
  CHECK(message.find("at most 100") != std::string::npos);
  // 100 itself and 0 are accuracies.
  WriteFileAtomic(path, "encoding,accuracy\n" + space.ToText(e) + ",100\n");
  CHECK(ReadAccuracyTable(path, space).values.begin()->second == 100.0);
  // A network listed twice: its rows are replicates, averaged with equal weight.
  WriteFileAtomic(path,
                  "encoding,accuracy\n" + space.ToText(e) + ",70\n" + space.ToText(e) + ",72\n");
  CHECK(ReadAccuracyTable(path, space).values.begin()->second == 71.0);
}

TEST_CASE("the optional kinds: made where this build has them, refused by name otherwise") {
  const space::Space& space = DcSpace();
  const std::string missing = TempPath("missing.ubj");
  const std::string surrogate =
      InputErrorOf([&] { MakeAccuracyObjective("surrogate:" + missing, space, {}); });
  const std::string train = InputErrorOf([&] { MakeAccuracyObjective("train:r16_x9", space, {}); });
#ifdef DCNAS_WITH_XGBOOST
  CHECK(surrogate.find(missing) != std::string::npos);
#else
  CHECK(surrogate == "--accuracy surrogate: this dcnas was built without XGBoost");
#endif
#ifdef DCNAS_WITH_TORCH
  CHECK(train.find("unknown part 'x9'") != std::string::npos);
#else
  CHECK(train == "--accuracy train needs LibTorch (this dcnas was built without it)");
#endif
}

TEST_CASE("the finalists' recipe: a key over the space's proxy, else 4x the objective's epochs") {
  const space::Space& space = DcSpace();
  const proxy::ProxyRecipe base = proxy::SpaceRecipe(space);
  const Described with_recipe(nlohmann::json{{"kind", "surrogate"}, {"recipe", "r16_n5000_e2"}});
  const Described without(nlohmann::json{{"kind", "table"}});

  const proxy::ProxyRecipe given = FinalistsRecipe(space, "r24_e3", with_recipe);
  CHECK(given == base.WithKey("r24_e3"));
  CHECK(given.epochs == 3);
  CHECK(FinalistsRecipe(space, "r16_e5", without).epochs == 5);

  const proxy::ProxyRecipe longer = FinalistsRecipe(space, "", with_recipe);
  CHECK(kFinalistsEpochFactor == 4);
  CHECK(longer.epochs == 2 * kFinalistsEpochFactor);
  CHECK(longer.resolution == 16);
  CHECK(longer.train_images == 5000);
  CHECK(longer.width == base.width);
  CHECK(longer.removed_downsamples == base.removed_downsamples);

  CHECK(InputErrorOf([&] { FinalistsRecipe(space, "", without); }) ==
        "--finalists: give --finalists-recipe (the accuracy objective records no training "
        "recipe)");
  CHECK(InputErrorOf([&] {
          FinalistsRecipe(space, "r16_x9", with_recipe);
        }).find("unknown part 'x9'") != std::string::npos);
  CHECK(kFinalistsDefaultEpochs == 8);
}

}  // namespace
}  // namespace dcnas::search
