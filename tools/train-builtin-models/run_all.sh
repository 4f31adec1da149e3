#!/bin/sh
# Reproduce AttnScope's built-in models from scratch (see README.md).
# Needs: Debian's python3-torch python3-numpy python3-matplotlib, node + npm.
# CACHE holds the downloaded .debs, the corpus and the token ids (outside the repo).
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
CACHE=${CACHE:-/tmp/attnscope-corpus}
NODE_DIR=${NODE_DIR:-/tmp/tok}
WORK=${WORK:-/tmp/attnscope-train}
PY=/usr/bin/python3
ENC=$REPO/resources/models/tiny-bert-en-tr
DEC=$REPO/resources/models/tiny-llama-en-tr

# 0. the reference tokenizer implementation (HF tokenizers' Node binding)
[ -d "$NODE_DIR/node_modules/tokenizers" ] || (mkdir -p "$NODE_DIR" && cd "$NODE_DIR" && npm init -y >/dev/null && npm install tokenizers@0.23.2)
# 1. corpus from Debian packages
$PY "$HERE/build_corpus.py" --cache "$CACHE"
# 2. tokenizers (learned on the training split)
$PY "$HERE/build_tokenizers.py" --cache "$CACHE" --out-enc "$WORK/tok-enc" --out-dec "$WORK/tok-dec"
# 3. token ids via the reference implementation
$PY "$HERE/prepare_data.py" --cache "$CACHE" --node-dir "$NODE_DIR" --enc-tok "$WORK/tok-enc/tokenizer.json" --dec-tok "$WORK/tok-dec/tokenizer.json"
# 4. train both models, one thread each, in parallel (add --resume to continue)
nice -n 5 $PY "$HERE/train.py" --model dec --work "$WORK/dec" --cache "$CACHE" --node-dir "$NODE_DIR" --tokenizer "$WORK/tok-dec/tokenizer.json" --steps ${DEC_STEPS:-4500} ${DEC_STOP:+--stop-step $DEC_STOP} > "$WORK/dec.log" 2>&1 &
nice -n 5 $PY "$HERE/train.py" --model enc --work "$WORK/enc" --cache "$CACHE" --node-dir "$NODE_DIR" --tokenizer "$WORK/tok-enc/tokenizer.json" --steps ${ENC_STEPS:-7000} ${ENC_STOP:+--stop-step $ENC_STOP} > "$WORK/enc.log" 2>&1 &
wait
# 5. export the last checkpoints
$PY "$HERE/export.py" --ckpt "$WORK/dec/last.pt" --tokenizer "$WORK/tok-dec/tokenizer.json" --out "$DEC" --node-dir "$NODE_DIR" \
    --description "$(cat "$HERE/desc-decoder.txt")" --phenomena "$HERE/phenomena.json" --reference "$HERE/reference_outputs_decoder.json"
$PY "$HERE/export.py" --ckpt "$WORK/enc/last.pt" --tokenizer "$WORK/tok-enc/tokenizer.json" --out "$ENC" --node-dir "$NODE_DIR" \
    --description "$(cat "$HERE/desc-encoder.txt")" --phenomena "$HERE/phenomena.json" --reference "$HERE/reference_outputs_encoder.json"
$PY "$HERE/plot.py" --enc "$WORK/enc/log.jsonl" --dec "$WORK/dec/log.jsonl" --out "$HERE"
