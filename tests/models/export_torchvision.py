"""Exports torchvision models to ONNX the way the ONNX import tests expect.

Opset 17, weights=None, a dynamic batch axis, batch norm kept as its own nodes
(training=PRESERVE on an eval-mode model: no conv/BN folding) and no constant folding of learned
tensors (do_constant_folding=False keeps Swin's relative-position table a parameter). In torch
1.13, vit_b_16 exports only with autograd enabled: eval-mode multi-head attention under no_grad
takes a fast path with no export rule.

usage: export_torchvision.py OUT_DIR MODEL...
"""
import sys

import torch
import torchvision


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    out = sys.argv[1]
    for name in sys.argv[2:]:
        model = getattr(torchvision.models, name)(weights=None).eval()
        x = torch.randn(1, 3, 224, 224)
        with torch.enable_grad():
            torch.onnx.export(model, x, f"{out}/{name}.onnx", opset_version=17,
                              do_constant_folding=False,
                              training=torch.onnx.TrainingMode.PRESERVE,
                              input_names=["input"], output_names=["logits"],
                              dynamic_axes={"input": {0: "batch"}, "logits": {0: "batch"}})
        params = sum(p.numel() for p in model.parameters())
        print(f"{name} {params}", flush=True)


if __name__ == "__main__":
    main()
