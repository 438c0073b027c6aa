// What a calibration fits to: items for one pooled chip, --where filters, the pooled chips with
// their overrides, each chip's rows, and the reason when a selection keeps no row.
#include "calibrate/selection.h"

#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>

#include "common/errors.h"
#include "common/file_io.h"
#include "models/zoo/zoo.h"

namespace dcnas::calibrate {
namespace {

using Catch::Contains;

const std::vector<std::string> kPool = {"v100", "t4"};

const std::string kHeader =
    "model,device,stack,precision,batch_size,image_size,latency_ms,throughput_img_per_s,regime,"
    "source_id,source_ref,layout\n";

std::string Row(const std::string& model, const std::string& device, const std::string& batch,
                const std::string& layout, const std::string& regime = "engine_latency") {
  return model + "," + device + ",tensorrt,fp16," + batch + ",224,3.5,," + regime + ",src,ref," +
         layout + "\n";
}

// A measurement file in a scratch directory.
struct CsvFile {
  std::string path;
  explicit CsvFile(const std::string& text)
      : path((std::filesystem::temp_directory_path() /
              ("dcnas-selection-" + std::to_string(::getpid()) + ".csv"))
                 .string()) {
    WriteFileAtomic(path, text);
  }
  ~CsvFile() { std::filesystem::remove(path); }
};

const std::string kRows =
    kHeader + Row("resnet50", "v100", "8", "NCHW") + Row("efficientnet-b0", "v100", "8", "NHWC") +
    Row("resnet50", "t4", "1", "NCHW") + Row("no-such-net", "t4", "4", "NCHW");

TEST_CASE("an item names one pooled chip, or every chip", "[calibrate][unit]") {
  CHECK(SplitDeviceItem("--set", "t4:hbm.bandwidth_gbps=400", kPool) ==
        std::pair<int, std::string>{1, "hbm.bandwidth_gbps=400"});
  CHECK(SplitDeviceItem("--set", "cores=2", kPool) == std::pair<int, std::string>{-1, "cores=2"});
  // A colon after the first '=' belongs to the value.
  CHECK(SplitDeviceItem("--where", "stack_version=a:b", kPool) ==
        std::pair<int, std::string>{-1, "stack_version=a:b"});
  CHECK_THROWS_WITH(SplitDeviceItem("--where", "a100:layout=NCHW", kPool),
                    Contains("--where a100:layout=NCHW: a100 is not one of --accel v100,t4"));
  const std::vector<std::string> items = {"layout=NCHW", "t4:batch_size=1", "v100:model=x"};
  CHECK(DeviceItems("--where", items, kPool, 0) ==
        std::vector<std::string>{"layout=NCHW", "model=x"});
  CHECK(DeviceItems("--where", items, kPool, 1) ==
        std::vector<std::string>{"layout=NCHW", "batch_size=1"});
}

TEST_CASE("--where items are column filters, timings excluded", "[calibrate][unit]") {
  CHECK(ParseWhere({"layout=NCHW", "batch_size=8", "stack_version=a=b"}) ==
        std::map<std::string, std::string>{
            {"layout", "NCHW"}, {"batch_size", "8"}, {"stack_version", "a=b"}});
  CHECK_THROWS_WITH(ParseWhere({"layout"}), Contains("--where expects COLUMN=VALUE, got 'layout'"));
  CHECK_THROWS_WITH(ParseWhere({"=NCHW"}), Contains("--where expects COLUMN=VALUE"));
  CHECK_THROWS_WITH(ParseWhere({"latency_ms=3"}),
                    Contains("--where latency_ms=3: latency_ms is a timing"));
}

TEST_CASE("pooled chips carry their own overrides", "[calibrate][unit]") {
  const PooledChips chips = LoadPooledChips({"v100", "t4"}, {"t4:hbm.bandwidth_gbps=123"});
  CHECK(chips.devices == kPool);
  // A spec's name records its what-ifs; the device name is the file's.
  CHECK(chips.SpecNames() == std::vector<std::string>{"v100", "t4[hbm.bandwidth_gbps=123]"});
  REQUIRE(chips.specs.size() == 2);
  CHECK(chips.specs[0].hbm_bandwidth_gbps == sim::LoadAccelerator("v100").hbm_bandwidth_gbps);
  CHECK(chips.specs[1].hbm_bandwidth_gbps == 123);
  CHECK_THROWS_WITH(LoadPooledChips({"v100", "v100"}, {}), Contains("--accel names v100 twice"));
  CHECK_THROWS_WITH(LoadPooledChips({"v100"}, {"t4:cores=1"}),
                    Contains("--set t4:cores=1: t4 is not one of --accel v100"));
}

TEST_CASE("each chip's rows are selected, filtered and resolved", "[calibrate][unit]") {
  const CsvFile file(kRows);
  const RowRequest request{kPool, "tensorrt", "fp16", "", {"layout=NCHW"}};
  const SelectedRows rows = SelectRows({file.path}, request, models::BuiltinModels());
  CHECK(rows.regime == "engine_latency");
  CHECK(rows.selection.device == "v100,t4");
  CHECK(rows.selection.where == std::map<std::string, std::string>{{"layout", "NCHW"}});
  REQUIRE(rows.rows.size() == 3);
  CHECK(rows.rows[0].device == "v100");
  CHECK(rows.rows[1].device == "t4");
  REQUIRE(rows.resolved.usable.size() == 2);
  REQUIRE(rows.resolved.excluded.size() == 1);
  CHECK(rows.resolved.excluded[0].row.model == "no-such-net");
  CHECK(rows.sha256.size() == 64);
  // A filter for one chip leaves the other chip's rows alone.
  const SelectedRows one = SelectRows(
      {file.path}, {kPool, "tensorrt", "fp16", "", {"t4:batch_size=1"}}, models::BuiltinModels());
  CHECK(one.rows.size() == 3);
}

TEST_CASE("a selection that keeps no row says why", "[calibrate][unit]") {
  const CsvFile file(kRows + Row("resnet50", "v100", "8", "NCHW", "large_batch"));
  const auto& zoo = models::BuiltinModels();
  CHECK_THROWS_WITH(
      SelectRows({file.path}, {{"v100"}, "tensorrt", "fp16", "engine_latency", {"layout=NHCW"}},
                 zoo),
      Contains("--where leaves none of the 2 rows for v100 / tensorrt / fp16 / engine_latency:\n"
               "  layout=NHCW: the column holds 'NCHW', 'NHWC'"));
  CHECK_THROWS_WITH(
      SelectRows({file.path}, {kPool, "tensorrt", "fp16", "", {"t4:lay_out=NCHW"}}, zoo),
      Contains("--where leaves none of the 2 rows for t4 / tensorrt / fp16:\n"
               "  lay_out=NCHW: no row has the column"));
  CHECK_THROWS_WITH(SelectRows({file.path}, {{"a100"}, "tensorrt", "fp16", "", {}}, zoo),
                    Contains("no measurement rows for a100 / tensorrt / fp16; the files hold:\n"
                             "  t4 / tensorrt / fp16 / engine_latency: 2 rows\n"
                             "  v100 / tensorrt / fp16 / engine_latency: 2 rows\n"
                             "  v100 / tensorrt / fp16 / large_batch: 1 rows"));
  // The regimes are never mixed.
  CHECK_THROWS_WITH(SelectRows({file.path}, {{"v100"}, "tensorrt", "fp16", "", {}}, zoo),
                    Contains("regime"));
}

}  // namespace
}  // namespace dcnas::calibrate
