#!/bin/sh
# Retrain both built-in models for long inputs (issues 13, 16, 17; see README.md "Long-input recipe"):
# decoder 1,024 positions, encoder 512 positions with single sentences and pairs. Every 10th document of
# each source is held out from both (write_heldout.py writes it as the census corpus). The tokenizers are
# the committed ones. Both runs start in the background, one torch thread each, `nice -n 15`.
#
#   tools/train-builtin-models/retrain_long.sh            # start (or, with RESUME=1, resume) both runs
#   RESUME=1 tools/train-builtin-models/retrain_long.sh   # continue from WORK/{dec,enc}/last.pt
#   ONLY=dec|enc                                          # just one of them
# Logs: WORK/dec.log, WORK/enc.log (stdout) and WORK/{dec,enc}/log.jsonl (train.py's log).
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
CACHE=${CACHE:-/tmp/attnscope-corpus}
DATA=${DATA:-$CACHE/h10}
NODE_DIR=${NODE_DIR:-/tmp/tok}
WORK=${WORK:-/tmp/attnscope-train-long}
PY=/usr/bin/python3
DEC_FLAGS="--positions 1024 --batch 2 --bos-prob 0.5 --steps ${DEC_STEPS:-4500}"
ENC_FLAGS="--positions 512 --single-prob 0.3 --long-every 10 --steps ${ENC_STEPS:-7000}"

[ -d "$NODE_DIR/node_modules/tokenizers" ] || (mkdir -p "$NODE_DIR" && cd "$NODE_DIR" && npm init -y >/dev/null && npm install tokenizers@0.23.2)
[ -f "$CACHE/corpus.jsonl" ] || $PY "$HERE/build_corpus.py" --cache "$CACHE"
mkdir -p "$WORK/tok-dec" "$WORK/tok-enc"
[ -f "$WORK/tok-dec/tokenizer.json" ] || cp "$REPO/resources/models/tiny-llama-en-tr/tokenizer.json" "$WORK/tok-dec/"
[ -f "$WORK/tok-enc/tokenizer.json" ] || cp "$REPO/resources/models/tiny-bert-en-tr/tokenizer.json" "$WORK/tok-enc/"
[ -f "$DATA/data_stats.json" ] || $PY "$HERE/prepare_data.py" --cache "$CACHE" --out "$DATA" --heldout-every 10 \
    --node-dir "$NODE_DIR" --enc-tok "$WORK/tok-enc/tokenizer.json" --dec-tok "$WORK/tok-dec/tokenizer.json"

RES=${RESUME:+--resume}
if [ "${ONLY:-dec}" = dec ]; then
    # shellcheck disable=SC2086
    nohup nice -n ${NICE:-15} $PY "$HERE/train.py" --model dec --work "$WORK/dec" --cache "$DATA" --node-dir "$NODE_DIR" \
        --tokenizer "$WORK/tok-dec/tokenizer.json" $DEC_FLAGS $RES >> "$WORK/dec.log" 2>&1 &
    echo "decoder: pid $! log $WORK/dec.log"
fi
if [ "${ONLY:-enc}" = enc ]; then
    # shellcheck disable=SC2086
    nohup nice -n ${NICE:-15} $PY "$HERE/train.py" --model enc --work "$WORK/enc" --cache "$DATA" --node-dir "$NODE_DIR" \
        --tokenizer "$WORK/tok-enc/tokenizer.json" $ENC_FLAGS $RES >> "$WORK/enc.log" 2>&1 &
    echo "encoder: pid $! log $WORK/enc.log"
fi
