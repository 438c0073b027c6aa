// CostCache: memoises per-op work keyed by the op's signature (kind, attributes, input and output
// shapes, dtype) and the cost context (spec, stack, calibration, dtype fingerprints). Graphs that
// share layers (a model's repeated blocks, thousands of search candidates) cost each distinct
// layer once. An open-addressing table of plain structs: no allocation on a hit. Not thread-safe:
// use one cache per thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "sim/cost/op_cost.h"

namespace dcnas::sim {

class CostCache {
 public:
  explicit CostCache(size_t initial_slots = 4096);

  // The cached work, or nullptr.
  const cost::OpWork* Find(uint64_t signature, uint64_t context) const;
  void Insert(uint64_t signature, uint64_t context, const cost::OpWork& work);
  void Clear();

  size_t size() const { return size_; }
  uint64_t hits() const { return hits_; }
  uint64_t misses() const { return misses_; }

 private:
  struct Slot {
    uint64_t signature = 0;
    uint64_t context = 0;
    bool used = false;
    cost::OpWork work;
  };
  size_t Index(uint64_t signature, uint64_t context) const;
  void Grow();

  std::vector<Slot> slots_;
  size_t size_ = 0;
  mutable uint64_t hits_ = 0;
  mutable uint64_t misses_ = 0;
};

}  // namespace dcnas::sim
