// The strict YAML reader: typed values, raw nodes, unknown keys, and errors that name the file,
// the line and the key path.
#include "common/config_tree.h"

#include <catch2/catch.hpp>

#include "common/errors.h"

namespace dcnas {
namespace {

using Catch::Matchers::Contains;

const char* kText = R"(name: demo
rate: 2.5
count: 7
flag: yes
nested:
  depth: 3
  words: [a, b]
items:
  - {k: 1}
  - {k: two}
)";

TEST_CASE("ConfigReader reads typed values and refuses unread keys") {
  const YAML::Node root = ParseYamlStrict(kText, "f.yaml");
  ConfigReader r(root, "f.yaml", "");
  CHECK(r.String("name") == "demo");
  CHECK(r.Number("rate", 0, 10) == 2.5);
  CHECK(r.Integer("count", 0, 10) == 7);
  CHECK(r.Bool("flag"));
  CHECK(r.IntegerOr("absent", 4, 0, 10) == 4);
  ConfigReader nested = r.Map("nested");
  CHECK(nested.Integer("depth", 0, 9) == 3);
  CHECK(nested.StringList("words", false) == std::vector<std::string>{"a", "b"});
  nested.Finish();
  CHECK_THROWS_WITH(r.Finish(), Contains("f.yaml:8: unknown key 'items'"));
  // A raw node counts as read.
  const YAML::Node items = r.Raw("items");
  REQUIRE(items.IsSequence());
  CHECK(items.size() == 2);
  CHECK_NOTHROW(r.Finish());
  CHECK_FALSE(r.Raw("nothing").IsDefined());
}

TEST_CASE("errors name the file, the value's line and the key path") {
  const YAML::Node root = ParseYamlStrict(kText, "f.yaml");
  ConfigReader r(root, "f.yaml", "");
  CHECK_THROWS_WITH(r.Integer("rate", 0, 10),
                    Contains("f.yaml:2: key 'rate': expected an integer"));
  CHECK_THROWS_WITH(r.Number("rate", 3, 4), Contains("f.yaml:2: key 'rate': value 2.5 out of "
                                                     "range [3, 4]"));
  // A missing key is named at its map (the top-level map opens the file: no line).
  CHECK_THROWS_WITH(r.String("missing"), Contains("f.yaml: key 'missing': missing"));
  ConfigReader nested = r.Map("nested");
  CHECK_THROWS_WITH(nested.Integer("depth", 4, 9),
                    Contains("f.yaml:6: key 'nested.depth': value 3 out of range [4, 9]"));
  CHECK_THROWS_WITH(nested.Fail("", "bad map"), Contains("f.yaml:6: key 'nested': bad map"));
  CHECK_THROWS_WITH(nested.String("absent"), Contains("f.yaml:6: key 'nested.absent': missing"));
  std::vector<ConfigReader> items = r.MapList("items");
  REQUIRE(items.size() == 2);
  CHECK(items[0].Integer("k", 0, 9) == 1);
  CHECK_THROWS_WITH(items[1].Integer("k", 0, 9),
                    Contains("f.yaml:10: key 'items.1.k': expected an integer, got 'two'"));
  CHECK_THROWS_WITH(ConfigReader(root["name"], "f.yaml", "name"),
                    Contains("f.yaml:1: key 'name' must be a map of keys"));
}

TEST_CASE("ConfigValue reads one value of a list at its own path") {
  const YAML::Node root = ParseYamlStrict("xs: [1, 2.5, x]\n", "g.yaml");
  ConfigReader r(root, "g.yaml", "");
  const ConfigValue xs = r.Value("xs");
  REQUIRE(xs.node().IsSequence());
  CHECK(ConfigValue(xs.node()[0], xs.file(), xs.path() + ".0").Integer(0, 5) == 1);
  CHECK(ConfigValue(xs.node()[1], xs.file(), xs.path() + ".1").Number(0, 5) == 2.5);
  CHECK_THROWS_WITH(ConfigValue(xs.node()[2], xs.file(), xs.path() + ".2").Bool(),
                    Contains("g.yaml:1: key 'xs.2': expected true or false, got 'x'"));
  CHECK_THROWS_AS(xs.String(), InputError);
  // A node without a position (set by code, e.g. a default added for --set) leaves the line out.
  YAML::Node made;
  made["v"] = "abc";
  CHECK_THROWS_WITH(ConfigReader(made, "h.yaml", "").Integer("v", 0, 1),
                    Contains("h.yaml: key 'v': expected an integer, got 'abc'"));
}

TEST_CASE("copied trees (extends, --set) name no line: the copies' positions are not the file's") {
  const YAML::Node root = ParseYamlStrict("a: 1\nb:\n  c: x\n", "g.yaml");
  ConfigReader parsed(root, "g.yaml", "");
  CHECK_THROWS_WITH(parsed.Map("b").Integer("c", 0, 1), Contains("g.yaml:3: key 'b.c'"));
  ConfigReader copied(YAML::Clone(root), "g.yaml", "");
  CHECK_THROWS_WITH(copied.Map("b").Integer("c", 0, 1),
                    Contains("g.yaml: key 'b.c': expected an integer, got 'x'"));
  (void)copied.Integer("a", 0, 1);
  (void)copied.Raw("b");
  CHECK_NOTHROW(copied.Finish());
}

}  // namespace
}  // namespace dcnas
