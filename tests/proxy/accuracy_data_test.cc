#include "proxy/accuracy_data.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "common/errors.h"
#include "common/file_io.h"
#include "common/text.h"

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

TEST_CASE(
    "replicate statistics use every replicate: taus over all pairs, intra-class correlation") {
  const space::Space space = space::Space::Load(SpacePath());
  AccuracyData a{"three.csv", {}};
  for (int i = 0; i < 5; ++i) {
    for (int rep = 0; rep < 3; ++rep) {
      AccuracyRow r = MakeRow(space, 200 + i, rep, 80.0 + i);
      // Replicate 2 swaps the first two architectures: pairs (0,2) and (1,2) have one
      // discordant pair of 10, pair (0,1) none.
      if (rep == 2 && i < 2) r.test_accuracy = 80.0 + (1 - i) + 0.1;
      r.val_accuracy = r.test_accuracy;
      a.rows.push_back(r);
    }
  }
  const ReplicateStats s = ComputeReplicateStats(a);
  CHECK(s.architectures == 5);
  CHECK(s.max_replicates == 3);
  CHECK(s.replicate_pairs == 3);
  CHECK(s.test_tau == Approx((1.0 + 0.8 + 0.8) / 3.0));
  CHECK(s.val_tau == Approx(s.test_tau));
  CHECK(s.test_icc > 0.9);
  CHECK(s.test_icc < 1.0);
  // ICC(1) by hand: groups {1, 2} and {3, 4}: MSB 4, MSW 0.5, n0 2 -> 3.5 / 4.5.
  CHECK(IntraClassCorrelation({{1.0, 2.0}, {3.0, 4.0}}) == Approx(3.5 / 4.5));
  CHECK(IntraClassCorrelation({{1.0, 1.0}, {2.0, 2.0}, {3.0}}) == Approx(1.0));
  CHECK(std::isnan(IntraClassCorrelation({{1.0, 2.0}})));
  // Without validation accuracies (a benchmark's test accuracies only): NaN, not an error.
  for (AccuracyRow& r : a.rows) r.val_accuracy = std::nan("");
  const ReplicateStats t = ComputeReplicateStats(a);
  CHECK(std::isnan(t.val_tau));
  CHECK(std::isnan(t.val_icc));
  CHECK(t.test_tau == Approx(s.test_tau));
}

TEST_CASE("the recipe's dataset: default keys unchanged, other datasets add a part") {
  CHECK(ProxyRecipe{}.Key() == "r32_w0.25_rd1_e3_n10000_b128_sgd_lr0");
  CHECK(ProxyRecipe{}.dataset == "fashion-mnist");
  ProxyRecipe c;
  c.dataset = "cifar10";
  c.epochs = 50;
  CHECK(c.Key() == "r32_w0.25_rd1_e50_n10000_b128_sgd_lr0_data-cifar10");
  CHECK(ProxyRecipe{}.WithKey(c.Key()) == c);
  CHECK(ProxyRecipe{}.WithKey("e2_data-cifar100").dataset == "cifar100");
  CHECK_THROWS_WITH(
      ProxyRecipe{}.WithKey("data-imagenet9"),
      Catch::Contains("'data-imagenet9'") && Catch::Contains("fashion-mnist, cifar10"));
  CHECK(ProxyRecipe::Unrecorded().Key() == "unrecorded");
  CHECK_FALSE(ProxyRecipe::Unrecorded().recorded());
  CHECK_THROWS_WITH(ProxyRecipe{}.WithKey("unrecorded"), Catch::Contains("recorded no recipe"));
  CHECK(FindDataset("cifar10").in_channels == 3);
  CHECK_THROWS_WITH(FindDataset("mnist"), Catch::Contains("unknown dataset 'mnist'"));
  // The trained network of another dataset takes its channels and classes.
  const space::Space space = space::Space::Load(SpacePath());
  CHECK(RecipeProxy(space, c).in_channels == 3);
  CHECK(RecipeProxy(space, ProxyRecipe{}).in_channels == space.proxy().in_channels);
  ProxyRecipe c100 = c;
  c100.dataset = "cifar100";
  CHECK(RecipeProxy(space, c100).num_classes == 100);
}

TEST_CASE("dataset and source columns round trip; datasets never mix") {
  const space::Space space = space::Space::Load(SpacePath());
  TempFile f;
  AccuracyRow r = MakeRow(space, 1, 2, 91.5);
  r.recipe.dataset = "cifar10";
  r.source = "nas-bench-macro:abc123";
  r.val_accuracy = std::nan("");
  r.train_time_s = std::nan("");
  const AccuracyRow plain_fmnist = MakeRow(space, 2, 0, 70.0);
  WriteFileAtomic(f.path,
                  AccuracyHeader() + FormatAccuracyRow(r) + FormatAccuracyRow(plain_fmnist));
  const AccuracyData d = ReadAccuracyData(f.path, &space);
  REQUIRE(d.rows.size() == 2);
  CHECK(d.rows[0].recipe == r.recipe);
  CHECK(d.rows[0].source == "nas-bench-macro:abc123");
  CHECK(std::isnan(d.rows[0].val_accuracy));
  CHECK(d.rows[0].test_accuracy == 91.5);
  CHECK(std::isnan(d.rows[0].train_time_s));
  CHECK(d.rows[1].source == "trained");
  CHECK_THROWS_WITH(RequireOneRecipe(d),
                    Catch::Contains(":3: trained with recipe") && Catch::Contains("data-cifar10"));
  // The label: val_accuracy only when every row has one.
  CHECK(ResolveTarget(d) == "test_accuracy");
  CHECK_THROWS_WITH(ResolveTarget(d, "val_accuracy"),
                    Catch::Contains(f.path + ":2: no val_accuracy"));
  CHECK(ResolveTarget(AccuracyData{"x.csv", {plain_fmnist}}) == "val_accuracy");
  // A row needs one accuracy; an unknown dataset or column is named.
  std::string text = AccuracyHeader() + FormatAccuracyRow(r);
  const std::string both = text.replace(text.find(",,91.5,"), 7, ",,,");
  WriteFileAtomic(f.path, both);
  RequireError(f.path, &space, ":2: columns 'val_accuracy' and 'test_accuracy' both empty");
  std::string unknown = AccuracyHeader() + FormatAccuracyRow(r);
  unknown.replace(unknown.find(",cifar10,"), 9, ",cifar11,");
  WriteFileAtomic(f.path, unknown);
  RequireError(f.path, &space, ":2: column 'dataset': unknown dataset 'cifar11'");
  WriteFileAtomic(f.path, "note," + AccuracyHeader() + "x," + FormatAccuracyRow(r));
  RequireError(f.path, &space, ":1: unknown column 'note'");
}

TEST_CASE("files without dataset and source read as fashion-mnist and trained, and stay so") {
  const space::Space space = space::Space::Load(SpacePath());
  TempFile f;
  const std::string legacy_header = Join(LegacyAccuracyColumns(), ",") + "\n";
  WriteFileAtomic(f.path, legacy_header + FormatAccuracyRow(MakeRow(space, 1, 0, 80.0),
                                                            LegacyAccuracyColumns()));
  const AccuracyData d = ReadAccuracyData(f.path, &space);
  REQUIRE(d.rows.size() == 1);
  CHECK(d.rows[0].recipe == ProxyRecipe{});
  CHECK(d.rows[0].source == "trained");
  {
    AccuracyAppender app(f.path);  // appends in the file's own columns
    app.Append(MakeRow(space, 2, 0, 81.0));
    AccuracyRow other = MakeRow(space, 3, 0, 82.0);
    other.recipe.dataset = "cifar10";
    CHECK_THROWS_WITH(app.Append(other), Catch::Contains("without the dataset and source"));
  }
  const std::string text = ReadFile(f.path);
  CHECK(text.substr(0, legacy_header.size()) == legacy_header);
  CHECK(ReadAccuracyData(f.path, &space).rows.size() == 2);
}

TEST_CASE("the plain form encoding,accuracy: one row per network or per replicate") {
  const space::Space space = space::Space::Load(SpacePath());
  TempFile f;
  const std::string a = MakeRow(space, 1, 0, 0).encoding, b = MakeRow(space, 2, 0, 0).encoding;
  WriteFileAtomic(f.path, "encoding,accuracy\n" + a + ",90.5\n" + b + ",88\n" + a + ",91.5\n");
  const AccuracyData d = ReadAccuracyData(f.path, &space);
  REQUIRE(d.rows.size() == 3);
  CHECK(d.rows[0].encoding == a);
  CHECK(d.rows[2].replicate == 1);  // the second row of `a`
  CHECK(d.rows[1].replicate == 0);
  CHECK(d.rows[0].test_accuracy == 90.5);
  CHECK(std::isnan(d.rows[0].val_accuracy));
  CHECK(d.rows[0].recipe == ProxyRecipe::Unrecorded());
  CHECK(d.rows[0].source == "plain");
  CHECK(d.rows[0].fingerprint == space.fingerprint());
  CHECK(ResolveTarget(d) == "test_accuracy");
  CHECK(ComputeReplicateStats(d).architectures == 1);
  // Columns in either order; a space canonicalises, without one the text stays as written.
  WriteFileAtomic(f.path, "accuracy,encoding\n77," + b + "\n");
  CHECK(ReadAccuracyData(f.path, nullptr).rows.at(0).encoding == b);
  // A plain file and a file of a recorded recipe do not mix.
  const AccuracyData full{"full.csv", {MakeRow(space, 3, 0, 80.0)}};
  CHECK_THROWS_WITH(MergeAccuracyData({full, d}), Catch::Contains("recipe unrecorded"));
  // Bad rows name the file, line and value.
  WriteFileAtomic(f.path, "encoding,accuracy\n" + a + ",nan\n");
  RequireError(f.path, &space, ":2: column 'accuracy': value nan out of range");
  WriteFileAtomic(f.path, "encoding,accuracy\n" + a + ",101\n");
  RequireError(f.path, &space, ":2: column 'accuracy'");
  WriteFileAtomic(f.path, "encoding,accuracy\n" + a + ",90,1\n");
  RequireError(f.path, &space, ":2: 3 fields");
  WriteFileAtomic(f.path, "encoding,accuracy\n9_9,90\n");
  RequireError(f.path, &space, ":2: column 'encoding'");
  WriteFileAtomic(f.path, "encoding,accuracy,extra\n" + a + ",90,1\n");
  RequireError(f.path, &space, "missing column 'space'");
}

}  // namespace
}  // namespace dcnas::proxy
