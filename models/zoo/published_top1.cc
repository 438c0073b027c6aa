#include "models/zoo/published_top1.h"

#include <cmath>
#include <set>
#include <tuple>

#include "common/csv_file.h"
#include "common/data_dir.h"
#include "common/errors.h"
#include "common/text.h"
#include "models/zoo/zoo.h"

namespace dcnas::models {

namespace {

// A training-data token: lower-case letters, digits and '-', as the format lists them.
bool IsDataToken(const std::string& s) {
  if (s.empty()) return false;
  for (const char c : s) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')) return false;
  }
  return true;
}

}  // namespace

std::vector<PublishedTop1> ReadPublishedTable(const std::string& path) {
  const CsvFile csv = ReadCsvFile(path, {"model", "top1", "resolution", "source"},
                                  "model,top1,resolution,source[,training_data][,recipe][,note]");
  std::vector<PublishedTop1> rows;
  std::set<std::tuple<std::string, std::string, std::string, int>> seen;
  std::set<std::string> built;
  for (const CsvFile::Row& row : csv.rows) {
    const std::string& where = row.where;
    PublishedTop1 r;
    r.model = csv.Field(row, "model");
    if (!BuiltinModels().Contains(r.model)) {
      throw InputError(where + ": column 'model': '" + r.model + "' is not a zoo model");
    }
    try {
      if (built.insert(r.model).second) BuiltinModels().Build(r.model, BuildOptions{});
    } catch (const InputError& e) {
      throw InputError(where + ": column 'model': " + e.what());
    }
    r.top1 = ParseNumberField(csv.Field(row, "top1"), where, "top1");
    if (!(r.top1 > 0.0 && r.top1 <= 100.0)) {
      throw InputError(where + ": column 'top1': " + csv.Field(row, "top1") + " not in (0, 100]");
    }
    const double res = ParseNumberField(csv.Field(row, "resolution"), where, "resolution");
    if (res < 32 || res > 2048 || res != std::floor(res)) {
      throw InputError(where + ": column 'resolution': not a whole number in [32, 2048]");
    }
    r.resolution = static_cast<int>(res);
    if (csv.Has("training_data") && !csv.Field(row, "training_data").empty()) {
      r.training_data = csv.Field(row, "training_data");
      if (!IsDataToken(r.training_data)) {
        throw InputError(where + ": column 'training_data': '" + r.training_data +
                         "' is not a data token (lower-case letters, digits, '-': in1k, in21k, "
                         "jft300m-ns, ...)");
      }
    }
    if (csv.Has("recipe")) r.recipe = csv.Field(row, "recipe");
    r.source = csv.Field(row, "source");
    if (r.source.empty()) throw InputError(where + ": column 'source': empty");
    if (!seen.insert({r.model, r.training_data, r.recipe, r.resolution}).second) {
      std::string key = "model '" + r.model + "'";
      if (csv.Has("training_data") || csv.Has("recipe")) {
        key += " (training data " + r.training_data + ", recipe '" + r.recipe + "', " +
               std::to_string(r.resolution) + " px)";
      }
      throw InputError(where + ": " + key + " twice");
    }
    rows.push_back(std::move(r));
  }
  return rows;
}

std::vector<PublishedTop1> PrimaryRows(const std::vector<PublishedTop1>& rows) {
  std::vector<PublishedTop1> primary;
  std::map<std::string, size_t> index;  // model -> position in `primary`
  for (const PublishedTop1& r : rows) {
    if (r.training_data != kImageNet1kOnly) continue;
    const auto it = index.find(r.model);
    if (it == index.end()) {
      index[r.model] = primary.size();
      primary.push_back(r);
      continue;
    }
    PublishedTop1& best = primary[it->second];
    if (r.resolution < best.resolution || (r.resolution == best.resolution && r.top1 > best.top1)) {
      best = r;
    }
  }
  return primary;
}

std::vector<PublishedTop1> ReadPublishedTop1(const std::string& path) {
  std::vector<PublishedTop1> rows = PrimaryRows(ReadPublishedTable(path));
  if (rows.size() < 3) {
    throw InputError(path + ": fewer than 3 models with an ImageNet-1k-only row (training_data " +
                     kImageNet1kOnly + ")");
  }
  return rows;
}

std::map<std::string, double> ShippedPublishedTop1() {
  std::map<std::string, double> top1;
  for (const PublishedTop1& row : ReadPublishedTop1(DataPath(kPublishedTop1File))) {
    top1[row.model] = row.top1;
  }
  return top1;
}

}  // namespace dcnas::models
