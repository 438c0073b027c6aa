#!/usr/bin/env python3
"""Imports published CNN inference and training measurements into data/measurements/ (one-off).

Reads the collected measurement tables (the folder given as the first argument: the common long
CSVs plus their SOURCES.md, and tpu_measurements.csv) and the timm training benchmark that the
project keeps itself (data/measurements/sources/), maps the sources' model names to dcnas zoo
names through data/measurements/bookkeeping/model_map.csv, assigns each row a device, software
stack, precision and measurement regime, and writes:

  data/measurements/<group>.csv   the rows dcnas can simulate, provenance columns kept
  data/measurements/bookkeeping/excluded.csv  every row not imported, by source model and reason
  data/measurements/bookkeeping/import_summary.csv  counts per device and regime, imported vs
      excluded
  data/measurements/bookkeeping/other_stacks.csv  rows of modelled chips and zoo models timed with
      software dcnas has no stack for (TensorFlow with XLA, MXNet, Triton): not calibration
      data, kept to compare measured speedups between chips across software
      (scripts/transfer_study.py)

Inference rows (regimes large_batch, engine_latency, framework_latency) and training rows (regime
training: one training step of the global batch over `chips` chips, data parallel) never share a
file; the training files have two more columns, chips and optimizer.

Nothing is invented: latency_ms is the published per-batch latency (per training step), or
batch_size / throughput when only a throughput was published (the row's notes say so). dcnas
itself never reads the source folder; the committed output files are what it uses.

Usage: scripts/import_measurements.py SOURCE_DIR [DATA_DIR] [--timm-train CSV]
  DATA_DIR          default: the data/ folder beside this script
  --timm-train CSV  the timm training benchmark, default DATA_DIR/measurements/sources/
                    timm-benchmark-train-amp-nchw-pt112-cu113-rtx3090.csv
Python 3 standard library only.
"""

import argparse
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
    'A30': 'a30',              # PCIe, the only A30 part
    'A10': 'a10',              # PCIe, the only A10 part
    'RTX 3090': 'rtx-3090',
    'RTX 4090': 'rtx-4090',
    'TPU v3-8 (4 chips, 8 TensorCores)': 'tpu-v3',
}

# dcnas stack names (data/stacks/<name>.yaml) that have a profile; rows measured with any other
# software stack are excluded ("stack not modelled").
MODELLED_STACKS = {'pytorch-eager', 'torch-compile', 'tensorrt', 'xla-tpu', 'tensorflow'}

PRECISIONS = {
    'FP32': 'fp32', 'TF32': 'tf32', 'FP16': 'fp16', 'AMP': 'fp16', 'AMP_FP16': 'fp16',
    'BF16': 'bf16', 'INT8': 'int8',
}

LARGE_BATCH = 'large_batch'          # kernel-dominated throughput, host overhead amortised
ENGINE_LATENCY = 'engine_latency'    # inference-engine (TensorRT) latency per batch
FRAMEWORK_LATENCY = 'framework_latency'  # framework end-to-end latency at small batch
TRAINING = 'training'                # one training step (forward, backward, optimizer update)

# Eager-framework rows at or above this batch are treated as large-batch throughput (the
# measurement README's regime 1: "DLE at batch >= 64").
LARGE_BATCH_MIN = 64

# Sources whose published per-batch mean latency includes a few slow (warm-up) iterations: in the
# NVIDIA DLE PyTorch ConvNets tables the 99th percentile lies below the mean in 73 of the 82 rows
# at batch >= 64, and the mean exceeds batch / throughput by up to 56% (EfficientNet-B0 on the
# A100 at batch 256: 39.05 ms against 25.00 ms). Regime 1 is large-batch throughput, so these
# sources' large-batch rows take batch / throughput, the steady state; the mean stays in the notes.
MEAN_LATENCY_WITH_SLOW_ITERATIONS = {'dle_pyt_convnets'}

OUT_COLUMNS = ['model', 'device', 'stack', 'precision', 'batch_size', 'image_size', 'latency_ms',
               'throughput_img_per_s', 'regime', 'source_id', 'source_ref', 'source_model',
               'source_device', 'source_precision', 'stack_version', 'layout', 'source_gmacs',
               'notes']

# The training files: the same columns plus the slice size (data-parallel chips sharing the
# global batch) and the optimizer the source trained with (its update cost is part of a step).
TRAIN_COLUMNS = OUT_COLUMNS + ['chips', 'optimizer']
OPTIMIZERS = {'sgd-momentum', 'rmsprop', 'adam', 'lars'}

# Which output file each source goes to.
GROUP_OF_SOURCE = {
    'timm_benchmark': None,  # split by device: timm_rtx3090 / timm_rtx4090
    'paddleclas_zh_docs': 'paddleclas_tensorrt',
    'dle_pyt_convnets': 'nvidia_dle', 'dle_tf1_convnets': 'nvidia_dle_tensorflow',
    'dle_tf2_efficientnet': 'nvidia_dle_tensorflow',
    'dle_tf2_efficientnet_2021': 'nvidia_dle_tensorflow',
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
        # launch.py --mode benchmark_inference runs each model's entry of the ConvNets
        # configs.yml, and every AMP entry (all models, all platforms) sets memory_format: nhwc,
        # as the READMEs' inference commands do (--amp --memory-format nhwc); the FP32 and TF32
        # entries keep PyTorch's default, NCHW (NVIDIA/DeepLearningExamples@0fadac23
        # PyTorch/Classification/ConvNets/configs.yml). The collected framework note names
        # memory_format nhwc on the ResNet-50 rows alone, FP32 ones included.
        layout = 'NHWC' if row['precision'] == 'AMP' else 'NCHW'
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
        regime = LARGE_BATCH if batch >= LARGE_BATCH_MIN else FRAMEWORK_LATENCY
        version = re.search(r'MXNet NGC \(([^)]*)\)', fw)
        return 'mxnet', 'MXNet NGC (' + (version.group(1) if version else '') + ')', 'NHWC', regime
    if sid in ('dle_triton_offline', 'dle_gpunet_triton_offline'):
        # Triton perf_analyzer client latency per batch (server, backend and transfer included).
        stack = 'triton-tf-trt' if 'TF-TRT' in fw else 'triton-onnxruntime-trt'
        return stack, fw, '', FRAMEWORK_LATENCY
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


def map_model(model_map, row, source=None):
    """The dcnas zoo name of row['model'] under model_map.csv key `source` (default: the key of
    the row's source_id), or raises Excluded."""
    key = (source or map_source(row['source_id']), row['model'])
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


def convert(row, model_map, other_stacks=False):
    """Returns an output row (dict) or raises Excluded. With `other_stacks`, a row whose software
    stack dcnas does not model (TensorFlow with XLA, MXNet, Triton) is converted instead, for the
    cross-stack comparison file bookkeeping/other_stacks.csv; such rows stay excluded from
    calibration."""
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
    if (stack in MODELLED_STACKS) == other_stacks:
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
    elif regime == LARGE_BATCH and sid in MEAN_LATENCY_WITH_SLOW_ITERATIONS and throughput:
        p99 = row.get('latency_p99_ms') or 'not published'
        notes.append(f'latency_ms DERIVED here as batch_size / throughput_img_per_s (steady '
                     f'state); the published mean latency {latency} ms includes slow iterations '
                     f'(99th percentile {p99} ms)')
        latency = repr(round(batch * 1000.0 / float(throughput), 4))
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
    """tpu_measurements.csv inference rows (mode 'inference'; the training rows go to
    convert_tpu_training): only MLPerf Offline inference on a single TPU v3-8 is used."""
    if row['mode'] != 'inference':
        raise ValueError('convert_tpu: not an inference row: ' + row['mode'])
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


# --- Training rows --------------------------------------------------------------------------

# tpu_measurements.csv training rows: TPU generation -> dcnas accelerator (one chip, 2
# TensorCores). A slice "TPU vG-N" has N TensorCores = N / 2 chips. TPU v4 (megacore: the two
# TensorCores of a chip act as one device) is not imported for training yet.
TPU_GENERATIONS = {'2': 'tpu-v2', '3': 'tpu-v3'}
TENSORCORES_PER_CHIP = 2

# model_map.csv key of all tpu_measurements.csv training rows (their model names are the
# sources' own, e.g. "resnet50_v1.5 (MLPerf)", "EffNet-B0").
TPU_TRAINING_MAP_SOURCE = 'tpu_training'

# Sources that are not first-hand measurements (press paraphrases, user reports).
SECONDARY_SOURCES = {'techcrunch_2019_secondary', 'user_report_presser_2020',
                     'user_report_pytorch_xla_3491'}

# Source id -> (stack_version suffix, optimizer, how the optimizer is known). For the MLPerf
# rounds, `how` is the opt_name the round's Google ResNet-50 logs print, and the slices whose
# log was read to check it (one result_*.txt each); other slices are assumed to use the round's
# same code.
TPU_TRAINING_SOURCES = {
    'mlperf_train_v0.5': ('MLPerf Training v0.5', 'sgd-momentum',
                          ('stochastic_gradient_descent_with_momentum, momentum 0.9',
                           {'v2-8', 'v3-8', 'v3-32', 'v2-512'})),
    'mlperf_train_v0.6': ('MLPerf Training v0.6', 'lars', ('lars', {'v3-32', 'v3-512'})),
    'mlperf_train_v0.7': ('MLPerf Training v0.7', 'lars', ('lars', {'v3-32'})),
    'nfnet_paper_2021': ('NFNet paper, 2021', 'sgd-momentum',
                         'optimizer ASSUMED: the NFNet paper trains with SGD and Nesterov '
                         'momentum; the optimizer of its baselines\' timing runs is not stated'),
}

# The EfficientNet default (train) resolutions, for sources that time each EfficientNet at its
# own resolution without printing it.
EFFICIENTNET_RESOLUTION = {
    'efficientnet-b0': 224, 'efficientnet-b1': 240, 'efficientnet-b2': 260,
    'efficientnet-b3': 300, 'efficientnet-b4': 380, 'efficientnet-b5': 456,
    'efficientnet-b6': 528, 'efficientnet-b7': 600,
}


def training_image_size(row, model):
    """The train resolution of a TPU training row: the published one, else (NFNet paper: Table 3
    does not print the baselines' resolutions; the source notes give the EfficientNet defaults)
    the model's own default resolution, with a note saying it is assumed. Raises Excluded
    otherwise."""
    size = re.match(r'\s*(\d+)', row['image_size'])
    if size:
        return int(size.group(1)), ''
    if row['source_id'] == 'nfnet_paper_2021':
        if model in EFFICIENTNET_RESOLUTION:
            px = EFFICIENTNET_RESOLUTION[model]
            return px, ('image_size ASSUMED: %d px, the %s default resolution (the table does not '
                        'state it; the source notes give the default)' % (px, model))
        if model == 'resnet50':
            return 224, ('image_size ASSUMED: 224 px, the standard ResNet-50 resolution (the '
                         'table does not state it)')
    raise Excluded('image size not published', row['image_size'] or 'empty')


def convert_tpu_training(row, model_map):
    """tpu_measurements.csv training rows (mode 'training...'): one output row per published
    training step time or steady-state training throughput of a TPU v2/v3 slice, or raises
    Excluded. batch_size is the global batch of the slice, chips its chip count, latency_ms the
    time of one step of the global batch."""
    sid = row['source_id']
    notes = row['notes']
    if sid in SECONDARY_SOURCES:
        raise Excluded('secondary report', 'not a first-hand measurement: ' +
                       notes.split(':')[0])
    if 'progressive' in row['image_size'] or 'progressive' in row['model']:
        raise Excluded('progressive resizing', 'image size changes during training')
    latency = number_or_empty(row['latency_ms'])
    throughput = number_or_empty(row['throughput_img_per_s'])
    if not latency and not throughput:
        raise Excluded('no number', 'neither step time nor throughput published')
    model = map_model(model_map, row, TPU_TRAINING_MAP_SOURCE)
    if '[DERIVED end-to-end average]' in notes or '[DERIVED rough average]' in notes:
        raise Excluded('time to train', 'steps x batch / wall time of the whole run (includes '
                       'evaluation, compilation, start-up), not a training step')
    if sid == 'dawnbench_google_tpu':
        raise Excluded('time to train', 'per-epoch wall time from the DAWNBench time-to-accuracy '
                       'log; every epoch includes an evaluation pass (TPUEstimator, 2018)')
    device = re.match(r'TPU v(\d+)-(\d+) ', row['device'])
    if not device:
        raise Excluded('ambiguous chip count', row['device'])
    if device.group(1) not in TPU_GENERATIONS:
        raise Excluded('device not imported', 'TPU v%s (megacore: 2 TensorCores act as one '
                       'device); the training import covers TPU v2 and v3' % device.group(1))
    cores = int(device.group(2))
    chips, odd = divmod(cores, TENSORCORES_PER_CHIP)
    stated_chips = re.search(r'(\d+) chips', row['device'])
    if odd or (stated_chips and int(stated_chips.group(1)) != chips):
        raise Excluded('inconsistent source', 'chip count of ' + row['device'])
    if 'very large pod' in notes:
        raise Excluded('pod scale', 'source flags it: per-chip batch tiny, rates noisy and '
                       'communication-bound, not useful for per-chip calibration')
    if sid not in TPU_TRAINING_SOURCES:
        raise Excluded('inconsistent source', 'training source not described here: ' + sid)
    if not row['precision'].startswith('bf16'):
        raise Excluded('precision not stated', row['precision'])
    batch = re.search(r'global (\d+)', row['batch_size'])
    if not batch:
        raise Excluded('batch size not published', row['batch_size'])
    batch = int(batch.group(1))
    per_core, rest = divmod(batch, cores)
    stated = re.search(r'per (?:TensorCore|core) ([0-9.]+)', row['batch_size'])
    if rest or (stated and float(stated.group(1)) != int(float(stated.group(1)))):
        raise Excluded('fractional per-core batch', row['batch_size'])
    if stated and int(float(stated.group(1))) != per_core:
        raise Excluded('inconsistent source', 'per-core batch does not match global / cores: ' +
                       row['batch_size'])
    image_size, image_note = training_image_size(row, model)

    suffix, optimizer, how = TPU_TRAINING_SOURCES[sid]
    slice_name = 'v%s-%d' % (device.group(1), cores)
    if isinstance(how, str):
        optimizer_note = how
    elif slice_name in how[1]:
        optimizer_note = 'optimizer: opt_name "%s" in this submission\'s MLPerf log' % how[0]
    else:
        optimizer_note = ('optimizer ASSUMED: same code as the round\'s other Google ResNet-50 '
                          'submissions, whose logs print opt_name "%s"' % how[0])
    assert optimizer in OPTIMIZERS
    out_notes = ['one training step of the global batch of %d images over %d chips (%d '
                 'TensorCores x %d images, data parallel)' % (batch, chips, cores, per_core)]
    if latency:
        out_notes.append('latency_ms = the published step time')
    else:
        latency = repr(round(batch * 1000.0 / float(throughput), 4))
        out_notes.append('latency_ms DERIVED here as batch_size / throughput_img_per_s (the '
                         'steady-state rate of the whole slice)')
        if 'blocks include the in-loop eval pass' in notes:
            out_notes.append('an upper bound on the step: each timed block includes one '
                             'evaluation pass')
    out_notes += [optimizer_note, image_note, notes]
    return {
        'model': model, 'device': TPU_GENERATIONS[device.group(1)], 'stack': 'xla-tpu',
        'precision': 'bf16', 'batch_size': str(batch), 'image_size': str(image_size),
        'latency_ms': latency, 'throughput_img_per_s': throughput, 'regime': TRAINING,
        'source_id': sid, 'source_ref': row['source_ref'], 'source_model': row['model'],
        'source_device': row['device'], 'source_precision': row['precision'],
        'stack_version': '%s (%s)' % (row['framework'], suffix), 'layout': '',
        'source_gmacs': '', 'notes': '; '.join(n for n in out_notes if n),
        'chips': str(chips), 'optimizer': optimizer,
    }


# The timm training benchmark kept in the project (data/measurements/sources/README.md).
TIMM_TRAIN_FILE = 'timm-benchmark-train-amp-nchw-pt112-cu113-rtx3090.csv'
TIMM_TRAIN_SOURCE_ID = 'timm_benchmark_train'
TIMM_TRAIN_REF = ('huggingface/pytorch-image-models@bd6d377c74ef:'
                  'results/benchmark-train-amp-nchw-pt112-cu113-rtx3090.csv')
TIMM_TRAIN_DEVICE = 'RTX 3090'
# train_step_time and train_batch_size / train_samples_per_sec differ by more than this (the
# throughput also times the loop's untimed zero_grad): said in the row's notes.
TIMM_STEP_TOLERANCE = 0.02


def convert_timm_train(row, model_map):
    """One row of the raw timm training benchmark (model, train_samples_per_sec,
    train_step_time, train_batch_size, train_img_size, param_count), mapped with the timm
    entries of model_map.csv; returns an output row or raises Excluded."""
    model = map_model(model_map, row, 'timm')
    batch = int(row['train_batch_size'])
    step_ms = float(row['train_step_time'])
    throughput = float(row['train_samples_per_sec'])
    notes = ['one training step (forward, cross-entropy loss, backward, optimizer step; '
             'zero_grad not timed) of train_batch_size images on synthetic input',
             'latency_ms = train_step_time (ms per step)',
             'optimizer ASSUMED: timm benchmark.py default optimizer (opt sgd = SGD with '
             'Nesterov momentum 0.9)',
             'batch size as run by benchmark.py (lowered on out-of-memory)']
    from_throughput = batch * 1000.0 / throughput
    if abs(from_throughput - step_ms) > TIMM_STEP_TOLERANCE * step_ms:
        notes.append('train_batch_size / train_samples_per_sec = %.3f ms differs from '
                     'train_step_time by %+.1f%%' %
                     (from_throughput, (from_throughput - step_ms) / step_ms * 100))
    notes.append('param_count %s M (timm)' % row['param_count'])
    return {
        'model': model, 'device': DEVICES[TIMM_TRAIN_DEVICE], 'stack': 'pytorch-eager',
        'precision': PRECISIONS['AMP_FP16'], 'batch_size': str(batch),
        'image_size': str(int(row['train_img_size'])),
        'latency_ms': number_or_empty(row['train_step_time']),
        'throughput_img_per_s': number_or_empty(row['train_samples_per_sec']),
        'regime': TRAINING, 'source_id': TIMM_TRAIN_SOURCE_ID, 'source_ref': TIMM_TRAIN_REF,
        'source_model': row['model'], 'source_device': TIMM_TRAIN_DEVICE,
        'source_precision': 'AMP_FP16', 'stack_version': 'PyTorch 1.12 (cu113)',
        'layout': 'NCHW', 'source_gmacs': '', 'notes': '; '.join(notes),
        'chips': '1', 'optimizer': 'sgd-momentum',
    }


def summary_device(source_device):
    """The dcnas device an excluded row counts under in import_summary.csv."""
    if source_device in DEVICES:
        return DEVICES[source_device]
    tpu = re.match(r'TPU v(\d+)-\d+ ', source_device)
    if tpu and tpu.group(1) in TPU_GENERATIONS:
        return TPU_GENERATIONS[tpu.group(1)]
    return 'other devices'


def dedupe(rows, excluded_rows):
    """Drops exact repeats of (model, device, stack, version, layout, precision, batch, size,
    source, chips): the source publishes the same network twice (aliases or re-timings)."""
    seen = {}
    kept = []
    for r in rows:
        key = (r['model'], r['device'], r['stack'], r['stack_version'], r['layout'],
               r['precision'], r['batch_size'], r['image_size'], r['source_id'], r['source_ref'],
               r.get('chips', ''))
        if key in seen:
            excluded_rows.append((r['source_id'], r['source_model'], r['source_device'],
                                  'duplicate', 'repeat of ' + seen[key] + ' in the same table',
                                  r['regime'] if r['regime'] == TRAINING else ''))
            continue
        seen[key] = r['source_model']
        kept.append(r)
    return kept


def parse_args(argv):
    """SOURCE_DIR [DATA_DIR] [--timm-train CSV]; the old positional form still works."""
    parser = argparse.ArgumentParser(
        prog=os.path.basename(argv[0]), description=__doc__.split('\n\n')[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('source_dir', help='the collected measurement tables')
    parser.add_argument('data_dir', nargs='?',
                        default=os.path.join(os.path.dirname(__file__), '..', 'data'),
                        help='the dcnas data folder (default: the one beside this script)')
    parser.add_argument('--timm-train', metavar='CSV',
                        help='the timm training benchmark CSV (default: '
                             'DATA_DIR/measurements/sources/' + TIMM_TRAIN_FILE + ')')
    args = parser.parse_args(argv[1:])
    if args.timm_train is None:
        args.timm_train = os.path.join(args.data_dir, 'measurements', 'sources', TIMM_TRAIN_FILE)
    return args


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    args = parse_args(argv)
    for name in ('all_measurements_long.csv', 'timm_cnn_families_long.csv'):
        if not os.path.isfile(os.path.join(args.source_dir, name)):
            print('%s: no %s (SOURCE_DIR holds the collected measurement tables; see '
                  'data/measurements/sources/README.md)' % (args.source_dir, name),
                  file=sys.stderr)
            sys.exit(2)
    if not os.path.exists(args.timm_train):
        print('%s: not found (the timm training benchmark; see '
              'data/measurements/sources/README.md)' % args.timm_train, file=sys.stderr)
        sys.exit(2)
    src = args.source_dir
    data = args.data_dir
    out_dir = os.path.join(data, 'measurements')
    book_dir = os.path.join(out_dir, 'bookkeeping')
    model_map = load_model_map(os.path.join(book_dir, 'model_map.csv'))

    imported = collections.defaultdict(list)
    # (source_id, source_model, source_device, reason, detail, regime): regime is TRAINING for
    # training rows and '' for inference rows.
    excluded_rows = []
    all_rows = []
    with open(os.path.join(src, 'all_measurements_long.csv'), newline='', encoding='utf-8') as f:
        all_rows = [r for r in csv.DictReader(f) if r['source_id'] != 'timm_benchmark']
    with open(os.path.join(src, 'timm_cnn_families_long.csv'), newline='',
              encoding='utf-8') as f:
        all_rows += list(csv.DictReader(f))
    other_stack_rows = []
    for row in all_rows:
        try:
            out = convert(row, model_map)
        except Excluded as e:
            excluded_rows.append((row['source_id'], row['model'], row['device'], e.reason,
                                  e.detail, ''))
            if e.reason == 'stack not modelled':
                try:
                    other_stack_rows.append(convert(row, model_map, other_stacks=True))
                except Excluded:
                    pass
            continue
        group = GROUP_OF_SOURCE[row['source_id']]
        if group is None:
            group = 'timm_' + out['device'].replace('-', '')
        imported[group].append(out)
    with open(os.path.join(src, 'tpu_measurements.csv'), newline='', encoding='utf-8') as f:
        for row in csv.DictReader(f):
            inference = row['mode'] == 'inference'
            try:
                if inference:
                    out = convert_tpu(row, model_map)
                else:
                    out = convert_tpu_training(row, model_map)
            except Excluded as e:
                excluded_rows.append((row['source_id'], row['model'], row['device'], e.reason,
                                      e.detail, '' if inference else TRAINING))
                continue
            imported['tpu_v3' if inference else 'tpu_training'].append(out)
    with open(args.timm_train, newline='', encoding='utf-8') as f:
        for row in csv.DictReader(f):
            try:
                out = convert_timm_train(row, model_map)
            except Excluded as e:
                excluded_rows.append((TIMM_TRAIN_SOURCE_ID, row['model'], TIMM_TRAIN_DEVICE,
                                      e.reason, e.detail, TRAINING))
                continue
            imported['timm_' + out['device'].replace('-', '') + '_train'].append(out)

    os.makedirs(book_dir, exist_ok=True)
    summary = collections.Counter()
    written = {}
    for group, rows in sorted(imported.items()):
        rows = dedupe(rows, excluded_rows)
        written[group] = len(rows)
        rows.sort(key=lambda r: (r['device'], r['stack'], r['stack_version'], r['layout'],
                                 r['precision'], r['model'], int(r['image_size']),
                                 int(r['batch_size']), int(r.get('chips', 0))))
        training = {r['regime'] == TRAINING for r in rows}
        if len(training) != 1:
            sys.exit('%s: training and inference rows in one file' % group)
        columns = TRAIN_COLUMNS if training.pop() else OUT_COLUMNS
        with open(os.path.join(out_dir, group + '.csv'), 'w', newline='', encoding='utf-8') as f:
            w = csv.DictWriter(f, fieldnames=columns, lineterminator='\n')
            w.writeheader()
            w.writerows(rows)
        for r in rows:
            summary[(r['device'], r['regime'], 'imported')] += 1

    # Rows of modelled chips and zoo models measured with a software stack dcnas has no stack
    # file for: not calibration data, but the same models and chips timed by other software, so
    # they show how far a measured speedup between two chips depends on the software
    # (scripts/transfer_study.py, cross_stack.tsv).
    other_stack_rows.sort(key=lambda r: (r['device'], r['stack'], r['stack_version'],
                                         r['precision'], r['model'], int(r['image_size']),
                                         int(r['batch_size']), r['source_device']))
    with open(os.path.join(book_dir, 'other_stacks.csv'), 'w', newline='',
              encoding='utf-8') as f:
        w = csv.DictWriter(f, fieldnames=OUT_COLUMNS, lineterminator='\n')
        w.writeheader()
        w.writerows(other_stack_rows)

    agg = collections.Counter()
    for sid, model, dev, reason, detail, regime in excluded_rows:
        agg[(sid, model, dev, reason, detail)] += 1
        device = summary_device(dev) if regime == TRAINING else DEVICES.get(dev, 'other devices')
        summary[(device, regime, 'excluded: ' + reason)] += 1
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
    possible = {g for g in GROUP_OF_SOURCE.values() if g} | {'tpu_v3', 'tpu_training'} | {
        'timm_' + d.replace('-', '') + suffix for d in DEVICES.values()
        for suffix in ('', '_train')}
    for group in sorted(possible - set(imported)):
        stale = os.path.join(out_dir, group + '.csv')
        if os.path.exists(stale):
            os.remove(stale)
    total_in = sum(v for k, v in summary.items() if k[2] == 'imported')
    total_out = len(excluded_rows)
    print('imported %d rows into %d files, excluded %d rows (see bookkeeping/excluded.csv)' %
          (total_in, len(imported), total_out))
    print('  %5d rows of other software stacks in bookkeeping/other_stacks.csv' %
          len(other_stack_rows))
    for regime in ('', TRAINING):
        in_regime = [k for k in sorted(summary) if (k[1] == TRAINING) == (regime == TRAINING)]
        print('  %s: imported %d, excluded %d' % (
            'training' if regime else 'inference',
            sum(summary[k] for k in in_regime if k[2] == 'imported'),
            sum(summary[k] for k in in_regime if k[2] != 'imported')))
    for group, n in sorted(written.items()):
        print('  %5d rows  %s.csv' % (n, group))
    reasons = collections.Counter(r[3] for r in excluded_rows)
    for reason, n in reasons.most_common():
        print('  excluded %5d  %s' % (n, reason))


if __name__ == '__main__':
    main(sys.argv)
