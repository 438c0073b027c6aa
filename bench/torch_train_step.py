#!/usr/bin/env python3
"""Times training steps of a dcnas layer graph (JSON from `dcnas measure --save-graphs`) in
Python PyTorch, building the same network op for op as models/torch/lower.cc does.

One step = zero_grad, forward to the logits, cross-entropy, backward, SGD (momentum 0.9) step:
the step `dcnas measure --mode train` times. Prints one line of JSON: median step time, spread
(max - min), images/s, parameter count.
"""
import argparse
import json
import math
import resource
import statistics
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F


def resolve_same(size, kernel, stride, dilation):
    out = (size + stride - 1) // stride
    total = max((out - 1) * stride + (kernel - 1) * dilation + 1 - size, 0)
    return total // 2, total - total // 2


def resolve_padding(op, h, w):
    pad = op.get("padding", [0, 0, 0, 0])
    if pad == "same":
        kh, kw = op["kernel"]
        sh, sw = op["stride"]
        dh, dw = op.get("dilation", [1, 1])
        top, bottom = resolve_same(h, kh, sh, dh)
        left, right = resolve_same(w, kw, sw, dw)
        return top, bottom, left, right
    return tuple(pad)


ACTIVATIONS = {
    "relu": torch.relu,
    "relu6": lambda x: F.hardtanh(x, 0.0, 6.0),
    "swish": F.silu,
    "sigmoid": torch.sigmoid,
    "hard_swish": F.hardswish,
    "hard_sigmoid": F.hardsigmoid,
    "gelu": F.gelu,
}


class GraphNet(nn.Module):
    def __init__(self, graph):
        super().__init__()
        self.ops = {op["id"]: op for op in graph["ops"]}
        self.order = self._topological_order()
        consumers = {i: 0 for i in self.ops}
        for op in self.ops.values():
            for i in op["inputs"]:
                consumers[i] += 1
        outputs = [i for i in sorted(self.ops) if consumers[i] == 0]
        self.output_id = outputs[-1]
        self.logits_id = self.output_id
        if self.ops[self.output_id]["kind"] == "softmax":
            self.logits_id = self.ops[self.output_id]["inputs"][0]
        self.last_use = {}
        for pos, i in enumerate(self.order):
            for j in self.ops[i]["inputs"]:
                self.last_use[j] = pos
        self.layers = nn.ModuleDict()
        self.biases = nn.ParameterDict()
        for op in self.ops.values():
            key = str(op["id"])
            kind = op["kind"]
            in_c = self.ops[op["inputs"][0]]["output_shape"][3] if op["inputs"] else 0
            out_c = op["output_shape"][3]
            if kind == "conv2d":
                conv = nn.Conv2d(in_c, op["out_channels"], tuple(op["kernel"]),
                                 stride=tuple(op["stride"]), dilation=tuple(op.get("dilation", [1, 1])),
                                 groups=op.get("groups", 1), bias=op.get("bias", False))
                nn.init.kaiming_normal_(conv.weight, mode="fan_out", nonlinearity="relu")
                if conv.bias is not None:
                    nn.init.zeros_(conv.bias)
                self.layers[key] = conv
            elif kind == "batch_norm":
                self.layers[key] = nn.BatchNorm2d(out_c, eps=1e-3, momentum=0.1)
            elif kind == "bias_add":
                self.biases[key] = nn.Parameter(torch.zeros(out_c))
            elif kind == "fully_connected":
                lin = nn.Linear(in_c, op["out_channels"], bias=op.get("bias", True))
                r = 1.0 / math.sqrt(op["out_channels"])
                nn.init.uniform_(lin.weight, -r, r)
                if lin.bias is not None:
                    nn.init.zeros_(lin.bias)
                self.layers[key] = lin

    def _topological_order(self):
        indegree = {i: len(op["inputs"]) for i, op in self.ops.items()}
        consumers = {i: [] for i in self.ops}
        for op in self.ops.values():
            for j in op["inputs"]:
                consumers[j].append(op["id"])
        ready = sorted(i for i, d in indegree.items() if d == 0)
        order = []
        while ready:
            i = ready.pop(0)
            order.append(i)
            for c in consumers[i]:
                indegree[c] -= 1
                if indegree[c] == 0:
                    ready.append(c)
        return order

    def run_op(self, op, v):
        kind = op["kind"]
        key = str(op["id"])
        x = v[op["inputs"][0]] if op["inputs"] else None
        if kind == "conv2d":
            conv = self.layers[key]
            t, b, l, r = resolve_padding(op, x.shape[2], x.shape[3])
            if t == b and l == r:
                return F.conv2d(x, conv.weight, conv.bias, conv.stride, (t, l), conv.dilation,
                                conv.groups)
            return conv(F.pad(x, (l, r, t, b)))
        if kind == "batch_norm":
            return self.layers[key](x)
        if kind == "bias_add":
            return x + self.biases[key].view(1, -1, 1, 1)
        if kind == "activation":
            return ACTIVATIONS[op["activation"]](x)
        if kind == "add":
            return x + v[op["inputs"][1]]
        if kind == "mul":
            return x * v[op["inputs"][1]]
        if kind == "concat":
            return torch.cat([v[i] for i in op["inputs"]], 1)
        if kind == "pool":
            t, b, l, r = resolve_padding(op, x.shape[2], x.shape[3])
            k, s = tuple(op["kernel"]), tuple(op["stride"])
            if op["pool"] == "max":
                if (t, b, l, r) != (0, 0, 0, 0):
                    x = F.pad(x, (l, r, t, b), value=-math.inf)
                return F.max_pool2d(x, k, s)
            if (t, b, l, r) == (0, 0, 0, 0):
                return F.avg_pool2d(x, k, s)
            if t == b and l == r:
                return F.avg_pool2d(x, k, s, (t, l), count_include_pad=False)
            ones = torch.ones(1, 1, x.shape[2], x.shape[3], dtype=x.dtype)
            return (F.avg_pool2d(F.pad(x, (l, r, t, b)), k, s) /
                    F.avg_pool2d(F.pad(ones, (l, r, t, b)), k, s))
        if kind == "global_pool":
            if op["pool"] == "max":
                return torch.amax(x, (2, 3), keepdim=True)
            return x.mean((2, 3), keepdim=True)
        if kind == "fully_connected":
            return self.layers[key](x.flatten(1)).view(x.shape[0], -1, 1, 1)
        if kind == "space_to_depth":
            bs = op["block_size"]
            n, c, h, w = x.shape
            return (x.reshape(n, c, h // bs, bs, w // bs, bs).permute(0, 3, 5, 1, 2, 4)
                    .reshape(n, bs * bs * c, h // bs, w // bs))
        if kind == "space_to_batch":
            bs = op["block_size"]
            n, c, h, w = x.shape
            return (x.reshape(n, c, h // bs, bs, w // bs, bs).permute(3, 5, 0, 1, 2, 4)
                    .reshape(bs * bs * n, c, h // bs, w // bs))
        if kind == "batch_to_space":
            bs = op["block_size"]
            n, c, h, w = x.shape
            n //= bs * bs
            return (x.reshape(bs, bs, n, c, h, w).permute(2, 3, 4, 0, 5, 1)
                    .reshape(n, c, h * bs, w * bs))
        if kind == "reshape":
            rh, rw, rc = op["reshape"]
            return x.permute(0, 2, 3, 1).reshape(x.shape[0], rh, rw, rc).permute(0, 3, 1, 2)
        if kind == "softmax":
            return torch.softmax(x, 1)
        if kind == "dropout":
            return F.dropout(x, op["rate"], self.training)
        raise ValueError("unknown op kind " + kind)

    def forward(self, x, stop_id=None):
        stop_id = self.output_id if stop_id is None else stop_id
        v = {}
        for pos, i in enumerate(self.order):
            op = self.ops[i]
            v[i] = x if op["kind"] == "input" else self.run_op(op, v)
            if i == stop_id:
                return v[i]
            for j in op["inputs"]:
                if self.last_use[j] == pos:
                    del v[j]
        raise ValueError("stop op not reached")

    def logits(self, x):
        return self.forward(x, self.logits_id).flatten(1)


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("graph", help="layer-graph JSON")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--repeats", type=int, default=10)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--cpu-clock", action="store_true",
                   help="time by process CPU time (as `dcnas measure --cpu-clock`)")
    a = p.parse_args()
    torch.set_num_threads(a.threads)
    torch.manual_seed(a.seed)
    graph = json.load(open(a.graph))
    net = GraphNet(graph)
    net.train()
    in_op = next(op for op in graph["ops"] if op["kind"] == "input")
    n, h, w, c = in_op["output_shape"]
    x = torch.randn(n, c, h, w)
    classes = math.prod(net.ops[net.logits_id]["output_shape"][1:])
    y = torch.randint(classes, (n,))
    opt = torch.optim.SGD(net.parameters(), lr=0.01, momentum=0.9)

    def step():
        opt.zero_grad()
        loss = F.cross_entropy(net.logits(x), y)
        loss.backward()
        opt.step()

    for _ in range(a.warmup):
        step()
    clock = time.process_time if a.cpu_clock else time.perf_counter
    samples = []
    before = resource.getrusage(resource.RUSAGE_SELF)
    for _ in range(a.repeats):
        t0 = clock()
        step()
        samples.append(1000.0 * (clock() - t0))
    after = resource.getrusage(resource.RUSAGE_SELF)
    median = statistics.median(samples)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    print(json.dumps({
        "model": graph.get("info", {}).get("model", ""),
        "torch_version": torch.__version__,
        "threads": torch.get_num_threads(),
        "batch": n,
        "resolution": h,
        "params": sum(p.numel() for p in net.parameters()),
        "median_ms": median,
        "spread_ms": max(samples) - min(samples),
        "images_per_s": 1000.0 * n / median,
        "minor_faults_per_step": (after.ru_minflt - before.ru_minflt) / a.repeats,
        "kernel_cpu_share": (after.ru_stime - before.ru_stime) / cpu if cpu > 0 else 0.0,
    }))


if __name__ == "__main__":
    sys.exit(main())
