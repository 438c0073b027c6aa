#include "sim/stack.h"

#include <filesystem>
#include <utility>

#include "common/config_tree.h"
#include "common/errors.h"
#include "sim/spec.h"

namespace dcnas::sim {
namespace {

ExecUnit ParseUnit(ConfigReader& r, const std::string& key) {
  return r.OneOf<ExecUnit>(key, {{"matrix", ExecUnit::kMatrix}, {"vector", ExecUnit::kVector}});
}

// The optional keys of a stack file and their defaults (the description, the switches and the
// per-dtype alignments), the one place those defaults are written: added where the file leaves
// them out, before --set (so that --set stack.KEY=VALUE reaches them; a misspelt key is still
// refused) and before ParseStack, which reads them as required keys.
void AddOptionalKeys(YAML::Node& root) {
  if (!root.IsMap()) return;
  AddMissingKeys(root, {{"description", ""},
                        {"gemm_min_tile", "0"},
                        {"grouped_conv_min_tile", "0"},
                        {"grouped_conv_backward_min_tile", "0"},
                        {"gemm_split_k", "false"},
                        {"gemm_tiled_cuda_cores", "false"},
                        {"winograd_tile", "0"},
                        {"inter_kernel_reuse", "false"},
                        {"async_launch", "false"},
                        {"intermediates_in_registers", "false"},
                        {"nchw_conv_transposes", "none"},
                        {"allreduce_overlap", "0"},
                        {"rematerialize_elementwise", "false"},
                        {"autocast", "false"}});
  const YAML::Node& read = root;
  if (read["fusion"] && read["fusion"].IsMap()) {
    YAML::Node fusion = root["fusion"];
    AddMissingKeys(fusion, {{"attention", "false"}});
  }
  if (!read["alignment"] || !read["alignment"].IsMap()) return;  // required: ParseStack names it
  AddMissingKeys(root["alignment"], {{"fp32", "0"}, {"fp16", "0"}, {"bf16", "0"}, {"int8", "0"}});
}

uint64_t Fingerprint(const StackProfile& s) {
  uint64_t h = 0x84222325cbf29ce4ULL;
  h = HashDouble(h, s.kernel_overhead_us);
  h = HashDouble(h, s.allreduce_overlap);
  for (uint64_t v : {uint64_t{s.fuse_batch_norm},
                     uint64_t{s.fuse_bias},
                     uint64_t{s.fused_activations},
                     uint64_t{s.fuse_residual_add},
                     uint64_t{s.fuse_se_multiply},
                     uint64_t{s.fuse_elementwise_chains},
                     uint64_t{s.fuse_attention},
                     static_cast<uint64_t>(s.max_group_ops),
                     static_cast<uint64_t>(s.depthwise_unit),
                     static_cast<uint64_t>(s.grouped_conv_unit),
                     static_cast<uint64_t>(s.grouped_conv_mapping),
                     static_cast<uint64_t>(s.alignment_fp32),
                     static_cast<uint64_t>(s.alignment_fp16),
                     static_cast<uint64_t>(s.alignment_bf16),
                     static_cast<uint64_t>(s.alignment_int8),
                     static_cast<uint64_t>(s.unaligned),
                     static_cast<uint64_t>(s.gemm_min_tile),
                     static_cast<uint64_t>(s.grouped_conv_min_tile),
                     static_cast<uint64_t>(s.grouped_conv_backward_min_tile),
                     uint64_t{s.gemm_split_k},
                     uint64_t{s.gemm_tiled_cuda_cores},
                     static_cast<uint64_t>(s.winograd_tile),
                     uint64_t{s.rematerialize_elementwise},
                     uint64_t{s.inter_kernel_reuse},
                     uint64_t{s.async_launch},
                     uint64_t{s.intermediates_in_registers},
                     static_cast<uint64_t>(s.nchw_conv_transposes),
                     uint64_t{s.autocast}}) {
    h = HashMix(h, v);
  }
  return h;
}

}  // namespace

int StackProfile::Alignment(models::DType dtype) const {
  switch (dtype) {
    case models::DType::kFp32:
      return alignment_fp32;
    case models::DType::kFp16:
      return alignment_fp16;
    case models::DType::kBf16:
      return alignment_bf16;
    case models::DType::kInt8:
      return alignment_int8;
  }
  return 0;
}

std::vector<std::string> StackNames() { return DataFileNames("stacks"); }

std::string DefaultStackFor(const std::string& accelerator_kind) {
  if (accelerator_kind == "tpu") return "xla-tpu";
  if (accelerator_kind == "gpu") return "tensorrt";
  return "libtorch-cpu";
}

StackProfile ParseStack(YAML::Node root, const std::string& file) {
  AddOptionalKeys(root);
  ConfigReader r(root, file, "");
  StackProfile s;
  s.file = file;
  s.name = r.String("name");
  s.description = r.String("description");
  s.kernel_overhead_us = r.Number("kernel_overhead_us", 0, 1e6);
  ConfigReader f = r.Map("fusion");
  s.fuse_batch_norm = f.Bool("batch_norm");
  s.fuse_bias = f.Bool("bias");
  for (const std::string& a : f.StringList("activations", true)) {
    try {
      s.fused_activations |= 1U << static_cast<int>(models::ParseActivation(a));
    } catch (const InputError& e) {
      f.Fail("activations", e.what());
    }
  }
  s.fuse_residual_add = f.Bool("residual_add");
  s.fuse_se_multiply = f.Bool("se_multiply");
  s.fuse_elementwise_chains = f.Bool("elementwise_chains");
  s.fuse_attention = f.Bool("attention");
  s.max_group_ops = static_cast<int>(f.Integer("max_group_ops", 1, 1024));
  f.Finish();
  s.depthwise_unit = ParseUnit(r, "depthwise_unit");
  s.grouped_conv_unit = ParseUnit(r, "grouped_conv_unit");
  s.grouped_conv_mapping =
      r.OneOf<GroupedMapping>("grouped_conv_mapping", {{"packed", GroupedMapping::kPacked},
                                                       {"expanded", GroupedMapping::kExpanded},
                                                       {"per_group", GroupedMapping::kPerGroup}});
  s.layout = r.OneOfWords("layout", {"nhwc", "nchw"});
  ConfigReader a = r.Map("alignment");
  s.alignment_fp32 = static_cast<int>(a.Integer("fp32", 0, 4096));
  s.alignment_fp16 = static_cast<int>(a.Integer("fp16", 0, 4096));
  s.alignment_bf16 = static_cast<int>(a.Integer("bf16", 0, 4096));
  s.alignment_int8 = static_cast<int>(a.Integer("int8", 0, 4096));
  s.unaligned = a.OneOf<UnalignedPolicy>(
      "unaligned", {{"pad", UnalignedPolicy::kPad}, {"fallback", UnalignedPolicy::kFallback}});
  a.Finish();
  s.gemm_min_tile = static_cast<int>(r.Integer("gemm_min_tile", 0, 4096));
  s.grouped_conv_min_tile = static_cast<int>(r.Integer("grouped_conv_min_tile", 0, 4096));
  s.grouped_conv_backward_min_tile =
      static_cast<int>(r.Integer("grouped_conv_backward_min_tile", 0, 4096));
  s.gemm_split_k = r.Bool("gemm_split_k");
  s.gemm_tiled_cuda_cores = r.Bool("gemm_tiled_cuda_cores");
  s.winograd_tile = static_cast<int>(r.Integer("winograd_tile", 0, 6));
  s.inter_kernel_reuse = r.Bool("inter_kernel_reuse");
  s.async_launch = r.Bool("async_launch");
  s.autocast = r.Bool("autocast");
  s.intermediates_in_registers = r.Bool("intermediates_in_registers");
  s.nchw_conv_transposes =
      r.OneOf<LayoutTransposes>("nchw_conv_transposes", {{"none", LayoutTransposes::kNone},
                                                         {"spatial", LayoutTransposes::kSpatial},
                                                         {"all", LayoutTransposes::kAll}});
  if (s.nchw_conv_transposes != LayoutTransposes::kNone && s.layout != "nchw") {
    r.Fail("nchw_conv_transposes",
           "layout transposes need layout: nchw (the layout is " + s.layout + ")");
  }
  s.allreduce_overlap = r.Number("allreduce_overlap", 0, 1);
  s.rematerialize_elementwise = r.Bool("rematerialize_elementwise");
  r.Finish();
  s.fingerprint = Fingerprint(s);
  return s;
}

StackProfile StackInLayout(const StackProfile& stack, const std::string& layout) {
  if (layout != "nhwc" && layout != "nchw") {
    throw InputError("stack " + stack.name + ": unknown layout '" + layout +
                     "' (one of: nhwc, nchw)");
  }
  StackProfile s = stack;
  s.layout = layout;
  // NHWC tensors feed the tensor cores as they are: nothing to transpose.
  if (layout == "nhwc") s.nchw_conv_transposes = LayoutTransposes::kNone;
  s.fingerprint = Fingerprint(s);
  return s;
}

StackProfile LoadStack(const std::string& name_or_path, const std::vector<Override>& overrides) {
  const std::string file = ResolveDataFile("stacks", name_or_path, "stack");
  const std::string dir = std::filesystem::path(file).parent_path().string();
  YAML::Node root = ResolveExtends(LoadYamlFile(file), file, dir.empty() ? "." : dir, nullptr);
  AddOptionalKeys(root);  // before the overrides, so that they reach the optional keys
  ApplyOverrides(root, overrides, file);
  StackProfile s = ParseStack(root, file);
  s.overrides = overrides;
  return s;
}

}  // namespace dcnas::sim
