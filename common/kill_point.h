// Named crash points for the kill -9 tests: KillPoint("name") sends this process SIGKILL when
// the environment variable DCNAS_KILL_AT names that point ("name", or "name:N" for its N-th
// hit). Unset, it costs one getenv per call. The points sit where a crash is the hardest to
// survive (between a checkpoint's renames, after a row is written); tests/README.md lists them.
#pragma once

namespace dcnas {

void KillPoint(const char* name);

// The same for hangs: StallPoint("name") sleeps forever when DCNAS_STALL_AT names the point (for
// the tests of timeouts, e.g. an MPI worker that stops answering).
void StallPoint(const char* name);

}  // namespace dcnas
