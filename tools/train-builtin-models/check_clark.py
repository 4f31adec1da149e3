#!/usr/bin/python3
"""Clark et al. 2019 ("What Does BERT Look At?") figures for a built-in encoder, in plain torch.

  check_clark.py --model resources/models/tiny-bert-en-tr --corpus resources/corpus \
                 [--split held50|all] [--max-tokens 128] [--out result.json]

Inputs: census-sentences.jsonl as [CLS] A [SEP] and census-pairs.jsonl as [CLS] A [SEP] B [SEP]
(token types 0/1), truncated to --max-tokens (longest segment first, as HF's longest_first).
--split held50 keeps only the lines held out from the 2026-11 models (see write_heldout.py).

Per input, layer and head (docs/metrics.md): sep_mass = mean over the non-special query rows (not
[CLS]/[SEP]) of the attention on all [SEP] positions; cls_mass likewise on [CLS]. Then the mean over
the inputs, per head; per layer, the plain mean over the layer's heads.

Criteria (issue 17, point 4): the layer with the highest mean [SEP] share is a middle layer (not the
first or the last); some head averages >= 0.5 on [SEP] over pairs, and >= 0.3 over single sentences.
"""
import argparse, json, os, sys, time

for _v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")
import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from export import load_f64  # noqa: E402
from train import encode_ref, CLS, SEP  # noqa: E402


def load_encoder(folder):
    hf = json.load(open(os.path.join(folder, "config.json")))
    keys = ("hidden_size", "num_hidden_layers", "num_attention_heads", "intermediate_size", "max_position_embeddings",
            "type_vocab_size", "layer_norm_eps", "pad_token_id", "initializer_range", "vocab_size")
    cfg = {k: hf[k] for k in keys}
    return load_f64("enc", cfg, os.path.join(folder, "model.safetensors")), cfg


def content_ids(tok_path, texts, node_dir):
    enc = encode_ref(tok_path, [[t, None] for t in texts], node_dir)
    out = []
    for e in enc:
        assert e["ids"][0] == CLS and e["ids"][-1] == SEP
        out.append(e["ids"][1:-1])
    return out


def build(a, b, max_tokens):
    a, b = list(a), (list(b) if b is not None else None)
    budget = max_tokens - (3 if b is not None else 2)
    truncated = False
    while len(a) + (len(b) if b is not None else 0) > budget:
        truncated = True
        if b is not None and len(b) > len(a):
            b.pop()
        else:
            a.pop()
    ids = [CLS] + a + [SEP]
    tt = [0] * len(ids)
    if b is not None:
        ids += b + [SEP]
        tt += [1] * (len(b) + 1)
    return ids, tt, truncated


def census(model, inputs):
    """Mean over inputs of per-head sep_mass and cls_mass, [L, H] each; also per-input values of sep."""
    sep_sum = cls_sum = None
    n = 0
    with torch.no_grad():
        for ids, tt in inputs:
            x = torch.tensor([ids])
            _, probs = model(x, torch.tensor([tt]), torch.ones_like(x), need_probs=True)
            P = torch.stack([p[0] for p in probs])  # L, H, n, n
            sep = x[0] == SEP
            cls = x[0] == CLS
            q = ~(sep | cls)
            if not bool(q.any()):
                continue
            Pq = P[:, :, q]
            s = Pq[..., sep].sum(-1).mean(-1)
            c = Pq[..., cls].sum(-1).mean(-1)
            sep_sum = s if sep_sum is None else sep_sum + s
            cls_sum = c if cls_sum is None else cls_sum + c
            n += 1
    return (sep_sum / n).numpy(), (cls_sum / n).numpy(), n


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", required=True)
    ap.add_argument("--corpus", required=True, help="folder with census-sentences.jsonl and census-pairs.jsonl")
    ap.add_argument("--split", choices=["held50", "all"], default="all")
    ap.add_argument("--max-tokens", type=int, default=128)
    ap.add_argument("--limit", type=int, default=None, help="at most N inputs of each kind")
    ap.add_argument("--node-dir", default="/tmp/tok")
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    torch.set_num_threads(1)
    model, cfg = load_encoder(args.model)
    if args.max_tokens > cfg["max_position_embeddings"]:
        sys.exit(f"--max-tokens {args.max_tokens} > the model's {cfg['max_position_embeddings']} positions")
    tok = os.path.join(args.model, "tokenizer.json")
    L = cfg["num_hidden_layers"]
    result = {"model": os.path.abspath(args.model), "split": args.split, "max_tokens": args.max_tokens, "kinds": {}}
    for kind, fname in (("pairs", "census-pairs.jsonl"), ("sentences", "census-sentences.jsonl")):
        rows = [json.loads(l) for l in open(os.path.join(args.corpus, fname), encoding="utf-8")]
        if args.split == "held50":
            rows = [r for r in rows if r["split"] == "held50"]
        rows = rows[: args.limit] if args.limit else rows
        ca = content_ids(tok, [r["text"] for r in rows], args.node_dir)
        cb = content_ids(tok, [r["text_b"] for r in rows], args.node_dir) if kind == "pairs" else [None] * len(rows)
        built = [build(a, b, args.max_tokens) for a, b in zip(ca, cb)]
        t0 = time.time()
        sep, cls, n = census(model, [(i, t) for i, t, _ in built])
        layer_sep = sep.mean(1)
        top_layer = int(layer_sep.argmax())
        lh = np.unravel_index(sep.argmax(), sep.shape)
        mid = sep[1:L - 1]
        mh = np.unravel_index(mid.argmax(), mid.shape)
        langs = {}
        for r in rows:
            langs[r["lang"]] = langs.get(r["lang"], 0) + 1
        result["kinds"][kind] = {
            "inputs": n, "languages": langs, "truncated": int(sum(t for _, _, t in built)),
            "mean_tokens": float(np.mean([len(i) for i, _, _ in built])), "seconds": round(time.time() - t0, 1),
            "layer_sep_mass": layer_sep.round(4).tolist(), "layer_cls_mass": cls.mean(1).round(4).tolist(),
            "top_sep_layer": top_layer, "top_sep_layer_is_middle": 0 < top_layer < L - 1,
            "best_head": {"layer": int(lh[0]), "head": int(lh[1]), "sep_mass": float(sep[lh])},
            "best_middle_head": {"layer": int(mh[0]) + 1, "head": int(mh[1]), "sep_mass": float(mid[mh])},
            "sep_mass": sep.round(4).tolist(), "cls_mass": cls.round(4).tolist()}
        k = result["kinds"][kind]
        print(f"{kind}: {n} inputs {langs}, {k['truncated']} truncated, mean {k['mean_tokens']:.1f} tokens, "
              f"{k['seconds']} s", flush=True)
        print("  layer mean [SEP] share:", " ".join(f"L{i} {v:.3f}" for i, v in enumerate(layer_sep)))
        print("  layer mean [CLS] share:", " ".join(f"L{i} {v:.3f}" for i, v in enumerate(cls.mean(1))))
        print(f"  best head L{lh[0]}H{lh[1]} {sep[lh]:.3f}; best middle-layer head L{mh[0] + 1}H{mh[1]} {mid[mh]:.3f}")
    P, S = (np.array(result["kinds"][k]["sep_mass"]) for k in ("pairs", "sentences"))
    both = np.minimum(P / 0.5, S / 0.3)
    bh = np.unravel_index(both.argmax(), both.shape)
    result["criteria"] = {
        "top_sep_layer_is_middle_pairs": result["kinds"]["pairs"]["top_sep_layer_is_middle"],
        "top_sep_layer_is_middle_sentences": result["kinds"]["sentences"]["top_sep_layer_is_middle"],
        "some_head_pairs_ge_0.5": bool(P.max() >= 0.5),
        "some_head_sentences_ge_0.3": bool(S.max() >= 0.3),
        "one_head_meets_both": bool(both.max() >= 1.0),
        "head_closest_to_both": {"layer": int(bh[0]), "head": int(bh[1]), "pairs": float(P[bh]),
                                 "sentences": float(S[bh])},
    }
    print(json.dumps(result["criteria"], indent=1))
    if args.out:
        json.dump(result, open(args.out, "w"), indent=1)


if __name__ == "__main__":
    main()
