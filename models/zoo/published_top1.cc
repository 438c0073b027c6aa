#include "models/zoo/published_top1.h"

#include <cmath>
#include <map>
#include <set>

#include "common/errors.h"
#include "common/file_io.h"
#include "common/text.h"
#include "models/zoo/zoo.h"

namespace dcnas::models {

std::vector<PublishedTop1> ReadPublishedTop1(const std::string& path) {
  const std::vector<std::string> lines = Split(ReadFile(path), '\n');
  if (lines.empty() || lines[0].empty()) throw InputError(path + ": empty (expected a header)");
  const std::vector<std::string> header = Split(lines[0], ',');
  std::map<std::string, size_t> col;
  for (size_t i = 0; i < header.size(); ++i) col[header[i]] = i;
  for (const char* c : {"model", "top1", "resolution", "source"}) {
    if (!col.count(c)) {
      throw InputError(path + ":1: missing column '" + std::string(c) +
                       "' (model,top1,resolution,source[,note])");
    }
  }
  std::vector<PublishedTop1> rows;
  std::set<std::string> seen;
  for (size_t ln = 1; ln < lines.size(); ++ln) {
    if (lines[ln].empty() && ln + 1 == lines.size()) break;
    const std::string where = path + ":" + std::to_string(ln + 1);
    const std::vector<std::string> f = Split(lines[ln], ',');
    if (f.size() != header.size()) {
      throw InputError(where + ": " + std::to_string(f.size()) + " fields, header has " +
                       std::to_string(header.size()));
    }
    PublishedTop1 r;
    r.model = f[col.at("model")];
    if (!BuiltinModels().Contains(r.model)) {
      throw InputError(where + ": column 'model': '" + r.model + "' is not a zoo model");
    }
    if (!seen.insert(r.model).second) throw InputError(where + ": model '" + r.model + "' twice");
    r.top1 = ParseNumberField(f[col.at("top1")], where, "top1");
    if (!(r.top1 > 0.0 && r.top1 <= 100.0)) {
      throw InputError(where + ": column 'top1': " + f[col.at("top1")] + " not in (0, 100]");
    }
    const double res = ParseNumberField(f[col.at("resolution")], where, "resolution");
    if (res < 32 || res > 2048 || res != std::floor(res)) {
      throw InputError(where + ": column 'resolution': not a whole number in [32, 2048]");
    }
    r.resolution = static_cast<int>(res);
    r.source = f[col.at("source")];
    rows.push_back(std::move(r));
  }
  if (rows.size() < 3) throw InputError(path + ": fewer than 3 models");
  return rows;
}

}  // namespace dcnas::models
