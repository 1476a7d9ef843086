// Histogram bucket bounds (prometheus-cpp's Histogram::BucketBoundaries) for the server's
// latency histograms.
#pragma once

#include <vector>

namespace contactsim::server::metrics {

// 1-2-5 bounds from `lowest` up to and including `highest` (e.g. 1e-5 ... 10 s), each the double
// nearest its decimal text, so that the exposition prints it exactly (1e-05, not
// 1.0000000000000001e-05).
std::vector<double> OneTwoFiveBounds(double lowest, double highest);

}  // namespace contactsim::server::metrics
