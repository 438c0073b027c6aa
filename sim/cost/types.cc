#include "sim/cost/types.h"

namespace dcnas::sim::cost {

const char* BoundName(Bound bound) {
  switch (bound) {
    case Bound::kMatrix:
      return "matrix";
    case Bound::kVector:
      return "vector";
    case Bound::kMemory:
      return "memory";
    case Bound::kOverhead:
      return "overhead";
  }
  return "?";
}

const char* OpClassName(OpClass cls) {
  switch (cls) {
    case OpClass::kView:
      return "view";
    case OpClass::kConv:
      return "conv";
    case OpClass::kDepthwise:
      return "depthwise";
    case OpClass::kFc:
      return "fc";
    case OpClass::kElementwise:
      return "elementwise";
    case OpClass::kPool:
      return "pool";
    case OpClass::kDataMovement:
      return "data_movement";
  }
  return "?";
}

const char* DataflowName(Dataflow dataflow) {
  switch (dataflow) {
    case Dataflow::kWeightStationary:
      return "ws";
    case Dataflow::kOutputStationary:
      return "os";
    case Dataflow::kInputStationary:
      return "is";
  }
  return "ws";
}

}  // namespace dcnas::sim::cost
