#include "search/strategy.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <deque>
#include <limits>
#include <numeric>
#include <string>
#include <unordered_set>
#include <utility>

#include "common/errors.h"
#include "common/table.h"
#include "common/text.h"

namespace dcnas::search {
namespace {

// Sets of encodings the strategies ask membership of on every proposal (never iterated, so the
// order of a hash set cannot reach a search): FNV-1a over the choice indices.
struct EncodingHash {
  size_t operator()(const space::Encoding& e) const {
    uint64_t h = 1469598103934665603ULL;
    for (const int v : e) h = (h ^ static_cast<uint32_t>(v)) * 1099511628211ULL;
    return static_cast<size_t>(h);
  }
};
using EncodingSet = std::unordered_set<space::Encoding, EncodingHash>;

// Evolution and NSGA-II breed a child again this many times when it was asked before.
constexpr int kChildRetries = 10;
// The predictor's candidates: this share are random samples, the rest mutations of the elite.
constexpr double kPredictorRandomShare = 0.1;

// A uniform index in [0, n).
size_t Uniform(std::mt19937_64& rng, size_t n) { return static_cast<size_t>(rng() % n); }

// A uniform double in [0, 1) from 53 random bits (std::uniform_real_distribution is not
// specified bit for bit across standard libraries).
double Unit(std::mt19937_64& rng) {
  return static_cast<double>(rng() >> 11U) * (1.0 / 9007199254740992.0);
}

// A standard normal draw (Box-Muller on two Unit draws; std::normal_distribution is not specified
// bit for bit either).
double StandardNormal(std::mt19937_64& rng) {
  const double u1 = 1.0 - Unit(rng);  // (0, 1]
  const double u2 = Unit(rng);
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * 3.14159265358979323846 * u2);
}

void CheckObjectives(const std::vector<std::vector<double>>& objectives) {
  for (size_t i = 0; i < objectives.size(); ++i) {
    if (objectives[i].size() != objectives[0].size()) {
      throw InputError("point " + std::to_string(i) + " has " +
                       std::to_string(objectives[i].size()) + " objectives, point 0 has " +
                       std::to_string(objectives[0].size()));
    }
    for (double v : objectives[i]) {
      if (std::isnan(v)) throw InputError("point " + std::to_string(i) + " has a NaN objective");
    }
  }
}

// True when `a` dominates `b` (maximisation).
bool Dominates(const std::vector<double>& a, const std::vector<double>& b) {
  bool better = false;
  for (size_t k = 0; k < a.size(); ++k) {
    if (a[k] < b[k]) return false;
    if (a[k] > b[k]) better = true;
  }
  return better;
}

// Crowding distance of the points `front` (indices into `objectives`), in front order.
std::vector<double> CrowdingDistance(const std::vector<std::vector<double>>& objectives,
                                     const std::vector<size_t>& front) {
  const size_t n = front.size();
  std::vector<double> distance(n, 0.0);
  if (n == 0) return distance;
  const double inf = std::numeric_limits<double>::infinity();
  for (size_t k = 0; k < objectives[front[0]].size(); ++k) {
    std::vector<size_t> order(n);
    std::iota(order.begin(), order.end(), size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      return objectives[front[a]][k] < objectives[front[b]][k];
    });
    const double lo = objectives[front[order.front()]][k];
    const double hi = objectives[front[order.back()]][k];
    distance[order.front()] = inf;
    distance[order.back()] = inf;
    if (hi <= lo) continue;
    for (size_t j = 1; j + 1 < n; ++j) {
      distance[order[j]] +=
          (objectives[front[order[j + 1]]][k] - objectives[front[order[j - 1]]][k]) / (hi - lo);
    }
  }
  return distance;
}

// ---------------------------------------------------------------------------------------------
// random

class RandomStrategy : public Strategy {
 public:
  using Strategy::Strategy;
  std::string_view name() const override { return "random"; }

 protected:
  std::vector<space::Encoding> Propose(int n) override {
    std::vector<space::Encoding> out;
    for (int i = 0; i < n; ++i) out.push_back(Draw());
    return out;
  }
  void Observe(uint64_t /*id*/, const space::Encoding& /*encoding*/,
               const Evaluation& /*e*/) override {}

 private:
  space::Encoding Draw() {
    space::Encoding e = space().Sample(rng());
    for (int retry = 0; retry < options().random_retries && seen_.count(e) > 0; ++retry) {
      e = space().Sample(rng());
    }
    seen_.insert(e);
    return e;
  }
  EncodingSet seen_;
};

// ---------------------------------------------------------------------------------------------
// evolution

class EvolutionStrategy : public Strategy {
 public:
  using Strategy::Strategy;
  std::string_view name() const override { return "evolution"; }

 protected:
  std::vector<space::Encoding> Propose(int n) override {
    const auto start = static_cast<uint64_t>(EvolutionStart(options()));
    std::vector<space::Encoding> out;
    for (int i = 0; i < n; ++i) {
      space::Encoding e;
      if (next_id() + static_cast<uint64_t>(i) < start || population_.empty()) {
        e = RandomDistinct();
      } else {
        e = space().Mutate(Tournament(), options().mutations, rng());
        for (int retry = 0; retry < kChildRetries && seen_.count(e) > 0; ++retry) {
          e = space().Mutate(Tournament(), options().mutations, rng());
        }
        if (seen_.count(e) > 0) e = RandomDistinct();
      }
      seen_.insert(e);
      out.push_back(std::move(e));
    }
    return out;
  }
  void Observe(uint64_t /*id*/, const space::Encoding& encoding, const Evaluation& e) override {
    population_.emplace_back(encoding, e.reward);
    if (population_.size() > static_cast<size_t>(options().population)) population_.pop_front();
  }

 private:
  space::Encoding RandomDistinct() {
    space::Encoding e = space().Sample(rng());
    for (int retry = 0; retry < options().random_retries && seen_.count(e) > 0; ++retry) {
      e = space().Sample(rng());
    }
    return e;
  }
  // The best of `tournament` members drawn without replacement (partial Fisher-Yates); the
  // earliest drawn wins ties.
  const space::Encoding& Tournament() {
    const size_t size = population_.size();
    const size_t s = std::min(size, static_cast<size_t>(TournamentSize(options())));
    std::vector<size_t> idx(size);
    std::iota(idx.begin(), idx.end(), size_t{0});
    size_t best = size;
    for (size_t j = 0; j < s; ++j) {
      std::swap(idx[j], idx[j + Uniform(rng(), size - j)]);
      if (best == size || population_[idx[j]].second > population_[best].second) best = idx[j];
    }
    return population_[best].first;
  }
  std::deque<std::pair<space::Encoding, double>> population_;  // oldest first
  EncodingSet seen_;                                           // every encoding asked
};

// ---------------------------------------------------------------------------------------------
// rl

class ReinforceStrategy : public Strategy {
 public:
  ReinforceStrategy(const space::Space& space, const StrategyOptions& options)
      : Strategy(space, options) {
    for (int count : space.choice_counts()) {
      logits_.emplace_back(static_cast<size_t>(count), 0.0);
    }
  }
  std::string_view name() const override { return "rl"; }

 protected:
  std::vector<space::Encoding> Propose(int n) override {
    std::vector<space::Encoding> out;
    for (int i = 0; i < n; ++i) {
      space::Encoding raw;
      space::Encoding e;
      bool found = false;
      for (int draw = 0; draw <= options().rl_max_redraws && !found; ++draw) {
        raw = SamplePolicy();
        e = space().Canonical(raw);
        found = space().IsValid(e);
      }
      if (!found) {
        e = space().Sample(rng());
        raw = e;
      }
      samples_[next_id() + static_cast<uint64_t>(i)] = std::move(raw);
      out.push_back(std::move(e));
    }
    return out;
  }

  void Observe(uint64_t id, const space::Encoding& /*encoding*/, const Evaluation& e) override {
    const auto it = samples_.find(id);
    const space::Encoding raw = std::move(it->second);
    samples_.erase(it);
    const double decay = options().baseline_decay;
    if (!baseline_started_) {
      baseline_ = e.reward;
      baseline_started_ = true;
    }
    double advantage = e.reward - baseline_;
    if (options().rl_normalize_advantage) {
      const double sd = std::sqrt(variance_);
      advantage = sd > 0.0 ? advantage / sd : 0.0;
    }
    variance_ = decay * variance_ + (1.0 - decay) * (e.reward - baseline_) * (e.reward - baseline_);
    baseline_ = decay * baseline_ + (1.0 - decay) * e.reward;

    const double lr = options().learning_rate;
    for (size_t pos = 0; pos < logits_.size(); ++pos) {
      const std::vector<double> p = Softmax(logits_[pos]);
      double entropy = 0.0;
      for (double q : p) {
        if (q > 0.0) entropy -= q * std::log(q);
      }
      for (size_t j = 0; j < p.size(); ++j) {
        const double onehot = static_cast<int>(j) == raw[pos] ? 1.0 : 0.0;
        double grad = advantage * (onehot - p[j]);
        if (options().entropy_weight > 0.0 && p[j] > 0.0) {
          grad += options().entropy_weight * (-p[j] * (std::log(p[j]) + entropy));
        }
        logits_[pos][j] += lr * grad;
      }
    }
  }

 private:
  static std::vector<double> Softmax(const std::vector<double>& logits) {
    const double top = *std::max_element(logits.begin(), logits.end());
    std::vector<double> p(logits.size());
    double sum = 0.0;
    for (size_t j = 0; j < p.size(); ++j) sum += p[j] = std::exp(logits[j] - top);
    for (double& q : p) q /= sum;
    return p;
  }
  space::Encoding SamplePolicy() {
    space::Encoding raw(logits_.size());
    for (size_t pos = 0; pos < logits_.size(); ++pos) {
      const std::vector<double> p = Softmax(logits_[pos]);
      const double u = Unit(rng());
      double acc = 0.0;
      int pick = static_cast<int>(p.size()) - 1;
      for (size_t j = 0; j < p.size(); ++j) {
        acc += p[j];
        if (u < acc) {
          pick = static_cast<int>(j);
          break;
        }
      }
      raw[pos] = pick;
    }
    return raw;
  }
  std::vector<std::vector<double>> logits_;
  std::unordered_map<uint64_t, space::Encoding> samples_;  // raw samples of the pending candidates
  double baseline_ = 0.0;
  double variance_ = 0.0;
  bool baseline_started_ = false;
};

// ---------------------------------------------------------------------------------------------
// nsga2

class Nsga2Strategy : public Strategy {
 public:
  using Strategy::Strategy;
  std::string_view name() const override { return "nsga2"; }

 protected:
  void Check(const Evaluation& e) const override {
    if (e.objectives.empty()) {
      throw InputError("nsga2 needs objectives in every evaluation (none given)");
    }
  }

  std::vector<space::Encoding> Propose(int n) override {
    if (generation_.empty() && told_in_generation_ == handed_out_) NextGeneration();
    std::vector<space::Encoding> out;
    while (static_cast<int>(out.size()) < n && handed_out_ < generation_.size()) {
      out.push_back(generation_[handed_out_++]);
    }
    return out;
  }

  void Observe(uint64_t /*id*/, const space::Encoding& encoding, const Evaluation& e) override {
    told_.push_back({encoding, e.objectives});
    ++told_in_generation_;
    if (told_in_generation_ == generation_.size() && handed_out_ == generation_.size()) {
      Select();
      generation_.clear();
      handed_out_ = 0;
      told_in_generation_ = 0;
    }
  }

 private:
  struct Member {
    space::Encoding encoding;
    std::vector<double> objectives;
  };

  // Parents + the told generation -> the best `population` by rank, then crowding distance.
  void Select() {
    std::vector<Member> all = parents_;
    for (Member& m : told_) all.push_back(std::move(m));
    told_.clear();
    std::vector<std::vector<double>> objectives;
    objectives.reserve(all.size());
    for (const Member& m : all) objectives.push_back(m.objectives);
    const std::vector<int> ranks = NonDominatedRanks(objectives);
    const int max_rank = all.empty() ? -1 : *std::max_element(ranks.begin(), ranks.end());
    const auto size = static_cast<size_t>(options().population);
    parents_.clear();
    rank_.clear();
    crowding_.clear();
    for (int r = 0; r <= max_rank && parents_.size() < size; ++r) {
      std::vector<size_t> front;
      for (size_t i = 0; i < all.size(); ++i) {
        if (ranks[i] == r) front.push_back(i);
      }
      const std::vector<double> distance = CrowdingDistance(objectives, front);
      std::vector<size_t> order(front.size());
      std::iota(order.begin(), order.end(), size_t{0});
      if (parents_.size() + front.size() > size) {
        std::stable_sort(order.begin(), order.end(),
                         [&](size_t a, size_t b) { return distance[a] > distance[b]; });
      }
      for (size_t j = 0; j < order.size() && parents_.size() < size; ++j) {
        parents_.push_back(all[front[order[j]]]);
        rank_.push_back(r);
        crowding_.push_back(distance[order[j]]);
      }
    }
  }

  size_t BinaryTournament() {
    const size_t a = Uniform(rng(), parents_.size());
    const size_t b = Uniform(rng(), parents_.size());
    if (rank_[a] != rank_[b]) return rank_[a] < rank_[b] ? a : b;
    return crowding_[b] > crowding_[a] ? b : a;
  }

  void NextGeneration() {
    const auto size = static_cast<size_t>(options().population);
    generation_.clear();
    for (size_t i = 0; i < size; ++i) {
      space::Encoding child;
      for (int retry = 0; retry <= (parents_.empty() ? options().random_retries : kChildRetries);
           ++retry) {
        if (parents_.empty()) {
          child = space().Sample(rng());
        } else {
          const space::Encoding& a = parents_[BinaryTournament()].encoding;
          const space::Encoding& b = parents_[BinaryTournament()].encoding;
          child =
              Unit(rng()) < options().crossover_probability ? space().Crossover(a, b, rng()) : a;
          child = space().Mutate(child, options().mutations, rng());
        }
        if (seen_.count(child) == 0) break;
      }
      seen_.insert(child);
      generation_.push_back(std::move(child));
    }
  }

  std::vector<Member> parents_;
  std::vector<int> rank_;
  std::vector<double> crowding_;
  std::vector<space::Encoding> generation_;  // the generation being handed out and told
  size_t handed_out_ = 0;
  size_t told_in_generation_ = 0;
  std::vector<Member> told_;  // told members of the current generation
  EncodingSet seen_;
};

// ---------------------------------------------------------------------------------------------
// predictor

class PredictorStrategy : public Strategy {
 public:
  PredictorStrategy(const space::Space& space, const StrategyOptions& options)
      : Strategy(space, options), model_(space, options.model) {}
  std::string_view name() const override { return "predictor"; }

 protected:
  std::vector<space::Encoding> Propose(int n) override {
    std::vector<space::Encoding> out;
    const auto start = static_cast<uint64_t>(options().start.value_or(kPredictorStart));
    while (static_cast<int>(out.size()) < n &&
           (next_id() + out.size() < start || encodings_.empty())) {
      out.push_back(RandomUnasked());
    }
    if (static_cast<int>(out.size()) == n) return out;
    Refit();
    std::vector<space::Encoding> pool = Candidates();
    std::vector<double> prior_mean, prior_sd;
    if (options().prior) CallPrior(pool, prior_mean, prior_sd);
    std::vector<double> score(pool.size());
    for (size_t i = 0; i < pool.size(); ++i) {
      double mean = 0.0, sd = 0.0;
      model_.Predict(pool[i], mean, sd);
      if (options().prior) {
        mean += prior_mean[i];
        sd = std::sqrt(sd * sd + prior_sd[i] * prior_sd[i]);
      }
      score[i] =
          mean + sd * (options().acquisition == Acquisition::kThompson ? StandardNormal(rng())
                                                                       : options().kappa);
    }
    std::vector<size_t> order(pool.size());
    std::iota(order.begin(), order.end(), size_t{0});
    const size_t take = std::min(order.size(), static_cast<size_t>(n) - out.size());
    std::partial_sort(
        order.begin(), order.begin() + static_cast<std::ptrdiff_t>(take), order.end(),
        [&](size_t a, size_t b) { return score[a] != score[b] ? score[a] > score[b] : a < b; });
    for (size_t j = 0; j < take; ++j) {
      asked_.insert(pool[order[j]]);
      out.push_back(std::move(pool[order[j]]));
    }
    // Fewer candidates than asked (a nearly exhausted space): random networks, asked before
    // only when no other is found.
    while (static_cast<int>(out.size()) < n) out.push_back(RandomUnasked());
    return out;
  }

  void Observe(uint64_t /*id*/, const space::Encoding& encoding, const Evaluation& e) override {
    if (!told_.insert(encoding).second) return;  // a repeat: its result is known
    encodings_.push_back(encoding);
    rewards_.push_back(e.reward);
    double target = e.reward;
    if (options().prior) {
      std::vector<double> mean, sd;
      CallPrior({encoding}, mean, sd);
      target -= mean[0];
    }
    model_.Add(encoding, target);
  }

 private:
  space::Encoding RandomUnasked() {
    space::Encoding e = space().Sample(rng());
    for (int retry = 0; retry < options().random_retries && asked_.count(e) > 0; ++retry) {
      e = space().Sample(rng());
    }
    asked_.insert(e);
    return e;
  }

  // Refits the model on every distinct told network (the residual of the prior, with one).
  void Refit() {
    if (fitted_on_ == model_.size()) return;
    model_.Refit(rng());
    fitted_on_ = model_.size();
  }

  // Mutations of the elite (taken in turn) and random samples, none asked before, no duplicates.
  std::vector<space::Encoding> Candidates() {
    const auto size = static_cast<size_t>(options().candidates);
    std::vector<size_t> elite(encodings_.size());
    std::iota(elite.begin(), elite.end(), size_t{0});
    const size_t top = std::min(elite.size(), static_cast<size_t>(options().elite));
    std::partial_sort(elite.begin(), elite.begin() + static_cast<std::ptrdiff_t>(top), elite.end(),
                      [&](size_t a, size_t b) {
                        return rewards_[a] != rewards_[b] ? rewards_[a] > rewards_[b] : a < b;
                      });
    elite.resize(top);
    const auto randoms = static_cast<size_t>(kPredictorRandomShare * static_cast<double>(size));
    std::vector<space::Encoding> pool;
    EncodingSet in_pool;
    auto add = [&](space::Encoding e) {
      if (asked_.count(e) == 0 && in_pool.insert(e).second) pool.push_back(std::move(e));
    };
    for (size_t i = 0; i < 4 * size && pool.size() + randoms < size; ++i) {
      const int k = 1 + static_cast<int>(Uniform(rng(), static_cast<size_t>(options().mutations)));
      add(space().Mutate(encodings_[elite[i % elite.size()]], k, rng()));
    }
    for (size_t i = 0; i < 4 * size && pool.size() < size; ++i) add(space().Sample(rng()));
    return pool;
  }

  void CallPrior(const std::vector<space::Encoding>& pool, std::vector<double>& mean,
                 std::vector<double>& sd) const {
    options().prior(pool, mean, sd);
    if (mean.size() != pool.size() || sd.size() != pool.size()) {
      throw InputError("the predictor's prior returned " + std::to_string(mean.size()) +
                       " means and " + std::to_string(sd.size()) + " standard deviations for " +
                       std::to_string(pool.size()) + " encodings");
    }
    for (size_t i = 0; i < pool.size(); ++i) {
      if (!std::isfinite(mean[i]) || !std::isfinite(sd[i]) || sd[i] < 0.0) {
        throw InputError("the predictor's prior returned mean " + FormatSignificant(mean[i]) +
                         ", std " + FormatSignificant(sd[i]) + " for " + space().ToText(pool[i]));
      }
    }
  }

  PredictorModel model_;
  std::vector<space::Encoding> encodings_;  // distinct told networks, in telling order
  std::vector<double> rewards_;
  EncodingSet told_;
  EncodingSet asked_;
  size_t fitted_on_ = 0;  // results the model was last fitted on
};

void ValidateOptions(const std::string& name, const StrategyOptions& o) {
  auto fail = [&](const std::string& option, const std::string& value, const std::string& rule) {
    throw InputError("strategy " + name + ": --" + option + " " + value + " must be " + rule);
  };
  const std::vector<std::string> params = StrategyParameters(name);
  const auto takes = [&](const char* p) {
    return std::find(params.begin(), params.end(), p) != params.end();
  };
  if (o.random_retries < 0) fail("random_retries", std::to_string(o.random_retries), ">= 0");
  if (takes("population") && o.population < 1) {
    fail("population", std::to_string(o.population), ">= 1");
  }
  if (takes("mutations") && o.mutations < 1) fail("mutations", std::to_string(o.mutations), ">= 1");
  if (takes("tournament") && (TournamentSize(o) < 1 || TournamentSize(o) > o.population)) {
    fail("tournament", std::to_string(TournamentSize(o)),
         "in 1..population (--population " + std::to_string(o.population) + ")");
  }
  if (takes("start") && o.start && *o.start < 0) fail("start", std::to_string(*o.start), ">= 0");
  if (name == "rl") {
    if (!(o.learning_rate > 0.0) || !std::isfinite(o.learning_rate)) {
      fail("learning_rate", FormatSignificant(o.learning_rate), "> 0");
    }
    if (!(o.baseline_decay >= 0.0 && o.baseline_decay < 1.0)) {
      fail("baseline_decay", FormatSignificant(o.baseline_decay), "in [0, 1)");
    }
    if (!(o.entropy_weight >= 0.0) || !std::isfinite(o.entropy_weight)) {
      fail("entropy_weight", FormatSignificant(o.entropy_weight), ">= 0");
    }
    if (o.rl_max_redraws < 0) fail("rl_max_redraws", std::to_string(o.rl_max_redraws), ">= 0");
  }
  if (name == "nsga2" && !(o.crossover_probability >= 0.0 && o.crossover_probability <= 1.0)) {
    fail("crossover_probability", FormatSignificant(o.crossover_probability), "in [0, 1]");
  }
  if (name == "predictor") {
    if (o.candidates < 1) fail("candidates", std::to_string(o.candidates), ">= 1");
    if (o.elite < 1) fail("elite", std::to_string(o.elite), ">= 1");
    if (o.model.members < 1) fail("ensemble", std::to_string(o.model.members), ">= 1");
    if (!std::isfinite(o.kappa) || o.kappa < 0.0) {
      fail("kappa", FormatSignificant(o.kappa), "finite and >= 0");
    }
  }
}

}  // namespace

Strategy::Strategy(const space::Space& space, const StrategyOptions& options)
    : space_(space), options_(options), rng_(options.seed) {}

void Strategy::Check(const Evaluation& /*evaluation*/) const {}

std::vector<Candidate> Strategy::Ask(int n) {
  if (n < 0) throw InputError("Ask(" + std::to_string(n) + "): the count must be >= 0");
  const std::lock_guard<std::mutex> lock(mutex_);
  std::vector<space::Encoding> encodings = Propose(n);
  if (encodings.size() > static_cast<size_t>(n)) {
    throw InternalError("strategy " + std::string(name()) + " proposed " +
                        std::to_string(encodings.size()) + " candidates for Ask(" +
                        std::to_string(n) + ")");
  }
  std::vector<Candidate> out;
  out.reserve(encodings.size());
  for (space::Encoding& e : encodings) {
    pending_[next_id_] = e;
    out.push_back({next_id_++, std::move(e)});
  }
  return out;
}

void Strategy::Tell(const Candidate& candidate, const Evaluation& evaluation) {
  const std::lock_guard<std::mutex> lock(mutex_);
  const std::string what = "Tell(candidate " + std::to_string(candidate.id) + ")";
  const auto it = pending_.find(candidate.id);
  if (it == pending_.end()) {
    throw InputError(what + ": " +
                     (candidate.id < next_id_ ? "told already" : "unknown id (never asked)"));
  }
  if (it->second != candidate.encoding) {
    throw InputError(what + ": encoding " + space_.ToText(candidate.encoding) +
                     " differs from the one asked, " + space_.ToText(it->second));
  }
  if (!std::isfinite(evaluation.reward)) {
    throw InputError(what + ": reward " + FormatSignificant(evaluation.reward) + " is not finite");
  }
  for (double v : evaluation.objectives) {
    if (!std::isfinite(v))
      throw InputError(what + ": objective " + FormatSignificant(v) + " is not finite");
  }
  if (objectives_seen_ && evaluation.objectives.size() != objective_count_) {
    throw InputError(what + ": " + std::to_string(evaluation.objectives.size()) +
                     " objectives, earlier tells had " + std::to_string(objective_count_));
  }
  Check(evaluation);
  objectives_seen_ = true;
  objective_count_ = evaluation.objectives.size();
  const space::Encoding encoding = std::move(it->second);
  pending_.erase(it);
  ++told_;
  Observe(candidate.id, encoding, evaluation);
}

uint64_t Strategy::asked() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return next_id_;
}

uint64_t Strategy::told() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return told_;
}

size_t Strategy::pending() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return pending_.size();
}

int TournamentSize(const StrategyOptions& options) {
  return options.tournament.value_or(std::max(1, options.population / 2));
}

int EvolutionStart(const StrategyOptions& options) {
  return options.start.value_or(std::max(1, options.population / 4));
}

std::string AcquisitionName(Acquisition a) { return a == Acquisition::kThompson ? "ts" : "ucb"; }

Acquisition ParseAcquisition(const std::string& name) {
  if (name == "ts") return Acquisition::kThompson;
  if (name == "ucb") return Acquisition::kUcb;
  throw InputError(
      "--acquisition '" + name +
      "': not an acquisition (valid: ts, independent Thompson sampling; ucb, the upper "
      "confidence bound)");
}

namespace {

void CheckStrategyName(const std::string& name) {
  const std::vector<std::string> names = StrategyNames();
  if (std::find(names.begin(), names.end(), name) == names.end()) {
    throw InputError("unknown strategy '" + name + "' (valid: " + Join(names, ", ") + ")" +
                     DidYouMean(name, names));
  }
}

}  // namespace

std::vector<std::string> StrategyParameters(const std::string& name) {
  CheckStrategyName(name);
  if (name == "evolution") return {"population", "tournament", "mutations", "start"};
  if (name == "nsga2") return {"population", "mutations"};
  if (name == "predictor") {
    return {"start",    "mutations", "candidates",  "elite",
            "ensemble", "model",     "acquisition", "kappa"};
  }
  return {};
}

void SetStrategyParameter(StrategyOptions& options, const std::string& strategy,
                          const std::string& name, const std::string& value) {
  const std::vector<std::string> own = StrategyParameters(strategy);
  if (std::find(own.begin(), own.end(), name) == own.end()) {
    throw InputError("strategy parameter '" + name + "' does not apply to " + strategy +
                     (own.empty() ? " (it takes none)" : " (it takes " + Join(own, ", ") + ")"));
  }
  const auto integer = [&] {
    int v = 0;
    const char* end = value.data() + value.size();
    const auto r = std::from_chars(value.data(), end, v);
    if (value.empty() || r.ec != std::errc() || r.ptr != end) {
      throw InputError("strategy parameter " + name + ": expected an integer, got '" + value + "'");
    }
    return v;
  };
  if (name == "population") options.population = integer();
  if (name == "tournament") options.tournament = integer();
  if (name == "mutations") options.mutations = integer();
  if (name == "start") options.start = integer();
  if (name == "candidates") options.candidates = integer();
  if (name == "elite") options.elite = integer();
  if (name == "ensemble") options.model.members = integer();
  if (name == "model") options.model.kind = ParsePredictorModel(value);
  if (name == "acquisition") options.acquisition = ParseAcquisition(value);
  if (name == "kappa") {
    double v = 0.0;
    const char* end = value.data() + value.size();
    const auto r = std::from_chars(value.data(), end, v);
    if (value.empty() || r.ec != std::errc() || r.ptr != end || !std::isfinite(v)) {
      throw InputError("strategy parameter kappa: expected a number, got '" + value + "'");
    }
    options.kappa = v;
  }
}

std::vector<std::string> StrategyNames() {
  return {"random", "evolution", "rl", "nsga2", "predictor"};
}

std::unique_ptr<Strategy> MakeStrategy(const std::string& name, const space::Space& space,
                                       const StrategyOptions& options) {
  CheckStrategyName(name);
  ValidateOptions(name, options);
  if (name == "random") return std::make_unique<RandomStrategy>(space, options);
  if (name == "evolution") return std::make_unique<EvolutionStrategy>(space, options);
  if (name == "rl") return std::make_unique<ReinforceStrategy>(space, options);
  if (name == "nsga2") return std::make_unique<Nsga2Strategy>(space, options);
  return std::make_unique<PredictorStrategy>(space, options);
}

std::vector<int> NonDominatedRanks(const std::vector<std::vector<double>>& objectives) {
  CheckObjectives(objectives);
  const size_t n = objectives.size();
  std::vector<std::vector<size_t>> dominated(n);  // points that i dominates
  std::vector<int> count(n, 0);                   // how many points dominate i
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = i + 1; j < n; ++j) {
      if (Dominates(objectives[i], objectives[j])) {
        dominated[i].push_back(j);
        ++count[j];
      } else if (Dominates(objectives[j], objectives[i])) {
        dominated[j].push_back(i);
        ++count[i];
      }
    }
  }
  std::vector<int> rank(n, 0);
  std::vector<size_t> front;
  for (size_t i = 0; i < n; ++i) {
    if (count[i] == 0) front.push_back(i);
  }
  for (int r = 0; !front.empty(); ++r) {
    std::vector<size_t> next;
    for (size_t i : front) {
      rank[i] = r;
      for (size_t j : dominated[i]) {
        if (--count[j] == 0) next.push_back(j);
      }
    }
    front = std::move(next);
  }
  return rank;
}

std::vector<size_t> ParetoFront(const std::vector<std::vector<double>>& objectives) {
  CheckObjectives(objectives);
  std::vector<size_t> front;
  if (!objectives.empty() && objectives[0].size() == 2) {
    // Two objectives: by the first, descending. A point is dominated by a point of a larger first
    // objective with a second at least as large, or by one of the same first and a larger second.
    std::vector<size_t> order(objectives.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(),
              [&](size_t a, size_t b) { return objectives[a][0] > objectives[b][0]; });
    bool any_before = false;
    double best_before = 0.0;  // the largest second objective of the larger first objectives
    for (size_t g = 0; g < order.size();) {
      size_t end = g;
      double best_here = objectives[order[g]][1];
      while (end < order.size() && !(objectives[order[end]][0] < objectives[order[g]][0])) {
        best_here = std::max(best_here, objectives[order[end]][1]);
        ++end;
      }
      for (size_t k = g; k < end; ++k) {
        const double y = objectives[order[k]][1];
        if (!(any_before && best_before >= y) && !(y < best_here)) front.push_back(order[k]);
      }
      best_before = any_before ? std::max(best_before, best_here) : best_here;
      any_before = true;
      g = end;
    }
    std::sort(front.begin(), front.end());
    return front;
  }
  for (size_t i = 0; i < objectives.size(); ++i) {
    bool dominated = false;
    for (size_t j = 0; j < objectives.size() && !dominated; ++j) {
      dominated = j != i && Dominates(objectives[j], objectives[i]);
    }
    if (!dominated) front.push_back(i);
  }
  return front;
}

double MnasReward(double accuracy, double latency, double target, double w) {
  if (!std::isfinite(accuracy) || !std::isfinite(latency) || !std::isfinite(target) ||
      !std::isfinite(w)) {
    throw InputError("reward: non-finite input (accuracy " + FormatSignificant(accuracy) +
                     ", latency " + FormatSignificant(latency) + ", target " +
                     FormatSignificant(target) + ", w " + FormatSignificant(w) + ")");
  }
  if (target <= 0.0)
    throw InputError("reward: target " + FormatSignificant(target) + " must be > 0");
  if (latency <= 0.0)
    throw InputError("reward: latency " + FormatSignificant(latency) + " must be > 0");
  if (accuracy < 0.0)
    throw InputError("reward: accuracy " + FormatSignificant(accuracy) + " must be >= 0");
  return accuracy * std::pow(latency / target, w);
}

double HardReward(double accuracy, double latency, double target) {
  const double soft = MnasReward(accuracy, latency, target, -1.0);  // validates the inputs
  return latency <= target ? accuracy : soft;
}

}  // namespace dcnas::search
