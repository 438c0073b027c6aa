#!/usr/bin/env python3
"""Imports published CNN inference measurements into data/measurements/ (one-off importer).

Reads the collected measurement tables (the folder given as the first argument: the common long
CSVs plus their SOURCES.md), maps the sources' model names to dcnas zoo names through
data/measurements/bookkeeping/model_map.csv, assigns each row a device, software stack, precision and
measurement regime, and writes:

  data/measurements/<group>.csv   the rows dcnas can simulate, provenance columns kept
  data/measurements/bookkeeping/excluded.csv  every row not imported, by source model and reason
  data/measurements/bookkeeping/import_summary.csv  counts per device and regime, imported vs
      excluded

Nothing is invented: latency_ms is the published per-batch latency, or batch_size / throughput
when only a throughput was published (the row's notes say so). dcnas itself never reads the
source folder; the committed output files are what it uses.

Usage: scripts/import_measurements.py SOURCE_DIR [DATA_DIR]
Python 3 standard library only.
"""

import collections
import csv
import os
import re
import sys

# --- Vocabulary -----------------------------------------------------------------------------

# Source device string -> dcnas accelerator name (data/accelerators/<name>.yaml). Devices not
# listed here are not modelled by dcnas and their rows are excluded ("device not modelled").
DEVICES = {
    'V100-SXM2-16GB': 'v100',
    'V100-SXM2-32GB': 'v100',
    'V100-SXM3-32GB': 'v100',  # DGX-2 part; same SM count and HBM2 bandwidth as SXM2
    'V100': 'v100',            # PaddleClas: "V100" without variant
    'T4': 't4',
    # data/accelerators/a100.yaml is the SXM4 40 GB part (1555 GB/s). The 80 GB part differs only
    # in HBM (80 GB HBM2e, 2039 GB/s): its rows are kept as device a100 with source_device saying
    # which part, and are simulated with `--set hbm.bandwidth_gbps=2039` (see data/README.md).
    'A100-SXM4-40GB': 'a100',
    'A100-SXM4-80GB': 'a100',
    'A100-SXM4-80GB (DGX A100 1 GPU)': 'a100',
    'A100-80GB': 'a100',
    'RTX 3090': 'rtx-3090',
    'RTX 4090': 'rtx-4090',
    'TPU v3-8 (4 chips, 8 TensorCores)': 'tpu-v3',
}

# dcnas stack names (data/stacks/<name>.yaml) that have a profile; rows measured with any other
# software stack are excluded ("stack not modelled").
MODELLED_STACKS = {'pytorch-eager', 'torch-compile', 'tensorrt', 'xla-tpu'}

PRECISIONS = {
    'FP32': 'fp32', 'TF32': 'tf32', 'FP16': 'fp16', 'AMP': 'fp16', 'AMP_FP16': 'fp16',
    'BF16': 'bf16', 'INT8': 'int8',
}

LARGE_BATCH = 'large_batch'          # kernel-dominated throughput, host overhead amortised
ENGINE_LATENCY = 'engine_latency'    # inference-engine (TensorRT) latency per batch
FRAMEWORK_LATENCY = 'framework_latency'  # framework end-to-end latency at small batch

# Eager-framework rows at or above this batch are treated as large-batch throughput (the
# measurement README's regime 1: "DLE at batch >= 64").
LARGE_BATCH_MIN = 64

OUT_COLUMNS = ['model', 'device', 'stack', 'precision', 'batch_size', 'image_size', 'latency_ms',
               'throughput_img_per_s', 'regime', 'source_id', 'source_ref', 'source_model',
               'source_device', 'source_precision', 'stack_version', 'layout', 'source_gmacs',
               'notes']

# Which output file each source goes to.
GROUP_OF_SOURCE = {
    'timm_benchmark': None,  # split by device: timm_rtx3090 / timm_rtx4090
    'paddleclas_zh_docs': 'paddleclas_tensorrt',
    'dle_pyt_convnets': 'nvidia_dle', 'dle_tf1_convnets': 'nvidia_dle',
    'dle_tf2_efficientnet': 'nvidia_dle', 'dle_tf2_efficientnet_2021': 'nvidia_dle',
    'dle_mxnet_rn50': 'nvidia_dle', 'dle_paddle_rn50': 'nvidia_dle',
    'dle_triton_offline': 'nvidia_dle', 'dle_gpunet_triton_offline': 'nvidia_dle',
    'dle_gpunet_readme': 'nvidia_dle',
    'pycls_model_timing': 'pycls_v100',
    'mlperf_inf_v0.5': 'mlperf', 'mlperf_inf_v1.0': 'mlperf',
    'tresnet_readme': 'tresnet',
}

# Source id -> model_map.csv "source" key.
MAP_SOURCE = {
    'timm_benchmark': 'timm', 'paddleclas_zh_docs': 'paddleclas', 'pycls_model_timing': 'pycls',
    'mlperf_inf_v0.5': 'mlperf', 'mlperf_inf_v1.0': 'mlperf', 'tresnet_readme': 'tresnet',
}


def map_source(source_id):
    if source_id.startswith('dle_'):
        return 'dle'
    return MAP_SOURCE[source_id]


class Excluded(Exception):
    """A row that is not imported, with its reason category and detail."""

    def __init__(self, reason, detail=''):
        super().__init__(reason)
        self.reason = reason
        self.detail = detail


# --- Stack, regime, device ------------------------------------------------------------------

def classify(row):
    """Returns (stack, stack_version, layout, regime) or raises Excluded."""
    sid = row['source_id']
    fw = row['framework']
    batch = int(row['batch_size'])
    if sid == 'timm_benchmark':
        stack = 'torch-compile' if row.get('torch_compile') == 'yes' else 'pytorch-eager'
        version = re.match(r'(PyTorch [0-9.]+ \(cu[0-9]+\))', fw).group(1)
        return stack, version, row['layout'], LARGE_BATCH
    if sid == 'pycls_model_timing':
        return 'pytorch-eager', 'PyTorch 1.6 (pycls)', 'NCHW', LARGE_BATCH
    if sid == 'paddleclas_zh_docs':
        if 'engine not stated' in fw:
            raise Excluded('inconsistent source', 'inference engine not stated in the remark')
        return 'tensorrt', fw, '', ENGINE_LATENCY
    if sid == 'dle_pyt_convnets':
        layout = 'NHWC' if 'nhwc' in fw else 'NCHW'
        regime = LARGE_BATCH if batch >= LARGE_BATCH_MIN else FRAMEWORK_LATENCY
        return 'pytorch-eager', 'PyTorch NGC 21.03', layout, regime
    if sid == 'dle_tf1_convnets':
        stack = 'tensorflow-xla' if '+ XLA' in fw else 'tensorflow'
        regime = LARGE_BATCH if batch >= LARGE_BATCH_MIN else FRAMEWORK_LATENCY
        return stack, 'TensorFlow 1.15 NGC 20.06', 'NHWC', regime
    if sid in ('dle_tf2_efficientnet', 'dle_tf2_efficientnet_2021'):
        regime = LARGE_BATCH if batch >= LARGE_BATCH_MIN else FRAMEWORK_LATENCY
        version = 'TensorFlow 2 NGC 21.09' if sid == 'dle_tf2_efficientnet' else \
            'TensorFlow 2 NGC 21.02'
        return 'tensorflow', version, 'NHWC', regime
    if sid == 'dle_paddle_rn50':
        if fw.startswith('Paddle-TRT'):
            return 'tensorrt', 'Paddle-TRT (NGC PaddlePaddle)', '', ENGINE_LATENCY
        raise Excluded('stack not modelled', 'PaddlePaddle framework execution')
    if sid == 'dle_mxnet_rn50':
        raise Excluded('stack not modelled', 'MXNet')
    if sid in ('dle_triton_offline', 'dle_gpunet_triton_offline'):
        raise Excluded('stack not modelled',
                       'Triton Inference Server client latency (ONNX Runtime/TF-TRT backends)')
    if sid == 'dle_gpunet_readme':
        if fw.startswith('TensorRT'):
            return 'tensorrt', 'TensorRT 8 (trtexec)', '', ENGINE_LATENCY
        raise Excluded('inconsistent source', 'README column "FP16 Latency" is not explained')
    if sid == 'mlperf_inf_v1.0':
        if 'SingleStream' in row['latency_kind']:
            return 'tensorrt', 'TensorRT 7.2.3 (MLPerf v1.0)', '', ENGINE_LATENCY
        return 'tensorrt', 'TensorRT 7.2.3 (MLPerf v1.0)', '', LARGE_BATCH
    if sid == 'mlperf_inf_v0.5':
        return 'xla-tpu', 'TensorFlow 1.15 (MLPerf v0.5)', '', LARGE_BATCH
    if sid == 'tresnet_readme':
        return 'pytorch-eager', 'PyTorch (TResNet)', '', LARGE_BATCH
    raise Excluded('stack not modelled', 'unknown source ' + sid)


# --- Model map ------------------------------------------------------------------------------

def load_model_map(path):
    """(source, source_model) -> (dcnas_model, decision, reason)."""
    table = {}
    with open(path, newline='', encoding='utf-8') as f:
        for line_no, r in enumerate(csv.DictReader(f), start=2):
            key = (r['source'], r['source_model'])
            if key in table:
                sys.exit('%s:%d: duplicate mapping for %s' % (path, line_no, key))
            if r['decision'] not in ('mapped', 'variant differs', 'duplicate'):
                sys.exit('%s:%d: unknown decision %r' % (path, line_no, r['decision']))
            if (r['decision'] == 'mapped') != bool(r['dcnas_model']):
                sys.exit('%s:%d: dcnas_model must be set exactly for mapped rows' % (path, line_no))
            table[key] = (r['dcnas_model'], r['decision'], r['reason'])
    return table


def map_model(model_map, row):
    key = (map_source(row['source_id']), row['model'])
    if key not in model_map:
        raise Excluded('unknown model', 'no dcnas zoo model with this structure')
    dcnas_model, decision, reason = model_map[key]
    if decision != 'mapped':
        raise Excluded(decision, reason)
    return dcnas_model


# --- Rows -----------------------------------------------------------------------------------

def number_or_empty(text):
    text = text.strip()
    if not text:
        return ''
    value = float(text)
    return repr(value) if value != int(value) else str(int(value))


def convert(row, model_map):
    """Returns an output row (dict) or raises Excluded."""
    sid = row['source_id']
    notes = [row['notes']] if row.get('notes') else []
    if sid == 'tresnet_readme':
        raise Excluded('batch size not published', '"~90% of the maximal batch", value not given')
    if sid == 'mlperf_inf_v0.5':
        # The TPU inference rows come from tpu_measurements.csv, which says how the batch maps to
        # TensorCores; the one combined-file row is the same measurement.
        raise Excluded('duplicate', 'same MLPerf v0.5 TPU v3-8 Offline result as tpu_measurements')
    source_device = row['device']
    if source_device not in DEVICES:
        raise Excluded('device not modelled', source_device)
    device = DEVICES[source_device]
    if row['precision'] not in PRECISIONS:
        raise Excluded('inconsistent source', 'precision ' + row['precision'])
    precision = PRECISIONS[row['precision']]
    if 'no TF32 on Volta' in row.get('notes', ''):
        raise Excluded('inconsistent source', 'table labelled TF32 on V100 (Volta has no TF32)')
    stack, stack_version, layout, regime = classify(row)
    if stack not in MODELLED_STACKS:
        raise Excluded('stack not modelled', stack)
    model = map_model(model_map, row)
    latency = number_or_empty(row['latency_ms'])
    throughput = number_or_empty(row['throughput_img_per_s'])
    batch = int(row['batch_size'])
    if not latency:
        if not throughput:
            raise Excluded('inconsistent source', 'neither latency nor throughput')
        latency = repr(round(batch * 1000.0 / float(throughput), 4))
        notes.append('latency_ms DERIVED here as batch_size / throughput_img_per_s')
    return {
        'model': model, 'device': device, 'stack': stack, 'precision': precision,
        'batch_size': str(batch), 'image_size': row['image_size'], 'latency_ms': latency,
        'throughput_img_per_s': throughput, 'regime': regime, 'source_id': sid,
        'source_ref': row['source_ref'], 'source_model': row['model'],
        'source_device': source_device, 'source_precision': row['precision'],
        'stack_version': stack_version, 'layout': layout,
        'source_gmacs': row.get('gmacs', ''), 'notes': '; '.join(n for n in notes if n),
    }


def convert_tpu(row, model_map):
    """tpu_measurements.csv rows: only MLPerf Offline inference on a single TPU v3-8 is used."""
    if row['mode'] != 'inference':
        raise Excluded('training measurement', row['mode'])
    if 'Server scenario' in row['notes']:
        raise Excluded('server scenario',
                       'per-query latency includes batching wait and queueing (upper bound only)')
    if not row['device'].startswith('TPU v3-8'):
        raise Excluded('duplicate',
                       'scale-out of several TPU v3-8 systems; same per-core rate as one v3-8')
    model = map_model(model_map, row)
    # "256 per TensorCore (each batch runs on one core)": each TensorCore runs whole batches. The
    # dcnas tpu-v3 accelerator is one chip (2 TensorCores) that splits its batch over both cores,
    # so one chip step = one batch per core: batch 2 x 256 in the time one core takes for 256. The
    # whole-system rate / 4 chips gives one chip's rate.
    per_core = re.match(r'(\d+) per TensorCore', row['batch_size'])
    cores_per_chip = 2
    chips = 4
    batch = int(per_core.group(1)) * cores_per_chip
    chip_rate = float(row['throughput_img_per_s']) / chips
    latency = round(batch * 1000.0 / chip_rate, 4)
    return {
        'model': model, 'device': DEVICES[row['device']], 'stack': 'xla-tpu',
        'precision': 'bf16', 'batch_size': str(batch), 'image_size': row['image_size'],
        'latency_ms': repr(latency), 'throughput_img_per_s': repr(round(chip_rate, 2)),
        'regime': LARGE_BATCH, 'source_id': row['source_id'], 'source_ref': row['source_ref'],
        'source_model': row['model'], 'source_device': row['device'],
        'source_precision': row['precision'], 'stack_version': row['framework'],
        'layout': '', 'source_gmacs': '',
        'notes': 'per chip: DERIVED here as whole-system Offline samples/s / 4 chips; batch = 256 '
                 'per TensorCore x 2 cores; latency_ms = batch / chip rate; ' +
                 row['notes'],
    }


def dedupe(rows, excluded_rows):
    """Drops exact repeats of (model, device, stack, version, layout, precision, batch, size,
    source): the source publishes the same network twice (aliases or re-timings)."""
    seen = {}
    kept = []
    for r in rows:
        key = (r['model'], r['device'], r['stack'], r['stack_version'], r['layout'],
               r['precision'], r['batch_size'], r['image_size'], r['source_id'], r['source_ref'])
        if key in seen:
            excluded_rows.append((r['source_id'], r['source_model'], r['source_device'],
                                  'duplicate', 'repeat of ' + seen[key] + ' in the same table'))
            continue
        seen[key] = r['source_model']
        kept.append(r)
    return kept


def main(argv):
    if len(argv) < 2:
        sys.exit(__doc__)
    src = argv[1]
    data = argv[2] if len(argv) > 2 else os.path.join(os.path.dirname(__file__), '..', 'data')
    out_dir = os.path.join(data, 'measurements')
    book_dir = os.path.join(out_dir, 'bookkeeping')
    model_map = load_model_map(os.path.join(book_dir, 'model_map.csv'))

    imported = collections.defaultdict(list)
    excluded_rows = []  # (source_id, source_model, source_device, reason, detail)
    all_rows = []
    with open(os.path.join(src, 'all_measurements_long.csv'), newline='', encoding='utf-8') as f:
        all_rows = [r for r in csv.DictReader(f) if r['source_id'] != 'timm_benchmark']
    with open(os.path.join(src, 'timm_cnn_families_long.csv'), newline='',
              encoding='utf-8') as f:
        all_rows += list(csv.DictReader(f))
    for row in all_rows:
        try:
            out = convert(row, model_map)
        except Excluded as e:
            excluded_rows.append((row['source_id'], row['model'], row['device'], e.reason,
                                  e.detail))
            continue
        group = GROUP_OF_SOURCE[row['source_id']]
        if group is None:
            group = 'timm_' + out['device'].replace('-', '')
        imported[group].append(out)
    with open(os.path.join(src, 'tpu_measurements.csv'), newline='', encoding='utf-8') as f:
        for row in csv.DictReader(f):
            try:
                out = convert_tpu(row, model_map)
            except Excluded as e:
                excluded_rows.append((row['source_id'], row['model'], row['device'], e.reason,
                                      e.detail))
                continue
            imported['tpu_v3'].append(out)

    os.makedirs(book_dir, exist_ok=True)
    summary = collections.Counter()
    for group, rows in sorted(imported.items()):
        rows = dedupe(rows, excluded_rows)
        rows.sort(key=lambda r: (r['device'], r['stack'], r['stack_version'], r['layout'],
                                 r['precision'], r['model'], int(r['image_size']),
                                 int(r['batch_size'])))
        with open(os.path.join(out_dir, group + '.csv'), 'w', newline='', encoding='utf-8') as f:
            w = csv.DictWriter(f, fieldnames=OUT_COLUMNS, lineterminator='\n')
            w.writeheader()
            w.writerows(rows)
        for r in rows:
            summary[(r['device'], r['regime'], 'imported')] += 1

    agg = collections.Counter()
    for sid, model, dev, reason, detail in excluded_rows:
        agg[(sid, model, dev, reason, detail)] += 1
        summary[(DEVICES.get(dev, 'other devices'), '', 'excluded: ' + reason)] += 1
    with open(os.path.join(book_dir, 'excluded.csv'), 'w', newline='', encoding='utf-8') as f:
        w = csv.writer(f, lineterminator='\n')
        w.writerow(['source_id', 'source_model', 'source_device', 'reason', 'detail', 'rows'])
        for key in sorted(agg):
            w.writerow(list(key) + [agg[key]])
    with open(os.path.join(book_dir, 'import_summary.csv'), 'w', newline='',
              encoding='utf-8') as f:
        w = csv.writer(f, lineterminator='\n')
        w.writerow(['device', 'regime', 'outcome', 'rows'])
        for key in sorted(summary):
            w.writerow(list(key) + [summary[key]])
    # Remove outputs of earlier runs that this run did not produce (e.g. a device now excluded).
    possible = {g for g in GROUP_OF_SOURCE.values() if g} | {'tpu_v3'} | {
        'timm_' + d.replace('-', '') for d in DEVICES.values()}
    for group in sorted(possible - set(imported)):
        stale = os.path.join(out_dir, group + '.csv')
        if os.path.exists(stale):
            os.remove(stale)
    total_in = sum(v for k, v in summary.items() if k[2] == 'imported')
    total_out = len(excluded_rows)
    print('imported %d rows into %d files, excluded %d rows (see bookkeeping/excluded.csv)' %
          (total_in, len(imported), total_out))
    reasons = collections.Counter(r[3] for r in excluded_rows)
    for reason, n in reasons.most_common():
        print('  excluded %5d  %s' % (n, reason))


if __name__ == '__main__':
    main(sys.argv)
