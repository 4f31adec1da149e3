#!/usr/bin/python3
"""Attention sink of a decoder on 300-word paragraphs (issue 16: "on a 300-word paragraph, at least
one head puts >= 0.5 of its mean attention on the first token").

  check_sink_paragraph.py --model resources/models/tiny-llama-en-tr \
        --text-file resources/corpus/stream-en.txt --text-file resources/corpus/stream-tr.txt \
        [--words 300] [--paragraphs 5] [--out result.json]

Paragraphs: consecutive runs of --words words of each text file (lines joined by spaces), the first
--paragraphs of each file. Each is encoded by the model's tokenizer (<s> first). Per head, sink_mass
as docs/metrics.md defines it: the mean over the non-special query rows (all but <s>) of P[i, 0].
A paragraph longer than the model's positions is cut to them (and reported as such).
"""
import argparse, json, os, sys

for _v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")
import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from check_streaming import load_decoder  # noqa: E402
from train import encode_ref  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", required=True)
    ap.add_argument("--text-file", action="append", required=True)
    ap.add_argument("--words", type=int, default=300)
    ap.add_argument("--paragraphs", type=int, default=5)
    ap.add_argument("--node-dir", default="/tmp/tok")
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    torch.set_num_threads(1)
    model, cfg = load_decoder(args.model, "float64")
    P = cfg["max_position_embeddings"]
    texts = []
    for f in args.text_file:
        words = open(f, encoding="utf-8").read().split()
        for i in range(args.paragraphs):
            chunk = words[i * args.words:(i + 1) * args.words]
            if len(chunk) == args.words:
                texts.append((os.path.basename(f), i, " ".join(chunk)))
    enc = encode_ref(os.path.join(args.model, "tokenizer.json"), [[t, None] for _, _, t in texts], args.node_dir)
    rows, acc = [], None
    with torch.no_grad():
        for (name, i, _), e in zip(texts, enc):
            ids = e["ids"]
            n_tokens = len(ids)
            ids = ids[:P]
            _, probs = model(torch.tensor([ids]), need_probs=True)
            A = torch.stack([p[0] for p in probs])  # L, H, n, n
            sink = A[:, :, 1:, 0].mean(-1).numpy()  # rows 1.. (row 0 is <s>, special)
            acc = sink if acc is None else acc + sink
            lh = np.unravel_index(sink.argmax(), sink.shape)
            rows.append({"file": name, "paragraph": i, "tokens": n_tokens, "tokens_used": len(ids),
                         "cut_to_positions": n_tokens > P, "best_head": [int(lh[0]), int(lh[1])],
                         "best_sink_mass": float(sink[lh])})
            print(json.dumps(rows[-1]), flush=True)
    mean = acc / len(rows)
    lh = np.unravel_index(mean.argmax(), mean.shape)
    out = {"model": os.path.abspath(args.model), "positions": P, "words": args.words, "paragraphs": rows,
           "mean_sink_mass": np.round(mean, 4).tolist(),
           "best_head_mean": {"layer": int(lh[0]), "head": int(lh[1]), "sink_mass": float(mean[lh])},
           "every_paragraph_fits": all(not r["cut_to_positions"] for r in rows),
           "min_over_paragraphs_of_best_head": min(r["best_sink_mass"] for r in rows)}
    print(json.dumps({k: v for k, v in out.items() if k not in ("paragraphs", "mean_sink_mass")}, indent=1))
    print("best head per layer (mean over paragraphs):",
          " ".join(f"L{l} H{int(mean[l].argmax())} {mean[l].max():.3f}" for l in range(mean.shape[0])))
    if args.out:
        json.dump(out, open(args.out, "w"), indent=1)


if __name__ == "__main__":
    main()
