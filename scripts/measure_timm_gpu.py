#!/usr/bin/env python3
"""Times timm CNNs on one CUDA GPU the way timm's inference benchmark does, for the project's own
measurement tables (data/measurements/own_*.csv; data/README.md, "measurements/").

The (model, batch size, image size) points are those of a published timm table already in
data/measurements/ (by default the RTX 4090's PyTorch 2.4.0 NCHW rows), so that every row measured
here has a partner on another chip: points the RTX 3090 table shares come first, then the rest,
cheapest models first, until the time budget is spent. Each point follows timm's benchmark.py
(InferenceBenchmarkRunner, AMP): fp32 weights under float16 autocast, NCHW, synthetic fp32 input,
torch.backends.cudnn.benchmark on, warm-up iterations, then timed iterations each closed by
torch.cuda.synchronize(); latency_ms = the mean timed batch time.

Rows are appended to OUT as they are measured (in the project's measurement schema), and a rerun
skips the points OUT already holds, so an interrupted run resumes.

Needs python3 with torch (CUDA) and timm; reads only the files named on its command line.
Usage: measure_timm_gpu.py --device-name h200 --out data/measurements/own_h200.csv
"""
import argparse
import csv
import os
import sys
import time

COLUMNS = ['model', 'device', 'stack', 'precision', 'batch_size', 'image_size', 'latency_ms',
           'throughput_img_per_s', 'regime', 'source_id', 'source_ref', 'source_model',
           'source_device', 'source_precision', 'stack_version', 'layout', 'source_gmacs', 'notes']


def die(message):
    print(f'measure_timm_gpu.py: {message}', file=sys.stderr)
    sys.exit(2)


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('--device-name', required=True,
                   help='the chip file name the rows are for (data/accelerators/NAME.yaml)')
    p.add_argument('--out', required=True, help='CSV to append to (created with a header)')
    p.add_argument('--points', default='data/measurements/timm_rtx4090.csv',
                   help='published timm table whose points are measured (default: %(default)s)')
    p.add_argument('--pair', default='data/measurements/timm_rtx3090.csv',
                   help='table whose shared points go first (default: %(default)s; "" for none)')
    p.add_argument('--stack-version', default='PyTorch 2.4.0 (cu124)',
                   help='stack_version of the points selected (default: %(default)s)')
    p.add_argument('--warmup', type=int, default=10, help='warm-up iterations (default: 10)')
    p.add_argument('--iters', type=int, default=20, help='timed iterations (default: 20)')
    p.add_argument('--budget-s', type=float, default=420,
                   help='stop starting new points after this many seconds (default: 420)')
    p.add_argument('--limit', type=int, default=0, help='measure at most this many points')
    p.add_argument('--list', action='store_true',
                   help='print the points still to measure, in order, and exit (needs no GPU)')
    args = p.parse_args(argv)
    if args.warmup < 0 or args.iters < 1 or args.budget_s <= 0 or args.limit < 0:
        die('--warmup >= 0, --iters >= 1, --budget-s > 0 and --limit >= 0')
    return args


def read_points(path, stack_version):
    try:
        with open(path, newline='') as f:
            rows = list(csv.DictReader(f))
    except OSError as e:
        die(f'{path}: {e.strerror}')
    if not rows:
        die(f'{path}: no rows')
    for key in ('model', 'source_model', 'batch_size', 'image_size', 'latency_ms',
                'stack_version', 'layout'):
        if key not in rows[0]:
            die(f'{path}: no column "{key}"')
    points = {}
    for line, r in enumerate(rows, start=2):
        if r['stack_version'] != stack_version or r['layout'] != 'NCHW':
            continue
        try:
            key = (r['source_model'], int(r['batch_size']), int(r['image_size']))
            points[key] = (r['model'], float(r['latency_ms']), r.get('source_gmacs', ''))
        except ValueError as e:
            die(f'{path}:{line}: {e}')
    if not points:
        die(f'{path}: no NCHW rows with stack_version "{stack_version}"')
    return points


def order_points(points, pair_keys):
    """Shared points first, then the rest; within each, models by their total published time."""
    cost = {}
    for (src, _, _), (_, ms, _) in points.items():
        cost[src] = cost.get(src, 0.0) + ms
    def rank(k):
        return (k not in pair_keys, cost[k[0]], k[0], k[1], k[2])
    return sorted(points, key=rank)


def main(argv):
    args = parse_args(argv)
    points = read_points(args.points, args.stack_version)
    pair_keys = set(read_points(args.pair, args.stack_version)) if args.pair else set()
    done = set()
    resuming = os.path.exists(args.out) and os.path.getsize(args.out) > 0
    if resuming:
        with open(args.out, newline='') as f:
            reader = csv.DictReader(f)
            if reader.fieldnames != COLUMNS:
                die(f'{args.out}: header differs from the measurement schema')
            for line, r in enumerate(reader, start=2):
                try:
                    done.add((r['source_model'], int(r['batch_size']), int(r['image_size'])))
                except (TypeError, ValueError):
                    die(f'{args.out}:{line}: not a measured row')
    todo = [k for k in order_points(points, pair_keys) if k not in done]
    if args.limit:
        todo = todo[:args.limit]
    if args.list:
        for src, batch, image in todo:
            print(f'{src},{batch},{image},{points[(src, batch, image)][0]}')
        return 0

    import torch
    import timm
    if not torch.cuda.is_available():
        die('no CUDA device')
    torch.backends.cudnn.benchmark = True
    props = torch.cuda.get_device_properties(0)
    stack_version = f'PyTorch {torch.__version__.split("+")[0]} (cu{torch.version.cuda.replace(".", "")})'
    print(f'{props.name}: {props.multi_processor_count} SMs, '
          f'{props.total_memory / 2**30:.1f} GiB, L2 {getattr(props, "L2_cache_size", 0) / 2**20:.0f} MiB; '
          f'{stack_version}, cuDNN {torch.backends.cudnn.version()}, timm {timm.__version__}; '
          f'{len(done)} points done, {len(todo)} to measure', flush=True)

    start = time.monotonic()
    measured = 0
    with open(args.out, 'a', newline='') as f:
        out = csv.writer(f)
        if not resuming:
            out.writerow(COLUMNS)
            f.flush()
        model, model_name = None, None
        for i, (src, batch, image) in enumerate(todo):
            if time.monotonic() - start > args.budget_s:
                print(f'time budget spent: {len(todo) - i} points left for a rerun', flush=True)
                break
            dcnas_model, _, gmacs = points[(src, batch, image)]
            try:
                if src != model_name:
                    model = None
                    torch.cuda.empty_cache()
                    model = timm.create_model(src, pretrained=False).cuda().eval()
                    model_name = src
                x = torch.randn((batch, 3, image, image), device='cuda', dtype=torch.float32)
                with torch.no_grad(), torch.autocast('cuda', dtype=torch.float16):
                    for _ in range(args.warmup):
                        model(x)
                    torch.cuda.synchronize()
                    total = 0.0
                    for _ in range(args.iters):
                        t0 = time.perf_counter()
                        model(x)
                        torch.cuda.synchronize()
                        total += time.perf_counter() - t0
                del x
            except Exception as e:  # one model's failure (name, memory) must not end the run
                print(f'{src} b{batch} {image}px: skipped: {type(e).__name__}: {e}', flush=True)
                model, model_name = None, None
                torch.cuda.empty_cache()
                continue
            ms = 1000.0 * total / args.iters
            out.writerow([dcnas_model, args.device_name, 'pytorch-eager', 'fp16', batch, image,
                          f'{ms:.3f}', f'{1000.0 * batch / ms:.2f}', 'large_batch',
                          'dcnas_timm_gpu', 'scripts/measure_timm_gpu.py', src, props.name,
                          'AMP_FP16', stack_version, 'NCHW', gmacs,
                          f'timm {timm.__version__}; {args.warmup} warm-up + {args.iters} timed '
                          f'iterations; cudnn.benchmark; points of {os.path.basename(args.points)}'])
            f.flush()
            measured += 1
            print(f'[{measured}/{len(todo)}] {src} b{batch} {image}px: {ms:.2f} ms '
                  f'({1000.0 * batch / ms:.0f} img/s)', flush=True)
    print(f'{measured} points measured in {time.monotonic() - start:.0f} s', flush=True)
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
