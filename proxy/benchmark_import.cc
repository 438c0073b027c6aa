#include "proxy/benchmark_import.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>

#include "common/errors.h"
#include "common/file_io.h"
#include "common/sha256.h"
#include "common/strict_json.h"
#include "common/table.h"
#include "common/text.h"
#include "models/counts.h"

namespace dcnas::proxy {
namespace {

using nlohmann::json;

// NAS-Bench-Macro (Su et al., CVPR 2021; github.com/xiusu/NAS-Bench-Macro, its README's
// "Training recipe", from train/train.py): CIFAR-10, SGD with momentum 0.9 and weight decay 5e-4,
// batch 256, a cosine schedule over 50 epochs on the 50,000 training images, input 32 x 32, the
// network at width 1 with every downsampling it has (its stem has stride 1:
// data/search_spaces/nas-bench-macro.yaml says so). The README gives no learning rate: 0 (not
// recorded).
ProxyRecipe NasBenchMacroRecipe() {
  ProxyRecipe r;
  r.dataset = "cifar10";
  r.resolution = 32;
  r.width = 1.0;
  r.removed_downsamples = 0;
  r.epochs = 50;
  r.train_images = FindDataset("cifar10").train_images;
  r.batch = 256;
  r.optimizer = "sgd";
  r.learning_rate = 0.0;
  return r;
}
// Trainings per network in NAS-Bench-Macro (`test_acc` holds one accuracy per training).
constexpr size_t kNasBenchMacroReplicates = 3;
// mean_acc and std are recomputed from test_acc (float32 values, double arithmetic in the
// authors' script); they must agree to this many percentage points.
constexpr double kSummaryTolerancePp = 1e-3;

// Parses JSON, refusing a key given twice in one object (nlohmann keeps the last silently) and
// naming, for a syntax error (NaN and Infinity are not JSON), the top-level key it lies in.
json ParseStrictJson(const std::string& text, const std::string& path) {
  std::optional<DuplicateJsonKey> twice;
  try {
    json j = ParseJsonKeysOnce(text, twice);
    if (twice) {
      const std::string top = twice->path.empty() ? twice->key : twice->path.front();
      throw InputError(path + ": key '" + top + "'" +
                       (twice->path.empty() ? "" : ": field '" + twice->key + "'") +
                       " given twice");
    }
    return j;
  } catch (const json::parse_error& e) {
    // The last top-level key before the error: "01201122": {
    const std::string before = text.substr(0, std::min(text.size(), e.byte));
    static const std::regex kKey(R"re("([^"]*)"\s*:\s*\{)re");
    std::string key;
    for (auto it = std::sregex_iterator(before.begin(), before.end(), kKey);
         it != std::sregex_iterator(); ++it) {
      key = (*it)[1];
    }
    throw InputError(path + ": byte " + std::to_string(e.byte) +
                     (key.empty() ? "" : " (in key '" + key + "')") + ": not JSON: " + e.what() +
                     " (NaN and Infinity are not JSON numbers)");
  }
}

// One benchmark entry's checked values.
struct MacroEntry {
  std::vector<double> test_acc;
  double mean_acc = 0.0;
  double std = 0.0;
  int64_t params = 0;
  int64_t flops = 0;
  bool operator==(const MacroEntry&) const = default;
};

double Number(const json& v, const std::string& where, double lo, double hi) {
  if (!v.is_number()) {
    throw InputError(where + ": expected a number, got " + v.dump());
  }
  const double x = v.get<double>();
  if (!std::isfinite(x) || x < lo || x > hi) {
    throw InputError(where + ": value " + v.dump() + " out of range [" + FormatShortest(lo) + ", " +
                     FormatShortest(hi) + "]");
  }
  return x;
}

int64_t Count(const json& v, const std::string& where) {
  if (!v.is_number_integer() || (v.is_number_unsigned() && v.get<uint64_t>() > INT64_MAX) ||
      v.get<int64_t>() < 1) {
    throw InputError(where + ": expected a positive integer, got " + v.dump());
  }
  return v.get<int64_t>();
}

MacroEntry ReadMacroEntry(const json& v, const std::string& where) {
  static const std::vector<std::string> kFields = {"test_acc", "mean_acc", "std", "params",
                                                   "flops"};
  if (!v.is_object()) throw InputError(where + ": expected an object, got " + v.dump());
  for (const auto& [field, value] : v.items()) {
    if (std::find(kFields.begin(), kFields.end(), field) == kFields.end()) {
      throw InputError(where + ": unknown field '" + field + "' (fields: " + Join(kFields, ", ") +
                       ")");
    }
  }
  for (const std::string& field : kFields) {
    if (!v.contains(field)) throw InputError(where + ": missing field '" + field + "'");
  }
  MacroEntry e;
  const json& acc = v["test_acc"];
  if (!acc.is_array()) throw InputError(where + ": test_acc: expected a list, got " + acc.dump());
  for (size_t i = 0; i < acc.size(); ++i) {
    e.test_acc.push_back(
        Number(acc[i], where + ": test_acc[" + std::to_string(i) + "]", 0.0, 100.0));
  }
  e.mean_acc = Number(v["mean_acc"], where + ": mean_acc", 0.0, 100.0);
  e.std = Number(v["std"], where + ": std", 0.0, 100.0);
  e.params = Count(v["params"], where + ": params");
  e.flops = Count(v["flops"], where + ": flops");
  double mean = 0.0, ss = 0.0;
  for (double a : e.test_acc) mean += a;
  mean /= static_cast<double>(std::max<size_t>(1, e.test_acc.size()));
  for (double a : e.test_acc) ss += (a - mean) * (a - mean);
  const double sd = std::sqrt(ss / static_cast<double>(std::max<size_t>(1, e.test_acc.size())));
  const bool agree = std::abs(mean - e.mean_acc) <= kSummaryTolerancePp &&
                     std::abs(sd - e.std) <= kSummaryTolerancePp;
  if (e.test_acc.size() != kNasBenchMacroReplicates || !agree) {
    throw InputError(where + ": test_acc " + acc.dump() + " (" + std::to_string(e.test_acc.size()) +
                     " values; the format has " + std::to_string(kNasBenchMacroReplicates) +
                     " per network) with mean_acc " + v["mean_acc"].dump() + " and std " +
                     v["std"].dump() +
                     (agree ? ""
                            : ": they are not its mean and standard deviation (" +
                                  FormatShortest(mean) + ", " + FormatShortest(sd) + ")"));
  }
  return e;
}

// The key's digits as an encoding of `space`: digit i is the index of the space's choice i.
space::Encoding KeyEncoding(const std::string& key, const space::Space& space,
                            const std::string& where) {
  if (key.size() != space.vector_length()) {
    throw InputError(where + ": " + std::to_string(key.size()) + " digits, but space '" +
                     space.name() + "' (" + space.file() + ") has " +
                     std::to_string(space.vector_length()) +
                     " choices (digit i is the index of the space's choice i)");
  }
  space::Encoding e;
  for (size_t i = 0; i < key.size(); ++i) {
    const int count = space.choice_counts()[i];
    if (key[i] < '0' || key[i] > '9' || key[i] - '0' >= count) {
      throw InputError(where + ": digit " + std::to_string(i + 1) + " '" + key.substr(i, 1) +
                       "' is not a value of the space's choice " + space.choice_names()[i] +
                       " (0.." + std::to_string(count - 1) + ")");
    }
    e.push_back(key[i] - '0');
  }
  try {
    space.Decode(e);
  } catch (const InputError& err) {
    throw InputError(where + ": not a network of space '" + space.name() + "': " + err.what());
  }
  return e;
}

BenchmarkImport ReadNasBenchMacro(const std::string& text, const std::string& path,
                                  const space::Space& space) {
  const json root = ParseStrictJson(text, path);
  if (!root.is_object() || root.empty()) {
    throw InputError(path + ": expected a JSON object of networks (8-digit keys), got " +
                     std::string(root.type_name()));
  }
  BenchmarkImport out;
  out.sha256 = Sha256Hex(text);
  out.recipe = NasBenchMacroRecipe();
  out.keys = root.size();
  // Canonical network -> its first key and values; later keys of it must carry equal values.
  std::map<std::string, std::pair<std::string, MacroEntry>> networks;
  std::map<std::string, space::Encoding> encodings;
  for (const auto& [key, value] : root.items()) {
    const std::string where = path + ": key '" + key + "'";
    const space::Encoding e = space.Canonical(KeyEncoding(key, space, where));
    const MacroEntry entry = ReadMacroEntry(value, where);
    const std::string canonical = space.ToText(e);
    const auto [it, inserted] = networks.emplace(canonical, std::make_pair(key, entry));
    if (!inserted && !(it->second.second == entry)) {
      throw InputError(path + ": keys '" + it->second.first + "' and '" + key +
                       "' are one network (" + canonical + " in space '" + space.name() +
                       "') but carry different values");
    }
    encodings.emplace(canonical, e);
  }
  out.networks = networks.size();
  const std::string source = "nas-bench-macro:" + out.sha256;
  const space::ProxySettings trained = RecipeProxy(space, out.recipe);
  out.data.file = path;
  std::vector<std::pair<double, std::string>> flops_ratios;  // theirs / our MACs, key
  for (const auto& [canonical, first] : networks) {
    const space::Encoding& e = encodings.at(canonical);
    const models::OpCounts full =
        models::CountGraph(space.BuildFull(e, {}, models::BuildOptions{}));
    const models::OpCounts trained_counts = models::CountGraph(space.BuildProxy(e, {}, trained));
    const int64_t proxy_params = trained_counts.params;
    const MacroEntry& m = first.second;
    flops_ratios.emplace_back(static_cast<double>(m.flops) /
                                  static_cast<double>(std::max<int64_t>(1, trained_counts.macs)),
                              first.first);
    if (proxy_params != m.params) {
      out.params_differ += 1;
      const double rel =
          std::abs(static_cast<double>(proxy_params - m.params)) / static_cast<double>(m.params);
      if (rel > out.max_params_rel_diff) {
        out.max_params_rel_diff = rel;
        out.max_params_key = first.first;
      }
    }
    const std::string blocks = Join(space.Decode(e).blocks, " ");
    for (size_t r = 0; r < m.test_acc.size(); ++r) {
      AccuracyRow row;
      row.space = space.name();
      row.fingerprint = space.fingerprint();
      row.encoding = canonical;
      row.recipe = out.recipe;
      row.seed = r;  // the benchmark publishes no seeds: the training's index
      row.replicate = static_cast<int>(r);
      row.val_accuracy = std::nan("");  // test accuracy only
      row.test_accuracy = m.test_acc[r];
      row.params = full.params;
      row.flops = full.flops;
      row.proxy_params = proxy_params;
      row.train_time_s = std::nan("");
      row.blocks = blocks;
      row.source = source;
      out.data.rows.push_back(std::move(row));
    }
  }
  if (!flops_ratios.empty()) {
    std::vector<double> r;
    for (const auto& [ratio, key] : flops_ratios) r.push_back(ratio);
    std::sort(r.begin(), r.end());
    out.flops_ratio_median = r[r.size() / 2];
    out.flops_ratio_min = r.front();
    out.flops_ratio_max = r.back();
    double farthest = 0.0;
    for (const auto& [ratio, key] : flops_ratios) {
      const double off = std::abs(ratio / out.flops_ratio_median - 1.0);
      if (off > 0.1) out.flops_outliers += 1;
      if (off > farthest) {
        farthest = off;
        out.flops_farthest_key = key;
      }
    }
  }
  return out;
}

}  // namespace

const std::vector<BenchmarkFormat>& BenchmarkFormats() {
  static const std::vector<BenchmarkFormat> kFormats = {
      {"nas-bench-macro",
       "NAS-Bench-Macro (Su et al., CVPR 2021): a JSON object of 8-digit keys, digit i the index "
       "of the space's choice i, each {test_acc: [3 CIFAR-10 test accuracies], mean_acc, std, "
       "params, flops}; recipe cifar10, 50 epochs, batch 256, 32 px, width 1, SGD",
       ReadNasBenchMacro},
  };
  return kFormats;
}

const BenchmarkFormat& FindBenchmarkFormat(const std::string& name) {
  std::vector<std::string> names;
  for (const BenchmarkFormat& f : BenchmarkFormats()) {
    if (f.name == name) return f;
    names.push_back(f.name);
  }
  throw InputError("unknown benchmark format '" + name + "' (" + Join(names, ", ") + ")");
}

BenchmarkImport ReadBenchmark(const std::string& format, const std::string& file,
                              const space::Space& space) {
  const BenchmarkFormat& f = FindBenchmarkFormat(format);
  return f.read(ReadFile(file), file, space);
}

BenchmarkImport ImportBenchmark(const std::string& format, const std::string& file,
                                const space::Space& space, const std::string& out) {
  BenchmarkImport imported = ReadBenchmark(format, file, space);
  std::string csv = AccuracyHeader();
  for (const AccuracyRow& r : imported.data.rows) csv += FormatAccuracyRow(r);
  WriteFileAtomic(out, csv);
  return imported;
}

}  // namespace dcnas::proxy
