#!/usr/bin/env bash
# Runs every headless command (attnscope COMMAND ...) on the built-in models with a fixed set of arguments,
# successes and refusals alike, and records for each run its stdout, its stderr, its exit code and every
# file it wrote. Two builds compared this way show that a change of the CLI's code left its behaviour as it
# was, byte for byte (issue 33: the cmd_* skeleton).
#
#   tools/check-cli-outputs.sh BEFORE_BIN AFTER_BIN    record both, then diff; exit 0 when identical
#   tools/check-cli-outputs.sh record BIN DIR          record one build into DIR (a new folder)
#   tools/check-cli-outputs.sh compare DIR_A DIR_B     diff two recordings
#
# BIN is a built attnscope, e.g. build/dev/app/attnscope. A copy taken elsewhere needs its CPU kernel
# modules beside it as the build has them (BIN/../../lib/attnscope/*.so, i.e. copy build/dev/app and
# build/dev/lib together): without them it runs the baseline kernels and says so on stderr. Both builds
# should be of the same checkout path, since a built-in model's resolved path is part of some outputs.
#
# What varies from run to run is masked in stdout, stderr and the files, and only that:
#   - durations: "N ms" (attention --verbose open/forward, gpu-info's start-up), stream's "(1.2 s)" on
#     stderr and its JSON "seconds", census's elapsed time in its summary line and census.json's
#     "seconds", "started" and "finished" fields;
#   - an exported .pdf: its /CreationDate, and the order of its objects: Qt writes the font subsets
#     (their objects and their tags, QNAAAA+DejaVuSans) in an order that varies from run to run, so a PDF
#     is kept as its lines sorted, with the subset tags and the xref table's byte offsets masked;
#   - this run's scratch folder and the binary's folder (each recording runs in its own).
# Everything else, floats included, must come out the same: the runs use one OpenBLAS thread and
# ATTNSCOPE's CPU backend (no GPU), under the C locale, so each build is deterministic.
set -euo pipefail

usage()
{
    sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
}

mask()
{
    # $1: file, rewritten in place; $2 scratch folder; $3 binary folder.
    LC_ALL=C sed -E -i \
        -e "s#$2#<WORK>#g" -e "s#$3#<BIN>#g" \
        -e 's/[0-9]+ ms\b/N ms/g' \
        -e 's/\(([0-9]+\.[0-9]+) s\)/(N s)/g' \
        -e 's/"seconds": ?[-0-9.e+]+/"seconds":N/g' \
        -e 's/"(started|finished|modified)": ?"[^"]*"/"\1":"T"/g' \
        -e 's/tokens, ([0-9]+ h )?([0-9]+ min )?[0-9?]+ ?s?; /tokens, <duration>; /' \
        -e 's#/CreationDate \([^)]*\)#/CreationDate (T)#g' \
        "$1"
}

record()
{
    local bin dir
    bin=$(realpath "$1")
    dir=$2
    [[ -x $bin ]] || { echo "check-cli-outputs: $1: not an executable" >&2; exit 2; }
    [[ ! -e $dir ]] || { echo "check-cli-outputs: $dir: exists; give a new folder" >&2; exit 2; }
    mkdir -p "$dir"
    dir=$(realpath "$dir")
    local work
    work=$(mktemp -d /tmp/check-cli-outputs.XXXXXX)
    local bindir
    bindir=$(dirname "$(dirname "$bin")")
    mkdir -p "$work/home" "$work/hf" "$work/runtime" && chmod 700 "$work/runtime"
    # Inputs the cases read.
    printf 'the cat sat on the mat\nkedi mindere oturdu\nthe dog ran\n\nbir iki uc dort\n' >"$work/corpus.txt"
    printf 'the cat sat on the mat\tkedi mindere oturdu\nthe dog ran\tbir iki\n' >"$work/pairs.txt"
    printf 'the cat sat on the mat. the dog ran to the house and the bird sang in the tree.\nkedi mindere oturdu ve kopek eve kostu.\n' >"$work/long.txt"

    local n=0
    # run NAME [SETUP_SHELL_CODE] -- ARGS...: one case in a fresh folder; stdin is empty unless SETUP
    # writes stdin.txt.
    run()
    {
        local name=$1 setup=""
        shift
        if [[ $1 != -- ]]; then setup=$1; shift; fi
        shift # --
        n=$((n + 1))
        local cwd="$work/case/$name" out="$dir/$name"
        [[ ! -e $cwd ]] || { echo "check-cli-outputs: case $name twice" >&2; exit 2; }
        mkdir -p "$cwd" "$out"
        (cd "$cwd" && eval "$setup")
        local stdin=/dev/null
        [[ -f $cwd/stdin.txt ]] && stdin=$cwd/stdin.txt
        printf '%q ' "$@" >"$out/command"
        local rc=0
        (cd "$cwd" && env -i PATH=/usr/bin:/bin HOME="$work/home" HF_HOME="$work/hf" HF_HUB_OFFLINE=1 \
            XDG_RUNTIME_DIR="$work/runtime" QT_QPA_PLATFORM=offscreen LC_ALL=C LANG=C \
            OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 \
            timeout 300 "$bin" "$@" <"$stdin" >"$out/stdout" 2>"$out/stderr") || rc=$?
        echo "$rc" >"$out/rc"
        rm -f "$cwd/stdin.txt"
        # What the case wrote (its inputs made by SETUP included: a refused run must leave them as they were).
        if [[ -n $(ls -A "$cwd") ]]; then
            cp -a "$cwd" "$out/files"
            find "$out/files" -type f -print0 | while IFS= read -r -d '' f; do
                mask "$f" "$work" "$bindir"
                if [[ $f == *.pdf ]]; then
                    LC_ALL=C sed -E -e 's#/[A-Z]{6}\+#/SUBSET+#g' -e 's/^[0-9]{10} [0-9]{5} [nf] ?$/XREF/' \
                        -e 's/^[0-9]+$/N/' "$f" | LC_ALL=C sort >"$f.sorted-lines"
                    rm "$f"
                fi
            done
        fi
        mask "$out/stdout" "$work" "$bindir"
        mask "$out/stderr" "$work" "$bindir"
    }

    local B=tiny-bert-en-tr L=tiny-llama-en-tr
    local C="cp $work/corpus.txt c.txt" P="cp $work/pairs.txt p.txt"

    # The top level and every command's help.
    run help -- --help
    run unknown-command -- frobnicate
    for c in ablate attention census download export generate gpu-info lesson models predict residual rollout \
        stats stream tokenize translate; do
        run "help-$c" -- "$c" --help
    done

    run models -- models
    run models-json -- models --json
    run gpu-info -- gpu-info
    run download-offline -- download gpt2
    run download-no-repo -- download

    run tokenize-bert -- tokenize --model $B --text "the cat sat on the mat"
    run tokenize-pair -- tokenize --model $B --text "the cat" --text-b "kedi mindere oturdu"
    run tokenize-llama -- tokenize --model $L --text "kedi mindere oturdu" --no-special-tokens
    run tokenize-no-text -- tokenize --model $B
    run tokenize-bad-model -- tokenize --model no/such-model --text x
    run tokenize-stdin "printf 'the dog\n' >stdin.txt" -- tokenize --model $B --text-file -

    run predict-bert -- predict --model $B --text "the cat [MASK] on the mat"
    run predict-bert-json -- predict --model $B --text "the [MASK] sat on the [MASK]" --json
    run predict-llama -- predict --model $L --text "the cat sat on the" --top 3
    run predict-ids -- predict --model $L --ids 1,393,3259 --json --backend cpu
    run predict-pair -- predict --model $B --text "the cat [MASK]" --text-b "kedi mindere oturdu"
    run predict-verbose -- predict --model $L --text "the cat" --verbose --backend cpu
    run predict-top0 -- predict --model $B --text x --top 0
    run predict-bad-backend -- predict --model $B --text x --backend cuda
    run predict-no-model -- predict --text x
    run predict-text-and-ids -- predict --model $B --text x --ids 1,2
    run predict-textb-only -- predict --model $B --ids 1,2 --text-b y
    run predict-bad-ids -- predict --model $B --ids 1,x
    run predict-huge-id -- predict --model $B --ids 1,99999999
    run predict-positional -- predict --model $B --text x extra
    run predict-bad-model -- predict --model /nonexistent/model --text x
    run predict-unknown-option -- predict --model $B --text x --nope

    run residual-bert -- residual --model $B --text "the cat sat on the mat"
    run residual-llama-json -- residual --model $L --text "kedi mindere oturdu" --json
    run residual-bad-backend -- residual --model $L --text x --backend metal

    run rollout-bert -- rollout --model $B --text "the cat sat"
    run rollout-llama-norm -- rollout --model $L --text "the cat sat" --measure norm --layer 2
    run rollout-npy -- rollout --model $B --text "the cat sat" --format npy --out r.npy
    run rollout-npy-stdout -- rollout --model $L --text "the cat" --format npy --out -
    run rollout-json-file -- rollout --model $L --text "the cat" --out r.json
    run rollout-exists "echo keep >r.json" -- rollout --model $L --text "the cat" --out r.json
    run rollout-force "echo old >r.json" -- rollout --model $L --text "the cat" --out r.json --force
    run rollout-npy-no-out -- rollout --model $L --text x --format npy
    run rollout-out-folder "mkdir d" -- rollout --model $L --text x --out d
    run rollout-out-empty -- rollout --model $L --text x --out ""
    run rollout-bad-layer -- rollout --model $L --text x --layer 4
    run rollout-bad-measure -- rollout --model $L --text x --measure y
    run rollout-bad-format -- rollout --model $L --text x --format xml

    run attention-bert -- attention --model $B --text "the cat sat"
    run attention-llama-head -- attention --model $L --text "the cat sat" --layer 1 --head 2
    run attention-norm -- attention --model $L --text "kedi mindere oturdu" --measure norm --layer 3
    run attention-npy -- attention --model $B --text "the cat sat on the mat" --format npy --out a.npy
    run attention-npy-norm -- attention --model $L --text "the cat sat" --format npy --measure norm --out a.npy
    run attention-json-file -- attention --model $L --ids 1,393,3259 --out a.json --head 0
    run attention-stdout -- attention --model $L --text "the cat" --out - --layer 0
    run attention-exists "echo keep >a.json" -- attention --model $L --text x --out a.json
    run attention-force "echo old >a.json" -- attention --model $L --text x --out a.json --force --layer 0
    run attention-verbose -- attention --model $L --text "the cat" --layer 0 --head 0 --verbose --backend cpu
    run attention-npy-no-out -- attention --model $L --text x --format npy
    run attention-bad-layer -- attention --model $L --text x --layer 4
    run attention-bad-head -- attention --model $L --text x --head -1
    run attention-layer-nan -- attention --model $L --text x --layer one
    run attention-too-large -- attention --model $B --text "the cat sat on the mat" --max-output-size 1k
    run attention-bad-size -- attention --model $B --text x --max-output-size lots
    run attention-bad-format -- attention --model $B --text x --format csv
    run attention-bad-measure -- attention --model $B --text x --measure z
    run attention-out-folder -- attention --model $B --text x --out sub/
    run attention-too-long -- attention --model $B --ids "$(seq -s, 1 600)"

    run ablate-bert -- ablate --model $B --text "the cat [MASK] on the mat" --heads 1.2,3.4
    run ablate-llama-json -- ablate --model $L --text "the cat sat on the" --heads 2 --mode mean --json
    run ablate-sets -- ablate --model $L --text "the cat sat" --heads 0.1 --heads 1.0,2.3 --top 2
    run ablate-no-heads -- ablate --model $L --text x
    run ablate-bad-heads -- ablate --model $L --text x --heads 9.9
    run ablate-bad-mode -- ablate --model $L --text x --heads 1 --mode half
    run ablate-top0 -- ablate --model $L --text x --heads 1 --top 0

    run stats-bert -- stats --model $B --text "the cat sat on the mat" --text-b "kedi mindere oturdu"
    run stats-llama-json -- stats --model $L --text "the cat sat on the mat" --json
    run stats-ablate-scan -- stats --model $L --text "the cat sat" --ablate-scan
    run stats-ids -- stats --model $L --ids 1,393,3259 --json
    run stats-worked-example -- stats --model worked-example
    run stats-worked-example-json -- stats --model worked-example --json
    run stats-worked-example-ids -- stats --model worked-example --ids 1
    run stats-decoder-pair -- stats --model $L --text a --text-b b
    run stats-no-text -- stats --model $L

    run generate-greedy -- generate --model $L --text "the cat" --max-new-tokens 5 --temperature 0
    run generate-json -- generate --model $L --text "kedi" --max-new-tokens 4 --json --seed 3
    run generate-attention -- generate --model $L --text "the" --max-new-tokens 2 --json --attention
    run generate-sampled -- generate --model $L --ids 1,393 --max-new-tokens 6 --temperature 0.8 --top-k 5 \
        --top-p 0.9 --seed 7 --ignore-eos
    run generate-encoder -- generate --model $B --text "the cat" --max-new-tokens 2
    run generate-bad-top-p -- generate --model $L --text x --top-p 0
    run generate-bad-seed -- generate --model $L --text x --seed 1.5
    run generate-no-input -- generate --model $L

    run stream-json "cp $work/long.txt long.txt" -- stream --model $L --text-file long.txt --cache 8 --sinks 0,2 \
        --max-tokens 40
    run stream-csv "cp $work/long.txt long.txt" -- stream --model $L --text-file long.txt --cache 6 --sinks 1 \
        --policies recompute,sinks --csv --quiet
    run stream-paragraphs "cp $work/long.txt long.txt" -- stream --model $L --text-file long.txt --paragraphs \
        --cache 8 --sinks 1 --policies sinks --quiet
    run stream-bad-policy -- stream --model $L --text x --policies all
    run stream-both-formats -- stream --model $L --text x --json --csv
    run stream-bad-sinks -- stream --model $L --text x --cache 4 --sinks 4
    run stream-cache-too-large -- stream --model $L --text "the cat sat" --cache 100000 --quiet

    run export-png -- export --model $B --text "the cat sat" --layer 1 --head 2 --out h.png
    run export-grid-svg -- export --model $L --text "the cat sat" --grid --out g.svg
    run export-csv -- export --model $B --text "the cat" --text-b "kedi" --layer 0 --head 0 --out h.csv
    run export-json -- export --model $L --text "the cat" --grid --out g.json
    run export-npy -- export --model $L --text "the cat" --layer 3 --head 7 --out h.npy --discount-special
    run export-pdf -- export --model $B --text "the cat" --layer 0 --head 1 --out h.pdf --colormap magma \
        --scale row --size 400x300
    run export-all-heads -- export --model $L --text "the cat" --all-heads heads --out x.csv
    run export-worked-example -- export --model worked-example --text "kedi mindere oturdu" --grid --out w.csv
    run export-exists "echo keep >h.png" -- export --model $B --text x --layer 0 --head 0 --out h.png
    run export-bad-suffix -- export --model $B --text x --grid --out h.bmp
    run export-no-out -- export --model $B --text x --grid
    run export-bad-head -- export --model $B --text x --layer 0 --head 99 --out h.csv
    run export-bad-colormap -- export --model $B --text x --grid --out g.csv --colormap jet
    run export-bad-size -- export --model $B --text x --grid --out g.png --size 0x0

    run lesson-text -- lesson
    run lesson-causal -- lesson --step 2 --causal --no-scale
    run lesson-csv -- lesson --step 5 --out s.csv
    run lesson-png -- lesson --step 4 --out s.png --size 500x320
    run lesson-exists "echo keep >s.csv" -- lesson --out s.csv
    run lesson-bad-step -- lesson --step 9
    run lesson-bad-size -- lesson --size 10x10
    run lesson-bad-suffix -- lesson --out s.txt

    run census-llama "$C" -- census --model $L --corpus c.txt --out census --quiet
    run census-bert-pairs "$P" -- census --model $B --corpus p.txt --pairs --out census --quiet --max-tokens 16
    run census-limit "$C" -- census --model $L --corpus c.txt --out census --quiet --limit 2 --refuse-long \
        --max-tokens 4
    run census-exists "$C; mkdir census; echo '{}' >census/census.json" -- census --model $L --corpus c.txt \
        --out census --quiet
    run census-no-corpus -- census --model $L
    run census-missing-corpus -- census --model $L --corpus nope.txt --quiet
    run census-bad-limit "$C" -- census --model $L --corpus c.txt --limit -1

    run non-utf8-argument -- predict --model $B --text "$(printf 'a\xffb')"

    rm -rf "$work"
    echo "check-cli-outputs: $n runs of $bin recorded in $dir"
}

compare()
{
    if diff -r "$1" "$2" >/dev/null; then
        echo "check-cli-outputs: identical: $(ls "$1" | wc -l) runs, stdout, stderr, exit code and files"
        return 0
    fi
    echo "check-cli-outputs: the recordings differ:"
    diff -r "$1" "$2" | head -200
    return 1
}

case ${1:-} in
record)
    [[ $# -eq 3 ]] || usage
    record "$2" "$3"
    ;;
compare)
    [[ $# -eq 3 ]] || usage
    compare "$2" "$3"
    ;;
-h | --help | "") usage ;;
*)
    [[ $# -eq 2 ]] || usage
    out=$(mktemp -d /tmp/check-cli-outputs-result.XXXXXX)
    record "$1" "$out/before"
    record "$2" "$out/after"
    compare "$out/before" "$out/after"
    ;;
esac
