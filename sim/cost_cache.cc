#include "sim/cost_cache.h"

namespace dcnas::sim {

CostCache::CostCache(size_t initial_slots) {
  size_t n = 16;
  while (n < initial_slots) n <<= 1;
  slots_.resize(n);
}

size_t CostCache::Index(uint64_t signature, uint64_t context) const {
  uint64_t h = signature ^ (context * 0x9e3779b97f4a7c15ULL);
  h ^= h >> 29;
  h *= 0xbf58476d1ce4e5b9ULL;
  h ^= h >> 32;
  return static_cast<size_t>(h) & (slots_.size() - 1);
}

const cost::OpWork* CostCache::Find(uint64_t signature, uint64_t context) const {
  for (size_t i = Index(signature, context);; i = (i + 1) & (slots_.size() - 1)) {
    const Slot& s = slots_[i];
    if (!s.used) {
      ++misses_;
      return nullptr;
    }
    if (s.signature == signature && s.context == context) {
      ++hits_;
      return &s.work;
    }
  }
}

void CostCache::Insert(uint64_t signature, uint64_t context, const cost::OpWork& work) {
  if ((size_ + 1) * 10 > slots_.size() * 7) Grow();
  for (size_t i = Index(signature, context);; i = (i + 1) & (slots_.size() - 1)) {
    Slot& s = slots_[i];
    if (!s.used) {
      s = Slot{signature, context, true, work};
      ++size_;
      return;
    }
    if (s.signature == signature && s.context == context) {
      s.work = work;
      return;
    }
  }
}

void CostCache::Grow() {
  std::vector<Slot> old = std::move(slots_);
  slots_.assign(old.size() * 2, Slot{});
  size_ = 0;
  for (const Slot& s : old) {
    if (s.used) Insert(s.signature, s.context, s.work);
  }
}

void CostCache::Clear() {
  slots_.assign(slots_.size(), Slot{});
  size_ = 0;
  hits_ = 0;
  misses_ = 0;
}

}  // namespace dcnas::sim
