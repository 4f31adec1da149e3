#!/usr/bin/env bash
# Regenerates the reference cases of tests/data/oracle that issue 15 added (the six older cases bert_s*,
# gpt2_s*, llama_s* came from the shared kit unchanged). Two kinds:
#   kit cases    upstream transformers 4.36 (the oracle kit, float64) through make_case.py;
#   numpy cases  reference.py (float64) through make_numpy_case.py, for families transformers 4.36 predates.
# Then crosscheck.py checks reference.py against every kit case (they must agree to ~1e-6; see its header).
# Every case gets upstream_f32_error.json (upstream's own float32 error; tests/data/oracle/README.md). For the
# six older cases: (cd KIT_DIR && . ./env.sh && $PY tools/oracle/make_case.py --f32-error {bert,gpt2,llama}_s?).
#
#   usage: tools/oracle/make_cases.sh OUT_DIR [KIT_DIR]     KIT_DIR: the kit's work folder (default /work/oracle)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="$(mkdir -p "$1" && cd "$1" && pwd)"
kit="${2:-/work/oracle}"
py=/usr/bin/python3

kit_case() { # name, make_case.py arguments
  local name="$1"; shift
  (cd "$kit" && . ./env.sh && $py "$here/make_case.py" "$@" --out "$out/$name") | tail -1
}
kit_case gpt_neox_s0 gpt_neox 0 --rotary-pct 0.25
kit_case gpt_neox_s1 gpt_neox 1 --rotary-pct 0.5 --sequential-residual --dtype bf16
kit_case phi_s0 phi 0 --rotary-pct 0.5
kit_case phi_s1 phi 1 --rotary-pct 0.75 --qk-layernorm --dtype bf16
kit_case mistral_s0 mistral 0 --sliding-window 5
kit_case mistral_s1 mistral 1 --sliding-window 3 --kv-heads 1 --dtype bf16
kit_case roberta_s0 roberta 0 --ids 0,17,98,44,5,63,120,9,31,77,2
kit_case roberta_s1 roberta 1 --ids 0,17,98,1,44,5,1,63,120,9,2 --dtype bf16
kit_case xlmr_s0 xlm-roberta 0 --ids 0,88,13,102,7,56,91,23,2
kit_case xlmr_s1 xlm-roberta 1 --ids 0,88,1,13,102,7,56,91,23,2,1 --dtype bf16
kit_case distilbert_s0 distilbert 0 --ids 2,40,71,16,99,8,53,3 --dtype bf16
kit_case distilbert_s1 distilbert 1 --ids 2,40,71,16,99,8,53,3 --sinusoidal
kit_case llama_linear_s0 llama 0 --rope-scaling linear:4 --rope-theta 10000
kit_case llama_dynamic_s1 llama 1 --rope-scaling dynamic:2 --max-pos 8 --rope-theta 10000 --dtype bf16
kit_case llama_s2 llama 2 --layers 3 --heads 8 --kv-heads 2 --hidden 64   # issue 35's shape
# issue 31: encoder-decoder models (MarianMTModel with SentencePiece tokenizer files; BART), their own script
(cd "$kit" && . ./env.sh && $py "$here/make_seq2seq_case.py" marian 0 --out "$out/marian_s0") | tail -1
(cd "$kit" && . ./env.sh && $py "$here/make_seq2seq_case.py" bart 0 --out "$out/bart_s0") | tail -1

for preset in $($py "$here/make_numpy_case.py" --list | awk '{print $1}'); do
  $py "$here/make_numpy_case.py" "$preset" --out "$out/$preset"
  $py "$here/f32error.py" "$out/$preset"    # upstream_f32_error.json (kit cases: make_case.py writes it)
done
# issue 37: SmolLM3's NoPE layers, gpt-oss's learned sinks and experts (make_sink_case.py runs f32error.py itself)
for preset in smollm3_s0 smollm3_s1 gpt_oss_s0 gpt_oss_s1; do
  $py "$here/make_sink_case.py" "$preset" --out "$out/$preset" | tail -1
done

$py "$here/crosscheck.py" "$out"/{gpt_neox,phi,mistral,roberta,xlmr,distilbert,llama_linear,llama_dynamic}_s*
