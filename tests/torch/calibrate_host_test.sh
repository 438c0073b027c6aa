#!/usr/bin/env bash
# Smoke test of `dcnas calibrate-host`: detection, a tiny few-shot run (two probe models, one held
# out, 32 px), the profile recording this CPU, the other-CPU warning, resume and bad input.
set -euo pipefail
dcnas="$1"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Another machine's /proc/cpuinfo: identified by family/model (Sapphire Rapids with AMX).
cat > "$tmp/spr.cpuinfo" <<'CPU'
processor	: 0
vendor_id	: GenuineIntel
cpu family	: 6
model		: 143
model name	: Intel(R) Xeon(R) Platinum 8480+
cpu MHz		: 2000.000
physical id	: 0
core id		: 0
flags		: fpu avx avx2 fma avx512f avx512_bf16 amx_bf16 amx_tile

CPU
"$dcnas" calibrate-host --cpuinfo "$tmp/spr.cpuinfo" --detect-only --triad-mib 8 > "$tmp/spr.txt"
grep -q '^cpu: GenuineIntel family 0x06 model 0x8f: Intel(R) Xeon(R) Platinum 8480+' "$tmp/spr.txt"
grep -q '^microarchitecture: sapphire-rapids' "$tmp/spr.txt"
grep -q 'fp32: 32 FMAs/cycle/core' "$tmp/spr.txt"
grep -q '^    bf16: 512 ' "$tmp/spr.txt"
grep -q '^name: host-sapphire-rapids$' "$tmp/spr.txt"

common=(--probe regnetx-200mf,mobilenetv2-1.0 --holdout mnasnet-b1 --batch 1,2 --resolution 32
  --repeats 1 --warmup 0 --triad-mib 8 --name host-test --out-dir "$tmp/host")
"$dcnas" calibrate-host "${common[@]}" > "$tmp/host.txt" 2> "$tmp/host.err"
grep -q '^cpu: ' "$tmp/host.txt"
grep -q '^probe: 2 models x 2 batches timed in' "$tmp/host.txt"
grep -q 'held-out models, fitted' "$tmp/host.txt"
profile="$tmp/host/host-test-libtorch-cpu-fp32.yaml"
[ -f "$tmp/host/host-test.yaml" ] && [ -f "$profile" ]
[ "$(wc -l < "$tmp/host/probe.csv")" -eq 5 ]
[ "$(wc -l < "$tmp/host/holdout.csv")" -eq 3 ]
identity=$(sed -n 's/^cpu: //p' "$tmp/host.txt")
grep -qF "  cpu: \"$identity\"" "$profile" || grep -qF "  cpu: $identity" "$profile"
grep -q 'holdout_median_ape_pct' "$profile"

# The profile simulates this CPU without a warning; a copy that names another CPU warns.
sim=(sim resnet50 --accel "$tmp/host/host-test.yaml" --set cores=1 --resolution 32)
"$dcnas" "${sim[@]}" --calibration "$profile" > /dev/null 2> "$tmp/sim.err"
if grep -q 'warning' "$tmp/sim.err"; then cat "$tmp/sim.err"; exit 1; fi
sed 's/^  cpu: .*/  cpu: "GenuineIntel family 0x06 model 0x8f: another"/' "$profile" > "$tmp/other.yaml"
"$dcnas" "${sim[@]}" --calibration "$tmp/other.yaml" > /dev/null 2> "$tmp/sim.err"
grep -qF "fitted on another CPU (GenuineIntel family 0x06 model 0x8f: another)" "$tmp/sim.err"
grep -qF "this machine is $identity" "$tmp/sim.err"

# A second run keeps the timed rows (nothing is timed again).
"$dcnas" calibrate-host "${common[@]}" > /dev/null 2> "$tmp/again.err"
grep -q 'measured 0 points (4 already in the file)' "$tmp/again.err"

# Bad input exits 2 and writes nothing.
for bad in "--probe no-such-model" "--probe regnetx-200mf --holdout regnetx-200mf" \
  "--probe a,b,c,d,e,f,g,h,i,j,k" "--threads 0" "--triad-mib 0" "--batch 0"; do
  set +e
  # shellcheck disable=SC2086
  "$dcnas" calibrate-host $bad --out-dir "$tmp/bad" --triad-mib 8 2> "$tmp/err.txt" > /dev/null
  rc=$?
  set -e
  [ "$rc" -eq 2 ] || { echo "calibrate-host $bad: exit $rc, expected 2"; cat "$tmp/err.txt"; exit 1; }
done
[ ! -e "$tmp/bad/probe.csv" ]
echo "calibrate-host smoke test passed"
