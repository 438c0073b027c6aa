#include "models/zoo/published_top1.h"

#include <cmath>
#include <set>

#include "common/csv_file.h"
#include "common/data_dir.h"
#include "common/errors.h"
#include "common/text.h"
#include "models/zoo/zoo.h"

namespace dcnas::models {

std::vector<PublishedTop1> ReadPublishedTop1(const std::string& path) {
  const CsvFile csv = ReadCsvFile(path, {"model", "top1", "resolution", "source"},
                                  "model,top1,resolution,source[,note]");
  std::vector<PublishedTop1> rows;
  std::set<std::string> seen;
  for (const CsvFile::Row& row : csv.rows) {
    const std::string& where = row.where;
    PublishedTop1 r;
    r.model = csv.Field(row, "model");
    if (!BuiltinModels().Contains(r.model)) {
      throw InputError(where + ": column 'model': '" + r.model + "' is not a zoo model");
    }
    if (!seen.insert(r.model).second) throw InputError(where + ": model '" + r.model + "' twice");
    r.top1 = ParseNumberField(csv.Field(row, "top1"), where, "top1");
    if (!(r.top1 > 0.0 && r.top1 <= 100.0)) {
      throw InputError(where + ": column 'top1': " + csv.Field(row, "top1") + " not in (0, 100]");
    }
    const double res = ParseNumberField(csv.Field(row, "resolution"), where, "resolution");
    if (res < 32 || res > 2048 || res != std::floor(res)) {
      throw InputError(where + ": column 'resolution': not a whole number in [32, 2048]");
    }
    r.resolution = static_cast<int>(res);
    r.source = csv.Field(row, "source");
    rows.push_back(std::move(r));
  }
  if (rows.size() < 3) throw InputError(path + ": fewer than 3 models");
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
