#!/usr/bin/python3
"""Reference timing for bench_model: a BERT-base-sized encoder written directly in torch (eager, fp32, the
same operations transformers' BertModel runs with output_attentions=True: the probabilities of every layer
are kept). Run beside bench_model on the same machine to get a ratio that survives a noisy machine.

    /usr/bin/python3 tools/bench_model_torch.py [--tokens 128,512] [--reps 5] [--threads 2]
"""
import argparse
import json
import math
import statistics
import time

import torch


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tokens", default="128,512")
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    L, h, H, I, V, P = 12, 768, 12, 3072, 30522, 512
    d = h // H

    def linear(o, i):
        return (torch.randn(o, i) * 0.03, torch.randn(o) * 0.01)

    word, pos, typ = torch.randn(V, h) * 0.05, torch.randn(P, h) * 0.05, torch.randn(2, h) * 0.05
    layers = [dict(q=linear(h, h), k=linear(h, h), v=linear(h, h), o=linear(h, h), i=linear(I, h), out=linear(h, I))
              for _ in range(L)]
    ones, zeros = torch.ones(h), torch.zeros(h)

    def forward(ids):
        n = ids.shape[0]
        x = word[ids] + pos[:n] + typ[0]
        x = torch.nn.functional.layer_norm(x, (h,), ones, zeros, 1e-12)
        attentions = []
        for w in layers:
            q = torch.nn.functional.linear(x, *w["q"]).view(n, H, d).transpose(0, 1)
            k = torch.nn.functional.linear(x, *w["k"]).view(n, H, d).transpose(0, 1)
            v = torch.nn.functional.linear(x, *w["v"]).view(n, H, d).transpose(0, 1)
            p = torch.softmax(q @ k.transpose(1, 2) / math.sqrt(d), dim=-1)
            attentions.append(p)
            ctx = (p @ v).transpose(0, 1).reshape(n, h)
            x = torch.nn.functional.layer_norm(torch.nn.functional.linear(ctx, *w["o"]) + x, (h,), ones, zeros, 1e-12)
            f = torch.nn.functional.gelu(torch.nn.functional.linear(x, *w["i"]))
            x = torch.nn.functional.layer_norm(torch.nn.functional.linear(f, *w["out"]) + x, (h,), ones, zeros, 1e-12)
        return x, attentions

    with torch.no_grad():
        for n in [int(t) for t in args.tokens.split(",")]:
            ids = torch.tensor([1000 + (i * 7919) % 29000 for i in range(n)])
            forward(ids)
            wall, cpu = [], []
            for _ in range(args.reps):
                t0, c0 = time.perf_counter(), time.process_time()
                forward(ids)
                wall.append(time.perf_counter() - t0)
                cpu.append(time.process_time() - c0)
            print(json.dumps({"bench": "torch_eager_bert_base_all_attentions", "tokens": n, "threads": args.threads,
                              "torch": torch.__version__, "median_s": round(statistics.median(wall), 4),
                              "median_cpu_s": round(statistics.median(cpu), 4)}), flush=True)


if __name__ == "__main__":
    main()
