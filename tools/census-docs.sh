#!/bin/sh
# Runs `attnscope census` with the built-in encoder over the shipped corpus (resources/corpus) and writes
# docs/census.md with its tables, and the figures to docs/census/.
#
#   tools/census-docs.sh [BUILD_DIR] [SPLIT]     (defaults: build/dev, held50)
#
# SPLIT held50: the lines held out from the 2026-11 built-in models (the figures of
# tools/train-builtin-models/check_clark.py --split held50, which this reproduces); all: every line.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-$ROOT/build/dev}
SPLIT=${2:-held50}
BIN=$BUILD/app/attnscope
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
for kind in pairs sentences; do
  if [ "$SPLIT" = all ]; then
    cp "$ROOT/resources/corpus/census-$kind.jsonl" "$WORK/$kind.jsonl"
  else
    grep "\"split\": \"$SPLIT\"" "$ROOT/resources/corpus/census-$kind.jsonl" > "$WORK/$kind.jsonl"
  fi
  "$BIN" census --model tiny-bert-en-tr --corpus "$WORK/$kind.jsonl" --out "$WORK/$kind" --quiet --backend cpu
done
mkdir -p "$ROOT/docs/census"
cp "$WORK/pairs/layers.png" "$ROOT/docs/census/layers-pairs.png"
cp "$WORK/sentences/layers.png" "$ROOT/docs/census/layers-sentences.png"
cp "$WORK/pairs/layers-contrib.png" "$ROOT/docs/census/layers-contrib-pairs.png"
cp "$WORK/pairs/heads-sep_mass.png" "$ROOT/docs/census/heads-sep-pairs.png"
cp "$WORK/sentences/heads-sep_mass.png" "$ROOT/docs/census/heads-sep-sentences.png"
/usr/bin/python3 "$ROOT/tools/census_markdown.py" --split "$SPLIT" \
  --pairs "$WORK/pairs/census.json" --sentences "$WORK/sentences/census.json" > "$ROOT/docs/census.md"
echo "wrote $ROOT/docs/census.md and docs/census/*.png"
