#!/usr/bin/python3
"""Where does a decoder park its attention on long held-out text: on <s> (token 0) or on </s>?

  check_sink_targets.py (--model FOLDER | --ckpt CKPT.pt) --data DIR [--seq-len 512] [--sequences 8]
                        [--format eos|joined] [--out result.json]

Sequences are built as train.py builds its held-out batches: <s> + the held-out token stream of
DIR/dec_held_ids.npy from a paragraph start (DIR/dec_held_starts.npy), `--format eos` as stored
(paragraphs followed by </s>), `--format joined` with every </s> removed (paragraphs joined, the
"joined" training format). Per (layer, head), the mean over query rows q >= 1 of:
  bos       P[q, 0]
  eos_all   sum of P[q, k] over the </s> tokens k <= q
  eos_last  P[q, k] for the most recent </s> k <= q (rows that have one)
  self      P[q, q]
  bos|no</s>  P[q, 0] over the rows q >= 4 of the first paragraph (no </s> yet: like a probe sentence)
  bos|</s>    P[q, 0] over the rows that have a </s> at or before them
eos_* are averaged over the rows that have a </s> at or before them. The question (issue 16 point 3):
if the heads that dump attention dump it on </s> rather than on <s>, evicting <s> costs nothing
because a recent </s> is always in the cache.
"""
import argparse, json, os, sys

for _v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")
import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from check_streaming import load_decoder  # noqa: E402
from models import Llama  # noqa: E402

BOS, EOS = 1, 2


def load_ckpt(path):
    ck = torch.load(path, map_location="cpu")
    torch.set_default_dtype(torch.float64)
    model = Llama(ck["config"])
    model.load_state_dict(ck["model"])
    model = model.double().eval()
    return model, ck["config"], ck.get("step")


def held_sequences(data_dir, n, T, fmt):
    ids = np.load(os.path.join(data_dir, "dec_held_ids.npy")).astype(np.int64)
    starts = np.load(os.path.join(data_dir, "dec_held_starts.npy"))
    if fmt == "joined":  # drop every </s>: map the paragraph starts into the shortened stream
        keep = ids != EOS
        new_index = np.cumsum(keep) - 1
        starts = new_index[starts[keep[starts]]]
        ids = ids[keep]
    starts = starts[starts + T - 1 <= len(ids)]
    # evenly spread starts far enough apart that the sequences do not overlap
    out, last_end = [], -1
    for s in starts:
        if s >= last_end:
            out.append([BOS] + ids[s:s + T - 1].tolist())
            last_end = s + T
        if len(out) == n:
            break
    return out


def measure(model, seqs):
    acc = {k: None for k in ("bos", "eos_all", "eos_last", "self", "bos_after_eos", "bos_before_eos")}
    eos_rows = pre_rows = 0
    with torch.no_grad():
        for ids in seqs:
            x = torch.tensor(ids)
            _, probs = model(x[None], need_probs=True)
            A = torch.stack([p[0] for p in probs])  # L, H, n, n
            n = len(ids)
            is_eos = (x == EOS)
            q = torch.arange(1, n)
            bos = A[:, :, 1:, 0].mean(-1)
            slf = A[:, :, q, q].mean(-1)
            # rows with a </s> at or before them
            cum = torch.cumsum(is_eos.long(), 0)
            rows = q[cum[q] > 0]
            if len(rows):
                eos_all = (A[:, :, rows][:, :, :, is_eos]).sum(-1).sum(-1)
                idx = torch.arange(n)
                last = torch.where(is_eos, idx, torch.full_like(idx, -1)).cummax(0).values[rows]
                eos_last = A[:, :, rows, last].sum(-1)
                eos_rows += len(rows)
                bos_after = A[:, :, rows, 0].sum(-1)
            else:
                eos_all = eos_last = bos_after = torch.zeros_like(bos)
            pre = q[(cum[q] == 0) & (q >= 4)]  # rows in the first paragraph (q >= 4, as dec_sink)
            bos_before = A[:, :, pre, 0].sum(-1) if len(pre) else torch.zeros_like(bos)
            pre_rows += len(pre)
            for key, v in (("bos", bos), ("self", slf)):
                acc[key] = v if acc[key] is None else acc[key] + v
            for key, v in (("eos_all", eos_all), ("eos_last", eos_last), ("bos_after_eos", bos_after),
                           ("bos_before_eos", bos_before)):
                acc[key] = v if acc[key] is None else acc[key] + v
    out = {"bos": acc["bos"] / len(seqs), "self": acc["self"] / len(seqs)}
    for key in ("eos_all", "eos_last", "bos_after_eos"):
        out[key] = acc[key] / max(1, eos_rows)
    out["bos_before_eos"] = acc["bos_before_eos"] / max(1, pre_rows)
    return {k: v.numpy() for k, v in out.items()}, eos_rows


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--model", help="exported HF folder")
    src.add_argument("--ckpt", help="train.py checkpoint (ckpt_<step>.pt or last.pt)")
    ap.add_argument("--data", required=True, help="prepare_data.py output (dec_held_ids.npy, dec_held_starts.npy)")
    ap.add_argument("--seq-len", type=int, default=512)
    ap.add_argument("--sequences", type=int, default=8)
    ap.add_argument("--format", choices=["eos", "joined"], default="eos")
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    torch.set_num_threads(1)
    if args.model:
        model, cfg = load_decoder(args.model, "float64")
        step = None
    else:
        model, cfg, step = load_ckpt(args.ckpt)
    T = min(args.seq_len, cfg["max_position_embeddings"])
    seqs = held_sequences(args.data, args.sequences, T, args.format)
    n_eos = [int(sum(1 for t in s if t == EOS)) for s in seqs]
    m, eos_rows = measure(model, seqs)
    L, H = m["bos"].shape
    print(f"{args.model or args.ckpt} (step {step}): {len(seqs)} held-out sequences of {T} tokens, "
          f"format {args.format}, </s> per sequence {min(n_eos)}-{max(n_eos)}")
    print("layer head    bos  eos_all eos_last   self  bos|no</s> bos|</s>")
    for l in range(L):
        for h in range(H):
            print(f"{l:5d} {h:4d} {m['bos'][l, h]:6.3f} {m['eos_all'][l, h]:8.3f} {m['eos_last'][l, h]:8.3f} "
                  f"{m['self'][l, h]:6.3f} {m['bos_before_eos'][l, h]:10.3f} {m['bos_after_eos'][l, h]:8.3f}")
    summary = {}
    for key in ("bos", "eos_all", "eos_last", "bos_before_eos", "bos_after_eos"):
        l, h = np.unravel_index(m[key].argmax(), m[key].shape)
        summary[key] = {"layer": int(l), "head": int(h), "value": round(float(m[key][l, h]), 4),
                        "mean_over_heads": round(float(m[key].mean()), 4)}
    print(json.dumps(summary))
    if args.out:
        json.dump({"source": args.model or args.ckpt, "step": step, "seq_len": T, "format": args.format,
                   "sequences": len(seqs), "eos_per_sequence": n_eos, "summary": summary,
                   **{k: np.round(v, 4).tolist() for k, v in m.items()}}, open(args.out, "w"), indent=1)


if __name__ == "__main__":
    main()
