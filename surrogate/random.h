// Portable seeded randomness for splits and resampling: std::mt19937_64's output sequence is
// fixed by the standard, but std::uniform_int_distribution and std::shuffle are not, so these
// helpers give the same result on every standard library.
#pragma once

#include <cstddef>
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

namespace dcnas::surrogate {

using Rng = std::mt19937_64;

// SplitMix64 (Steele, Lea and Flood, OOPSLA 2014): advances `state` and returns a mixed value.
inline std::uint64_t SplitMix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// Uniform integer in [0, n) by rejection (no modulo bias). n must be > 0.
inline std::size_t UniformBelow(Rng& rng, std::size_t n) {
  const auto bound = static_cast<std::uint64_t>(n);
  const std::uint64_t limit = UINT64_MAX - UINT64_MAX % bound;
  std::uint64_t v = rng();
  while (v >= limit) v = rng();
  return static_cast<std::size_t>(v % bound);
}

// Fisher-Yates shuffle with UniformBelow.
template <typename T>
void Shuffle(std::vector<T>& v, Rng& rng) {
  for (std::size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[UniformBelow(rng, i)]);
}

}  // namespace dcnas::surrogate
