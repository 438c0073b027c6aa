#!/usr/bin/python3
"""Imports the timm inference rows of the transformer and ConvNeXt families dcnas builds
(models/zoo/transformers.cc) into data/measurements/timm_transformers.csv, and those of the
attention-free MLP families (MLP-Mixer, ResMLP) into data/measurements/timm_mlp_mixers.csv.

These rows were left out of the CNN import (scripts/import_measurements.py reads timm's CNN
families only; bookkeeping/excluded.csv lists the transformers it met elsewhere as "no dcnas zoo
model with this structure"). The raw timm benchmark files (Apache-2.0, huggingface/
pytorch-image-models results/) are read from SOURCE_DIR at import time; the rows kept are
PyTorch 2.4.0 eager, AMP fp16, NCHW on the RTX 3090 and RTX 4090, the conditions the shipped
GPU profiles were fitted on. Only architectures that are exactly a zoo member map: DeiT-B is
ViT-B/16 (the same network, other training); distilled DeiTs (a second token and head), Swin
with 12 x 12 windows and ConvNeXt head variants are left out, each with its reason.

usage: scripts/import_transformer_rows.py SOURCE_DIR [DATA_DIR]
  SOURCE_DIR  the folder holding timm/benchmark-infer-*.csv
"""
import csv
import os
import sys

FILES = {
    'rtx-3090': ('benchmark-infer-amp-nchw-pt240-cu124-rtx3090.csv', 'RTX 3090'),
    'rtx-4090': ('benchmark-infer-amp-nchw-pt240-cu124-rtx4090.csv', 'RTX 4090'),
}
REF = 'huggingface/pytorch-image-models@5c33776aa59f:results/'
STACK_VERSION = 'PyTorch 2.4.0 (cu124)'

# timm name -> dcnas zoo name (the same network).
MAP = {
    'vit_base_patch16_224': 'vit-b-16',
    'vit_base_patch32_224': 'vit-b-32',
    'vit_large_patch16_224': 'vit-l-16',
    'deit_base_patch16_224': 'vit-b-16',
    'deit_base_patch16_384': 'vit-b-16',
    'deit_small_patch16_224': 'deit-s-16',
    'deit_tiny_patch16_224': 'deit-ti-16',
    'swin_tiny_patch4_window7_224': 'swin-t',
    'swin_small_patch4_window7_224': 'swin-s',
    'swin_base_patch4_window7_224': 'swin-b',
    'convnext_tiny': 'convnext-tiny',
    'convnext_small': 'convnext-small',
    'convnext_base': 'convnext-base',
    'convnext_large': 'convnext-large',
}

# The MLP families (their own file: the GPU profiles fit them; the transformers stay held out).
MIXERS = {
    'mixer_s32_224': 'mixer-s32',
    'mixer_s16_224': 'mixer-s16',
    'mixer_b32_224': 'mixer-b32',
    'mixer_b16_224': 'mixer-b16',
    'mixer_l32_224': 'mixer-l32',
    'mixer_l16_224': 'mixer-l16',
    'resmlp_12_224': 'resmlp-12',
    'resmlp_24_224': 'resmlp-24',
    'resmlp_36_224': 'resmlp-36',
    'resmlp_big_24_224': 'resmlp-big-24',
}
OUTPUTS = (('timm_transformers.csv', MAP), ('timm_mlp_mixers.csv', MIXERS))

COLUMNS = ['model', 'device', 'stack', 'precision', 'batch_size', 'image_size', 'latency_ms',
           'throughput_img_per_s', 'regime', 'source_id', 'source_ref', 'source_model',
           'source_device', 'source_precision', 'stack_version', 'layout', 'source_gmacs', 'notes']


def main(argv):
    if len(argv) < 2 or argv[1] in ('-h', '--help'):
        print(__doc__)
        return 0 if len(argv) >= 2 else 2
    src = argv[1]
    data = argv[2] if len(argv) > 2 else os.path.join(os.path.dirname(__file__), '..', 'data')
    for out_name, mapping in OUTPUTS:
        status = import_rows(src, data, out_name, mapping)
        if status:
            return status
    return 0


def import_rows(src, data, out_name, mapping):
    rows = []
    for device, (name, source_device) in FILES.items():
        path = os.path.join(src, 'timm', name)
        if not os.path.exists(path):
            print('%s: not found' % path, file=sys.stderr)
            return 2
        with open(path, newline='', encoding='utf-8') as f:
            for r in csv.DictReader(f):
                model = mapping.get(r['model'])
                if model is None:
                    continue
                size = int(r['infer_img_size'])
                if model.startswith('swin') and size != 224:
                    continue  # the 7 x 7 windows fit 224 px only
                if model.startswith('vit') or model.startswith('deit'):
                    patch = 32 if model == 'vit-b-32' else 16
                    if size % patch:
                        continue
                rows.append({
                    'model': model, 'device': device, 'stack': 'pytorch-eager',
                    'precision': 'fp16', 'batch_size': r['infer_batch_size'], 'image_size': size,
                    'latency_ms': r['infer_step_time'],
                    'throughput_img_per_s': r['infer_samples_per_sec'],
                    'regime': 'large_batch', 'source_id': 'timm_benchmark',
                    'source_ref': REF + name, 'source_model': r['model'],
                    'source_device': source_device, 'source_precision': 'AMP_FP16',
                    'stack_version': STACK_VERSION, 'layout': 'NCHW',
                    'source_gmacs': r['infer_gmacs'],
                    'notes': 'param_count %s M (timm)' % r['param_count']})
    rows.sort(key=lambda r: (r['device'], r['model'], int(r['image_size']), r['source_model'],
                             int(r['batch_size'])))
    out = os.path.join(data, 'measurements', out_name)
    with open(out + '.tmp', 'w', newline='', encoding='utf-8') as f:
        w = csv.DictWriter(f, fieldnames=COLUMNS, lineterminator='\n')
        w.writeheader()
        w.writerows(rows)
    os.replace(out + '.tmp', out)
    print('%d rows -> %s' % (len(rows), out))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
