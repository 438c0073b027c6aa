// Vision transformers and ConvNeXt, built from the IR's tensor ops as torchvision 0.14 defines
// them (vision_transformer.py, swin_transformer.py, convnext.py): ViT-B/16, B/32, L/16 and the
// DeiT variants (DeiT-B is ViT-B/16; DeiT-S and -Ti narrower), Swin-T/S/B, ConvNeXt-T/S/B/L;
// and the attention-free MLP-Mixer (S, B, L at 16 and 32 px patches) and ResMLP (12, 24, 36,
// big-24) as timm's mlp_mixer.py defines them.
// Tokens are [N, 1, T, D]; attention scores [N, heads, T, T].
#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "common/errors.h"
#include "models/builder.h"
#include "models/registry.h"
#include "models/zoo/comparison_families.h"

namespace dcnas::models::zoo {
namespace {

// Multi-head self-attention over tokens x = [B, 1, T, D] (B may hold windows): the q, k, v
// projections, per-head scaled scores, an optional additive bias (relative positions, the
// shifted-window mask) added by `bias_fn`, softmax, the product with V and the output
// projection.
template <typename BiasFn>
int Attention(GraphBuilder& b, int x, int heads, BiasFn bias_fn) {
  const Shape s = b.type(x).shape;
  const int64_t batch = s.n;
  const int64_t tokens = s.w;
  const int64_t dim = s.c;
  const int64_t d = dim / heads;
  // Q, K and V as three projections (the parameters and MACs of the fused 3D-wide one, and no
  // slicing copies: a fused qkv is split by strided views in the frameworks).
  auto head = [&](int) {
    const int p = b.FullyConnected(x, dim, true);
    const int r = b.Reshape4(p, Shape{batch, tokens, heads, d});
    return b.Transpose(r, {0, 2, 1, 3});  // [B, heads, T, d]
  };
  const int q = b.Mul(head(0), b.Constant(Shape{1, 1, 1, 1}, false));  // 1 / sqrt(d)
  const int k = head(1);
  const int v = head(2);
  int scores = b.MatMul(q, k, true);  // [B, heads, T, T]
  scores = bias_fn(scores);
  const int attn = b.Softmax(scores);
  int out = b.MatMul(attn, v);           // [B, heads, T, d]
  out = b.Transpose(out, {0, 2, 1, 3});  // [B, T, heads, d]
  out = b.Reshape4(out, Shape{batch, 1, tokens, dim});
  return b.FullyConnected(out, dim, true);
}

// A patchify convolution: k x k, stride k, no padding, with bias (ViT's, Swin's and ConvNeXt's
// stems; ConvNeXt's 2 x 2 downsampling).
int Patchify(GraphBuilder& b, int x, int64_t out, int k) {
  GraphBuilder::ConvOptions o;
  o.stride = k;
  o.bias = true;
  o.padding = Padding::Symmetric(0);
  return b.Conv(x, out, k, o);
}

// A patchified model's resolution must be whole patches.
void CheckPatch(const std::string& name, int resolution, int patch) {
  if (resolution % patch != 0) {
    throw InputError(name + ": resolution " + std::to_string(resolution) +
                     " is not a multiple of the " + std::to_string(patch) + " px patch");
  }
}

int Mlp(GraphBuilder& b, int x, int64_t hidden) {
  const int64_t dim = b.channels(x);
  int h = b.Act(b.FullyConnected(x, hidden, true), Activation::kGelu);
  return b.FullyConnected(h, dim, true);
}

// --- ViT (vision_transformer.py) ---------------------------------------------------------------

struct VitConfig {
  int patch;
  int layers;
  int heads;
  int64_t dim;
  int64_t mlp;
};

// Proxy scaling: widths times options.width_scale, whole heads kept.
int64_t Scaled(int64_t width, double scale, int64_t multiple) {
  const auto units = static_cast<int64_t>(
      std::lround(static_cast<double>(width) * scale / static_cast<double>(multiple)));
  return std::max<int64_t>(1, units) * multiple;
}

Graph BuildVit(const std::string& name, VitConfig c, const BuildOptions& options) {
  GraphBuilder b(name, options);
  c.dim = Scaled(c.dim, options.width_scale, c.heads);
  c.mlp = Scaled(c.mlp, options.width_scale, 1);
  const int r = options.resolution;
  CheckPatch(name, r, c.patch);
  b.SetScope("stem", 0);
  int x = Patchify(b, b.Input(r, r, options.in_channels), c.dim, c.patch);  // [N, r/p, r/p, D]
  const int64_t n = options.batch;
  const int64_t t = b.type(x).shape.h * b.type(x).shape.w;
  x = b.Reshape4(x, Shape{n, 1, t, c.dim});
  int cls = b.Constant(Shape{1, 1, 1, c.dim});
  if (n > 1) cls = b.Expand(cls, Shape{n, 1, 1, c.dim});
  x = b.ConcatAxis({cls, x}, 2);  // [N, 1, T + 1, D]
  x = b.Add(x, b.Constant(Shape{1, 1, t + 1, c.dim}));
  for (int i = 0; i < c.layers; ++i) {
    b.SetScope("encoder.layers." + std::to_string(i), i + 1);
    const int a = Attention(b, b.LayerNorm(x), c.heads, [](int s) { return s; });
    x = b.Add(x, a);
    x = b.Add(x, Mlp(b, b.LayerNorm(x), c.mlp));
  }
  b.SetScope("head", c.layers + 1);
  x = b.LayerNorm(x);
  x = b.Slice(x, Shape{n, 1, 1, c.dim}, {0, 0, 0, 0}, {1, 1, 1, 1});  // the class token
  b.FullyConnected(x, options.num_classes, true);
  return b.Finish();
}

// --- Swin (swin_transformer.py) ----------------------------------------------------------------

struct SwinConfig {
  int64_t dim;
  int depths[4];
  int heads[4];
};

// torch.roll of [N, H, W, C] by `shift` on h and w: two slices and a concat per axis.
int Roll(GraphBuilder& b, int x, int64_t shift) {
  const Shape s = b.type(x).shape;
  for (int axis : {1, 2}) {
    const int64_t size = axis == 1 ? s.h : s.w;
    const int64_t k = ((shift % size) + size) % size;
    if (k == 0) continue;
    Shape head = b.type(x).shape;
    Shape tail = head;
    std::array<int64_t, 4> start_tail = {0, 0, 0, 0};
    if (axis == 1) {
      head.h = k;
      tail.h = size - k;
      start_tail[1] = 0;
    } else {
      head.w = k;
      tail.w = size - k;
    }
    std::array<int64_t, 4> start_head = {0, 0, 0, 0};
    start_head[static_cast<size_t>(axis)] = size - k;
    const int first = b.Slice(x, head, start_head, {1, 1, 1, 1});
    const int second = b.Slice(x, tail, start_tail, {1, 1, 1, 1});
    x = b.ConcatAxis({first, second}, axis);
  }
  return x;
}

// One Swin block on x = [N, H, W, C].
int SwinBlock(GraphBuilder& b, int x, int heads, int window, bool shifted) {
  const Shape s = b.type(x).shape;
  const int64_t ws = window;
  // Padded to whole windows (bottom and right, as torchvision pads); no shift where one window
  // covers the map.
  const int64_t ph = (ws - s.h % ws) % ws;
  const int64_t pw = (ws - s.w % ws) % ws;
  const Shape p{s.n, s.h + ph, s.w + pw, s.c};
  const int64_t shift = shifted && window < p.h ? window / 2 : 0;
  const int64_t nh = p.h / ws;
  const int64_t nw = p.w / ws;
  const int64_t windows = s.n * nh * nw;
  const int64_t t = ws * ws;
  int y = b.LayerNorm(x);
  if (ph > 0 || pw > 0) {
    y = b.Pad(y, Padding{false, 0, static_cast<int>(ph), 0, static_cast<int>(pw)});
  }
  if (shift > 0) y = Roll(b, y, -shift);
  // Window partition: [N, H/ws, ws, W/ws, ws, C] -> [N, H/ws, W/ws, ws, ws, C].
  y = b.Reshape4(y, Shape{s.n * nh, ws, nw, ws * s.c});
  y = b.Transpose(y, {0, 2, 1, 3});
  y = b.Reshape4(y, Shape{windows, 1, t, s.c});
  const int table = b.Constant(Shape{1, 1, (2 * ws - 1) * (2 * ws - 1), heads});
  auto bias = [&](int scores) {
    // Relative-position bias: [T*T, heads] rows of the table -> [1, heads, T, T].
    int rel = b.Gather(table, Shape{1, 1, t * t, heads});
    rel = b.Reshape4(rel, Shape{1, t, t, heads});
    rel = b.Transpose(rel, {0, 3, 1, 2});
    scores = b.Add(scores, rel);
    if (shift > 0) {
      // The shifted-window mask: [N, nW, heads, T*T] + [1, nW, 1, T*T].
      scores = b.Reshape4(scores, Shape{s.n, nh * nw, heads, t * t});
      scores = b.Add(scores, b.Constant(Shape{1, nh * nw, 1, t * t}, false));
      scores = b.Reshape4(scores, Shape{windows, heads, t, t});
    }
    return scores;
  };
  y = Attention(b, y, heads, bias);
  // Window reverse.
  y = b.Reshape4(y, Shape{s.n * nh, nw, ws, ws * s.c});
  y = b.Transpose(y, {0, 2, 1, 3});
  y = b.Reshape4(y, p);
  if (shift > 0) y = Roll(b, y, shift);
  if (ph > 0 || pw > 0) y = b.Slice(y, s, {0, 0, 0, 0}, {1, 1, 1, 1});
  x = b.Add(x, y);
  return b.Add(x, Mlp(b, b.LayerNorm(x), 4 * s.c));
}

// Patch merging: the four 2x2 phases concatenated on c, layer norm, a linear 4C -> 2C.
int PatchMerging(GraphBuilder& b, int x) {
  const Shape odd = b.type(x).shape;
  if (odd.h % 2 != 0 || odd.w % 2 != 0) {
    x = b.Pad(x, Padding{false, 0, static_cast<int>(odd.h % 2), 0, static_cast<int>(odd.w % 2)});
  }
  const Shape s = b.type(x).shape;
  const Shape half{s.n, s.h / 2, s.w / 2, s.c};
  std::vector<int> parts;
  for (auto [dh, dw] : {std::pair{0, 0}, std::pair{1, 0}, std::pair{0, 1}, std::pair{1, 1}}) {
    parts.push_back(b.Slice(x, half, {0, dh, dw, 0}, {1, 2, 2, 1}));
  }
  x = b.ConcatAxis(parts, 3);
  return b.FullyConnected(b.LayerNorm(x), 2 * s.c, false);
}

Graph BuildSwin(const std::string& name, SwinConfig c, const BuildOptions& options) {
  GraphBuilder b(name, options);
  c.dim = Scaled(c.dim, options.width_scale, c.heads[0]);
  const int r = options.resolution;
  if (r % 32 != 0) {
    throw InputError(name + ": resolution " + std::to_string(r) + " is not a multiple of 32");
  }
  b.SetScope("stem", 0);
  int x = b.LayerNorm(Patchify(b, b.Input(r, r, options.in_channels), c.dim, 4));
  for (int stage = 0; stage < 4; ++stage) {
    if (stage > 0) {
      b.SetScope("features." + std::to_string(2 * stage), stage + 1);
      x = PatchMerging(b, x);
    }
    for (int i = 0; i < c.depths[stage]; ++i) {
      b.SetScope("features." + std::to_string(2 * stage + 1) + "." + std::to_string(i), stage + 1);
      x = SwinBlock(b, x, c.heads[stage], 7, i % 2 == 1);
    }
  }
  b.SetScope("head", 5);
  x = b.GlobalPool(b.LayerNorm(x));
  b.FullyConnected(x, options.num_classes, true);
  return b.Finish();
}

// --- ConvNeXt (convnext.py) --------------------------------------------------------------------

struct ConvNextConfig {
  int64_t dims[4];
  int depths[4];
};

Graph BuildConvNext(const std::string& name, const ConvNextConfig& c, const BuildOptions& options) {
  GraphBuilder b(name, options);
  const int r = options.resolution;
  b.SetScope("stem", 0);
  int x = b.LayerNorm(Patchify(b, b.Input(r, r, options.in_channels), c.dims[0], 4));
  for (int stage = 0; stage < 4; ++stage) {
    const int64_t dim = c.dims[stage];
    if (stage > 0) {
      b.SetScope("features." + std::to_string(2 * stage), stage + 1);
      x = Patchify(b, b.LayerNorm(x), dim, 2);
    }
    for (int i = 0; i < c.depths[stage]; ++i) {
      b.SetScope("features." + std::to_string(2 * stage + 1) + "." + std::to_string(i), stage + 1);
      GraphBuilder::ConvOptions dw;
      dw.groups = static_cast<int>(dim);
      dw.bias = true;
      dw.padding = Padding::Symmetric(3);
      int y = b.Conv(x, dim, 7, dw);
      y = Mlp(b, b.LayerNorm(y), 4 * dim);
      y = b.Mul(y, b.Constant(Shape{1, 1, 1, dim}));  // layer scale
      x = b.Add(x, y);
    }
  }
  b.SetScope("head", 5);
  x = b.LayerNorm(b.GlobalPool(x));
  b.FullyConnected(x, options.num_classes, true);
  return b.Finish();
}

// --- MLP-Mixer and ResMLP (timm mlp_mixer.py) ----------------------------------------------
// Attention-free token mixers: every block is a token-mixing MLP over the transposed tokens and
// a channel MLP, so their time is the GEMM library's (cuBLAS), the layer norms and the copies
// around them: the rows that tell a GEMM's efficiency from a convolution's.

struct MixerConfig {
  int patch;
  int blocks;
  int64_t dim;
  bool resmlp;  // ResMLP: affine norms, one linear over tokens, layer scale (Touvron et al.)
};

// timm's token-mixing linear on the transposed tokens (x = [N, 1, C, T]): F.linear on a
// non-contiguous input runs as a matmul on a contiguous copy and a separate bias add.
int TokenLinear(GraphBuilder& b, int x, int64_t out) {
  return b.BiasAdd(b.FullyConnected(x, out, false));
}

// ResMLP's Affine (alpha * x + beta per channel, torch.addcmul): one per-channel kernel.
int Affine(GraphBuilder& b, int x) { return b.BatchNorm(x); }

Graph BuildMixer(const std::string& name, MixerConfig c, const BuildOptions& options) {
  GraphBuilder b(name, options);
  c.dim = Scaled(c.dim, options.width_scale, 1);
  const int r = options.resolution;
  CheckPatch(name, r, c.patch);
  b.SetScope("stem", 0);
  int x = Patchify(b, b.Input(r, r, options.in_channels), c.dim, c.patch);
  const int64_t n = options.batch;
  const int64_t t = b.type(x).shape.h * b.type(x).shape.w;
  x = b.Reshape4(x, Shape{n, 1, t, c.dim});  // [N, 1, T, C]
  auto norm = [&](int y) { return c.resmlp ? Affine(b, y) : b.LayerNorm(y); };
  auto layer_scale = [&](int y) {
    return c.resmlp ? b.Mul(y, b.Constant(Shape{1, 1, 1, c.dim})) : y;
  };
  for (int i = 0; i < c.blocks; ++i) {
    b.SetScope("blocks." + std::to_string(i), i + 1);
    // Token mixing: on [N, 1, C, T], back to [N, 1, T, C] (the add reads it in place).
    int y = b.Transpose(norm(x), {0, 1, 3, 2});
    if (c.resmlp) {
      y = TokenLinear(b, y, t);
    } else {
      y = TokenLinear(b, y, c.dim / 2);
      y = b.FullyConnected(b.Act(y, Activation::kGelu), t, true);
    }
    x = b.Add(x, layer_scale(b.Transpose(y, {0, 1, 3, 2})));
    x = b.Add(x, layer_scale(Mlp(b, norm(x), 4 * c.dim)));
  }
  b.SetScope("head", c.blocks + 1);
  x = b.GlobalPool(norm(x));
  b.FullyConnected(x, options.num_classes, true);
  return b.Finish();
}

template <typename Config, typename Build>
void Add(ModelRegistry& registry, const std::string& name, const std::string& family,
         const std::string& description, Config config, Build build) {
  registry.Register({.name = name,
                     .family = family,
                     .description = description,
                     .native_resolution = 224,
                     .build = [name, config, build](const BuildOptions& options) {
                       return build(name, config, options);
                     }});
}

}  // namespace

void RegisterTransformers(ModelRegistry& registry) {
  const std::string vit = "(Dosovitskiy et al. 2021); torchvision vision_transformer.py ";
  Add(registry, "vit-b-16", "vit", "ViT-B/16 " + vit + "vit_b_16", VitConfig{16, 12, 12, 768, 3072},
      BuildVit);
  Add(registry, "vit-b-32", "vit", "ViT-B/32 " + vit + "vit_b_32", VitConfig{32, 12, 12, 768, 3072},
      BuildVit);
  Add(registry, "vit-l-16", "vit", "ViT-L/16 " + vit + "vit_l_16",
      VitConfig{16, 24, 16, 1024, 4096}, BuildVit);
  const std::string deit = "(Touvron et al. 2021: ViT trained with distillation-free recipes) ";
  Add(registry, "deit-ti-16", "vit", "DeiT-Ti/16 " + deit + "timm deit_tiny_patch16_224",
      VitConfig{16, 12, 3, 192, 768}, BuildVit);
  Add(registry, "deit-s-16", "vit", "DeiT-S/16 " + deit + "timm deit_small_patch16_224",
      VitConfig{16, 12, 6, 384, 1536}, BuildVit);
  const std::string swin = "(Liu et al. 2021); torchvision swin_transformer.py ";
  Add(registry, "swin-t", "swin", "Swin-T " + swin + "swin_t",
      SwinConfig{96, {2, 2, 6, 2}, {3, 6, 12, 24}}, BuildSwin);
  Add(registry, "swin-s", "swin", "Swin-S " + swin + "swin_s",
      SwinConfig{96, {2, 2, 18, 2}, {3, 6, 12, 24}}, BuildSwin);
  Add(registry, "swin-b", "swin", "Swin-B " + swin + "swin_b",
      SwinConfig{128, {2, 2, 18, 2}, {4, 8, 16, 32}}, BuildSwin);
  const std::string mixer = "(Tolstikhin et al. 2021); timm mlp_mixer.py ";
  for (const auto& [name, timm, config] :
       {std::tuple{"mixer-s32", "mixer_s32_224", MixerConfig{32, 8, 512, false}},
        std::tuple{"mixer-s16", "mixer_s16_224", MixerConfig{16, 8, 512, false}},
        std::tuple{"mixer-b32", "mixer_b32_224", MixerConfig{32, 12, 768, false}},
        std::tuple{"mixer-b16", "mixer_b16_224", MixerConfig{16, 12, 768, false}},
        std::tuple{"mixer-l32", "mixer_l32_224", MixerConfig{32, 24, 1024, false}},
        std::tuple{"mixer-l16", "mixer_l16_224", MixerConfig{16, 24, 1024, false}}}) {
    Add(registry, name, "mixer", std::string("MLP-Mixer ") + mixer + timm, config, BuildMixer);
  }
  const std::string resmlp = "(Touvron et al. 2022); timm mlp_mixer.py ";
  for (const auto& [name, timm, config] :
       {std::tuple{"resmlp-12", "resmlp_12_224", MixerConfig{16, 12, 384, true}},
        std::tuple{"resmlp-24", "resmlp_24_224", MixerConfig{16, 24, 384, true}},
        std::tuple{"resmlp-36", "resmlp_36_224", MixerConfig{16, 36, 384, true}},
        std::tuple{"resmlp-big-24", "resmlp_big_24_224", MixerConfig{8, 24, 768, true}}}) {
    Add(registry, name, "resmlp", std::string("ResMLP ") + resmlp + timm, config, BuildMixer);
  }
  const std::string cnx = "(Liu et al. 2022); torchvision convnext.py ";
  Add(registry, "convnext-tiny", "convnext", "ConvNeXt-T " + cnx + "convnext_tiny",
      ConvNextConfig{{96, 192, 384, 768}, {3, 3, 9, 3}}, BuildConvNext);
  Add(registry, "convnext-small", "convnext", "ConvNeXt-S " + cnx + "convnext_small",
      ConvNextConfig{{96, 192, 384, 768}, {3, 3, 27, 3}}, BuildConvNext);
  Add(registry, "convnext-base", "convnext", "ConvNeXt-B " + cnx + "convnext_base",
      ConvNextConfig{{128, 256, 512, 1024}, {3, 3, 27, 3}}, BuildConvNext);
  Add(registry, "convnext-large", "convnext", "ConvNeXt-L " + cnx + "convnext_large",
      ConvNextConfig{{192, 384, 768, 1536}, {3, 3, 27, 3}}, BuildConvNext);
}

}  // namespace dcnas::models::zoo
