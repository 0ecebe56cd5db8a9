#!/usr/bin/env bash
# navpolicyd against Brave's adblock-rust on the same host blocklist (issue 41's figures).
#
# One list of HOSTS host names (a tenth `*.zoneN.example`, as bench/generate-blocklist.py
# writes them) becomes a navpolicyd config (one `cancel` handler) and adblock rules (`||host^`;
# for a wildcard `||zoneN.example^`, which also matches the bare domain: the URLs below only use
# subdomains, so both block the same URLs). For each engine, medians of RUNS:
#   - load: in-process seconds from the text form (navpolicyd's JSON, streamed into tables;
#     adblock's rule list, parsed and optimized) and from each engine's own binary form (the
#     compiled image, mapped and checked; adblock's serialized engine);
#   - memory: peak RSS of a process that loads the binary form and decides, minus the peak of the
#     same program without a policy (navpolicyd on the 3-handler default; an idle interpreter);
#   - decide: ns per URL over half hits, half misses (navpolicyd `bench` on the image; adblock's
#     `check_network_urls` as a document load, less the binding's per-call floor).
# A measurement, not a test: exit 0 unless setup fails. The adblock binding (PyPI `adblock`,
# pinned) goes into a venv under .build/bench/.
#
# Environment: HOSTS=1000000 RUNS=3 SKIP_BUILD=1 KEEP_TMP=1 BIN=path/to/navpolicyd (release).
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT" || exit 1
: "${HOSTS:=1000000}" "${RUNS:=3}"

# shellcheck source=bench/lib-daemon.sh
. "$ROOT/bench/lib-daemon.sh"
[ -x /usr/bin/time ] || die "/usr/bin/time is missing (apt-get install time)"
bench_setup adblock-rust.sh
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
field() { python3 -c "import json,sys; print(json.load(sys.stdin)[sys.argv[1]])" "$1"; }

venv="$ROOT/.build/bench/adblock-venv"
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv" && "$venv/bin/pip" install --quiet 'adblock==0.6.0' || die "pip install adblock failed"
fi
ADBLOCK=("$venv/bin/python" "$ROOT/bench/adblock-rust.py")

python3 - "$HOSTS" "$TMP" <<'EOF' || die "generator failed"
import json, random, sys
count, out = int(sys.argv[1]), sys.argv[2]
rng = random.Random(count)
hosts = [(f"*.zone{i}.example" if i % 10 == 0 else f"site{i}.example") for i in range(count)]
config = {"defaultDecision": "allow",
          "handlers": [{"name": "blocklist", "type": "cancel", "match": {"hosts": hosts}}]}
json.dump(config, open(f"{out}/list.json", "w"), separators=(",", ":"))
with open(f"{out}/list.txt", "w") as rules:
    rules.writelines(f"||{h[2:] if h.startswith('*.') else h}^\n" for h in hosts)
urls = []
for _ in range(1000):
    i = rng.randrange(count)
    urls.append(f"https://a.zone{i}.example/" if i % 10 == 0 else f"https://site{i}.example/home")
    urls.append(f"https://miss{rng.randrange(10**6)}.example/section/x")
open(f"{out}/list.urls", "w").write("\n".join(urls) + "\n")
EOF
"$BIN" compile --config "$TMP/list.json" --output "$TMP/list.img" >/dev/null || die "compile failed"
"${ADBLOCK[@]}" load "$TMP/list.txt" "$TMP/list.adblock" >/dev/null || die "adblock load failed"
echo "hosts=$HOSTS image_MB=$(( $(stat -c %s "$TMP/list.img") / 1048576 ))" \
    "adblock_serialized_MB=$(( $(stat -c %s "$TMP/list.adblock") / 1048576 ))"

peak_kb() { /usr/bin/time -f '%M' -o "$TMP/time.txt" "$@" >/dev/null 2>&1 || die "failed: $*"; cat "$TMP/time.txt"; }
declare -A samples
for _ in $(seq "$RUNS"); do
    samples[np_json]+="$("$BIN" bench --config "$TMP/list.json" --iterations 1 --format json | field compileSeconds) "
    samples[np_image]+="$("$BIN" bench --config "$TMP/list.img" --iterations 1 --format json | field compileSeconds) "
    samples[ab_text]+="$("${ADBLOCK[@]}" load "$TMP/list.txt" | field loadSeconds) "
    samples[ab_binary]+="$("${ADBLOCK[@]}" deserialize "$TMP/list.adblock" | field loadSeconds) "
    samples[np_peak]+="$(( $(peak_kb "$BIN" check --config "$TMP/list.img" https://site7.example/) - $(peak_kb "$BIN" check https://app.example.com/) )) "
    samples[ab_peak]+="$(( $(peak_kb "${ADBLOCK[@]}" decide "$TMP/list.adblock" "$TMP/list.urls" 1) - $(peak_kb "${ADBLOCK[@]}" idle) )) "
    samples[np_ns]+="$("$BIN" bench --config "$TMP/list.img" --urls "$TMP/list.urls" --duration 3 --format json | field decisionsPerSecond | awk '{printf "%.1f", 1e9 / $1}') "
    ab="$("${ADBLOCK[@]}" decide "$TMP/list.adblock" "$TMP/list.urls" 5)"
    samples[ab_ns]+="$(echo "$ab" | python3 -c "import json,sys; d=json.load(sys.stdin); print(f\"{d['checkNanoseconds'] - d['floorNanoseconds']:.1f}\")") "
done
m() { printf '%s\n' ${samples[$1]} | median | awk '{printf "%.4g", $1}'; }
ratio() { python3 -c "print(f'{float($1) / float($2):.2f}')"; }

printf '\n%-44s %14s %14s %8s\n' "medians of $RUNS" navpolicyd adblock-rust ratio
printf '%-44s %14s %14s %7s×\n' "load from text (s; ratio adblock/navpolicyd)" "$(m np_json)" "$(m ab_text)" "$(ratio "$(m ab_text)" "$(m np_json)")"
printf '%-44s %14s %14s %7s×\n' "load from binary form (s)" "$(m np_image)" "$(m ab_binary)" "$(ratio "$(m ab_binary)" "$(m np_image)")"
printf '%-44s %14s %14s %7s×\n' "extra peak RSS, binary form + decide (KB)" "$(m np_peak)" "$(m ab_peak)" "$(ratio "$(m ab_peak)" "$(m np_peak)")"
printf '%-44s %14s %14s %7s×\n' "ns per URL (floor subtracted for adblock)" "$(m np_ns)" "$(m ab_ns)" "$(ratio "$(m ab_ns)" "$(m np_ns)")"
echo "Ratios above 1 mean navpolicyd is that many times faster or smaller."
