#!/usr/bin/env bash
# What writing an app's bundle costs for a blocklist-scale policy (issue 42): `navpolicyd compile`,
# `bundle --compiled` from the JSON, and `bundle` from the compiled image, each RUNS times, with
# wall and CPU seconds and peak RSS (`/usr/bin/time`, medians). With BEFORE=path/to/navpolicyd
# (another build, e.g. main's), the same commands run with it too, alternated in the same minutes,
# and the last lines give after/before ratios. A measurement, not a test: exit 0 unless setup fails.
#
# Environment: HOSTS=1000000 PREFIXES=100000 RUNS=3, BIN=path/to/navpolicyd (default
#              .build/release/navpolicyd, built unless SKIP_BUILD=1), BEFORE=path, KEEP_TMP=1.
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT" || exit 1
: "${HOSTS:=1000000}" "${PREFIXES:=100000}" "${RUNS:=3}"
die() { echo "bench/bundle-cost.sh: $*" >&2; exit 1; }
[ -x /usr/bin/time ] || die "/usr/bin/time is missing (apt-get install time)"
if [ "${SKIP_BUILD:-0}" != 1 ]; then swift build -c release --product navpolicyd >&2 || die "release build failed"; fi
BIN="${BIN:-$ROOT/.build/release/navpolicyd}"
[ -x "$BIN" ] || die "$BIN not found"
TMP="$(mktemp -d "${TMPDIR:-/tmp}/navpolicy-bundle-cost.XXXXXX")"
trap '[ "${KEEP_TMP:-0}" = 1 ] && echo "kept $TMP" >&2 || rm -rf "$TMP"' EXIT
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

python3 bench/generate-blocklist.py "$HOSTS" "$PREFIXES" "$TMP/big.json" "$TMP/big.urls" || die "generator failed"
"$BIN" compile --config "$TMP/big.json" --output "$TMP/big.img" >/dev/null || die "compile failed"
# A fixed stamp in the future: the same bytes from every run and every build.
STAMP=(--issued-at 4102444800 --policy-version 1)

one() {  # label binary args… → appends "wall rss_kb user sys" to $TMP/<label>.times
    local label="$1" binary="$2"; shift 2
    /usr/bin/time -f "%e %M %U %S" -o "$TMP/one" "$binary" "$@" >/dev/null 2>"$TMP/err" || die "$label: $(tail -2 "$TMP/err")"
    cat "$TMP/one" >>"$TMP/$label.times"
}
binaries=(after)
[ -n "${BEFORE:-}" ] && binaries=(before after)
for _ in $(seq 1 "$RUNS"); do
    for which in "${binaries[@]}"; do
        binary="$BIN"; [ "$which" = before ] && binary="$BEFORE"
        one "$which-compile" "$binary" compile --config "$TMP/big.json" --output "$TMP/$which.img"
        one "$which-json" "$binary" bundle --config "$TMP/big.json" --compiled "${STAMP[@]}" --output "$TMP/$which-json.bundle"
        one "$which-image" "$binary" bundle --config "$TMP/big.img" "${STAMP[@]}" --output "$TMP/$which-image.bundle"
    done
done
echo "hosts=$HOSTS prefixes=$PREFIXES json_MiB=$(( $(stat -c %s "$TMP/big.json") >> 20 ))" \
    "image_MiB=$(( $(stat -c %s "$TMP/big.img") >> 20 )) bundle_MiB=$(( $(stat -c %s "$TMP/after-image.bundle") >> 20 )) runs=$RUNS"
cmp -s "$TMP/after-json.bundle" "$TMP/after-image.bundle" && echo "bundle --compiled from JSON = bundle from the image: same bytes"
report() {  # label → "wall cpu rss_MB" medians
    local file="$TMP/$1.times"
    printf '%s %s %s\n' "$(cut -d' ' -f1 "$file" | median)" "$(awk '{printf "%.2f\n", $3 + $4}' "$file" | median)" \
        "$(cut -d' ' -f2 "$file" | median | awk '{printf "%.1f", $1/1024}')"
}
declare -A TITLE=([compile]="compile (JSON to image)" [json]="bundle --compiled (from JSON)" [image]="bundle (from the image)")
for which in "${binaries[@]}"; do
    for step in compile json image; do
        read -r wall cpu rss <<<"$(report "$which-$step")"
        printf '%-6s %-30s wall_s=%s cpu_s=%s peak_rss_MB=%s\n' "$which" "${TITLE[$step]}" "$wall" "$cpu" "$rss"
    done
done
if [ -n "${BEFORE:-}" ]; then
    for step in compile json image; do
        read -r _ before_cpu before_rss <<<"$(report "before-$step")"
        read -r _ after_cpu after_rss <<<"$(report "after-$step")"
        python3 -c "print(f'ratio after/before {\"$step\":8} cpu {$after_cpu / $before_cpu:.2f}  peak_rss {$after_rss / $before_rss:.2f}')"
    done
fi
