#include "common/config_tree.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <optional>
#include <set>
#include <sstream>
#include <string_view>

#include <yaml-cpp/eventhandler.h>

#include "common/errors.h"
#include "common/file_io.h"
#include "common/text.h"

namespace dcnas {
namespace {

// An array index of a --set path: decimal digits, short enough for std::stoul.
bool IsIndex(const std::string& s) {
  if (s.empty() || s.size() > 9) return false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

std::vector<std::string> MapKeys(const YAML::Node& node) {
  std::vector<std::string> keys;
  if (!node.IsMap()) return keys;
  for (const auto& kv : node) keys.push_back(kv.first.as<std::string>());
  return keys;
}

YAML::Node Merge(const YAML::Node& parent, const YAML::Node& child) {
  if (!parent.IsMap() || !child.IsMap()) return YAML::Clone(child);
  YAML::Node out = YAML::Clone(parent);
  for (const auto& kv : child) {
    const auto key = kv.first.as<std::string>();
    if (out[key] && out[key].IsMap() && kv.second.IsMap()) {
      out[key] = Merge(out[key], kv.second);
    } else {
      out[key] = YAML::Clone(kv.second);
    }
  }
  return out;
}

YAML::Node ResolveChain(const YAML::Node& node, const std::string& file, const std::string& dir,
                        std::vector<std::string>* chain, std::set<std::string>& seen) {
  if (!node.IsMap()) throw InputError(file + ": expected a YAML map at the top level");
  if (!node["extends"]) return YAML::Clone(node);
  const YAML::Node ext = node["extends"];
  if (!ext.IsScalar()) throw InputError(file + ": key 'extends' must be a name");
  const auto parent_name = ext.as<std::string>();
  if (parent_name.empty() || parent_name.size() > 128 ||
      parent_name.find_first_not_of(
          "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") !=
          std::string::npos ||
      parent_name[0] == '.') {
    throw InputError(file + ": key 'extends': '" + parent_name.substr(0, 64) +
                     "' is not a file name in " + dir);
  }
  const std::string parent_file = dir + "/" + parent_name + ".yaml";
  if (!seen.insert(parent_name).second) {
    throw InputError(file + ": key 'extends': cycle through '" + parent_name + "'");
  }
  if (std::error_code ec; !std::filesystem::exists(parent_file, ec)) {
    std::vector<std::string> names;
    if (std::filesystem::is_directory(dir)) {
      for (const auto& e : std::filesystem::directory_iterator(dir)) {
        if (e.path().extension() == ".yaml") names.push_back(e.path().stem().string());
      }
    }
    throw InputError(file + ": key 'extends': unknown name '" + parent_name + "'" +
                     DidYouMean(parent_name, names));
  }
  if (chain != nullptr) chain->push_back(parent_name);
  YAML::Node parent = ResolveChain(LoadYamlFile(parent_file), parent_file, dir, chain, seen);
  YAML::Node child = YAML::Clone(node);
  child.remove("extends");
  // The parent's identity keys are not inherited.
  parent.remove("name");
  parent.remove("description");
  parent.remove("hypothetical");
  return Merge(parent, child);
}

}  // namespace

namespace {

constexpr int kMaxYamlDepth = 64;

std::string At(const std::string& file, const YAML::Node& node) {
  return file + ":" + std::to_string(node.Mark().line + 1);
}

// Nodes visited per document: aliases share nodes, so a few lines of anchors can stand for
// billions of them ("billion laughs"); no dcnas file comes near this.
constexpr size_t kMaxYamlNodes = 1000000;

// What yaml-cpp must not see: characters outside YAML's printable set (C0 controls but tab, LF
// and CR, and DEL; yaml-cpp 0.7 loops forever on some of them), and flow collections ('[', '{')
// nested deeper than the depth limit (its parser recurses per level, so depth must be bounded
// before parsing, not after). Quoted scalars and comments are skipped.
void PrescanYaml(const std::string& text, const std::string& file) {
  int line = 1;
  int depth = 0;
  char quote = 0;
  bool comment = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f) {
      char code[8];
      std::snprintf(code, sizeof code, "0x%02x", c);
      throw InputError(file + ":" + std::to_string(line) + ": control character " + code +
                       " (YAML allows tab, line feed and carriage return only)");
    }
    if (c == '\n') {
      ++line;
      comment = false;
      continue;
    }
    if (comment) continue;
    if (quote != 0) {
      if (quote == '"' && c == '\\') {
        ++i;
      } else if (c == static_cast<unsigned char>(quote)) {
        quote = 0;
      }
      continue;
    }
    if (c == '#' && (i == 0 || text[i - 1] == ' ' || text[i - 1] == '\t' || text[i - 1] == '\n')) {
      comment = true;
    } else if ((c == '"' || c == '\'') &&
               (i == 0 ||
                std::string_view(" \t\n[{,:-?").find(text[i - 1]) != std::string_view::npos)) {
      quote = static_cast<char>(c);
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxYamlDepth) {
        throw InputError(file + ":" + std::to_string(line) + ": nested deeper than " +
                         std::to_string(kMaxYamlDepth) + " levels");
      }
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
}

// Parser events, ignored: the event pass only counts documents.
class CountingHandler : public YAML::EventHandler {
 public:
  void OnDocumentStart(const YAML::Mark& /*mark*/) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& /*mark*/, YAML::anchor_t /*anchor*/) override {}
  void OnAlias(const YAML::Mark& /*mark*/, YAML::anchor_t /*anchor*/) override {}
  void OnScalar(const YAML::Mark& /*mark*/, const std::string& /*tag*/, YAML::anchor_t /*anchor*/,
                const std::string& /*value*/) override {}
  void OnSequenceStart(const YAML::Mark& /*mark*/, const std::string& /*tag*/,
                       YAML::anchor_t /*anchor*/, YAML::EmitterStyle::value /*style*/) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark& /*mark*/, const std::string& /*tag*/, YAML::anchor_t /*anchor*/,
                  YAML::EmitterStyle::value /*style*/) override {}
  void OnMapEnd() override {}
};

void CheckYamlNode(const YAML::Node& node, const std::string& file, int depth, size_t& nodes) {
  if (++nodes > kMaxYamlNodes) {
    throw InputError(file + ": more than " + std::to_string(kMaxYamlNodes) +
                     " YAML nodes (aliases repeating anchors?)");
  }
  if (depth > kMaxYamlDepth) {
    throw InputError(At(file, node) + ": nested deeper than " + std::to_string(kMaxYamlDepth) +
                     " levels");
  }
  const std::string& tag = node.Tag();
  if (!tag.empty() && tag != "?" && tag != "!" && tag.rfind("tag:yaml.org,2002:", 0) != 0) {
    throw InputError(At(file, node) + ": unsupported YAML tag '" + tag + "'");
  }
  if (node.IsMap()) {
    std::set<std::string> keys;
    for (const auto& kv : node) {
      if (!kv.first.IsScalar()) {
        throw InputError(At(file, kv.first) + ": a map key must be a plain name, not a " +
                         (kv.first.IsMap()        ? "map"
                          : kv.first.IsSequence() ? "list"
                                                  : "null"));
      }
      if (!keys.insert(kv.first.Scalar()).second) {
        throw InputError(At(file, kv.first) + ": duplicate key '" + kv.first.Scalar() + "'");
      }
      CheckYamlNode(kv.first, file, depth + 1, nodes);
      CheckYamlNode(kv.second, file, depth + 1, nodes);
    }
  } else if (node.IsSequence()) {
    for (const auto& item : node) CheckYamlNode(item, file, depth + 1, nodes);
  }
}

}  // namespace

YAML::Node ParseYamlStrict(const std::string& text, const std::string& file) {
  PrescanYaml(text, file);
  YAML::Node doc;
  try {
    // Documents are counted with an event pass that stops at the second: YAML::LoadAll would
    // loop forever on some malformed streams (a lone ',': yaml-cpp 0.7 issue #1040).
    std::istringstream in(text);
    YAML::Parser parser(in);
    CountingHandler counter;
    int documents = 0;
    while (documents < 2 && parser.HandleNextDocument(counter)) ++documents;
    if (documents == 0) return {};
    if (documents > 1) {
      throw InputError(file +
                       ": more than one YAML document (one expected: remove '---' "
                       "separators; a stray ',' outside brackets also reads so)");
    }
    doc = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw InputError(file + ":" + std::to_string(e.mark.line + 1) +
                     ": YAML syntax error: " + e.msg);
  }
  size_t nodes = 0;
  CheckYamlNode(doc, file, 0, nodes);
  return doc;
}

YAML::Node LoadYamlFile(const std::string& path) {
  if (std::error_code ec; !std::filesystem::exists(path, ec)) {
    throw InputError(path.substr(0, 256) + ": no such file");
  }
  return ParseYamlStrict(ReadFile(path, size_t{64} << 20), path);
}

YAML::Node ResolveExtends(const YAML::Node& node, const std::string& file, const std::string& dir,
                          std::vector<std::string>* chain) {
  std::set<std::string> seen;
  return ResolveChain(node, file, dir, chain, seen);
}

void AddMissingKeys(YAML::Node map,
                    std::initializer_list<std::pair<const char*, std::string>> defaults) {
  if (!map.IsMap()) return;
  const YAML::Node& read = map;  // const lookups do not insert
  for (const auto& [key, value] : defaults) {
    if (!read[key]) map[key] = value;
  }
}

void ApplyOverrides(YAML::Node& root, const std::vector<Override>& overrides,
                    const std::string& file) {
  for (const Override& o : overrides) {
    const std::vector<std::string> parts = Split(o.path, '.');
    YAML::Node cur = root;
    std::string walked;
    for (size_t i = 0; i < parts.size(); ++i) {
      const std::string& p = parts[i];
      const std::string here = walked.empty() ? p : walked + "." + p;
      const YAML::Node& ccur = cur;
      if (cur.IsSequence()) {
        if (!IsIndex(p) || std::stoul(p) >= cur.size()) {
          throw InputError("--set " + o.path + ": '" + here + "' in " + file + " is a list of " +
                           std::to_string(cur.size()) + " entries; use an index 0.." +
                           std::to_string(cur.size()) + "-1");
        }
      } else if (!cur.IsMap() || !ccur[p]) {
        throw InputError("--set " + o.path + ": no key '" + here + "' in " + file +
                         DidYouMean(p, MapKeys(cur)));
      }
      YAML::Node next = cur.IsSequence() ? cur[std::stoul(p)] : cur[p];
      if (i + 1 == parts.size()) {
        if (!next.IsScalar()) {
          throw InputError("--set " + o.path + ": '" + here + "' in " + file +
                           " is not a single value");
        }
        next = o.value;
      }
      cur.reset(next);
      walked = here;
    }
  }
}

namespace {

// "FILE:LINE" of a node, or "FILE" where its position is unknown: a node made in code has none,
// and a copy made by YAML::Clone (extends, --set) has yaml-cpp's default position, offset 0, which
// only the first node of a parsed text shares.
std::string Where(const std::string& file, const YAML::Node& node) {
  if (!node.IsDefined() || node.Mark().line < 0 || node.Mark().pos == 0) return file;
  return At(file, node);
}

// A bound of a range as written: "16", "0.5", "1e+09".
std::string Bound(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

}  // namespace

ConfigValue::ConfigValue(YAML::Node node, std::string file, std::string path)
    : node_(std::move(node)), file_(std::move(file)), path_(std::move(path)) {}

void ConfigValue::Fail(const std::string& message) const {
  throw InputError(Where(file_, node_) + ": key '" + path_ + "': " + message);
}

namespace {

// The number the whole of `text` reads as with `parse` (std::stod or std::stoll, given the
// text and where to store the characters used), if it reads as one.
template <class T, class Parse>
std::optional<T> Whole(const std::string& text, Parse parse) {
  try {
    size_t used = 0;
    const T v = parse(text, &used);
    if (used == text.size()) return v;
  } catch (const std::exception&) {
  }
  return std::nullopt;
}

}  // namespace

double ConfigValue::Number(double min, double max) const {
  if (!node_.IsScalar()) Fail("expected a number");
  const std::string text = node_.Scalar();
  const std::optional<double> v =
      Whole<double>(text, [](const std::string& t, size_t* used) { return std::stod(t, used); });
  if (!v) Fail("expected a number, got '" + text + "'");
  if (!std::isfinite(*v) || *v < min || *v > max) {
    Fail("value " + text + " out of range [" + Bound(min) + ", " + Bound(max) + "]");
  }
  return *v;
}

int64_t ConfigValue::Integer(int64_t min, int64_t max) const {
  if (!node_.IsScalar()) Fail("expected an integer");
  const std::string text = node_.Scalar();
  const std::optional<int64_t> v =
      Whole<int64_t>(text, [](const std::string& t, size_t* used) { return std::stoll(t, used); });
  if (!v) Fail("expected an integer, got '" + text + "'");
  if (*v < min || *v > max) {
    Fail("value " + text + " out of range [" + std::to_string(min) + ", " + std::to_string(max) +
         "]");
  }
  return *v;
}

std::string ConfigValue::String() const {
  if (!node_.IsScalar()) Fail("expected a string");
  if (!IsValidUtf8(node_.Scalar())) {
    Fail("not UTF-8: '" + BoundedMessage(node_.Scalar(), 64) + "'");
  }
  return node_.Scalar();
}

bool ConfigValue::Bool() const {
  if (!node_.IsScalar()) Fail("expected true or false");
  const std::string& s = node_.Scalar();
  if (s == "true" || s == "yes" || s == "on") return true;
  if (s == "false" || s == "no" || s == "off") return false;
  Fail("expected true or false, got '" + s + "'");
}

ConfigReader::ConfigReader(YAML::Node node, std::string file, std::string path)
    : node_(std::move(node)), file_(std::move(file)), path_(std::move(path)) {
  if (!node_.IsMap()) {
    throw InputError(Where(file_, node_) + ": key '" + (path_.empty() ? "<top>" : path_) +
                     "' must be a map of keys");
  }
}

std::string ConfigReader::KeyPath(const std::string& key) const {
  if (key.empty()) return path_;
  return path_.empty() ? key : path_ + "." + key;
}

void ConfigReader::Fail(const std::string& key, const std::string& message) const {
  const YAML::Node& map = node_;  // const lookups do not insert
  const YAML::Node value = key.empty() ? map : map[key];
  ConfigValue(value.IsDefined() ? value : map, file_, KeyPath(key)).Fail(message);
}

void ConfigReader::FailExpected(const std::string& key, const std::vector<std::string>& expected,
                                const std::string& got) const {
  std::string list;
  for (size_t i = 0; i < expected.size(); ++i) {
    if (i > 0) list += i + 1 == expected.size() ? " or " : ", ";
    list += expected[i];
  }
  Fail(key, "expected " + list + ", got '" + got + "'");
}

std::string ConfigReader::OneOfWords(const std::string& key,
                                     std::initializer_list<std::string_view> words) {
  std::string got = String(key);
  std::vector<std::string> expected;
  for (std::string_view w : words) {
    if (w == got) return got;
    expected.emplace_back(w);
  }
  FailExpected(key, expected, got);
}

bool ConfigReader::Has(const std::string& key) const { return static_cast<bool>(node_[key]); }

YAML::Node ConfigReader::Get(const std::string& key) {
  YAML::Node n = Raw(key);
  if (!n) Fail(key, "missing");
  return n;
}

YAML::Node ConfigReader::Raw(const std::string& key) {
  read_.insert(key);
  const YAML::Node& map = node_;
  return map[key];
}

ConfigValue ConfigReader::Value(const std::string& key) { return {Get(key), file_, KeyPath(key)}; }

void ConfigReader::Skip(const std::string& key) { read_.insert(key); }

double ConfigReader::Number(const std::string& key, double min, double max) {
  return Value(key).Number(min, max);
}

int64_t ConfigReader::Integer(const std::string& key, int64_t min, int64_t max) {
  return Value(key).Integer(min, max);
}

std::string ConfigReader::String(const std::string& key) { return Value(key).String(); }

bool ConfigReader::Bool(const std::string& key) { return Value(key).Bool(); }

double ConfigReader::NumberOr(const std::string& key, double fallback, double min, double max) {
  if (!Has(key)) {
    read_.insert(key);
    return fallback;
  }
  return Number(key, min, max);
}

int64_t ConfigReader::IntegerOr(const std::string& key, int64_t fallback, int64_t min,
                                int64_t max) {
  if (!Has(key)) {
    read_.insert(key);
    return fallback;
  }
  return Integer(key, min, max);
}

std::string ConfigReader::StringOr(const std::string& key, const std::string& fallback) {
  if (!Has(key)) {
    read_.insert(key);
    return fallback;
  }
  return String(key);
}

bool ConfigReader::BoolOr(const std::string& key, bool fallback) {
  if (!Has(key)) {
    read_.insert(key);
    return fallback;
  }
  return Bool(key);
}

std::vector<std::string> ConfigReader::StringList(const std::string& key, bool allow_empty) {
  const YAML::Node n = Get(key);
  if (!n.IsSequence()) Fail(key, "expected a list");
  if (n.size() == 0 && !allow_empty) Fail(key, "must not be empty");
  std::vector<std::string> out;
  for (size_t i = 0; i < n.size(); ++i) {
    out.push_back(ConfigValue(n[i], file_, KeyPath(key) + "." + std::to_string(i)).String());
  }
  return out;
}

ConfigReader ConfigReader::Map(const std::string& key) {
  YAML::Node n = Get(key);
  if (!n.IsMap()) Fail(key, "expected a map of keys");
  return {n, file_, KeyPath(key)};
}

std::vector<ConfigReader> ConfigReader::MapList(const std::string& key) {
  YAML::Node n = Get(key);
  if (!n.IsSequence()) Fail(key, "expected a list");
  if (n.size() == 0) Fail(key, "must not be empty");
  std::vector<ConfigReader> out;
  for (size_t i = 0; i < n.size(); ++i) {
    out.emplace_back(n[i], file_, KeyPath(key) + "." + std::to_string(i));
  }
  return out;
}

std::vector<std::string> ConfigReader::Keys() const { return MapKeys(node_); }

void ConfigReader::Finish() const {
  std::vector<std::string> known(read_.begin(), read_.end());
  for (const auto& kv : node_) {
    const auto key = kv.first.as<std::string>();
    if (read_.count(key) == 0) {
      throw InputError(Where(file_, kv.first) + ": unknown key '" + KeyPath(key) + "'" +
                       DidYouMean(key, known));
    }
  }
}

uint64_t HashDouble(uint64_t h, double v) {
  uint64_t bits = 0;
  std::memcpy(&bits, &v, sizeof(bits));
  return HashMix(h, bits);
}

uint64_t HashString(uint64_t h, const std::string& s) {
  for (unsigned char c : s) h = HashMix(h, c);
  return HashMix(h, s.size());
}

}  // namespace dcnas
