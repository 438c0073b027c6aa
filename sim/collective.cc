#include "sim/collective.h"

#include <cmath>

#include "common/errors.h"

namespace dcnas::sim {

double RingAllReduceSeconds(double bytes, int participants, double bytes_per_s,
                            double step_latency_s) {
  if (participants <= 1 || bytes <= 0) return 0.0;
  const double p = participants;
  return 2.0 * (p - 1.0) / p * bytes / bytes_per_s + 2.0 * (p - 1.0) * step_latency_s;
}

TorusShape TorusShapeFor(int chips) {
  TorusShape s;
  for (int x = 1; static_cast<int64_t>(x) * x <= chips; ++x) {
    if (chips % x == 0) s.x = x;
  }
  s.y = chips / s.x;
  return s;
}

double Torus2dAllReduceSeconds(double bytes, TorusShape shape, double bytes_per_s,
                               double step_latency_s) {
  if (bytes <= 0) return 0.0;
  // Reduce-scatter plus all-gather along x is a ring all-reduce of all bytes over x; the y ring
  // all-reduces the 1/x shard each chip holds after the reduce-scatter.
  return RingAllReduceSeconds(bytes, shape.x, bytes_per_s, step_latency_s) +
         RingAllReduceSeconds(bytes / shape.x, shape.y, bytes_per_s, step_latency_s);
}

AllReduceCost GradientAllReduce(double bytes, int chips, const AcceleratorSpec& spec,
                                double interconnect_efficiency, double memory_efficiency) {
  if (chips < 1) throw InputError("chips must be at least 1, got " + std::to_string(chips));
  AllReduceCost c;
  const InterconnectSpec& ic = spec.interconnect;
  c.intra_chip_s = RingAllReduceSeconds(bytes, ic.replicas_per_chip,
                                        spec.HbmBytesPerS() * memory_efficiency, 0.0);
  c.algorithm = "none";
  if (chips > 1) {
    if (!ic.present()) {
      throw InputError("accelerator '" + spec.name + "' (" + spec.file +
                       ") has no interconnect section: it cannot simulate a slice of " +
                       std::to_string(chips) +
                       " chips (add interconnect: topology, "
                       "links_per_chip, link_bandwidth_gbps; sim/README.md)");
    }
    const double link = ic.link_bandwidth_gbps * 1e9 * interconnect_efficiency;
    const double latency = ic.link_latency_us * 1e-6;
    c.participants = chips;
    if (ic.topology == "torus2d") {
      const TorusShape shape = TorusShapeFor(chips);
      c.inter_chip_s =
          Torus2dAllReduceSeconds(bytes, shape, link * (ic.links_per_chip / 2.0), latency);
      c.algorithm = "torus2d " + std::to_string(shape.x) + "x" + std::to_string(shape.y);
    } else {
      c.inter_chip_s = RingAllReduceSeconds(bytes, chips, link * ic.links_per_chip, latency);
      c.algorithm = "ring";
    }
  }
  c.seconds = c.intra_chip_s + c.inter_chip_s;
  return c;
}

}  // namespace dcnas::sim
