#!/bin/sh
# Issue 16 point 3: retrain the built-in decoder so that it shows the StreamingLLM effect (see README.md
# "Sink recipe"). Continues the 2026-11 decoder (resources/models/tiny-llama-en-tr, 256 positions) at
# 1,024 positions on its own training split (every 50th document held out: resources/corpus/stream-*.txt
# stay held out), with the paragraphs joined WITHOUT </s> between them and <s> first in every sequence
# (--join, bos_prob 1.0): the 2026-11 format puts a </s> after every paragraph, and the model parks
# attention on the most recent </s> instead of on <s> (check_sink_targets.py), so evicting <s> costs
# nothing. Next-token loss only: no term looks at attention. One torch thread, `nice -n 19`, background.
#
#   tools/train-builtin-models/retrain_sinks.sh            # start
#   RESUME=1 tools/train-builtin-models/retrain_sinks.sh   # continue from WORK/dec/last.pt
# Log: WORK/dec.log (stdout) and WORK/dec/log.jsonl (train.py's log, an eval every 100 steps).
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
CACHE=${CACHE:-/tmp/attnscope-corpus}
NODE_DIR=${NODE_DIR:-/tmp/tok}
WORK=${WORK:-/tmp/attnscope-train-sinks}
PY=/usr/bin/python3
# the initial weights are copied into WORK once, so that a later re-export into the repository does not
# change what a resumed run was started from
INIT=$WORK/init-tiny-llama-en-tr
DEC_FLAGS="--positions 1024 --batch 2 --join --init $INIT --lr 2e-3 --warmup 100 --steps ${DEC_STEPS:-1600}
           --eval-every 100 --ckpt-every 100"

[ -d "$NODE_DIR/node_modules/tokenizers" ] || (mkdir -p "$NODE_DIR" && cd "$NODE_DIR" && npm init -y >/dev/null && npm install tokenizers@0.23.2)
[ -f "$CACHE/corpus.jsonl" ] || $PY "$HERE/build_corpus.py" --cache "$CACHE"
[ -f "$CACHE/data_stats.json" ] || $PY "$HERE/prepare_data.py" --cache "$CACHE" --node-dir "$NODE_DIR" \
    --enc-tok "$REPO/resources/models/tiny-bert-en-tr/tokenizer.json" \
    --dec-tok "$REPO/resources/models/tiny-llama-en-tr/tokenizer.json"
mkdir -p "$WORK"
[ -d "$INIT" ] || cp -r "$REPO/resources/models/tiny-llama-en-tr" "$INIT"

RES=${RESUME:+--resume}
# shellcheck disable=SC2086
nohup nice -n ${NICE:-19} $PY "$HERE/train.py" --model dec --work "$WORK/dec" --cache "$CACHE" --node-dir "$NODE_DIR" \
    --tokenizer "$INIT/tokenizer.json" $DEC_FLAGS $RES >> "$WORK/dec.log" 2>&1 &
echo "decoder: pid $! log $WORK/dec.log"
