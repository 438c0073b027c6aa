// Zero-cost labels: the label text and the recipe key that carry them, their rows in accuracy
// data, and the calibration against a benchmark's real labels.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdlib>
#include <map>
#include <random>
#include <set>

#include "common/errors.h"
#include "common/text.h"
#include "proxy/accuracy_data.h"
#include "proxy/score_calibration.h"
#include "tests/proxy/test_rows.h"

namespace dcnas::proxy {
namespace {

using testing::Networks;
using testing::Row;

TEST_CASE("zero-cost labels: text, mapping, and refused forms") {
  const ScoreLabel l = ParseScoreLabel("zc-naswot-a0.0963313-b25.6789");
  CHECK(l.score == "naswot");
  CHECK(l.scale == 0.0963313);
  CHECK(l.offset == 25.6789);
  CHECK(l.Text() == "zc-naswot-a0.0963313-b25.6789");
  // The error rate falls exponentially with the score: 100 - exp(b - a x), within [0, 100].
  const ScoreLabel e = ParseScoreLabel("zc-naswot-a0.008-b7.6");
  CHECK(e.Apply(600.0) == Approx(100.0 - std::exp(7.6 - 4.8)));
  CHECK(e.Apply(700.0) > e.Apply(600.0));
  CHECK(e.Apply(1e6) == 100.0);
  CHECK(e.Apply(-1e6) == 0.0);
  // grad_norm is written without its underscore (a key's parts are split at '_').
  const ScoreLabel g = ParseScoreLabel("zc-gradnorm-a2-b-10.5");
  CHECK(g.score == "grad_norm");
  CHECK(g.offset == -10.5);
  CHECK(g.Text() == "zc-gradnorm-a2-b-10.5");
  // synflow through its log10.
  CHECK(ParseScoreLabel("zc-synflow-a0.1-b4").Apply(1e30) == Approx(100.0 - std::exp(1.0)));
  // Rounded to the 6 digits the text carries.
  const ScoreLabel r = RoundedScoreLabel("naswot", 0.09633128279, 25.678932097);
  CHECK(ParseScoreLabel(r.Text()).scale == r.scale);
  CHECK(ParseScoreLabel(r.Text()).offset == r.offset);
  CHECK_THROWS_WITH(ParseScoreLabel("zc-jacov-a1-b0"), Catch::Contains("unknown score 'jacov'"));
  CHECK_THROWS_WITH(ParseScoreLabel("zc-naswot-a0-b5"), Catch::Contains("scale of 0"));
  CHECK_THROWS_WITH(ParseScoreLabel("zc-naswot-ax-b5"), Catch::Contains("not a zero-cost label"));
  CHECK_THROWS_WITH(ParseScoreLabel("zc-naswot-a1e999-b5"), Catch::Contains("not a finite"));
  CHECK_THROWS_AS(ParseScoreLabel("naswot"), InputError);
}

TEST_CASE("zero-cost labels in recipe keys: no training parts, distinct from trained keys") {
  ProxyRecipe base;
  base.resolution = 16;
  base.batch = 64;
  const ProxyRecipe z = base.WithZeroCostLabel("zc-naswot-a0.1-b25");
  CHECK(z.zero_cost());
  CHECK(z.epochs == 0);
  CHECK(z.train_images == 64);
  CHECK(z.Key() == "r16_w0.25_rd1_b64_zc-naswot-a0.1-b25");
  // Read back over any base recipe: the same recipe.
  CHECK(ProxyRecipe{}.WithKey(z.Key()) == z);
  // A trained key over a labelled base is trained again.
  const ProxyRecipe t = z.WithKey("r16_e2_n5000");
  CHECK_FALSE(t.zero_cost());
  CHECK(t.epochs == 2);
  CHECK(t.Key() != z.Key());
  CHECK_THROWS_WITH(ProxyRecipe{}.WithKey("r16_e2_zc-naswot-a0.1-b25"),
                    Catch::Contains("'e2' is a training setting"));
  CHECK_THROWS_WITH(ProxyRecipe{}.WithKey("r16_zc-naswot-a0-b25"), Catch::Contains("scale of 0"));
  CHECK_THROWS_WITH(z.WithKey("r16"), Catch::Contains("needs epochs"));
}

TEST_CASE("zero-cost label rows: written, read back, kept apart from trained rows") {
  const space::Space space = space::Space::Load(testing::BenchSpacePath());
  const auto nets = Networks(space, 2, 7);
  ProxyRecipe base;
  base.batch = 64;
  const ProxyRecipe z = base.WithZeroCostLabel("zc-naswot-a0.1-b25");
  const std::string text = AccuracyHeader() + FormatAccuracyRow(Row(space, nets[0], 0, 85.0, z));
  const AccuracyData data = ParseAccuracyData(text, "z.csv", &space);
  REQUIRE(data.rows.size() == 1);
  CHECK(data.rows[0].recipe == z);
  // Trained and labelled rows never mix.
  ProxyRecipe trained;
  trained.epochs = 2;
  const AccuracyData mixed = ParseAccuracyData(
      text + FormatAccuracyRow(Row(space, nets[1], 0, 80.0, trained)), "mixed.csv", &space);
  CHECK_THROWS_WITH(RequireOneRecipe(mixed), Catch::Contains("mixed.csv:3"));
  // A labelled row claiming a training, or a trained row with no epochs, names line and column.
  std::string bad = FormatAccuracyRow(Row(space, nets[0], 0, 85.0, z));
  const std::string fields = ",64,64,sgd,";
  REQUIRE(bad.find(fields) != std::string::npos);
  bad.replace(bad.find(fields), fields.size(), ",64,5000,sgd,");
  CHECK_THROWS_WITH(ParseAccuracyData(AccuracyHeader() + bad, "bad.csv", &space),
                    Catch::Contains("bad.csv:2") && Catch::Contains("'label'"));
  std::string bad_label = FormatAccuracyRow(Row(space, nets[0], 0, 85.0, z));
  bad_label.replace(bad_label.find("zc-naswot"), 9, "zc-jacovv");
  CHECK_THROWS_WITH(ParseAccuracyData(AccuracyHeader() + bad_label, "lab.csv", &space),
                    Catch::Contains("lab.csv:2") && Catch::Contains("unknown score"));
  // A file of the columns before `label` reads as trained and takes no labelled row.
  const std::string old_header = Join(LabellessAccuracyColumns(), ",") + "\n";
  const std::string old_row =
      FormatAccuracyRow(Row(space, nets[1], 0, 80.0, trained), LabellessAccuracyColumns());
  CHECK_FALSE(
      ParseAccuracyData(old_header + old_row, "old.csv", &space).rows[0].recipe.zero_cost());
}

TEST_CASE("calibrating a score against real labels: the fit, its tau, refused inputs") {
  const space::Space space = space::Space::Load(testing::BenchSpacePath());
  const auto nets = Networks(space, 40, 7);
  ProxyRecipe bench;
  bench.dataset = "cifar10";
  AccuracyData ref{"ref.csv", {}};
  std::map<std::string, ZeroCostEntry> table;
  for (size_t i = 0; i < nets.size(); ++i) {
    // accuracy = 100 - exp(7.6 - 0.008 naswot) exactly, two replicates around it.
    const double naswot = 600.0 + 5.0 * static_cast<double>(i);
    const double acc = 100.0 - std::exp(7.6 - 0.008 * naswot);
    ref.rows.push_back(Row(space, nets[i], 0, acc - 0.5, bench));
    ref.rows.push_back(Row(space, nets[i], 1, acc + 0.5, bench));
    ZeroCostEntry e;
    e.scores = {1e20 * static_cast<double>(i + 1), naswot, 50.0 - static_cast<double>(i), 3.0};
    e.recipe = "r16_w0.25_rd1";
    e.batch = 64;
    table[nets[i]] = e;
  }
  const ScoreCalibration c = CalibrateScore(ref, "test_accuracy", table, "zc.csv", "naswot", 200);
  CHECK(c.networks == 40);
  CHECK(c.label.scale == Approx(0.008));
  CHECK(c.label.offset == Approx(7.6));
  CHECK(c.residual_sd == Approx(0.0).margin(1e-3));  // the 6 digits the label carries
  CHECK(c.r2 == Approx(1.0));
  CHECK(c.tau.tau == Approx(1.0));
  CHECK(c.RecipeKey() == "r16_w0.25_rd1_b64_" + c.label.Text());
  CHECK(ProxyRecipe{}.WithKey(c.RecipeKey()).zero_cost());
  // synflow is fitted on its log10.
  const ScoreCalibration s = CalibrateScore(ref, "test_accuracy", table, "zc.csv", "synflow", 200);
  CHECK(s.score_max == Approx(std::log10(40e20)));
  // A score that ranks backwards, one that does not vary, too few networks, an unknown score.
  CHECK_THROWS_WITH(CalibrateScore(ref, "", table, "zc.csv", "grad_norm"),
                    Catch::Contains("ranks backwards"));
  CHECK_THROWS_WITH(CalibrateScore(ref, "", table, "zc.csv", "snip"),
                    Catch::Contains("the same on every network"));
  CHECK_THROWS_WITH(CalibrateScore(ref, "", table, "zc.csv", "jacov"),
                    Catch::Contains("unknown zero-cost score"));
  std::map<std::string, ZeroCostEntry> few(table.begin(), std::next(table.begin(), 5));
  CHECK_THROWS_WITH(CalibrateScore(ref, "", few, "few.csv", "naswot"),
                    Catch::Contains("few.csv: 5 networks"));
  // One calibration per setting.
  table.begin()->second.batch = 32;
  CHECK_THROWS_WITH(CalibrateScore(ref, "", table, "zc.csv", "naswot"),
                    Catch::Contains("one calibration per setting"));
  table.begin()->second.recipe.clear();
  CHECK_THROWS_WITH(CalibrateScore(ref, "", table, "zc.csv", "naswot"),
                    Catch::Contains("no recipe and batch columns"));
}

}  // namespace
}  // namespace dcnas::proxy
