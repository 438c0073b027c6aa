#include "common/strict_json.h"

#include <set>

#include "common/errors.h"

namespace dcnas {

std::string DuplicateJsonKey::Text() const {
  std::string out;
  for (const std::string& p : path) {
    if (p == "[]") {
      out += p;
    } else {
      out += (out.empty() ? "" : ".") + p;
    }
  }
  return out + (out.empty() ? "" : ".") + key;
}

namespace {

// nlohmann's DOM builder behind a SAX handler that also watches the keys and the depth. (Its
// callback parser would do the same, but after every object it scans the enclosing array for
// discarded values: quadratic in the number of ops of a graph.)
class KeysOnceSax {
 public:
  using json = nlohmann::json;
  KeysOnceSax(json& result, std::optional<DuplicateJsonKey>& twice, int max_depth,
              const std::string& too_deep)
      : dom_(result, true), twice_(twice), max_depth_(max_depth), too_deep_(too_deep) {}

  bool null() { return dom_.null(); }
  bool boolean(bool v) { return dom_.boolean(v); }
  bool number_integer(json::number_integer_t v) { return dom_.number_integer(v); }
  bool number_unsigned(json::number_unsigned_t v) { return dom_.number_unsigned(v); }
  bool number_float(json::number_float_t v, const json::string_t& s) {
    return dom_.number_float(v, s);
  }
  bool string(json::string_t& v) { return dom_.string(v); }
  bool binary(json::binary_t& v) { return dom_.binary(v); }
  bool start_object(std::size_t n) {
    Open(true);
    return dom_.start_object(n);
  }
  bool key(json::string_t& k) {
    Frame& f = open_.back();
    f.key = k;
    if (!f.keys.insert(k).second && !twice_) {
      DuplicateJsonKey d;
      for (size_t i = 0; i + 1 < open_.size(); ++i) {
        d.path.push_back(open_[i].object ? open_[i].key : "[]");
      }
      d.key = k;
      twice_ = d;
    }
    return dom_.key(k);
  }
  bool end_object() {
    open_.pop_back();
    return dom_.end_object();
  }
  bool start_array(std::size_t n) {
    Open(false);
    return dom_.start_array(n);
  }
  bool end_array() {
    open_.pop_back();
    return dom_.end_array();
  }
  // The exception's own type (parse_error, out_of_range), so that callers catch it as they would
  // from nlohmann::json::parse.
  template <class Exception>
  bool parse_error(std::size_t position, const std::string& token, const Exception& e) {
    return dom_.parse_error(position, token, e);  // throws it
  }

 private:
  // One frame per open object or array: an object's keys so far and its current key.
  struct Frame {
    bool object = false;
    std::set<std::string> keys;
    std::string key;
  };
  void Open(bool object) {
    open_.push_back({object, {}, {}});
    if (max_depth_ > 0 && static_cast<int>(open_.size()) > max_depth_) {
      throw InputError(too_deep_);
    }
  }

  nlohmann::detail::json_sax_dom_parser<json> dom_;
  std::optional<DuplicateJsonKey>& twice_;
  int max_depth_;
  const std::string& too_deep_;
  std::vector<Frame> open_;
};

}  // namespace

nlohmann::json ParseJsonKeysOnce(const std::string& text, std::optional<DuplicateJsonKey>& twice,
                                 int max_depth, const std::string& too_deep) {
  twice.reset();
  nlohmann::json result;
  KeysOnceSax sax(result, twice, max_depth, too_deep);
  nlohmann::json::sax_parse(text, &sax);
  return result;
}

}  // namespace dcnas
