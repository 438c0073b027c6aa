#include "models/graph_json.h"

#include <catch2/catch.hpp>

#include "common/errors.h"
#include "models/zoo/zoo.h"

namespace dcnas::models {
namespace {

std::string ErrorOf(const std::string& text) {
  try {
    GraphFromJsonString(text, "g.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

const char* kSmall = R"({
 "format": "dcnas-graph", "version": 1,
 "info": {"model": "small", "batch": 2, "dtype": "fp16"},
 "ops": [
  {"id": 0, "kind": "input", "shape": [2, 8, 8, 3]},
  {"id": 1, "kind": "conv2d", "inputs": [0], "kernel": [3, 3], "out_channels": 8},
  {"id": 2, "kind": "activation", "inputs": [1], "activation": "swish"}
 ]})";

}  // namespace

TEST_CASE("every zoo graph round-trips exactly through JSON", "[json]") {
  for (const std::string name : {"efficientnet-b0", "efficientnet-x-b0", "efficientnet-x-gpu-b3"}) {
    BuildOptions o;
    o.batch = 2;
    const Graph g = BuiltinModels().Build(name, o);
    const std::string text = GraphToJsonString(g);
    const Graph back = GraphFromJsonString(text, name);
    CHECK(back == g);
    CHECK(GraphToJsonString(back) == text);
  }
  // At every dtype (only the input op carries it; the other ops read back as built).
  for (const DType dtype : {DType::kFp16, DType::kBf16, DType::kInt8}) {
    BuildOptions o;
    o.dtype = dtype;
    for (const std::string name : {"efficientnet-b0", "vit-b-16"}) {
      const Graph g = BuiltinModels().Build(name, o);
      CHECK(GraphFromJsonString(GraphToJsonString(g), name) == g);
    }
  }
}

TEST_CASE("a hand-written graph reads with defaults", "[json]") {
  const Graph g = GraphFromJsonString(kSmall, "g.json");
  REQUIRE(g.size() == 3);
  CHECK(g.op(0).out.dtype == DType::kFp16);       // input dtype defaults to info.dtype
  CHECK(g.op(1).out.shape == Shape{2, 6, 6, 8});  // 3x3, no padding
  CHECK(g.op(1).attrs.padding == Padding{});      // default: explicit zero padding
}

TEST_CASE("malformed graphs give the path of the bad field", "[json]") {
  CHECK(ErrorOf("{").find("g.json: malformed JSON") != std::string::npos);
  CHECK(ErrorOf(R"({"format": "dcnas-graph", "version": 1, "ops": []})")
            .find("ops: expected a non-empty") != std::string::npos);
  std::string bad_kernel = kSmall;
  bad_kernel.replace(bad_kernel.find("[3, 3]"), 6, "[3, -1]");
  CHECK(ErrorOf(bad_kernel).find("ops[1].kernel[1]") != std::string::npos);
  std::string unknown_key = kSmall;
  unknown_key.replace(unknown_key.find("\"out_channels\""), 14, "\"outchannels\"");
  const std::string m = ErrorOf(unknown_key);
  CHECK(m.find("ops[1].outchannels: unknown key") != std::string::npos);
  std::string bad_act = kSmall;
  bad_act.replace(bad_act.find("swish"), 5, "swoosh");
  CHECK(ErrorOf(bad_act).find("ops[2].activation") != std::string::npos);
  std::string bad_input = kSmall;
  bad_input.replace(bad_input.find("\"inputs\": [1]"), 13, "\"inputs\": [7]");
  CHECK(ErrorOf(bad_input).find("ops[2].inputs[0]") != std::string::npos);
  std::string mismatch = kSmall;
  mismatch.replace(mismatch.find("\"out_channels\": 8"), 17,
                   "\"out_channels\": 8, \"output_shape\": [2, 8, 8, 9]");
  CHECK(ErrorOf(mismatch).find("shape inference gives 2x6x6x8") != std::string::npos);
  std::string bad_shape = kSmall;
  bad_shape.replace(bad_shape.find("\"out_channels\": 8"), 17,
                    "\"out_channels\": 8, \"groups\": 2");
  CHECK(ErrorOf(bad_shape).find("not divisible by groups") != std::string::npos);
  std::string cycle = kSmall;
  cycle.replace(cycle.find("\"inputs\": [0]"), 13, "\"inputs\": [2]");
  CHECK(ErrorOf(cycle).find("cycle") != std::string::npos);
}

TEST_CASE("hostile graph files are refused with short messages", "[json]") {
  // 60,000 levels of nesting: refused while parsing, not by a recursive dump.
  const std::string deep = std::string(60000, '[') + std::string(60000, ']');
  const std::string d = ErrorOf(R"({"format": "dcnas-graph", "version": 1, "x": )" + deep + "}");
  CHECK(d.find("g.json: nested deeper than 64 levels") != std::string::npos);
  // A huge bad value is described by its size, not quoted.
  std::string big = kSmall;
  std::string array = "[0";
  for (int i = 0; i < 100000; ++i) array += ",0";
  array += "]";
  big.replace(big.find("\"out_channels\": 8"), 17, "\"out_channels\": " + array);
  const std::string m = ErrorOf(big);
  CHECK(m.find("ops[1].out_channels: expected an integer, got an array of 100001 values") !=
        std::string::npos);
  CHECK(m.size() < 200);
  // The info block's batch must agree with the input op's.
  std::string lie = kSmall;
  lie.replace(lie.find("\"batch\": 2"), 10, "\"batch\": 64");
  CHECK(ErrorOf(lie).find("info.batch: says 64 but the input op") != std::string::npos);
  std::string no_batch = kSmall;
  no_batch.replace(no_batch.find("\"batch\": 2, "), 12, "");
  CHECK(GraphFromJsonString(no_batch, "g.json").info().batch == 2);  // from the input op
  // The ops are the truth: info fields that contradict them are errors naming the field.
  BuildOptions o;
  o.batch = 1;
  const std::string zoo = GraphToJsonString(BuiltinModels().Build("efficientnet-b0", o));
  std::string dtype = zoo;
  const std::string fp32 = "\"dtype\": \"fp32\"";
  dtype.replace(dtype.find(fp32), fp32.size(), "\"dtype\": \"bf16\"");
  CHECK(ErrorOf(dtype).find("info.dtype: says bf16 but the input op") != std::string::npos);
  std::string resolution = zoo;
  const std::string px = "\"resolution\": 224";
  resolution.replace(resolution.find(px), px.size(), "\"resolution\": 300");
  CHECK(ErrorOf(resolution).find("info.resolution: says 300 but the input op") !=
        std::string::npos);
  std::string classes = zoo;
  const std::string thousand = "\"num_classes\": 1000";
  classes.replace(classes.find(thousand), thousand.size(), "\"num_classes\": 10");
  CHECK(ErrorOf(classes).find("info.num_classes: says 10 but the graph's output op") !=
        std::string::npos);
  // A key given twice is refused (JSON would keep the last one silently), with its path.
  std::string format_twice = kSmall;
  format_twice.replace(format_twice.find("\"version\": 1"), 12,
                       "\"version\": 1, \"format\": \"dcnas-graph\"");
  CHECK(ErrorOf(format_twice) == "g.json: key 'format' given twice");
  std::string nested_twice = kSmall;
  nested_twice.replace(nested_twice.find("\"out_channels\": 8"), 17,
                       "\"out_channels\": 8, \"out_channels\": 16");
  CHECK(ErrorOf(nested_twice) == "g.json: key 'ops[].out_channels' given twice");
  std::string info_twice = kSmall;
  info_twice.replace(info_twice.find("\"batch\": 2"), 10, "\"batch\": 2, \"batch\": 2");
  CHECK(ErrorOf(info_twice) == "g.json: key 'info.batch' given twice");
  // Shapes whose counts would overflow are refused, not printed as negative MACs.
  std::string huge = kSmall;
  huge.replace(huge.find("[2, 8, 8, 3]"), 12, "[1, 1099511627776, 1099511627776, 3]");
  CHECK(ErrorOf(huge).find("has a dimension above 2^24") != std::string::npos);
  std::string wide = kSmall;
  wide.replace(wide.find("[2, 8, 8, 3]"), 12, "[1, 16000000, 16000000, 3]");
  CHECK(ErrorOf(wide).find("more than 2^40 elements") != std::string::npos);
}

}  // namespace dcnas::models
