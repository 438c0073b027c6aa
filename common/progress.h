// How often long work reports progress: every 5 seconds, or every DCNAS_PROGRESS_S seconds when
// that variable is set (0: after every step; the tests use it to see the lines without waiting).
#pragma once

#include <chrono>

namespace dcnas {

std::chrono::steady_clock::duration ProgressInterval();

// True at most once per ProgressInterval(): `last` is when it last said true.
bool ProgressDue(std::chrono::steady_clock::time_point& last);

}  // namespace dcnas
