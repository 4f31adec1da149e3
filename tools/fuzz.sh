#!/usr/bin/env bash
# Builds the libFuzzer harnesses (fuzz/fuzz_*.cpp, preset "fuzz": clang-14, ASan + UBSan) and runs each one
# for SECONDS (default 60) on its corpus, one after the other:
#   tools/fuzz.sh [SECONDS] [--cpu] [--no-build] [NAME...]
# --cpu: SECONDS of CPU time per harness instead of wall-clock time (on a busy machine a wall-clock minute
# may be a few CPU-seconds). --no-build: use build/fuzz as it is (e.g. for two runs side by side).
# NAME: only these harnesses (e.g. tokenizer). FUZZ_NICE=10 runs them niced.
# The corpus of a harness is build/fuzz/corpus/NAME, seeded from the repository's fixtures (see seed() below)
# and kept between runs; its dictionary is fuzz/fuzz_NAME.dict. A crash, a leak or a timeout (10 s on one
# input) stops the run with a non-zero exit; the input lands in build/fuzz/artifacts/NAME/ (turn it into a
# regression test: tests/data/fuzz/NAME/, replayed by tests/core/tst_fuzz_regressions.cpp).
# The last status line of each run ("#N DONE cov: ... exec/s: ...") and its final stats go to build/fuzz/summary.txt.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=60
cpu=0
build=1
only=()
for arg in "$@"; do
  case "$arg" in
    --cpu) cpu=1 ;;
    --no-build) build=0 ;;
    ''|*[!0-9]*) only+=("$arg") ;;
    *) seconds=$arg ;;
  esac
done

# The seeds of harness $1, copied into corpus folder $2: fixtures of the repository and fuzz/seeds/$1/.
# A new harness adds one line here (fuzz/README.md).
seed() {
  local name=$1 corpus=$2
  case "$name" in
    safetensors) add "$corpus" tests/data/oracle/*/model.safetensors fuzz/seeds/safetensors/* ;;
    config)      add "$corpus" tests/data/oracle/*/config.json resources/models/*/config.json fuzz/seeds/config/* ;;
    npy)         add "$corpus" tests/data/oracle/*/attentions.npy fuzz/seeds/npy/* ;;
    gguf)        add "$corpus" fuzz/seeds/gguf/* ;;
    hublisting)  add "$corpus" fuzz/seeds/hublisting/* ;;
    tokenizer)   add_with_texts "$corpus" tests/data/oracle/*/tokenizer.json tests/data/tokenizers/llama-sp/tokenizer.json \
                   fuzz/seeds/tokenizer/* ;;
    *) echo "tools/fuzz.sh: no seeds listed for harness '$name'" >&2 ;;
  esac
}

# Copies files into a corpus, named by content (as libFuzzer names what it adds).
add() {
  local corpus=$1; shift
  local f
  for f in "$@"; do
    [ -f "$f" ] && cp "$f" "$corpus/seed-$(sha1sum < "$f" | cut -c1-16)"
  done
  return 0
}

# The tokenizer harness takes "tokenizer.json NUL text": every tokenizer with every line of fuzz/seeds/texts.txt.
add_with_texts() {
  local corpus=$1; shift
  local f text tmp
  tmp=$(mktemp)
  for f in "$@"; do
    while IFS= read -r text; do
      { cat "$f"; printf '\0%s' "$text"; } > "$tmp"
      cp "$tmp" "$corpus/seed-$(sha1sum < "$tmp" | cut -c1-16)"
    done < fuzz/seeds/texts.txt
  done
  rm -f "$tmp"
}

# CPU-seconds used so far by process $1 (user + system, from /proc).
cpu_seconds() {
  local fields
  read -r -a fields < <(sed 's/^.*) //' "/proc/$1/stat")
  echo $(( (fields[11] + fields[12]) / $(getconf CLK_TCK) ))
}

if [ "$build" -eq 1 ]; then
  cmake --preset fuzz >/dev/null
  cmake --build --preset fuzz -j "$(nproc 2>/dev/null || echo 2)"
fi

mkdir -p build/fuzz/corpus build/fuzz/artifacts
summary=build/fuzz/summary.txt
touch "$summary"
status=0
for binary in build/fuzz/fuzz/fuzz_*; do
  [ -f "$binary" ] && [ -x "$binary" ] || continue # not the fuzz_*_autogen folders
  name=${binary##*/fuzz_}
  if [ ${#only[@]} -gt 0 ] && [[ ! " ${only[*]} " == *" $name "* ]]; then continue; fi
  corpus=build/fuzz/corpus/$name
  mkdir -p "$corpus" "build/fuzz/artifacts/$name"
  seed "$name" "$corpus"
  options=(-timeout=10 -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="build/fuzz/artifacts/$name/")
  [ -f "fuzz/fuzz_$name.dict" ] && options+=(-dict="fuzz/fuzz_$name.dict")
  log=build/fuzz/$name.log
  if [ "$cpu" -eq 1 ]; then
    echo "== $name: $seconds CPU-seconds on $(ls "$corpus" | wc -l) inputs"
    nice -n "${FUZZ_NICE:-0}" "$binary" "${options[@]}" "$corpus" > "$log" 2>&1 &
    pid=$!
    while kill -0 "$pid" 2>/dev/null; do
      sleep 5
      if [ -r "/proc/$pid/stat" ] && [ "$(cpu_seconds "$pid")" -ge "$seconds" ]; then
        kill -INT "$pid" 2>/dev/null || true # libFuzzer stops cleanly and prints its final stats
        break
      fi
    done
    set +e; wait "$pid"; code=$?; set -e
    # SIGINT ends libFuzzer with a non-zero code of its own: only a finding counts as a failure here.
    if grep -q -E "^SUMMARY: |ERROR: libFuzzer|==ERROR|runtime error" "$log"; then code=1; else code=0; fi
  else
    echo "== $name: $seconds s on $(ls "$corpus" | wc -l) inputs"
    set +e
    nice -n "${FUZZ_NICE:-0}" "$binary" "${options[@]}" -max_total_time="$seconds" "$corpus" > "$log" 2>&1
    code=$?
    set -e
  fi
  done_line=$(grep -E "^#[0-9]+[[:space:]]" "$log" | tail -1 | tr "\t" " " || true)
  stats=$(grep -E "^stat::(number_of_executed_units|average_exec_per_sec|peak_rss_mb)" "$log" | tr '\n' ' ' || true)
  echo "$name: ${done_line:-no final line} $stats" | tee -a "$summary"
  if [ "$code" -ne 0 ]; then
    echo "tools/fuzz.sh: $name found a problem (exit $code); see $log and build/fuzz/artifacts/$name/" >&2
    tail -40 "$log" >&2
    status=1
  fi
done
exit $status
