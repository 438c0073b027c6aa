#include "proxy/accuracy_data.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "common/errors.h"
#include "common/file_io.h"
#include "common/rank_correlation.h"
#include "common/table.h"
#include "common/text.h"

namespace dcnas::proxy {
namespace {

// Shortest text that reads back as the same double.
const std::vector<std::string> kColumns = {"space",
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

std::string ProxyRecipe::Key() const {
  return "r" + std::to_string(resolution) + "_w" + FormatShortest(width) + "_rd" +
         std::to_string(removed_downsamples) + "_e" + std::to_string(epochs) + "_n" +
         std::to_string(train_images) + "_b" + std::to_string(batch) + "_" + optimizer + "_lr" +
         FormatShortest(learning_rate);
}

ProxyRecipe ProxyRecipe::WithKey(const std::string& key) const {
  ProxyRecipe r = *this;
  for (const std::string& part : Split(key, '_')) {
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
                       "sgd|rmsprop|adamw, lr<rate>)");
    }
  }
  return r;
}

std::string AccuracyRow::JobKey() const {
  return fingerprint + "|" + ArchKey(*this) + "|" + recipe.Key() + "|" + std::to_string(replicate);
}

const std::vector<std::string>& AccuracyColumns() { return kColumns; }

std::string AccuracyHeader() { return Join(kColumns, ",") + "\n"; }

std::string FormatAccuracyRow(const AccuracyRow& r) {
  const std::vector<std::string> fields = {r.space,
                                           r.fingerprint,
                                           r.encoding,
                                           FormatShortest(r.scaling.depth),
                                           FormatShortest(r.scaling.width),
                                           FormatShortest(r.scaling.resolution),
                                           std::to_string(r.recipe.resolution),
                                           FormatShortest(r.recipe.width),
                                           std::to_string(r.recipe.removed_downsamples),
                                           std::to_string(r.recipe.epochs),
                                           std::to_string(r.recipe.train_images),
                                           std::to_string(r.recipe.batch),
                                           r.recipe.optimizer,
                                           FormatShortest(r.recipe.learning_rate),
                                           std::to_string(r.seed),
                                           std::to_string(r.replicate),
                                           FormatShortest(r.val_accuracy),
                                           FormatShortest(r.test_accuracy),
                                           std::to_string(r.params),
                                           std::to_string(r.flops),
                                           std::to_string(r.proxy_params),
                                           FormatShortest(r.train_time_s),
                                           r.blocks};
  for (const auto& f : fields) {
    if (f.find_first_of(",\"\n\r") != std::string::npos) {
      throw InternalError("accuracy row field needs quoting: " + f);
    }
  }
  return Join(fields, ",") + "\n";
}

space::ProxySettings RecipeProxy(const space::Space& space, const ProxyRecipe& recipe) {
  space::ProxySettings proxy = space.proxy();
  proxy.resolution = recipe.resolution;
  proxy.width = recipe.width;
  proxy.removed_downsamples = recipe.removed_downsamples;
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
  const std::vector<std::string> header = Split(lines[0], ',');
  std::map<std::string, size_t> col;
  for (size_t i = 0; i < header.size(); ++i) col[header[i]] = i;
  for (const auto& c : kColumns) {
    if (!col.count(c)) {
      throw InputError(path + ":1: missing column '" + c +
                       "' (accuracy data needs: " + Join(kColumns, ", ") + ")");
    }
  }
  for (size_t ln = 1; ln < lines.size(); ++ln) {
    const std::string where = path + ":" + std::to_string(ln + 1);
    if (lines[ln].empty()) throw InputError(where + ": empty line");
    if (torn && ln + 1 == lines.size()) {
      throw InputError(where +
                       ": incomplete last line (a write cut short; `accuracy-data "
                       "generate --resume` repairs it)");
    }
    if (lines[ln].find('"') != std::string::npos) throw InputError(where + ": quotes not allowed");
    const std::vector<std::string> f = Split(lines[ln], ',');
    if (f.size() != header.size()) {
      throw InputError(where + ": " + std::to_string(f.size()) + " fields, header has " +
                       std::to_string(header.size()));
    }
    auto get = [&](const std::string& c) -> const std::string& { return f[col[c]]; };
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
    r.recipe.epochs = static_cast<int>(ParseInt(get("epochs"), where, "epochs", 1, 100000));
    r.recipe.train_images = ParseInt(get("train_images"), where, "train_images", 1, 1LL << 40);
    r.recipe.batch = static_cast<int>(ParseInt(get("batch"), where, "batch", 1, 1 << 20));
    r.recipe.optimizer = get("optimizer");
    r.recipe.learning_rate = ParseDouble(get("learning_rate"), where, "learning_rate", 0.0, 100.0);
    r.seed = static_cast<uint64_t>(ParseInt(get("seed"), where, "seed", 0, INT64_MAX));
    r.replicate = static_cast<int>(ParseInt(get("replicate"), where, "replicate", 0, 1000));
    r.val_accuracy = ParseDouble(get("val_accuracy"), where, "val_accuracy", 0.0, 100.0);
    r.test_accuracy = ParseDouble(get("test_accuracy"), where, "test_accuracy", 0.0, 100.0);
    r.params = ParseInt(get("params"), where, "params", 0, INT64_MAX);
    r.flops = ParseInt(get("flops"), where, "flops", 0, INT64_MAX);
    r.proxy_params = ParseInt(get("proxy_params"), where, "proxy_params", 0, INT64_MAX);
    r.train_time_s = ParseDouble(get("train_time_s"), where, "train_time_s", 0.0, 1e9);
    r.blocks = get("blocks");
    if (space != nullptr) {
      if (r.fingerprint != space->fingerprint()) {
        throw InputError(where + ": encoding of another space (fingerprint " + r.fingerprint +
                         ", space '" + space->name() + "' in " + space->file() + " has " +
                         space->fingerprint() + ")");
      }
      try {
        // Another encoding of the same network (e.g. a choice that rounds to the same width)
        // stands for its canonical form: one network, one identity.
        const space::Encoding e = space->FromText(r.encoding);
        space->Decode(e);
        r.encoding = space->ToText(space->Canonical(e));
      } catch (const InputError& e) {
        throw InputError(where + ": column 'encoding': " + e.what());
      }
    }
    data.rows.push_back(std::move(r));
  }
  return data;
}

AccuracyAppender::AccuracyAppender(const std::string& path) : log_(AppendLog::Open(path)) {
  // A row cut by a kill during its write is cut from the file by Open: its run is retrained.
  const std::string header = AccuracyHeader();
  if (log_.lines().empty()) {
    log_.Append(header.substr(0, header.size() - 1));
  } else if (log_.lines().front() + "\n" != header) {
    throw InputError(path +
                     ":1: not an accuracy-data file of this dcnas (header differs); "
                     "refusing to append");
  }
}

void AccuracyAppender::Append(const AccuracyRow& row) {
  const std::string line = FormatAccuracyRow(row);
  log_.Append(line.substr(0, line.size() - 1));
}

ReplicateStats ComputeReplicateStats(const AccuracyData& data) {
  ReplicateStats s;
  if (data.rows.empty()) return s;
  std::map<std::string, std::map<int, const AccuracyRow*>> by_arch;
  double sum = 0.0, time = 0.0;
  s.min_accuracy = 100.0;
  for (const auto& r : data.rows) {
    by_arch[ArchKey(r) + "|" + r.recipe.Key()][r.replicate] = &r;
    sum += r.test_accuracy;
    time += r.train_time_s;
    s.min_accuracy = std::min(s.min_accuracy, r.test_accuracy);
    s.max_accuracy = std::max(s.max_accuracy, r.test_accuracy);
  }
  s.mean_accuracy = sum / static_cast<double>(data.rows.size());
  s.mean_train_time_s = time / static_cast<double>(data.rows.size());
  std::vector<double> t0, t1, v0, v1;
  double diff = 0.0;
  for (const auto& [key, reps] : by_arch) {
    if (!reps.count(0) || !reps.count(1)) continue;
    t0.push_back(reps.at(0)->test_accuracy);
    t1.push_back(reps.at(1)->test_accuracy);
    v0.push_back(reps.at(0)->val_accuracy);
    v1.push_back(reps.at(1)->val_accuracy);
    diff += std::abs(t0.back() - t1.back());
  }
  s.architectures = t0.size();
  if (!t0.empty()) {
    s.test_tau = KendallTau(t0, t1);
    s.val_tau = KendallTau(v0, v1);
    s.mean_abs_diff_pp = diff / static_cast<double>(t0.size());
  }
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
  for (const auto& [k, v] : ma) {
    const auto it = mb.find(k);
    if (it == mb.end()) continue;
    ta.push_back(v.first);
    tb.push_back(it->second.first);
    va.push_back(v.second);
    vb.push_back(it->second.second);
  }
  AgreementStats s;
  s.architectures = ta.size();
  if (!ta.empty()) {
    s.test_tau = KendallTau(ta, tb);
    s.val_tau = KendallTau(va, vb);
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

}  // namespace dcnas::proxy
