#!/usr/bin/python3
"""BERT-base at 512 tokens through the CLI (issue 15, point 4): `attnscope attention ... --format npy` as a
whole process on bench_model's random F32 BERT-base folder, side by side in the same run with upstream
transformers' BertModel (eager float32, output_attentions=True) on the same weights and ids.

    build/dev/bench/bench_model --tokens 512 --reps 1 --dir /tmp/bert-base-random   # writes the folder once
    cd /work/oracle && . ./env.sh && cd -
    /usr/bin/python3 bench/realsize/bench_bert_cli.py --dir /tmp/bert-base-random --reps 5
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

TRANSFORMERS_RUN = r"""
import json, sys, time, torch
from transformers import BertConfig, BertModel
from safetensors.torch import load_file
folder, ids_text, threads = sys.argv[1:4]
torch.set_num_threads(int(threads))
model = BertModel(BertConfig(**json.load(open(folder + "/config.json"))), add_pooling_layer=False)
state = {k.removeprefix("bert."): v for k, v in load_file(folder + "/model.safetensors").items()}
model.load_state_dict(state, strict=False)
model.eval()
ids = torch.tensor([[int(x) for x in ids_text.split(",")]])
with torch.no_grad():
    start = time.perf_counter()
    out = model(ids, output_attentions=True)
    print(json.dumps(dict(forward_s=time.perf_counter() - start, layers=len(out.attentions))))
"""


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dir", required=True)
    parser.add_argument("--tokens", type=int, default=512)
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--attnscope", default="build/dev/app/attnscope")
    parser.add_argument("--transformers-openblas", default=None, help="OPENBLAS_CORETYPE for transformers (default: unset)")
    args = parser.parse_args()
    ids = ",".join(["101"] + [str(1000 + (i * 7919) % 28000) for i in range(args.tokens - 2)] + ["102"])
    out = os.path.join(tempfile.gettempdir(), "bench-bert-attention.npy")
    # --attnscope LABEL=BINARY[@OPENBLAS_CORETYPE],...: several builds side by side (as bench_llama_realsize.py).
    sides, environments = {}, {}
    for item in args.attnscope.split(","):
        label, binary = item.split("=", 1) if "=" in item else ("", item)
        binary, core = binary.split("@", 1) if "@" in binary else (binary, None)
        name = "attnscope_cli" + (":" + label if label else "")
        sides[name] = [binary, "attention", "--model", args.dir, "--ids", ids, "--format", "npy", "--out", out,
                       "--force"]
        environments[name] = core
    sides["transformers_eager_f32_process"] = [sys.executable, "-c", TRANSFORMERS_RUN, args.dir, ids,
                                               str(args.threads)]
    environments["transformers_eager_f32_process"] = args.transformers_openblas
    results = {name: [] for name in sides}
    forwards = []
    for _ in range(args.reps):  # interleaved, so both sides see the same machine
        for name, command in sides.items():
            env = dict(os.environ)
            env.pop("OPENBLAS_CORETYPE", None)
            if environments[name]:
                env["OPENBLAS_CORETYPE"] = environments[name]
            start = time.perf_counter()
            run = subprocess.run(command, capture_output=True, text=True, env=env)
            results[name].append(time.perf_counter() - start)
            if run.returncode != 0:
                sys.exit(run.stderr[-2000:])
            if name.startswith("transformers"):
                forwards.append(json.loads(run.stdout.strip().splitlines()[-1])["forward_s"])
    line = {name: statistics.median(times) for name, times in results.items()}
    line["all_s"] = {name: [round(t, 3) for t in times] for name, times in results.items()}
    line["transformers_forward_only"] = statistics.median(forwards)
    line.update(bench="bert_base_cli", tokens=args.tokens, reps=args.reps)
    print(json.dumps(line))


if __name__ == "__main__":
    main()
