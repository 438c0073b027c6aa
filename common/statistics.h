// Order statistics of a sample, shared by calibration reports, measurements and search studies.
#pragma once

#include <vector>

namespace dcnas {

// The median (mean of the two middle values for an even count). Throws InternalError when empty.
double Median(std::vector<double> values);
// The q-quantile, 0 <= q <= 1, interpolating linearly between order statistics (Hyndman and
// Fan's type 7, the default of R and NumPy). Throws InternalError when empty or q is outside.
double Quantile(std::vector<double> values, double q);

}  // namespace dcnas
