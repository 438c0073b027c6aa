// Corrupt surrogate files: each is refused with an InputError naming the file (and the member and
// field) before XGBoost's model loader sees it, never a crash. Reproducers of the reliability
// report: a changed byte in a member's model, an empty tree_info, base_score "nan", a truncated
// file, a child index or split feature out of range.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstring>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/errors.h"
#include "common/file_io.h"
#include "common/sha256.h"
#include "surrogate/ensemble.h"
#include "surrogate/forest.h"
#include "surrogate/surrogate_file.h"
#include "tests/surrogate/synthetic.h"

namespace dcnas::surrogate {
namespace {

std::filesystem::path TempDir() {
  auto dir = std::filesystem::temp_directory_path() /
             ("dcnas_surrogate_file_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  return dir;
}

// A small two-member ensemble and its container document.
struct Fixture {
  testing::SyntheticData train = testing::MakeSynthetic(300, 8, 0.1, 31);
  testing::SyntheticData valid = testing::MakeSynthetic(100, 8, 0.1, 32);
  testing::SyntheticData test = testing::MakeSynthetic(50, 8, 0.1, 33);
  Ensemble ensemble = Train();
  nlohmann::json doc = SurrogateToJson(ensemble, {{"k", 1}});

  Ensemble Train() const {
    EnsembleParams p;
    p.members = 2;
    p.seed = 5;
    p.member.max_rounds = 30;
    p.member.early_stopping_rounds = 10;
    p.member.learning_rate = 0.2;
    return Ensemble::Train(train.view(), valid.view(), p);
  }
};

// Member `k`'s XGBoost model as JSON.
nlohmann::json MemberModel(const nlohmann::json& doc, std::size_t k) {
  return nlohmann::json::from_ubjson(
      DecodeBase64(doc["members"][k]["model_base64"].get<std::string>()));
}

// `doc` with member `k`'s model replaced by `model` (UBJSON), its checksum recomputed: what a
// checksum cannot vouch for (the model was written that way), so the structural check must.
nlohmann::json WithMemberModel(nlohmann::json doc, std::size_t k, const nlohmann::json& model) {
  const std::vector<std::uint8_t> ubj = nlohmann::json::to_ubjson(model);
  const std::string bytes(ubj.begin(), ubj.end());
  doc["members"][k]["model_base64"] = EncodeBase64(bytes);
  doc["members"][k]["model_sha256"] = Sha256Hex(bytes);
  return doc;
}

std::string WriteUbj(const nlohmann::json& doc, const std::string& path) {
  const std::vector<std::uint8_t> bytes = nlohmann::json::to_ubjson(doc);
  WriteFileAtomic(path, std::string(bytes.begin(), bytes.end()));
  return path;
}

std::vector<float> MemberPredictions(const Ensemble& e, const Matrix& x) {
  std::vector<float> out(e.size() * x.rows);
  e.PredictMembers(x.view(), out);
  return out;
}

// Loading `doc` is refused with an InputError naming the file and every string of `names`.
void CheckRefused(const nlohmann::json& doc, const std::vector<std::string>& names) {
  const auto dir = TempDir();
  const std::string path = WriteUbj(doc, (dir / "corrupt.ubj").string());
  CHECK_THROWS_AS(LoadSurrogate(path), InputError);
  try {
    (void)LoadSurrogate(path);
  } catch (const InputError& e) {
    const std::string what = e.what();
    CHECK_THAT(what, Catch::Contains(path));
    for (const auto& name : names) CHECK_THAT(what, Catch::Contains(name));
  }
  std::filesystem::remove_all(dir);
}

TEST_CASE("surrogate files carry each member's SHA-256, and files without it still load",
          "[surrogate][surrogate_file]") {
  Fixture f;
  const auto expected = MemberPredictions(f.ensemble, f.test.x);
  for (std::size_t k = 0; k < f.doc["members"].size(); ++k) {
    const auto& m = f.doc["members"][k];
    REQUIRE(m.contains("model_sha256"));
    CHECK(m["model_sha256"] == Sha256Hex(DecodeBase64(m["model_base64"].get<std::string>())));
  }
  const auto dir = TempDir();
  SECTION("with checksums") {
    const std::string path = (dir / "s.ubj").string();
    SaveSurrogate(path, f.ensemble, {{"k", 1}});
    CHECK(MemberPredictions(LoadSurrogate(path).ensemble, f.test.x) == expected);
  }
  SECTION("written before checksums") {
    nlohmann::json old = f.doc;
    for (auto& m : old["members"]) m.erase("model_sha256");
    const std::string path = WriteUbj(old, (dir / "old.ubj").string());
    CHECK(MemberPredictions(LoadSurrogate(path).ensemble, f.test.x) == expected);
  }
  std::filesystem::remove_all(dir);
}

TEST_CASE("a changed byte in a member's model is refused by its checksum",
          "[surrogate][surrogate_file]") {
  Fixture f;
  const auto dir = TempDir();
  const std::string path = (dir / "s.ubj").string();
  SaveSurrogate(path, f.ensemble, {{"k", 1}});
  std::string bytes = ReadFile(path);
  // A character in the middle of member 1's base64 model, changed to another base64 character.
  const std::string b64 = f.doc["members"][1]["model_base64"].get<std::string>();
  const std::size_t at = bytes.find(b64);
  REQUIRE(at != std::string::npos);
  const std::size_t pos = at + b64.size() / 2;
  bytes[pos] = bytes[pos] == 'A' ? 'B' : 'A';
  WriteFileAtomic(path, bytes);
  CHECK_THROWS_AS(LoadSurrogate(path), InputError);
  CHECK_THROWS_WITH(LoadSurrogate(path), Catch::Contains(path) && Catch::Contains("members[1]") &&
                                             Catch::Contains("model_sha256") &&
                                             Catch::Contains("corrupt"));
  std::filesystem::remove_all(dir);
}

TEST_CASE("a truncated surrogate file is refused naming the file", "[surrogate][surrogate_file]") {
  Fixture f;
  const auto dir = TempDir();
  for (const char* name : {"s.ubj", "s.json"}) {
    const std::string path = (dir / name).string();
    SaveSurrogate(path, f.ensemble, {{"k", 1}});
    const std::string bytes = ReadFile(path);
    for (const std::size_t keep :
         {std::size_t{0}, std::size_t{1}, bytes.size() / 3, bytes.size() / 2, bytes.size() - 2}) {
      INFO(name << " truncated to " << keep << " bytes");  // (- 2: past the JSON newline)
      WriteFileAtomic(path, bytes.substr(0, keep));
      CHECK_THROWS_AS(LoadSurrogate(path), InputError);
      CHECK_THROWS_WITH(LoadSurrogate(path), Catch::Contains(path));
    }
  }
  std::filesystem::remove_all(dir);
}

TEST_CASE("deep nesting is refused before the reader recurses into it",
          "[surrogate][surrogate_file]") {
  // 100,000 levels would overflow the stack in nlohmann's UBJSON reader.
  const std::string deep(100000, '[');
  CHECK_THROWS_WITH(ParseSurrogate(deep, "deep.ubj"),
                    Catch::Contains("deep.ubj: nested deeper than 64 levels"));
  CHECK_THROWS_WITH(ParseSurrogate(deep, "deep.json"),
                    Catch::Contains("deep.json: nested deeper than 64 levels"));
  // 64 levels are read (and then refused as not a surrogate document).
  const std::string ok = std::string(64, '[') + std::string(64, ']');
  CHECK_THROWS_WITH(ParseSurrogate(ok, "ok.json"), !Catch::Contains("nested deeper"));
}

TEST_CASE("a member model XGBoost would crash or mispredict on is refused before it loads it",
          "[surrogate][surrogate_file]") {
  Fixture f;
  nlohmann::json model = MemberModel(f.doc, 0);
  auto& gbm = model["learner"]["gradient_booster"]["model"];
  auto& tree = gbm["trees"][0];
  REQUIRE(tree["left_children"].size() >= 3);  // a split at the root
  SECTION("empty tree_info") {
    gbm["tree_info"] = nlohmann::json::array();
    CheckRefused(WithMemberModel(f.doc, 0, model), {"members[0]", "tree_info"});
  }
  SECTION("tree_info shorter than the trees") {
    gbm["tree_info"].erase(gbm["tree_info"].size() - 1);
    CheckRefused(WithMemberModel(f.doc, 0, model), {"members[0]", "tree_info"});
  }
  SECTION("base_score nan") {
    model["learner"]["learner_model_param"]["base_score"] = "nan";
    CheckRefused(WithMemberModel(f.doc, 0, model), {"members[0]", "base_score", "nan"});
  }
  SECTION("base_score not a number") {
    model["learner"]["learner_model_param"]["base_score"] = "5E-1x";
    CheckRefused(WithMemberModel(f.doc, 0, model), {"members[0]", "base_score"});
  }
  SECTION("a child index out of range") {
    tree["left_children"][0] = 1000;
    CheckRefused(WithMemberModel(f.doc, 0, model), {"members[0]", "trees[0]", "child index 1000"});
  }
  SECTION("a negative child index") {
    tree["right_children"][0] = -7;
    CheckRefused(WithMemberModel(f.doc, 0, model), {"members[0]", "trees[0]", "child index -7"});
  }
  SECTION("a cycle") {
    // The root's left child points back at the root's right child: reached twice.
    const auto l = tree["left_children"][0].get<int>();
    const auto r = tree["right_children"][0].get<int>();
    tree["left_children"][l] = r;
    tree["right_children"][l] = l;
    CheckRefused(WithMemberModel(f.doc, 0, model), {"members[0]", "trees[0]", "reached twice"});
  }
  SECTION("a split feature out of range") {
    tree["split_indices"][0] = 999;
    CheckRefused(WithMemberModel(f.doc, 0, model), {"members[0]", "trees[0]", "feature 999"});
  }
  SECTION("node arrays of different lengths") {
    tree["split_conditions"].erase(tree["split_conditions"].size() - 1);
    CheckRefused(WithMemberModel(f.doc, 0, model), {"members[0]", "trees[0].split_conditions"});
  }
  SECTION("num_nodes disagreeing with the arrays") {
    tree["tree_param"]["num_nodes"] = "1000";
    CheckRefused(WithMemberModel(f.doc, 0, model), {"members[0]", "trees[0]", "num_nodes"});
  }
  SECTION("gbtree_model_param.num_trees disagreeing with the trees") {
    gbm["gbtree_model_param"]["num_trees"] = "100000";
    CheckRefused(WithMemberModel(f.doc, 0, model), {"members[0]", "num_trees"});
  }
  SECTION("a leaf value that is not finite") {
    std::size_t leaf = 0;
    while (tree["left_children"][leaf] != -1) ++leaf;
    tree["split_conditions"][leaf] = std::numeric_limits<double>::infinity();
    CheckRefused(WithMemberModel(f.doc, 0, model), {"members[0]", "split_conditions", "finite"});
  }
  SECTION("a split condition of the wrong type") {
    tree["split_conditions"][0] = "0.5";
    CheckRefused(WithMemberModel(f.doc, 0, model), {"members[0]", "wrong type"});
  }
  SECTION("trees missing") {
    gbm.erase("trees");
    CheckRefused(WithMemberModel(f.doc, 0, model), {"members[0]", "trees"});
  }
}

TEST_CASE("a standalone model file is checked before XGBoost loads it",
          "[surrogate][surrogate_file]") {
  Fixture f;
  nlohmann::json model = MemberModel(f.doc, 0);
  model["learner"]["gradient_booster"]["model"]["tree_info"] = nlohmann::json::array();
  const auto dir = TempDir();
  const std::string path = (dir / "model.json").string();
  WriteFileAtomic(path, model.dump());
  CHECK_THROWS_AS(Regressor::Load(path), InputError);
  CHECK_THROWS_WITH(Regressor::Load(path), Catch::Contains(path) && Catch::Contains("tree_info"));
  std::filesystem::remove_all(dir);
}

TEST_CASE("Forest::CheckModel accepts what XGBoost writes, in both formats",
          "[surrogate][surrogate_file]") {
  Fixture f;
  for (const Regressor& m : f.ensemble.members()) {
    CHECK_NOTHROW(Forest::CheckModel(m.SaveToBuffer(ModelFormat::kUbj)));
    CHECK_NOTHROW(Forest::CheckModel(m.SaveToBuffer(ModelFormat::kJson)));
    const Forest json = Forest::FromModel(m.SaveToBuffer(ModelFormat::kJson));
    std::vector<float> a(f.test.x.rows), b(f.test.x.rows);
    json.Predict(f.test.x.view(), a);
    m.forest().Predict(f.test.x.view(), b);
    CHECK(std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0);
  }
  CHECK_THROWS_AS(Forest::CheckModel(""), InputError);
  CHECK_THROWS_AS(Forest::CheckModel("{"), InputError);
  CHECK_THROWS_AS(Forest::CheckModel("{}"), InputError);
  CHECK_THROWS_AS(Forest::CheckModel("[1, 2]"), InputError);
}

}  // namespace
}  // namespace dcnas::surrogate
