#include "proxy/accuracy_data.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <map>
#include <optional>
#include <random>
#include <regex>
#include <set>
#include <sstream>

#include "common/errors.h"
#include "common/file_io.h"
#include "common/rank_correlation.h"
#include "common/table.h"
#include "common/text.h"

namespace dcnas::proxy {
namespace {

// Datasets a recipe can name: channels and classes of the images and labels, native size, the
// training set. Fashion-MNIST: Xiao et al. 2017 (arXiv 1708.07747), 60,000 training images of
// 28 x 28 x 1, 10 classes; CIFAR-10 and CIFAR-100: Krizhevsky 2009 ("Learning Multiple Layers of
// Features from Tiny Images"), 50,000 training images of 32 x 32 x 3, 10 and 100 classes.
const std::vector<DatasetInfo> kDatasets = {
    {"fashion-mnist", 1, 10, 28, 60000},
    {"cifar10", 3, 10, 32, 50000},
    {"cifar100", 3, 100, 32, 50000},
};

constexpr const char* kUnrecordedKey = "unrecorded";

// The columns of files written before `dataset` and `source`.
const std::vector<std::string> kLegacyColumns = {"space",
                                                 "fingerprint",
                                                 "encoding",
                                                 "depth",
                                                 "width",
                                                 "resolution",
                                                 "proxy_resolution",
                                                 "proxy_width",
                                                 "removed_downsamples",
                                                 "epochs",
                                                 "train_images",
                                                 "batch",
                                                 "optimizer",
                                                 "learning_rate",
                                                 "seed",
                                                 "replicate",
                                                 "val_accuracy",
                                                 "test_accuracy",
                                                 "params",
                                                 "flops",
                                                 "proxy_params",
                                                 "train_time_s",
                                                 "blocks"};

// The legacy columns with the recipe's dataset and the rows' source.
const std::vector<std::string> kCurvelessColumns = [] {
  std::vector<std::string> c = kLegacyColumns;
  c.insert(std::find(c.begin(), c.end(), "learning_rate") + 1, "dataset");
  c.emplace_back("source");
  return c;
}();

// The columns of files written before `label`: those with the learning curve.
const std::vector<std::string> kLabellessColumns = [] {
  std::vector<std::string> c = kCurvelessColumns;
  c.emplace_back("val_curve");
  return c;
}();

// The columns written now: with the label (empty: a training's accuracy; a zero-cost label).
const std::vector<std::string> kColumns = [] {
  std::vector<std::string> c = kLabellessColumns;
  c.emplace_back("label");
  return c;
}();

// The scores a zero-cost label can name, as a key writes them (no '_').
const std::map<std::string, std::string> kLabelScores = {
    {"naswot", "naswot"}, {"synflow", "synflow"}, {"gradnorm", "grad_norm"}, {"snip", "snip"}};

double ParseDouble(const std::string& text, const std::string& where, const std::string& column,
                   double min, double max) {
  double v = 0.0;
  const char* end = text.data() + text.size();
  const auto r = std::from_chars(text.data(), end, v);
  if (text.empty() || r.ec != std::errc() || r.ptr != end) {
    throw InputError(where + ": column '" + column + "': not a number: '" + text + "'");
  }
  if (!std::isfinite(v) || v < min || v > max) {
    throw InputError(where + ": column '" + column + "': value " + text + " out of range [" +
                     FormatShortest(min) + ", " + FormatShortest(max) + "]");
  }
  return v;
}

// An empty field is NaN (not measured, not recorded); anything else as ParseDouble.
double ParseOptionalDouble(const std::string& text, const std::string& where,
                           const std::string& column, double min, double max) {
  return text.empty() ? std::nan("") : ParseDouble(text, where, column, min, max);
}

// A number as a CSV field: "" for NaN (not measured).
std::string FormatOptional(double v) { return std::isnan(v) ? "" : FormatShortest(v); }

std::string FormatCurve(const std::vector<double>& curve) {
  std::vector<std::string> parts;
  for (const double v : curve) parts.push_back(FormatShortest(v));
  return Join(parts, ";");
}

std::vector<double> ParseCurve(const std::string& text, const std::string& where) {
  std::vector<double> curve;
  if (text.empty()) return curve;
  for (const std::string& part : Split(text, ';')) {
    curve.push_back(ParseDouble(part, where, "val_curve", 0.0, 100.0));
  }
  return curve;
}

std::string Trim(std::string s) {
  while (!s.empty() && (s.back() == '\r' || s.back() == ' ')) s.pop_back();
  while (!s.empty() && s.front() == ' ') s.erase(s.begin());
  return s;
}

int64_t ParseInt(const std::string& text, const std::string& where, const std::string& column,
                 int64_t min, int64_t max) {
  int64_t v = 0;
  const char* end = text.data() + text.size();
  const auto r = std::from_chars(text.data(), end, v);
  if (text.empty() || r.ec != std::errc() || r.ptr != end || v < min || v > max) {
    throw InputError(where + ": column '" + column + "': expected an integer in [" +
                     std::to_string(min) + ", " + std::to_string(max) + "], got '" + text + "'");
  }
  return v;
}

std::string ArchKey(const AccuracyRow& r) {
  return r.encoding + "|" + FormatShortest(r.scaling.depth) + "|" +
         FormatShortest(r.scaling.width) + "|" + FormatShortest(r.scaling.resolution);
}

}  // namespace

const std::vector<DatasetInfo>& Datasets() { return kDatasets; }

DatasetInfo FindDataset(const std::string& name) {
  std::vector<std::string> names;
  const size_t at = name.find('@');
  const std::string base = name.substr(0, at);
  if (at != std::string::npos) {
    const std::string hash = name.substr(at + 1);
    const bool hex = hash.size() == 16 && std::all_of(hash.begin(), hash.end(), [](char c) {
                       return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
                     });
    if (!hex) {
      throw InputError("dataset '" + name + "': '@' must be followed by 16 lowercase hex digits");
    }
  }
  for (const DatasetInfo& d : kDatasets) {
    if (base == d.name) {
      DatasetInfo info = d;
      info.name = name;
      return info;
    }
    names.emplace_back(d.name);
  }
  constexpr const char* kFolder = "imagefolder-";
  if (at != std::string::npos && base.rfind(kFolder, 0) == 0) {
    const std::string n = base.substr(std::strlen(kFolder));
    if (!n.empty() && n.size() <= 5 && std::all_of(n.begin(), n.end(), ::isdigit) &&
        std::stoi(n) >= 2 && std::stoi(n) <= 65535) {
      return DatasetInfo{name, 3, std::stoi(n), 0, 0};
    }
  }
  throw InputError("unknown dataset '" + name + "' (" + Join(names, ", ") +
                   ", each optionally @<16 hex digits of its content>, or "
                   "imagefolder-<classes>@<16 hex digits>)");
}

std::string ProxyRecipe::Key() const {
  if (!recorded()) return kUnrecordedKey;
  if (zero_cost()) {
    return "r" + std::to_string(resolution) + "_w" + FormatShortest(width) + "_rd" +
           std::to_string(removed_downsamples) + "_b" + std::to_string(batch) + "_" + label +
           (dataset == kDefaultDataset ? "" : "_data-" + dataset);
  }
  return "r" + std::to_string(resolution) + "_w" + FormatShortest(width) + "_rd" +
         std::to_string(removed_downsamples) + "_e" + std::to_string(epochs) + "_n" +
         std::to_string(train_images) + "_b" + std::to_string(batch) + "_" + optimizer + "_lr" +
         FormatShortest(learning_rate) + (dataset == kDefaultDataset ? "" : "_data-" + dataset);
}

ProxyRecipe ProxyRecipe::Unrecorded() {
  ProxyRecipe r;
  r.dataset.clear();
  return r;
}

std::string ScoreLabel::Text() const {
  std::string name = score;
  for (const auto& [key_name, score_name] : kLabelScores) {
    if (score_name == score) name = key_name;
  }
  return "zc-" + name + "-a" + FormatSignificant(scale) + "-b" + FormatSignificant(offset);
}

double ScoreLabel::Apply(double raw_score) const {
  const double x = score == "synflow" ? std::log10(raw_score) : raw_score;
  return std::clamp(100.0 - std::exp(offset - scale * x), 0.0, 100.0);
}

ScoreLabel RoundedScoreLabel(const std::string& score, double scale, double offset) {
  ScoreLabel l;
  l.score = score;
  l.scale = std::stod(FormatSignificant(scale));
  l.offset = std::stod(FormatSignificant(offset));
  return l;
}

ScoreLabel ParseScoreLabel(const std::string& text) {
  static const std::regex kForm(R"(zc-([a-z]+)-a([-+0-9.eE]+)-b([-+0-9.eE]+))");
  std::smatch m;
  auto fail = [&](const std::string& why) {
    return InputError("zero-cost label '" + text + "': " + why +
                      " (form zc-<naswot|synflow|gradnorm|snip>-a<scale>-b<offset>, as "
                      "`accuracy-data calibrate-score` prints it)");
  };
  if (!std::regex_match(text, m, kForm)) throw fail("not a zero-cost label");
  const auto score = kLabelScores.find(m[1].str());
  if (score == kLabelScores.end()) throw fail("unknown score '" + m[1].str() + "'");
  auto number = [&](const std::string& digits) {
    double v = 0.0;
    const char* end = digits.data() + digits.size();
    const auto r = std::from_chars(digits.data(), end, v);
    if (r.ec != std::errc() || r.ptr != end || !std::isfinite(v)) {
      throw fail("'" + digits + "' is not a finite number");
    }
    return v;
  };
  ScoreLabel l;
  l.score = score->second;
  l.scale = number(m[2].str());
  l.offset = number(m[3].str());
  if (l.scale == 0.0) throw fail("a scale of 0 makes every network equal");
  return l;
}

ProxyRecipe ProxyRecipe::WithZeroCostLabel(const std::string& text) const {
  ProxyRecipe r = *this;
  r.label = ParseScoreLabel(text).Text();
  r.epochs = 0;
  r.train_images = r.batch;
  r.optimizer = "sgd";
  r.learning_rate = 0.0;
  return r;
}

ProxyRecipe ProxyRecipe::WithKey(const std::string& key) const {
  ProxyRecipe r = *this;
  std::string training_part;  // e, n, optimizer or lr: refused beside a zero-cost label
  std::string label_part;
  for (const std::string& part : Split(key, '_')) {
    if (part.rfind("zc-", 0) == 0) {
      try {
        ParseScoreLabel(part);
      } catch (const InputError& e) {
        throw InputError("recipe '" + key + "': " + e.what());
      }
      label_part = part;
      continue;
    }
    if (part == "sgd" || part == "rmsprop" || part == "adamw" || part.rfind("lr", 0) == 0 ||
        (!part.empty() && (part[0] == 'e' || part[0] == 'n'))) {
      training_part = part;
    }
    auto number = [&](size_t prefix) {
      const std::string digits = part.substr(prefix);
      try {
        size_t used = 0;
        const double v = std::stod(digits, &used);
        if (used == digits.size() && std::isfinite(v)) return v;
      } catch (const std::exception&) {
      }
      throw InputError("recipe '" + key + "': '" + part + "' is not a number after its prefix");
    };
    // A whole number in [lo, hi] after the prefix: e0, e2.5 and n-1 are refused, naming the part.
    auto whole = [&](size_t prefix, int64_t lo, int64_t hi, const char* what) {
      const double v = number(prefix);
      if (v != std::floor(v) || v < static_cast<double>(lo) || v > static_cast<double>(hi)) {
        throw InputError("recipe '" + key + "': '" + part + "': " + what +
                         " must be a whole number in [" + std::to_string(lo) + ", " +
                         std::to_string(hi) + "]");
      }
      return v;
    };
    if (part == "sgd" || part == "rmsprop" || part == "adamw") {
      r.optimizer = part;
    } else if (part.rfind("data-", 0) == 0) {
      try {
        r.dataset = FindDataset(part.substr(5)).name;
      } catch (const InputError& e) {
        throw InputError("recipe '" + key + "': '" + part + "': " + e.what());
      }
    } else if (part == kUnrecordedKey) {
      throw InputError("recipe '" + key +
                       "': the accuracy data recorded no recipe (a plain encoding,accuracy "
                       "file); name one, e.g. r16_e2_n5000");
    } else if (part.rfind("rd", 0) == 0) {
      r.removed_downsamples = static_cast<int>(whole(2, 0, 10, "removed downsamples"));
    } else if (part.rfind("lr", 0) == 0) {
      r.learning_rate = number(2);
      if (r.learning_rate < 0.0) {
        throw InputError("recipe '" + key + "': '" + part +
                         "': the learning rate must not be negative");
      }
    } else if (!part.empty() && part[0] == 'r') {
      r.resolution = static_cast<int>(whole(1, 1, 4096, "the resolution"));
    } else if (!part.empty() && part[0] == 'w') {
      r.width = number(1);
      if (!(r.width > 0.0 && r.width <= 100.0)) {
        throw InputError("recipe '" + key + "': '" + part + "': the width must be in (0, 100]");
      }
    } else if (!part.empty() && part[0] == 'e') {
      r.epochs = static_cast<int>(whole(1, 1, 100000, "the epochs"));
    } else if (!part.empty() && part[0] == 'n') {
      r.train_images = static_cast<int64_t>(whole(1, 1, 1000000000, "the training images"));
    } else if (!part.empty() && part[0] == 'b') {
      r.batch = static_cast<int>(whole(1, 1, 1000000, "the batch"));
    } else {
      throw InputError("recipe '" + key + "': unknown part '" + part +
                       "' (r<px>, w<width>, rd<n>, e<epochs>, n<images>, b<batch>, "
                       "sgd|rmsprop|adamw, lr<rate>, data-<dataset>, zc-<label>)");
    }
  }
  if (label_part.empty()) {
    r.label.clear();
    if (r.epochs < 1) {
      throw InputError("recipe '" + key + "': a trained recipe needs epochs (e<n>, n >= 1)");
    }
    return r;
  }
  if (!training_part.empty()) {
    throw InputError("recipe '" + key + "': '" + training_part +
                     "' is a training setting; a zero-cost label (" + label_part +
                     ") trains nothing (its parts: r, w, rd, b, data-)");
  }
  return r.WithZeroCostLabel(label_part);
}

std::string AccuracyRow::JobKey() const {
  return fingerprint + "|" + ArchKey(*this) + "|" + recipe.Key() + "|" + std::to_string(replicate);
}

const std::vector<std::string>& AccuracyColumns() { return kColumns; }
const std::vector<std::string>& LegacyAccuracyColumns() { return kLegacyColumns; }
const std::vector<std::string>& CurvelessAccuracyColumns() { return kCurvelessColumns; }
const std::vector<std::string>& LabellessAccuracyColumns() { return kLabellessColumns; }

std::string AccuracyHeader() { return Join(kColumns, ",") + "\n"; }

std::string FormatAccuracyRow(const AccuracyRow& r) { return FormatAccuracyRow(r, kColumns); }

std::string FormatAccuracyRow(const AccuracyRow& r, const std::vector<std::string>& columns) {
  if (!r.recipe.recorded()) {
    throw InternalError("FormatAccuracyRow: a row without a recipe (plain data) has no full form");
  }
  if (&columns == &kLegacyColumns &&
      (r.recipe.dataset != kDefaultDataset || r.source != kSourceTrained)) {
    throw InternalError(
        "FormatAccuracyRow: the legacy columns hold only trained Fashion-MNIST rows");
  }
  const std::map<std::string, std::string> by_name = {
      {"space", r.space},
      {"fingerprint", r.fingerprint},
      {"encoding", r.encoding},
      {"depth", FormatShortest(r.scaling.depth)},
      {"width", FormatShortest(r.scaling.width)},
      {"resolution", FormatShortest(r.scaling.resolution)},
      {"proxy_resolution", std::to_string(r.recipe.resolution)},
      {"proxy_width", FormatShortest(r.recipe.width)},
      {"removed_downsamples", std::to_string(r.recipe.removed_downsamples)},
      {"epochs", std::to_string(r.recipe.epochs)},
      {"train_images", std::to_string(r.recipe.train_images)},
      {"batch", std::to_string(r.recipe.batch)},
      {"optimizer", r.recipe.optimizer},
      {"learning_rate", FormatShortest(r.recipe.learning_rate)},
      {"dataset", r.recipe.dataset},
      {"seed", std::to_string(r.seed)},
      {"replicate", std::to_string(r.replicate)},
      {"val_accuracy", FormatOptional(r.val_accuracy)},
      {"test_accuracy", FormatOptional(r.test_accuracy)},
      {"params", std::to_string(r.params)},
      {"flops", std::to_string(r.flops)},
      {"proxy_params", std::to_string(r.proxy_params)},
      {"train_time_s", FormatOptional(r.train_time_s)},
      {"blocks", r.blocks},
      {"source", r.source},
      {"val_curve", FormatCurve(r.val_curve)},
      {"label", r.recipe.label}};
  std::vector<std::string> fields;
  for (const std::string& c : columns) {
    const std::string& f = by_name.at(c);
    if (f.find_first_of(",\"\n\r") != std::string::npos) {
      throw InternalError("accuracy row field needs quoting: " + f);
    }
    fields.push_back(f);
  }
  return Join(fields, ",") + "\n";
}

double TargetAccuracy(const AccuracyRow& r, const std::string& target) {
  if (target == "val_accuracy") return r.val_accuracy;
  if (target == "test_accuracy") return r.test_accuracy;
  throw InputError("unknown target '" + target + "' (val_accuracy, test_accuracy)");
}

std::string ResolveTarget(const AccuracyData& data, const std::string& target) {
  if (data.rows.empty()) throw InputError(data.file + ": no accuracy rows");
  auto first_without = [&](const std::string& t) -> std::optional<size_t> {
    for (size_t i = 0; i < data.rows.size(); ++i) {
      if (std::isnan(TargetAccuracy(data.rows[i], t))) return i;
    }
    return std::nullopt;
  };
  if (target.empty() || target == "auto") {
    if (!first_without("val_accuracy")) return "val_accuracy";
    const auto missing = first_without("test_accuracy");
    if (!missing) return "test_accuracy";
    throw InputError(data.file + ":" + std::to_string(*missing + 2) +
                     ": neither every row's val_accuracy nor every row's test_accuracy is given "
                     "(the label needs one of them in every row)");
  }
  const auto missing = first_without(target);
  if (missing) {
    throw InputError(data.file + ":" + std::to_string(*missing + 2) + ": no " + target +
                     " (a plain file's accuracy and benchmarks' are test_accuracy; leave the "
                     "target out to use what every row has)");
  }
  return target;
}

space::ProxySettings RecipeProxy(const space::Space& space, const ProxyRecipe& recipe) {
  space::ProxySettings proxy = space.proxy();
  proxy.resolution = recipe.resolution;
  proxy.width = recipe.width;
  proxy.removed_downsamples = recipe.removed_downsamples;
  if (recipe.recorded() && recipe.dataset != kDefaultDataset) {
    const DatasetInfo d = FindDataset(recipe.dataset);
    proxy.in_channels = d.in_channels;
    proxy.num_classes = d.num_classes;
  }
  return proxy;
}

ProxyRecipe SpaceRecipe(const space::Space& space) {
  ProxyRecipe recipe;
  recipe.resolution = space.proxy().resolution;
  recipe.width = space.proxy().width;
  recipe.removed_downsamples = space.proxy().removed_downsamples;
  return recipe;
}

AccuracyData ReadAccuracyData(const std::string& path, const space::Space* space,
                              bool allow_torn_tail) {
  return ParseAccuracyData(ReadFile(path), path, space, allow_torn_tail);
}

namespace {

// The canonical text of `text` in `space` (another encoding of the same network stands for its
// canonical form: one network, one identity); InputError naming `where` when it does not decode.
std::string CanonicalText(const space::Space& space, const std::string& text,
                          const std::string& where) {
  try {
    const space::Encoding e = space.FromText(text);
    space.Decode(e);
    return space.ToText(space.Canonical(e));
  } catch (const InputError& e) {
    throw InputError(where + ": column 'encoding': " + e.what());
  }
}

// The plain form: `encoding,accuracy`, one row per network or per replicate.
void ParsePlainRows(const std::vector<std::string>& lines, const std::vector<std::string>& header,
                    const std::string& path, const space::Space* space, AccuracyData& data) {
  const size_t enc_col = header[0] == "encoding" ? 0 : 1;
  std::map<std::string, int> replicates;
  for (size_t ln = 1; ln < lines.size(); ++ln) {
    const std::string where = path + ":" + std::to_string(ln + 1);
    if (Trim(lines[ln]).empty()) throw InputError(where + ": empty line");
    if (lines[ln].find('"') != std::string::npos) throw InputError(where + ": quotes not allowed");
    const std::vector<std::string> f = Split(lines[ln], ',');
    if (f.size() != 2) {
      throw InputError(where + ": " + std::to_string(f.size()) +
                       " fields, the plain form has 2 (encoding,accuracy)");
    }
    AccuracyRow r;
    r.encoding = Trim(f[enc_col]);
    if (r.encoding.empty()) throw InputError(where + ": column 'encoding': empty");
    if (space != nullptr) {
      r.encoding = CanonicalText(*space, r.encoding, where);
      r.space = space->name();
      r.fingerprint = space->fingerprint();
    }
    r.recipe = ProxyRecipe::Unrecorded();
    r.source = kSourcePlain;
    r.replicate = replicates[r.encoding]++;
    r.val_accuracy = std::nan("");
    r.test_accuracy = ParseDouble(Trim(f[1 - enc_col]), where, "accuracy", 0.0, 100.0);
    r.params = r.flops = r.proxy_params = 0;
    r.train_time_s = std::nan("");
    data.rows.push_back(std::move(r));
  }
}

AccuracyRow ParseFullRow(const std::vector<std::string>& f,
                         const std::map<std::string, size_t>& col, const std::string& where) {
  auto get = [&](const std::string& c) -> const std::string& { return f[col.at(c)]; };
  auto get_or = [&](const std::string& c, const std::string& fallback) {
    return col.count(c) ? f[col.at(c)] : fallback;
  };
  AccuracyRow r;
  r.space = get("space");
  r.fingerprint = get("fingerprint");
  r.encoding = get("encoding");
  r.scaling.depth = ParseDouble(get("depth"), where, "depth", 0.05, 20.0);
  r.scaling.width = ParseDouble(get("width"), where, "width", 0.05, 20.0);
  r.scaling.resolution = ParseDouble(get("resolution"), where, "resolution", 0.05, 20.0);
  r.recipe.resolution =
      static_cast<int>(ParseInt(get("proxy_resolution"), where, "proxy_resolution", 8, 4096));
  r.recipe.width = ParseDouble(get("proxy_width"), where, "proxy_width", 0.01, 16.0);
  r.recipe.removed_downsamples =
      static_cast<int>(ParseInt(get("removed_downsamples"), where, "removed_downsamples", 0, 8));
  r.recipe.epochs = static_cast<int>(ParseInt(get("epochs"), where, "epochs", 0, 100000));
  r.recipe.train_images = ParseInt(get("train_images"), where, "train_images", 1, 1LL << 40);
  r.recipe.batch = static_cast<int>(ParseInt(get("batch"), where, "batch", 1, 1 << 20));
  r.recipe.optimizer = get("optimizer");
  r.recipe.learning_rate = ParseDouble(get("learning_rate"), where, "learning_rate", 0.0, 100.0);
  r.recipe.dataset = get_or("dataset", kDefaultDataset);
  try {
    FindDataset(r.recipe.dataset);
  } catch (const InputError& e) {
    throw InputError(where + ": column 'dataset': " + e.what());
  }
  r.seed = static_cast<uint64_t>(ParseInt(get("seed"), where, "seed", 0, INT64_MAX));
  r.replicate = static_cast<int>(ParseInt(get("replicate"), where, "replicate", 0, 1000));
  r.val_accuracy = ParseOptionalDouble(get("val_accuracy"), where, "val_accuracy", 0.0, 100.0);
  r.test_accuracy = ParseOptionalDouble(get("test_accuracy"), where, "test_accuracy", 0.0, 100.0);
  if (std::isnan(r.val_accuracy) && std::isnan(r.test_accuracy)) {
    throw InputError(where +
                     ": columns 'val_accuracy' and 'test_accuracy' both empty (a row "
                     "needs at least one accuracy)");
  }
  r.params = ParseInt(get("params"), where, "params", 0, INT64_MAX);
  r.flops = ParseInt(get("flops"), where, "flops", 0, INT64_MAX);
  r.proxy_params = ParseInt(get("proxy_params"), where, "proxy_params", 0, INT64_MAX);
  r.train_time_s = ParseOptionalDouble(get("train_time_s"), where, "train_time_s", 0.0, 1e9);
  r.blocks = get("blocks");
  r.source = get_or("source", kSourceTrained);
  if (r.source.empty()) throw InputError(where + ": column 'source': empty");
  r.val_curve = ParseCurve(get_or("val_curve", ""), where);
  const std::string label = get_or("label", "");
  if (label.empty()) {
    if (r.recipe.epochs < 1) {
      throw InputError(where + ": column 'epochs': 0 without a zero-cost label (column 'label')");
    }
  } else {
    ProxyRecipe labelled;
    try {
      labelled = r.recipe.WithZeroCostLabel(label);
    } catch (const InputError& e) {
      throw InputError(where + ": column 'label': " + e.what());
    }
    if (r.recipe.epochs != 0 || r.recipe.train_images != r.recipe.batch ||
        r.recipe.optimizer != "sgd" || r.recipe.learning_rate != 0.0 || !r.val_curve.empty()) {
      throw InputError(where +
                       ": column 'label': a zero-cost label's row has epochs 0, "
                       "train_images equal to batch, optimizer sgd, learning_rate 0 and no "
                       "val_curve");
    }
    r.recipe = labelled;
  }
  return r;
}

}  // namespace

AccuracyData ParseAccuracyData(const std::string& text, const std::string& path,
                               const space::Space* space, bool allow_torn_tail) {
  if (text.empty()) throw InputError(path + ": empty file (expected the accuracy-data header)");
  AccuracyData data;
  data.file = path;
  std::vector<std::string> lines = Split(text, '\n');
  bool torn = !text.empty() && text.back() != '\n';
  if (!torn && !lines.empty() && lines.back().empty()) lines.pop_back();
  if (torn && allow_torn_tail) {
    lines.pop_back();
    torn = false;
  }
  if (lines.empty()) throw InputError(path + ": no header line");
  if (torn && lines.size() > 1) {
    throw InputError(path + ":" + std::to_string(lines.size()) +
                     ": incomplete last line (a write cut short; `accuracy-data "
                     "generate --resume` repairs it)");
  }
  std::vector<std::string> header = Split(lines[0], ',');
  for (std::string& h : header) h = Trim(h);
  std::map<std::string, size_t> col;
  for (size_t i = 0; i < header.size(); ++i) {
    if (!col.emplace(header[i], i).second) {
      throw InputError(path + ":1: column '" + header[i] + "' given twice");
    }
  }
  if (!col.count("space") && col.count("encoding") && col.count("accuracy") && col.size() == 2) {
    ParsePlainRows(lines, header, path, space, data);
    return data;
  }
  for (const auto& c : kLegacyColumns) {
    if (!col.count(c)) {
      throw InputError(path + ":1: missing column '" + c +
                       "' (accuracy data needs: " + Join(kColumns, ", ") +
                       " (dataset, source, val_curve and label optional); or the plain form: "
                       "encoding,accuracy)");
    }
  }
  for (const auto& h : header) {
    if (std::find(kColumns.begin(), kColumns.end(), h) == kColumns.end()) {
      throw InputError(path + ":1: unknown column '" + h + "'" + DidYouMean(h, kColumns));
    }
  }
  for (size_t ln = 1; ln < lines.size(); ++ln) {
    const std::string where = path + ":" + std::to_string(ln + 1);
    if (lines[ln].empty()) throw InputError(where + ": empty line");
    if (lines[ln].find('"') != std::string::npos) throw InputError(where + ": quotes not allowed");
    const std::vector<std::string> f = Split(lines[ln], ',');
    if (f.size() != header.size()) {
      throw InputError(where + ": " + std::to_string(f.size()) + " fields, header has " +
                       std::to_string(header.size()));
    }
    AccuracyRow r = ParseFullRow(f, col, where);
    if (space != nullptr) {
      if (r.fingerprint != space->fingerprint()) {
        throw InputError(where + ": encoding of another space (fingerprint " + r.fingerprint +
                         ", space '" + space->name() + "' in " + space->file() + " has " +
                         space->fingerprint() + ")");
      }
      r.encoding = CanonicalText(*space, r.encoding, where);
    }
    data.rows.push_back(std::move(r));
  }
  return data;
}

AccuracyAppender::AccuracyAppender(const std::string& path)
    : log_(AppendLog::Open(path)), path_(path), columns_(&kColumns) {
  // A row cut by a kill during its write is cut from the file by Open: its run is retrained.
  const std::string header = AccuracyHeader();
  if (log_.lines().empty()) {
    log_.Append(header.substr(0, header.size() - 1));
  } else if (log_.lines().front() == Join(kLegacyColumns, ",")) {
    columns_ = &kLegacyColumns;  // a file written before `dataset` and `source`: kept in its form
  } else if (log_.lines().front() == Join(kCurvelessColumns, ",")) {
    columns_ = &kCurvelessColumns;  // written before `val_curve`: kept in its form (no curves)
  } else if (log_.lines().front() == Join(kLabellessColumns, ",")) {
    columns_ = &kLabellessColumns;  // written before `label`: kept in its form (trained rows)
  } else if (log_.lines().front() + "\n" != header) {
    throw InputError(path +
                     ":1: not an accuracy-data file of this dcnas (header differs); "
                     "refusing to append");
  }
}

void AccuracyAppender::Append(const AccuracyRow& row) {
  if (columns_ == &kLegacyColumns &&
      (row.recipe.dataset != kDefaultDataset || row.source != kSourceTrained)) {
    throw InputError(path_ + ": a file without the dataset and source columns takes only trained " +
                     kDefaultDataset + " rows (this one: " + row.recipe.Key() + ", " + row.source +
                     ")");
  }
  if (columns_ != &kColumns && row.recipe.zero_cost()) {
    throw InputError(path_ + ": a file without the label column takes only trained rows (this " +
                     "one: " + row.recipe.Key() + "); write zero-cost labels to a new file");
  }
  const std::string line = FormatAccuracyRow(row, *columns_);
  log_.Append(line.substr(0, line.size() - 1));
}

double IntraClassCorrelation(const std::vector<std::vector<double>>& groups) {
  double n_total = 0.0, sum = 0.0, sum_sq_n = 0.0;
  size_t k = 0;
  for (const auto& g : groups) {
    if (g.size() < 2) continue;
    k += 1;
    n_total += static_cast<double>(g.size());
    sum_sq_n += static_cast<double>(g.size() * g.size());
    for (double v : g) sum += v;
  }
  if (k < 2) return std::nan("");
  const double grand = sum / n_total;
  double ss_between = 0.0, ss_within = 0.0;
  for (const auto& g : groups) {
    if (g.size() < 2) continue;
    double m = 0.0;
    for (double v : g) m += v;
    m /= static_cast<double>(g.size());
    ss_between += static_cast<double>(g.size()) * (m - grand) * (m - grand);
    for (double v : g) ss_within += (v - m) * (v - m);
  }
  const auto kd = static_cast<double>(k);
  const double ms_between = ss_between / (kd - 1.0);
  const double ms_within = ss_within / (n_total - kd);
  const double n0 = (n_total - sum_sq_n / n_total) / (kd - 1.0);
  const double denominator = ms_between + (n0 - 1.0) * ms_within;
  if (!(denominator > 0.0)) return std::nan("");
  return (ms_between - ms_within) / denominator;
}

ReplicateStats ComputeReplicateStats(const AccuracyData& data) {
  ReplicateStats s;
  if (data.rows.empty()) return s;
  std::map<std::string, std::map<int, const AccuracyRow*>> by_arch;
  double sum = 0.0, time = 0.0;
  size_t with_accuracy = 0, with_time = 0;
  bool all_val = true;
  s.min_accuracy = 100.0;
  std::set<int> numbers;
  for (const auto& r : data.rows) {
    by_arch[ArchKey(r) + "|" + r.recipe.Key()][r.replicate] = &r;
    numbers.insert(r.replicate);
    all_val = all_val && !std::isnan(r.val_accuracy);
    if (!std::isnan(r.train_time_s)) {
      time += r.train_time_s;
      with_time += 1;
    }
    if (std::isnan(r.test_accuracy)) continue;
    sum += r.test_accuracy;
    with_accuracy += 1;
    s.min_accuracy = std::min(s.min_accuracy, r.test_accuracy);
    s.max_accuracy = std::max(s.max_accuracy, r.test_accuracy);
  }
  s.mean_accuracy = with_accuracy > 0 ? sum / static_cast<double>(with_accuracy) : std::nan("");
  s.mean_train_time_s = with_time > 0 ? time / static_cast<double>(with_time) : std::nan("");
  std::vector<std::vector<double>> test_groups, val_groups;
  for (const auto& [key, reps] : by_arch) {
    if (reps.size() < 2) continue;
    s.architectures += 1;
    s.max_replicates = std::max(s.max_replicates, static_cast<int>(reps.size()));
    test_groups.emplace_back();
    val_groups.emplace_back();
    for (const auto& [n, row] : reps) {
      test_groups.back().push_back(row->test_accuracy);
      val_groups.back().push_back(row->val_accuracy);
    }
  }
  // Every pair of replicate numbers (i < j): tau over the architectures that have both.
  double test_taus = 0.0, val_taus = 0.0, diff = 0.0;
  size_t test_pairs = 0, val_pairs = 0, diffs = 0;
  const std::vector<int> reps(numbers.begin(), numbers.end());
  const bool all_test = std::all_of(data.rows.begin(), data.rows.end(), [](const AccuracyRow& r) {
    return !std::isnan(r.test_accuracy);
  });
  for (size_t i = 0; i < reps.size(); ++i) {
    for (size_t j = i + 1; j < reps.size(); ++j) {
      std::vector<double> t0, t1, v0, v1;
      for (const auto& [key, by_rep] : by_arch) {
        const auto a = by_rep.find(reps[i]), b = by_rep.find(reps[j]);
        if (a == by_rep.end() || b == by_rep.end()) continue;
        t0.push_back(a->second->test_accuracy);
        t1.push_back(b->second->test_accuracy);
        v0.push_back(a->second->val_accuracy);
        v1.push_back(b->second->val_accuracy);
      }
      if (t0.size() < 2) continue;
      s.replicate_pairs += 1;
      if (all_test) {
        const double t = KendallTau(t0, t1);
        if (!std::isnan(t)) {
          test_taus += t;
          test_pairs += 1;
        }
        for (size_t k = 0; k < t0.size(); ++k) diff += std::abs(t0[k] - t1[k]);
        diffs += t0.size();
      }
      if (all_val) {
        const double v = KendallTau(v0, v1);
        if (!std::isnan(v)) {
          val_taus += v;
          val_pairs += 1;
        }
      }
    }
  }
  s.test_tau = test_pairs > 0 ? test_taus / static_cast<double>(test_pairs) : std::nan("");
  s.val_tau = val_pairs > 0 ? val_taus / static_cast<double>(val_pairs) : std::nan("");
  s.mean_abs_diff_pp = diffs > 0 ? diff / static_cast<double>(diffs) : std::nan("");
  s.test_icc = all_test ? IntraClassCorrelation(test_groups) : std::nan("");
  s.val_icc = all_val ? IntraClassCorrelation(val_groups) : std::nan("");
  return s;
}

AgreementStats ComputeAgreement(const AccuracyData& a, const AccuracyData& b) {
  auto means = [](const AccuracyData& d) {
    std::map<std::string, std::pair<double, double>> sums;  // test, val
    std::map<std::string, int> counts;
    for (const auto& r : d.rows) {
      sums[ArchKey(r)].first += r.test_accuracy;
      sums[ArchKey(r)].second += r.val_accuracy;
      counts[ArchKey(r)] += 1;
    }
    for (auto& [k, v] : sums) {
      v.first /= counts[k];
      v.second /= counts[k];
    }
    return sums;
  };
  const auto ma = means(a);
  const auto mb = means(b);
  std::vector<double> ta, tb, va, vb;
  bool test_ok = true, val_ok = true;
  for (const auto& [k, v] : ma) {
    const auto it = mb.find(k);
    if (it == mb.end()) continue;
    ta.push_back(v.first);
    tb.push_back(it->second.first);
    va.push_back(v.second);
    vb.push_back(it->second.second);
    test_ok = test_ok && !std::isnan(ta.back()) && !std::isnan(tb.back());
    val_ok = val_ok && !std::isnan(va.back()) && !std::isnan(vb.back());
  }
  AgreementStats s;
  s.architectures = ta.size();
  if (!ta.empty()) {
    s.test_tau = test_ok ? KendallTau(ta, tb) : std::nan("");
    s.val_tau = val_ok ? KendallTau(va, vb) : std::nan("");
  }
  return s;
}

ProxyRecipe RequireOneRecipe(const AccuracyData& data) {
  if (data.rows.empty()) throw InputError(data.file + ": no accuracy rows");
  const ProxyRecipe& first = data.rows.front().recipe;
  for (size_t i = 1; i < data.rows.size(); ++i) {
    if (data.rows[i].recipe != first) {
      throw InputError(data.file + ":" + std::to_string(i + 2) + ": trained with recipe " +
                       data.rows[i].recipe.Key() + ", the rows before it with " + first.Key() +
                       " (accuracies of different recipes do not mix)");
    }
  }
  return first;
}

AccuracyData MergeAccuracyData(const std::vector<AccuracyData>& parts) {
  AccuracyData merged;
  std::optional<ProxyRecipe> recipe;
  for (const AccuracyData& part : parts) {
    const ProxyRecipe r = RequireOneRecipe(part);
    if (recipe && r != *recipe) {
      throw InputError(part.file + ": trained with recipe " + r.Key() + ", " + parts.front().file +
                       " with " + recipe->Key() + " (accuracies of different recipes do not mix)");
    }
    recipe = r;
    merged.file += (merged.file.empty() ? "" : " + ") + part.file;
    merged.rows.insert(merged.rows.end(), part.rows.begin(), part.rows.end());
  }
  return merged;
}

std::map<std::string, double> MeanAccuracy(const AccuracyData& data, const std::string& target) {
  const std::string t = ResolveTarget(data, target);
  std::map<std::string, std::pair<double, int>> sums;
  for (const AccuracyRow& r : data.rows) {
    auto& [sum, n] = sums[r.encoding];
    sum += TargetAccuracy(r, t);
    n += 1;
  }
  std::map<std::string, double> means;
  for (const auto& [encoding, sn] : sums) means[encoding] = sn.first / sn.second;
  return means;
}

std::vector<std::string> StratifiedSample(const AccuracyData& reference, int count, uint64_t seed) {
  const std::map<std::string, double> means = MeanAccuracy(reference);
  if (count < 1 || static_cast<size_t>(count) > means.size()) {
    throw InputError(reference.file + ": " + std::to_string(means.size()) +
                     " networks, cannot draw " + std::to_string(count) + " strata of them");
  }
  std::vector<std::pair<double, std::string>> sorted;
  for (const auto& [encoding, mean] : means) sorted.emplace_back(mean, encoding);
  std::sort(sorted.begin(), sorted.end());
  std::mt19937_64 rng(seed);
  std::vector<std::string> picked;
  const size_t n = sorted.size();
  for (size_t s = 0; s < static_cast<size_t>(count); ++s) {
    const size_t begin = s * n / count, end = (s + 1) * n / count;
    picked.push_back(sorted[begin + rng() % (end - begin)].second);
  }
  for (size_t i = picked.size(); i > 1; --i) std::swap(picked[i - 1], picked[rng() % i]);
  return picked;
}

}  // namespace dcnas::proxy
