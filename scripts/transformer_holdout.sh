#!/usr/bin/env bash
# Scores the transformer families (ViT/DeiT, Swin, ConvNeXt; data/measurements/
# timm_transformers.csv) on the RTX 3090 and 4090 with profiles that never saw them, under two
# protocols, and writes the residuals and a summary table to data/calibrated/reports/transformers/:
#   shipped: the shipped profiles (fitted to the convnets and the MLP families, no transformer);
#   lofo:    refitted on the convnets, the MLP families and the other two transformer families,
#            scoring the third (leave-one-family-out among the transformers).
# Usage: scripts/transformer_holdout.sh [BUILD_DIR]
set -euo pipefail
# shellcheck source=args.sh
source "$(dirname "$0")/args.sh"
script_args "scripts/transformer_holdout.sh [BUILD_DIR]" 1 "$@"
cd "$(dirname "$0")/.."
build="${1:-build}"
dcnas="$build/cli/dcnas"
require_binary "$dcnas"
m=data/measurements
rep=data/calibrated/reports/transformers
mkdir -p "$rep"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fit=(--fit matrix_efficiency,gemm_efficiency,vector_efficiency,memory_efficiency,overlap,kernel_overhead_scale)
declare -A pattern=([vit]='^(vit|deit)-' [swin]='^swin-' [convnext]='^convnext-')

for chip in rtx-3090 rtx-4090; do
  short=${chip#rtx-}
  "$dcnas" calibrate --accel "$chip" --stack pytorch-eager --precision fp16 --regime large_batch \
    --measurements $m/timm_transformers.csv --evaluate "data/calibrated/$chip-pytorch-eager-fp16.yaml" \
    --residuals "$rep/shipped-$chip.residuals.csv" > "$rep/shipped-$chip.txt"
  for family in vit swin convnext; do
    head -1 $m/timm_transformers.csv > "$tmp/held.csv"
    cp "$tmp/held.csv" "$tmp/kept.csv"
    grep -E "${pattern[$family]}" $m/timm_transformers.csv >> "$tmp/held.csv" || true
    tail -n +2 $m/timm_transformers.csv | grep -vE "${pattern[$family]}" >> "$tmp/kept.csv" || true
    "$dcnas" calibrate --accel "$chip" --stack pytorch-eager --precision fp16 \
      --measurements "$m/timm_rtx$short.csv" $m/timm_mlp_mixers.csv "$tmp/kept.csv" \
      --where "stack_version=PyTorch 2.4.0 (cu124)" layout=NCHW "${fit[@]}" --no-cv \
      --out "$tmp/$family.yaml" > /dev/null
    "$dcnas" calibrate --accel "$chip" --stack pytorch-eager --precision fp16 --regime large_batch \
      --measurements "$tmp/held.csv" --evaluate "$tmp/$family.yaml" \
      --residuals "$tmp/lofo-$family.csv" > /dev/null
  done
  { head -1 "$tmp/lofo-vit.csv"; for f in vit swin convnext; do tail -n +2 "$tmp/lofo-$f.csv"; done; } |
    sed "s|$tmp/held.csv|$m/timm_transformers.csv (held-out rows)|" > "$rep/lofo-$chip.residuals.csv"
done

# Summary: per chip, protocol and family, rows, median APE, MAPE and the median signed error.
/usr/bin/python3 - "$rep" <<'EOF'
import csv, os, statistics, sys
rep = sys.argv[1]
lines = ['| chip | family | rows | shipped: median APE % | shipped: median signed % | '
         'lofo: median APE % | lofo: median signed % |', '|---|---|---|---|---|---|---|']
for chip in ('rtx-3090', 'rtx-4090'):
    tables = {}
    for protocol in ('shipped', 'lofo'):
        with open(os.path.join(rep, '%s-%s.residuals.csv' % (protocol, chip))) as f:
            tables[protocol] = list(csv.DictReader(f))
    for family in ('vit', 'swin', 'convnext'):
        cells = []
        for protocol in ('shipped', 'lofo'):
            errs = [float(r['error_pct']) for r in tables[protocol] if r['family'] == family]
            cells += ['%.1f' % statistics.median(abs(e) for e in errs),
                      '%+.1f' % statistics.median(errs)]
        lines.append('| %s | %s | %d | %s |' % (chip, family, len(errs), ' | '.join(cells)))
with open(os.path.join(rep, 'summary.md'), 'w') as f:
    f.write('\n'.join(lines) + '\n')
print('\n'.join(lines))
EOF
