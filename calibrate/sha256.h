// SHA-256 (FIPS 180-4) of a byte string, as lowercase hex: the provenance hash of the
// measurement files a calibration was fitted to.
#pragma once

#include <string>
#include <string_view>

namespace dcnas::calibrate {

std::string Sha256Hex(std::string_view data);

}  // namespace dcnas::calibrate
