// Strict reading of dcnas's YAML data files (accelerators, stacks, calibrations, search spaces,
// the CPU table): `extends:` inheritance, dotted-path overrides (`--set a.b=value`) applied to the
// YAML tree before it is parsed into a struct (so every field is overridable), and the one reader
// that names the file, line and key path of every bad, missing or unknown key.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <initializer_list>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/override.h"

namespace dcnas {

// Parses YAML text strictly: one document only, no duplicate keys in a map (yaml-cpp would keep
// the first silently), no tags beyond YAML's own, at most 64 levels of nesting. Throws InputError
// naming `file` and the line.
YAML::Node ParseYamlStrict(const std::string& text, const std::string& file);

// Reads a YAML file (at most 64 MiB) with ParseYamlStrict (throws InputError naming the file on a
// syntax error, with line).
YAML::Node LoadYamlFile(const std::string& path);

// Resolves `extends: NAME` chains: NAME is looked up as `dir/NAME.yaml`; the child's keys are
// merged over the parent's recursively (maps merge, scalars and sequences replace). Detects
// cycles. The returned tree no longer has an `extends` key; `chain` gets the names in order
// (most derived first).
YAML::Node ResolveExtends(const YAML::Node& node, const std::string& file, const std::string& dir,
                          std::vector<std::string>* chain);

// Adds each (key, value) to `map` where the map lacks the key; does nothing if `map` is not a
// map. Loaders call it for a file's optional keys, with the defaults their parser uses, before
// ApplyOverrides, so that `--set` reaches a key the file leaves out while a misspelt key is
// still refused.
void AddMissingKeys(YAML::Node map,
                    std::initializer_list<std::pair<const char*, std::string>> defaults);

// Applies overrides to the tree. The path must name an existing key (so typos are caught), and
// the new value replaces a scalar; throws InputError naming the override and the closest keys.
void ApplyOverrides(YAML::Node& root, const std::vector<Override>& overrides,
                    const std::string& file);

// Strict typed reading of one YAML value at a key path: a map's value (ConfigReader reads its
// keys through it) or an element of a list. Errors read "FILE:LINE: key 'PATH': MESSAGE", LINE
// being the value's line (left out where it is unknown: in trees merged by `extends:` or changed
// by --set, which hold copies of the file's nodes, and at the very start of a file).
class ConfigValue {
 public:
  ConfigValue(YAML::Node node, std::string file, std::string path);

  // Numbers are checked against [min, max]; integers are written without a fraction or exponent.
  double Number(double min, double max) const;
  int64_t Integer(int64_t min, int64_t max) const;
  std::string String() const;
  bool Bool() const;  // true/yes/on or false/no/off

  const YAML::Node& node() const { return node_; }
  const std::string& file() const { return file_; }
  const std::string& path() const { return path_; }
  [[noreturn]] void Fail(const std::string& message) const;

 private:
  YAML::Node node_;
  std::string file_;
  std::string path_;
};

// Strict typed reader over one YAML map. Every accessor records the key it read; Finish() throws
// for keys that were never read (unknown keys, with a suggestion). Errors name the file, the line
// and the key path: "FILE:LINE: key 'a.b': MESSAGE" (ConfigValue), "FILE:LINE: unknown key 'a.c'".
class ConfigReader {
 public:
  ConfigReader(YAML::Node node, std::string file, std::string path);

  bool Has(const std::string& key) const;
  // Required values. Numbers are checked against [min, max].
  double Number(const std::string& key, double min, double max);
  int64_t Integer(const std::string& key, int64_t min, int64_t max);
  std::string String(const std::string& key);
  bool Bool(const std::string& key);
  // Optional values with a default.
  double NumberOr(const std::string& key, double fallback, double min, double max);
  int64_t IntegerOr(const std::string& key, int64_t fallback, int64_t min, int64_t max);
  std::string StringOr(const std::string& key, const std::string& fallback);
  bool BoolOr(const std::string& key, bool fallback);
  // A required value of any kind, to read with ConfigValue's accessors or walk as a node.
  ConfigValue Value(const std::string& key);
  // The node of a key, marked as read; undefined when the map lacks the key.
  YAML::Node Raw(const std::string& key);
  // A list of strings (must be a sequence; may be empty only if allow_empty).
  std::vector<std::string> StringList(const std::string& key, bool allow_empty);
  // A nested map, and a sequence of maps (non-empty).
  ConfigReader Map(const std::string& key);
  std::vector<ConfigReader> MapList(const std::string& key);
  // Keys of this map (for maps whose keys are data, e.g. dtype -> rate).
  std::vector<std::string> Keys() const;
  // Marks a key as read without reading it.
  void Skip(const std::string& key);

  // One word of a fixed set, read as the value it stands for (an enum). Any other word fails
  // with "expected a, b (meaning) or c, got 'x'", each option's meaning in brackets if it has one.
  template <class T>
  struct Option {
    std::string_view word;
    T value;
    std::string_view meaning = {};
  };
  template <class T>
  T OneOf(const std::string& key, std::initializer_list<Option<T>> options) {
    return Pick(key, String(key), options);
  }
  template <class T>
  T OneOfOr(const std::string& key, const std::string& fallback,
            std::initializer_list<Option<T>> options) {
    return Pick(key, StringOr(key, fallback), options);
  }
  // The same for a word kept as text.
  std::string OneOfWords(const std::string& key, std::initializer_list<std::string_view> words);

  // Throws InputError if any key was not read.
  void Finish() const;

  const std::string& file() const { return file_; }
  std::string KeyPath(const std::string& key) const;
  // Fails at the key's value (its line; the map's where the key is absent); key "" names the map.
  [[noreturn]] void Fail(const std::string& key, const std::string& message) const;

 private:
  YAML::Node Get(const std::string& key);
  template <class T>
  T Pick(const std::string& key, const std::string& got,
         std::initializer_list<Option<T>> options) const {
    std::vector<std::string> expected;
    for (const Option<T>& o : options) {
      if (o.word == got) return o.value;
      expected.push_back(o.meaning.empty()
                             ? std::string(o.word)
                             : std::string(o.word) + " (" + std::string(o.meaning) + ")");
    }
    FailExpected(key, expected, got);
  }
  [[noreturn]] void FailExpected(const std::string& key, const std::vector<std::string>& expected,
                                 const std::string& got) const;

  YAML::Node node_;
  std::string file_;
  std::string path_;
  std::set<std::string> read_;
};

// FNV-1a style mixing used for fingerprints and cache keys.
inline uint64_t HashMix(uint64_t h, uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  return h * 0x100000001b3ULL;
}
uint64_t HashDouble(uint64_t h, double v);
uint64_t HashString(uint64_t h, const std::string& s);

}  // namespace dcnas
