#include "surrogate/surrogate_file.h"

#include <array>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <set>
#include <type_traits>

#include "common/errors.h"
#include "common/file_io.h"
#include "common/sha256.h"

namespace dcnas::surrogate {
namespace {

constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

enum class ContainerFormat { kJson, kUbj };

ContainerFormat ContainerFormatFromPath(const std::string& path) {
  const std::string ext = std::filesystem::path(path).extension().string();
  if (ext == ".json") return ContainerFormat::kJson;
  if (ext == ".ubj") return ContainerFormat::kUbj;
  throw InputError(path + ": unsupported surrogate file extension '" + ext +
                   "' (use .json or .ubj)");
}

// `where` is "FILE: " or "FILE: members[2]."; keys are appended to it.
void CheckKeys(const nlohmann::json& obj, const std::string& where,
               const std::set<std::string>& required, const std::set<std::string>& optional) {
  if (!obj.is_object()) {
    std::string at = where;
    while (!at.empty() && (at.back() == '.' || at.back() == ' ' || at.back() == ':')) at.pop_back();
    throw InputError(at + ": expected an object");
  }
  for (const auto& [key, value] : obj.items()) {
    if (!required.contains(key) && !optional.contains(key)) {
      throw InputError(where + key + ": unknown key");
    }
  }
  for (const auto& key : required) {
    if (!obj.contains(key)) throw InputError(where + key + ": missing");
  }
}

template <typename T>
T Get(const nlohmann::json& obj, const std::string& where, const char* key) {
  const nlohmann::json& v = obj.at(key);
  bool ok = false;
  if constexpr (std::is_same_v<T, std::string>) {
    ok = v.is_string();
  } else if constexpr (std::is_floating_point_v<T>) {
    ok = v.is_number();
  } else if constexpr (std::is_unsigned_v<T>) {
    ok = v.is_number_unsigned() || (v.is_number_integer() && v.get<std::int64_t>() >= 0);
  } else {
    ok = v.is_number_integer();
  }
  if (!ok) {
    std::string shown = v.dump();
    if (shown.size() > 60) shown = shown.substr(0, 60) + "...";
    throw InputError(where + key + ": wrong type: " + shown);
  }
  return v.get<T>();
}

}  // namespace

std::string EncodeBase64(std::string_view bytes) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  std::size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    const auto v = (static_cast<unsigned char>(bytes[i]) << 16) |
                   (static_cast<unsigned char>(bytes[i + 1]) << 8) |
                   static_cast<unsigned char>(bytes[i + 2]);
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += kAlphabet[(v >> 6) & 63];
    out += kAlphabet[v & 63];
  }
  if (i + 1 == bytes.size()) {
    const auto v = static_cast<unsigned char>(bytes[i]) << 16;
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += "==";
  } else if (i + 2 == bytes.size()) {
    const auto v = (static_cast<unsigned char>(bytes[i]) << 16) |
                   (static_cast<unsigned char>(bytes[i + 1]) << 8);
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += kAlphabet[(v >> 6) & 63];
    out += '=';
  }
  return out;
}

std::string DecodeBase64(std::string_view text) {
  std::array<int, 256> value{};
  value.fill(-1);
  for (int i = 0; i < 64; ++i) value[static_cast<unsigned char>(kAlphabet[i])] = i;
  if (text.size() % 4 != 0) throw InputError("base64 length is not a multiple of 4");
  std::string out;
  out.reserve(text.size() / 4 * 3);
  for (std::size_t i = 0; i < text.size(); i += 4) {
    int v[4];
    int pad = 0;
    for (int k = 0; k < 4; ++k) {
      const char c = text[i + k];
      if (c == '=' && i + 4 == text.size() && k >= 2) {
        v[k] = 0;
        ++pad;
      } else if (pad > 0 || (v[k] = value[static_cast<unsigned char>(c)]) < 0) {
        throw InputError("base64: invalid character at offset " + std::to_string(i + k));
      }
    }
    const auto triple = (v[0] << 18) | (v[1] << 12) | (v[2] << 6) | v[3];
    out += static_cast<char>((triple >> 16) & 0xFF);
    if (pad < 2) out += static_cast<char>((triple >> 8) & 0xFF);
    if (pad < 1) out += static_cast<char>(triple & 0xFF);
  }
  return out;
}

nlohmann::json SurrogateToJson(const Ensemble& ensemble, const nlohmann::json& metadata) {
  if (!metadata.is_object()) throw InputError("surrogate metadata must be a JSON object");
  nlohmann::json members = nlohmann::json::array();
  for (const Regressor& m : ensemble.members()) {
    const TrainingHistory& h = m.history();
    const std::string model = m.SaveToBuffer(ModelFormat::kUbj);
    members.push_back({{"best_iteration", h.best_iteration},
                       {"best_valid_rmse", h.best_valid_rmse},
                       {"rounds_trained", h.rounds_trained},
                       {"model_format", "ubj"},
                       {"model_sha256", Sha256Hex(model)},
                       {"model_base64", EncodeBase64(model)}});
  }
  return {{"format", kSurrogateFormatName},
          {"version", kSurrogateFormatVersion},
          {"num_features", ensemble.num_features()},
          {"member_count", ensemble.size()},
          {"metadata", metadata},
          {"members", std::move(members)}};
}

Surrogate SurrogateFromJson(const nlohmann::json& doc, const std::string& file, int nthread) {
  const std::string where = file + ": ";
  CheckKeys(doc, where,
            {"format", "version", "num_features", "member_count", "metadata", "members"}, {});
  const auto format = Get<std::string>(doc, where, "format");
  if (format != kSurrogateFormatName) {
    throw InputError(where + "format: '" + format + "' is not '" + kSurrogateFormatName + "'");
  }
  const auto version = Get<int>(doc, where, "version");
  if (version != kSurrogateFormatVersion) {
    throw InputError(where + "version: " + std::to_string(version) +
                     " is not supported (this "
                     "build reads version " +
                     std::to_string(kSurrogateFormatVersion) + ")");
  }
  const auto num_features = Get<std::size_t>(doc, where, "num_features");
  const auto member_count = Get<std::size_t>(doc, where, "member_count");
  if (!doc["metadata"].is_object()) throw InputError(where + "metadata: expected an object");
  const auto& members = doc["members"];
  if (!members.is_array()) throw InputError(where + "members: expected an array");
  if (member_count < 1) throw InputError(where + "member_count: must be >= 1");
  if (members.size() != member_count) {
    throw InputError(where + "member_count: " + std::to_string(member_count) + " but members has " +
                     std::to_string(members.size()) + " entries");
  }
  std::vector<Regressor> regressors;
  for (std::size_t k = 0; k < members.size(); ++k) {
    const std::string at = where + "members[" + std::to_string(k) + "].";
    const auto& m = members[k];
    CheckKeys(m, at, {"model_format", "model_base64"},
              {"best_iteration", "best_valid_rmse", "rounds_trained", "model_sha256"});
    const auto model_format = Get<std::string>(m, at, "model_format");
    if (model_format != "ubj" && model_format != "json") {
      throw InputError(at + "model_format: '" + model_format + "' is not one of: ubj, json");
    }
    std::string bytes;
    try {
      bytes = DecodeBase64(Get<std::string>(m, at, "model_base64"));
    } catch (const InputError& e) {
      throw InputError(at + "model_base64: " + e.what());
    }
    // The checksum (files written since it was added) vouches for the bytes; the structural check
    // of Regressor::FromBuffer (Forest::CheckModel) for what XGBoost's loader trusts, in any file.
    if (m.contains("model_sha256")) {
      const auto expected = Get<std::string>(m, at, "model_sha256");
      const std::string actual = Sha256Hex(bytes);
      if (expected != actual) {
        throw InputError(at + "model_sha256: the model's SHA-256 is " + actual + ", not " +
                         expected + " (the file is corrupt)");
      }
    }
    std::optional<Regressor> r;
    try {
      r.emplace(Regressor::FromBuffer(bytes, nthread));
    } catch (const XgboostError& e) {
      throw InputError(at + "model_base64: not a readable XGBoost model: " + e.what());
    } catch (const InputError& e) {
      throw InputError(at + "model_base64: " + e.what());
    }
    TrainingHistory h = r->history();
    if (m.contains("best_iteration")) h.best_iteration = Get<int>(m, at, "best_iteration");
    if (m.contains("best_valid_rmse")) h.best_valid_rmse = Get<double>(m, at, "best_valid_rmse");
    if (m.contains("rounds_trained")) h.rounds_trained = Get<int>(m, at, "rounds_trained");
    r->set_history(std::move(h));
    if (r->num_features() != num_features) {
      throw InputError(at + "model_base64: model takes " + std::to_string(r->num_features()) +
                       " features but num_features is " + std::to_string(num_features));
    }
    regressors.push_back(std::move(*r));
  }
  return {Ensemble(std::move(regressors)), doc["metadata"]};
}

void CheckSurrogatePath(const std::string& path) { (void)ContainerFormatFromPath(path); }

void SaveSurrogate(const std::string& path, const Ensemble& ensemble,
                   const nlohmann::json& metadata) {
  const ContainerFormat format = ContainerFormatFromPath(path);
  const nlohmann::json doc = SurrogateToJson(ensemble, metadata);
  if (format == ContainerFormat::kJson) {
    WriteFileAtomic(path, doc.dump(1) + "\n");
  } else {
    const std::vector<std::uint8_t> bytes = nlohmann::json::to_ubjson(doc);
    WriteFileAtomic(path, std::string(bytes.begin(), bytes.end()));
  }
}

namespace {

// The nesting a surrogate document has (4 levels) with room to spare; a deeper file is refused
// before any of it is built: nlohmann's readers recurse once per level, and a file of a few kB of
// '[' would otherwise exhaust the stack.
constexpr int kMaxSurrogateDepth = 64;

// A SAX pass that only counts the nesting and stops at kMaxSurrogateDepth (or at a syntax error,
// which the parse proper then reports).
class DepthCheck : public nlohmann::json_sax<nlohmann::json> {
 public:
  bool too_deep = false;
  bool null() override { return true; }
  bool boolean(bool /*val*/) override { return true; }
  bool number_integer(number_integer_t /*val*/) override { return true; }
  bool number_unsigned(number_unsigned_t /*val*/) override { return true; }
  bool number_float(number_float_t /*val*/, const string_t& /*s*/) override { return true; }
  bool string(string_t& /*val*/) override { return true; }
  bool binary(binary_t& /*val*/) override { return true; }
  bool start_object(std::size_t /*elements*/) override { return Enter(); }
  bool key(string_t& /*val*/) override { return true; }
  bool end_object() override { return Leave(); }
  bool start_array(std::size_t /*elements*/) override { return Enter(); }
  bool end_array() override { return Leave(); }
  bool parse_error(std::size_t /*position*/, const std::string& /*last_token*/,
                   const nlohmann::detail::exception& /*ex*/) override {
    return false;
  }

 private:
  bool Enter() {
    too_deep = ++depth_ > kMaxSurrogateDepth;
    return !too_deep;
  }
  bool Leave() {
    --depth_;
    return true;
  }
  int depth_ = 0;
};

}  // namespace

Surrogate ParseSurrogate(std::string_view bytes, const std::string& path, int nthread) {
  const ContainerFormat format = ContainerFormatFromPath(path);
  DepthCheck depth;
  nlohmann::json::sax_parse(bytes.begin(), bytes.end(), &depth,
                            format == ContainerFormat::kJson
                                ? nlohmann::json::input_format_t::json
                                : nlohmann::json::input_format_t::ubjson,
                            /*strict=*/false);
  if (depth.too_deep) {
    throw InputError(path + ": nested deeper than " + std::to_string(kMaxSurrogateDepth) +
                     " levels (a surrogate file has 4)");
  }
  nlohmann::json doc;
  try {
    doc = format == ContainerFormat::kJson ? nlohmann::json::parse(bytes)
                                           : nlohmann::json::from_ubjson(bytes);
  } catch (const nlohmann::json::exception& e) {
    throw InputError(path + ": not a valid " +
                     std::string(format == ContainerFormat::kJson ? "JSON" : "UBJSON") +
                     " document: " + e.what());
  }
  return SurrogateFromJson(doc, path, nthread);
}

Surrogate LoadSurrogate(const std::string& path, int nthread) {
  CheckSurrogatePath(path);
  return ParseSurrogate(ReadFile(path), path, nthread);
}

}  // namespace dcnas::surrogate
