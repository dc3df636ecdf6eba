#!/usr/bin/env bash
# One relay run: the nine questions of questions.tsv, each a fresh `deepwork` run against a relay bridge whose "model" is
# whoever answers the request files (a person, or a helper session that sees nothing but them).
# Usage: DW=<deepwork checkout, built> REPOS=<folder holding requests/ ky/ mypy/ at repos.tsv's commits> \
#        bench/relay/run.sh OUT PORT
# Writes OUT/req-N.txt (each message as sent) and waits for OUT/resp-N.txt; OUT/marks.tsv (question, first request,
# exit code); OUT/answer-Q.txt and OUT/log-Q.txt per question; OUT/DONE at the end. The bridge reports a 32,768-token
# window; each run keeps its state in OUT/home, so a folder's later questions find the map's cache as a user's would.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=$1 port=$2
: "${DW:?set DW to a built deepwork checkout}" "${REPOS:?set REPOS to the folder of the three repositories}"
bridge=${RELAY_BRIDGE:-$here/../../../shared/tools/relay-bridge.mjs}
mkdir -p "$out/home"
node "$bridge" --dir "$out" --port "$port" --ctx 32768 > "$out/bridge.log" 2>&1 &
bridge_pid=$!
trap 'kill $bridge_pid 2>/dev/null' EXIT
for _ in $(seq 50); do curl -s "http://127.0.0.1:$port/" >/dev/null && break; sleep 0.1; done
q=0
grep -v '^#' "$here/questions.tsv" | while IFS=$'\t' read -r repo question; do
  q=$((q + 1))
  first=$(( $(ls "$out" | grep -c '^req-') + 1 ))
  (cd "$REPOS/$repo" && DEEPWORK_HOME="$out/home" node "$DW/bin/deepwork.js" "$question" \
    --host "http://127.0.0.1:$port" --model relay --steps 8 < /dev/null > "$out/answer-$q.txt" 2> "$out/log-$q.txt")
  printf '%s\t%s\t%s\n' "$q" "$first" "$?" >> "$out/marks.tsv"
done
touch "$out/DONE"
