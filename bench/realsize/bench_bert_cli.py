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
    args = parser.parse_args()
    ids = ",".join(["101"] + [str(1000 + (i * 7919) % 28000) for i in range(args.tokens - 2)] + ["102"])
    out = os.path.join(tempfile.gettempdir(), "bench-bert-attention.npy")
    sides = {
        "attnscope_cli": [args.attnscope, "attention", "--model", args.dir, "--ids", ids, "--format", "npy",
                          "--out", out, "--force"],
        "transformers_eager_f32_process": [sys.executable, "-c", TRANSFORMERS_RUN, args.dir, ids, str(args.threads)],
    }
    results = {name: [] for name in sides}
    forwards = []
    for _ in range(args.reps):  # interleaved, so both sides see the same machine
        for name, command in sides.items():
            start = time.perf_counter()
            run = subprocess.run(command, capture_output=True, text=True)
            results[name].append(time.perf_counter() - start)
            if run.returncode != 0:
                sys.exit(run.stderr[-2000:])
            if name.startswith("transformers"):
                forwards.append(json.loads(run.stdout.strip().splitlines()[-1])["forward_s"])
    line = {name: statistics.median(times) for name, times in results.items()}
    line["transformers_forward_only"] = statistics.median(forwards)
    line.update(bench="bert_base_cli", tokens=args.tokens, reps=args.reps)
    print(json.dumps(line))


if __name__ == "__main__":
    main()
