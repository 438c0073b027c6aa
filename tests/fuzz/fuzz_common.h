// Shared plumbing of the fuzz targets (tests/fuzz/README.md). Each target is one parser of user
// input, driven by libFuzzer (-Dfuzz=enabled, clang) or by fuzz_driver.cc over a corpus.
//
// The contract every target checks: a parser either succeeds or throws dcnas::InputError (exit
// code 2 in the CLI). Any other exception (an std::invalid_argument from a stray std::stoul, a
// yaml-cpp or nlohmann exception that escaped, an InternalError) would be exit code 1 or a
// crash for a user, so the target aborts and libFuzzer saves the input.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

#include "models/graph.h"
#include "sim/engine.h"

namespace dcnas::fuzz {

// Runs `body` on the input as text; aborts (after printing the exception) on anything but
// success or InputError.
int Guarded(const uint8_t* data, size_t size, const std::function<void(const std::string&)>& body);

// The shipped data directory (DCNAS_DATA_DIR, else the source tree's data/).
const std::string& Data();

// A small network (EfficientNet-B0 at 64 px, batch 2) and a default simulation setup (v100,
// tensorrt, default calibration): what a parsed chip, stack or calibration is exercised on.
const models::Graph& SmallGraph();
const sim::SimSetup& DefaultSetup();

// Simulates `graph` without per-op details and checks the report is finite and non-negative
// (aborts otherwise: a parser let through a value the simulator cannot use).
void SimulateChecked(const models::Graph& graph, const sim::AcceleratorSpec& spec,
                     const sim::StackProfile& stack, const sim::CalibrationParams& calibration);

}  // namespace dcnas::fuzz

// Defines the libFuzzer entry point of a target whose body takes the input as text.
#define DCNAS_FUZZ_TARGET(body_fn)                                          \
  extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) { \
    return dcnas::fuzz::Guarded(data, size, body_fn);                       \
  }
