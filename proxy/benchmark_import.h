// Published NAS benchmarks as accuracy data (`dcnas accuracy-data import`): a registry of file
// formats, each reading a benchmark's file into accuracy rows of a search space, one row per
// published training (replicate), each canonical network once, with the benchmark's training
// recipe (its dataset included) and the source (the benchmark's name and the file's SHA-256).
// The rows are ordinary accuracy data: params and FLOPs of the space's full-size network, the
// trained network's parameters under the recipe, the space's fingerprint.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "proxy/accuracy_data.h"
#include "space/space.h"

namespace dcnas::proxy {

struct BenchmarkImport {
  AccuracyData data;   // the rows, by canonical encoding, replicates in order
  std::string sha256;  // of the benchmark file
  ProxyRecipe recipe;
  size_t keys = 0;      // entries in the file
  size_t networks = 0;  // distinct canonical networks
  // The trained network's parameter count (proxy_params: the space's network under the recipe)
  // against the count the benchmark publishes: networks that differ, the largest relative
  // difference |ours - theirs| / theirs and a key where it occurs.
  size_t params_differ = 0;
  double max_params_rel_diff = 0.0;
  std::string max_params_key;
  // The benchmark's FLOPs against the trained network's multiply-accumulates (benchmarks count
  // FLOPs as MACs, each by its own rules): the median ratio theirs / ours, its range, and the
  // networks more than 10% from the median (a value the benchmark got wrong, or another network
  // than the key names), with the farthest one's key.
  double flops_ratio_median = 0.0;
  double flops_ratio_min = 0.0;
  double flops_ratio_max = 0.0;
  size_t flops_outliers = 0;
  std::string flops_farthest_key;
};

struct BenchmarkFormat {
  std::string name;         // --format
  std::string description;  // one paragraph for --help: the file, the mapping, the recipe
  // Reads the file's text (`path` names it in errors) into rows of `space`.
  std::function<BenchmarkImport(const std::string& text, const std::string& path,
                                const space::Space& space)>
      read;
};

// The formats this dcnas reads (registered in benchmark_import.cc, one function per format).
const std::vector<BenchmarkFormat>& BenchmarkFormats();
// Throws InputError naming `name` and the formats there are.
const BenchmarkFormat& FindBenchmarkFormat(const std::string& name);

// Reads `file` in `format`. Bad input throws InputError naming the file, the key and the value.
BenchmarkImport ReadBenchmark(const std::string& format, const std::string& file,
                              const space::Space& space);
// ReadBenchmark, then writes the rows as an accuracy CSV at `out` atomically (a temporary file
// renamed into place: a refused or interrupted import leaves no file or the old one).
BenchmarkImport ImportBenchmark(const std::string& format, const std::string& file,
                                const space::Space& space, const std::string& out);

}  // namespace dcnas::proxy
