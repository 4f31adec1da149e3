#!/usr/bin/python3
"""Tokenize the corpus with the reference tokenizer implementation (npm
`tokenizers`, run through node) and store the ids as numpy arrays.

decoder: every paragraph -> ids (no specials); stored as one flat stream with
         </s> after every paragraph, plus the paragraph start offsets.
encoder: every sentence -> ids (no specials); flat ids, sentence offsets and
         the document index of every sentence (for sentence-pair sampling).

Split: every --heldout-every'th document of each source is held out (50: the 2026-11 models; 10:
the held-out split that write_heldout.py ships as the census corpus). The corpus is read from
--cache, the ids are written to --out (default: --cache).
"""
import argparse, json, os, re, subprocess
import numpy as np
from build_tokenizers import split_docs

SENT = re.compile(r"(?<=[.!?…])\s+(?=[^\sa-zçğıöşü])")


def sentences(doc):
    out = []
    for p in doc["paras"]:
        for s in SENT.split(p):
            s = s.strip()
            if s:
                out.append(s)
    return out


def run_node(node_dir, tok, lines, work, tag):
    inp = os.path.join(work, tag + ".in.jsonl")
    outp = os.path.join(work, tag + ".out.jsonl")
    with open(inp, "w", encoding="utf-8") as fh:
        for l in lines:
            fh.write(json.dumps(l, ensure_ascii=False) + "\n")
    env = dict(os.environ, NODE_PATH=os.path.join(node_dir, "node_modules"))
    here = os.path.dirname(os.path.abspath(__file__))
    subprocess.run(["node", os.path.join(here, "tokenize_corpus.js"), tok, inp, outp], check=True, env=env)
    ids = [json.loads(l) for l in open(outp)]
    assert len(ids) == len(lines), (len(ids), len(lines))
    return ids


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cache", default="/tmp/attnscope-corpus")
    ap.add_argument("--node-dir", default="/tmp/tok")
    ap.add_argument("--enc-tok", required=True)
    ap.add_argument("--dec-tok", required=True)
    ap.add_argument("--heldout-every", type=int, default=50)
    ap.add_argument("--out", default=None, help="where the ids go (default: --cache)")
    args = ap.parse_args()
    docs = [json.loads(l) for l in open(os.path.join(args.cache, "corpus.jsonl"), encoding="utf-8")]
    splits = dict(zip(("train", "held"), split_docs(docs, args.heldout_every)))
    out = args.out or args.cache
    work = os.path.join(out, "tok")
    os.makedirs(work, exist_ok=True)
    stats = {"heldout_every": args.heldout_every, "enc_tok": os.path.abspath(args.enc_tok),
             "dec_tok": os.path.abspath(args.dec_tok)}
    for name, ds in splits.items():
        # decoder
        paras = [p for d in ds for p in d["paras"]]
        ids = run_node(args.node_dir, args.dec_tok, paras, work, "dec_" + name)
        flat, starts = [], []
        for x in ids:
            starts.append(len(flat))
            flat.extend(x)
            flat.append(2)  # </s>
        np.save(os.path.join(out, f"dec_{name}_ids.npy"), np.array(flat, dtype=np.int16))
        np.save(os.path.join(out, f"dec_{name}_starts.npy"), np.array(starts, dtype=np.int64))
        stats[f"dec_{name}_tokens"] = len(flat)
        # encoder
        sents, docid = [], []
        for i, d in enumerate(ds):
            for s in sentences(d):
                sents.append(s)
                docid.append(i)
        ids = run_node(args.node_dir, args.enc_tok, sents, work, "enc_" + name)
        flat, offs = [], [0]
        for x in ids:
            flat.extend(x)
            offs.append(len(flat))
        np.save(os.path.join(out, f"enc_{name}_ids.npy"), np.array(flat, dtype=np.int16))
        np.save(os.path.join(out, f"enc_{name}_offs.npy"), np.array(offs, dtype=np.int64))
        np.save(os.path.join(out, f"enc_{name}_doc.npy"), np.array(docid, dtype=np.int64))
        stats[f"enc_{name}_tokens"] = len(flat)
        stats[f"enc_{name}_sentences"] = len(sents)
        stats[f"{name}_docs"] = len(ds)
        stats[f"{name}_bytes"] = sum(len(p.encode("utf-8")) + 1 for d in ds for p in d["paras"])
    with open(os.path.join(out, "data_stats.json"), "w") as fh:
        json.dump(stats, fh, indent=1)
    print(json.dumps(stats, indent=1))


if __name__ == "__main__":
    main()
