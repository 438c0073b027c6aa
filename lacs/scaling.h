// Compound scaling of a block network (EfficientNet, Tan & Le 2019; EfficientNet-X, Li et al.
// 2021): coefficients, the member builder, the coefficient grid and the budget rules.
//
// A member at step phi of coefficients (alpha depth, beta width, gamma resolution) is the base
// network with
//   depth multiplier      d = alpha^phi   repeats per stage: ceil(d * repeats)
//   width multiplier      w = beta^phi    filters: the reference round_filters (to a multiple of
//                                         8, never below 90% of f * w; stem and head too)
//   input resolution      r = base_resolution * gamma^phi, rounded to the nearest multiple of
//                         `resolution_multiple` (8 by default; 16 is the other common choice)
// The depth and width multipliers compose with the base's own (a base that is already scaled
// keeps its multipliers and gains the new ones).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "models/block_string.h"
#include "models/graph.h"

namespace dcnas::lacs {

// Per-step compound-scaling coefficients.
struct Coefficients {
  double depth = 1.0;       // alpha
  double width = 1.0;       // beta
  double resolution = 1.0;  // gamma
  bool operator==(const Coefficients&) const = default;
};

// Throws InputError naming `what` unless every coefficient is finite and positive.
void ValidateCoefficients(const Coefficients& c, const std::string& what);

// The (width, depth, resolution) tuple of one member, as the reference code's scaling tables
// write it.
struct MemberTuple {
  double width = 1.0;
  double depth = 1.0;
  int resolution = 224;
  // > 0: replaces the base's SE coefficient (the released EfficientNet-X tables lower it as the
  // members grow: 4, 2, then 1); 0 keeps the base's, as dcnas's own families do.
  double se_coefficient = 0.0;
  bool operator==(const MemberTuple&) const = default;
};

// The nearest multiple of `multiple` to `resolution` (at least `multiple`); throws InputError
// for a non-positive multiple or a non-finite resolution.
int RoundResolution(double resolution, int multiple);

// The tuple of step `phi` (phi >= 0): alpha^phi, beta^phi, round(base_resolution * gamma^phi).
MemberTuple MemberAt(const Coefficients& c, int phi, int base_resolution, int resolution_multiple);

// The member builder: the base with its depth and width multiplied by the tuple's and the
// tuple's resolution. Throws InputError for a non-positive or non-finite tuple.
models::BlockNetworkSpec ScaleSpec(const models::BlockNetworkSpec& base, const MemberTuple& t);

// EfficientNet's FLOPs cost of coefficients: alpha * beta^2 * gamma^2 (FLOPs grow about this much
// per step).
double FlopsCost(const Coefficients& c);

// The per-step coefficients that reach `c` in `phi` steps: c^(1 / phi) for each.
Coefficients PerStep(const Coefficients& c, int phi);

// Output elements of every op of the graph per image (Dollar et al. 2021's "activations", the
// quantity that predicts the latency of memory-bound networks).
double ActivationsPerImage(const models::Graph& graph);

// A grid of coefficients: each axis an explicit list of values.
struct Grid {
  std::vector<double> depth, width, resolution;
};

// Parses "d=1.0:2.0:0.1,w=1.0:1.4:0.1,r=1.0:1.4:0.05": each axis (d or depth, w or width, r or
// resolution) as LO:HI:STEP (both ends included) or a single value or values separated by '/'
// ("r=1/1.15/1.3"); an axis left out keeps `defaults`' values. Throws InputError naming the part
// for an unknown axis, an unparsable or non-positive number, HI < LO, a step <= 0, or an axis of
// more than 200 values.
Grid ParseGrid(const std::string& text, const Grid& defaults);
std::string FormatGrid(const Grid& grid);  // "d=1/1.1/...,w=...,r=..."

// The default grid at phi = 1: depth 1.0-2.0, width 1.0-1.4 by 0.1, resolution 1.0-1.4 by 0.05.
Grid DefaultGrid();

// The budget of a scaling at step phi (how much more a member may cost than the base): 2^phi,
// met within +-tolerance (relative).
struct Budget {
  int phi = 1;
  double tolerance = 0.1;
  double Target() const;
  bool Meets(double cost_ratio) const;  // |ratio / target - 1| <= tolerance
};
// Throws InputError for phi < 1 or above 8, or a tolerance outside (0, 1).
void ValidateBudget(const Budget& b);

}  // namespace dcnas::lacs
