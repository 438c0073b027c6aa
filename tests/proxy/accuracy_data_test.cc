#include "proxy/accuracy_data.h"

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "common/errors.h"
#include "common/file_io.h"

namespace dcnas::proxy {
namespace {

namespace fs = std::filesystem;

std::string SpacePath() {
  const char* root = std::getenv("DCNAS_SOURCE_ROOT");
  return std::string(root ? root : ".") + "/data/search_spaces/dc-accelerator.yaml";
}

AccuracyRow MakeRow(const space::Space& space, uint64_t seed, int replicate, double acc) {
  std::mt19937_64 rng(seed);
  AccuracyRow r;
  r.space = space.name();
  r.fingerprint = space.fingerprint();
  r.encoding = space.ToText(space.Sample(rng));
  r.seed = seed;
  r.replicate = replicate;
  r.val_accuracy = acc + 0.5;
  r.test_accuracy = acc;
  r.params = 1000;
  r.flops = 2000;
  r.proxy_params = 100;
  r.train_time_s = 1.25;
  r.blocks = "r1_k3_s11_e1_i32_o16";
  return r;
}

struct TempFile {
  std::string path = (fs::temp_directory_path() / ("dcnas-acc-" + std::to_string(::getpid()) + "-" +
                                                   std::to_string(std::rand()) + ".csv"))
                         .string();
  ~TempFile() { fs::remove(path); }
};

void RequireError(const std::string& path, const space::Space* space, const std::string& fragment) {
  try {
    ReadAccuracyData(path, space);
    FAIL("accepted: " << fragment);
  } catch (const InputError& e) {
    INFO(e.what());
    CHECK(std::string(e.what()).find(fragment) != std::string::npos);
    CHECK(std::string(e.what()).find(path) != std::string::npos);
  }
}

TEST_CASE("accuracy rows round trip through the appender and the strict reader") {
  const space::Space space = space::Space::Load(SpacePath());
  TempFile f;
  {
    AccuracyAppender app(f.path);
    app.Append(MakeRow(space, 1, 0, 88.125));
    app.Append(MakeRow(space, 2, 0, 87.5));
  }
  {
    AccuracyAppender app(f.path);  // reopening appends after the header
    app.Append(MakeRow(space, 3, 0, 86.0));
  }
  const auto data = ReadAccuracyData(f.path, &space);
  REQUIRE(data.rows.size() == 3);
  CHECK(data.rows[0].test_accuracy == 88.125);
  CHECK(data.rows[0].encoding == MakeRow(space, 1, 0, 0).encoding);
  CHECK(data.rows[2].train_time_s == 1.25);
  CHECK(data.rows[0].JobKey() != data.rows[1].JobKey());
}

TEST_CASE("bad accuracy CSVs are refused naming file, line and column") {
  const space::Space space = space::Space::Load(SpacePath());
  TempFile f;
  const std::string good = AccuracyHeader() + FormatAccuracyRow(MakeRow(space, 1, 0, 88.0));
  WriteFileAtomic(f.path, "");
  RequireError(f.path, &space, "empty file");
  WriteFileAtomic(f.path, "space,encoding\nx,y\n");
  RequireError(f.path, &space, "missing column 'fingerprint'");
  std::string nan = good;
  nan.replace(nan.find(",88,"), 4, ",nan,");
  WriteFileAtomic(f.path, nan);
  RequireError(f.path, &space, ":2: column 'test_accuracy'");
  std::string foreign = good;
  foreign.replace(foreign.find(space.fingerprint()), 16, "0123456789abcdef");
  WriteFileAtomic(f.path, foreign);
  RequireError(f.path, &space, "encoding of another space");
  const space::Space mnas =
      space::Space::Load(SpacePath().replace(SpacePath().find("dc-accelerator"), 14, "mnasnet"));
  WriteFileAtomic(f.path, good);
  RequireError(f.path, &mnas, "another space");
  WriteFileAtomic(f.path, good + "dc-accelerator,1,2\n");
  RequireError(f.path, &space, ":3:");
}

TEST_CASE("a torn last row (a kill during a write) is cut by the appender, refused by the reader") {
  const space::Space space = space::Space::Load(SpacePath());
  TempFile f;
  const std::string good = AccuracyHeader() + FormatAccuracyRow(MakeRow(space, 1, 0, 88.0));
  const std::string torn = good + FormatAccuracyRow(MakeRow(space, 2, 0, 87.0)).substr(0, 40);
  WriteFileAtomic(f.path, torn);
  RequireError(f.path, &space, "incomplete last line");
  CHECK(ReadAccuracyData(f.path, &space, /*allow_torn_tail=*/true).rows.size() == 1);
  {
    AccuracyAppender app(f.path);
    app.Append(MakeRow(space, 3, 0, 86.0));
  }
  const auto data = ReadAccuracyData(f.path, &space);
  REQUIRE(data.rows.size() == 2);
  CHECK(data.rows[1].seed == 3);
  CHECK(ReadFile(f.path).substr(0, good.size()) == good);
  // A foreign file is never appended to.
  WriteFileAtomic(f.path, "model,latency\n");
  CHECK_THROWS_AS(AccuracyAppender(f.path), InputError);
  CHECK(ReadFile(f.path) == "model,latency\n");
}

TEST_CASE("accuracy data of one recipe merge; rows of another recipe are refused by line") {
  const space::Space space = space::Space::Load(SpacePath());
  AccuracyData a{"a.csv", {MakeRow(space, 1, 0, 60.0), MakeRow(space, 2, 0, 61.0)}};
  AccuracyData b{"b.csv", {MakeRow(space, 3, 0, 62.0)}};
  const AccuracyData merged = MergeAccuracyData({a, b});
  CHECK(merged.rows.size() == 3);
  CHECK(merged.file == "a.csv + b.csv");
  CHECK(RequireOneRecipe(merged) == ProxyRecipe{});
  b.rows[0].recipe.epochs = 8;
  CHECK_THROWS_WITH(MergeAccuracyData({a, b}),
                    Catch::Contains("b.csv: trained with recipe") && Catch::Contains("_e8_"));
  a.rows[1].recipe.resolution = 16;
  CHECK_THROWS_WITH(RequireOneRecipe(a), Catch::Contains("a.csv:3: trained with recipe r16"));
  CHECK_THROWS_WITH(RequireOneRecipe(AccuracyData{"e.csv", {}}), Catch::Contains("e.csv: no"));
}

TEST_CASE("recipe keys: Key() reads back, parts override, unknown parts are named") {
  ProxyRecipe r;
  r.resolution = 16;
  r.epochs = 8;
  r.train_images = 5000;
  r.optimizer = "adamw";
  r.learning_rate = 0.003;
  r.removed_downsamples = 2;
  r.width = 0.5;
  r.batch = 64;
  CHECK(ProxyRecipe{}.WithKey(r.Key()) == r);
  const ProxyRecipe p = ProxyRecipe{}.WithKey("e2_r24");
  CHECK(p.epochs == 2);
  CHECK(p.resolution == 24);
  CHECK(p.train_images == ProxyRecipe{}.train_images);
  CHECK_THROWS_WITH(ProxyRecipe{}.WithKey("r16_q3"), Catch::Contains("unknown part 'q3'"));
  CHECK_THROWS_WITH(ProxyRecipe{}.WithKey("rx"), Catch::Contains("'rx' is not a number"));
  // Values a training run cannot take are refused with the part named.
  CHECK_THROWS_WITH(ProxyRecipe{}.WithKey("r16_n5000_e0"),
                    Catch::Contains("'e0': the epochs must be a whole number in [1, 100000]"));
  CHECK_THROWS_WITH(ProxyRecipe{}.WithKey("e2.5"), Catch::Contains("'e2.5'"));
  CHECK_THROWS_WITH(ProxyRecipe{}.WithKey("n0"), Catch::Contains("training images"));
  CHECK_THROWS_WITH(ProxyRecipe{}.WithKey("b0"), Catch::Contains("the batch"));
  CHECK_THROWS_WITH(ProxyRecipe{}.WithKey("r0"), Catch::Contains("the resolution"));
  CHECK_THROWS_WITH(ProxyRecipe{}.WithKey("rd-1"), Catch::Contains("removed downsamples"));
  CHECK_THROWS_WITH(ProxyRecipe{}.WithKey("w0"), Catch::Contains("the width must be in (0, 100]"));
  CHECK_THROWS_WITH(ProxyRecipe{}.WithKey("lr-0.1"), Catch::Contains("must not be negative"));
  CHECK(ProxyRecipe{}.WithKey("rd0_e1_n1_b1_r8").epochs == 1);
}

TEST_CASE("a space's recipe: the recipe defaults over the space's proxy settings") {
  std::string yaml = ReadFile(SpacePath());
  const std::string proxy =
      "  resolution: 32\n  in_channels: 1\n  num_classes: 10\n"
      "  removed_downsamples: 1\n  width: 0.25\n";
  REQUIRE(yaml.find(proxy) != std::string::npos);
  yaml.replace(yaml.find(proxy), proxy.size(),
               "  resolution: 24\n  in_channels: 1\n  num_classes: 10\n"
               "  removed_downsamples: 2\n  width: 0.5\n");
  const space::Space space = space::Space::Parse(yaml, "proxy-24.yaml");
  const ProxyRecipe r = SpaceRecipe(space);
  CHECK(r.resolution == 24);
  CHECK(r.width == 0.5);
  CHECK(r.removed_downsamples == 2);
  ProxyRecipe rest = r;
  rest.resolution = ProxyRecipe{}.resolution;
  rest.width = ProxyRecipe{}.width;
  rest.removed_downsamples = ProxyRecipe{}.removed_downsamples;
  CHECK(rest == ProxyRecipe{});
  // RecipeProxy reads it back as the space's own proxy settings.
  CHECK(RecipeProxy(space, r).resolution == space.proxy().resolution);
  CHECK(RecipeProxy(space, r).width == space.proxy().width);
  CHECK(SpaceRecipe(space).WithKey("e2").epochs == 2);
  CHECK(SpaceRecipe(space).WithKey("e2").resolution == 24);
}

TEST_CASE("replicate statistics: seed-to-seed tau and agreement between proxies") {
  const space::Space space = space::Space::Load(SpacePath());
  AccuracyData a, b;
  for (int i = 0; i < 6; ++i) {
    AccuracyRow r0 = MakeRow(space, 100 + i, 0, 80.0 + i);
    AccuracyRow r1 = r0;
    r1.replicate = 1;
    r1.test_accuracy = 80.0 + i + (i == 0 ? 1.5 : 0.25);  // swaps the first pair only
    a.rows.push_back(r0);
    a.rows.push_back(r1);
    AccuracyRow l = r0;
    l.test_accuracy = 90.0 - i;  // reversed ranking
    b.rows.push_back(l);
  }
  const auto s = ComputeReplicateStats(a);
  CHECK(s.architectures == 6);
  // 15 pairs, one discordant: tau = (14 - 1) / 15.
  CHECK(s.test_tau == Approx(13.0 / 15.0));
  CHECK(s.mean_abs_diff_pp == Approx((1.5 + 5 * 0.25) / 6));
  const auto g = ComputeAgreement(a, b);
  CHECK(g.architectures == 6);
  CHECK(g.test_tau < -0.8);
}

}  // namespace
}  // namespace dcnas::proxy
