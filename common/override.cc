#include "common/override.h"

#include "common/errors.h"

namespace dcnas {

Override ParseOverride(const std::string& text) {
  const size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0) {
    throw InputError("--set '" + text + "': expected key.path=value");
  }
  return Override{text.substr(0, eq), text.substr(eq + 1)};
}

}  // namespace dcnas
