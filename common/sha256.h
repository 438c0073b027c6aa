// SHA-256 (FIPS 180-4) of a byte string, as lowercase hex: the provenance hash of
// measurement files, surrogate training data and trained-accuracy caches.
#pragma once

#include <string>
#include <string_view>

namespace dcnas {

std::string Sha256Hex(std::string_view data);

}  // namespace dcnas
