#!/usr/bin/python3
"""Is tokenize("p1 p2") == tokenize("p1") + tokenize("p2") for the decoder's tokenizer (no specials)?

  check_join_tokenization.py --tokenizer resources/models/tiny-llama-en-tr/tokenizer.json \
        --corpus /tmp/attnscope-corpus/corpus.jsonl [--pairs 500] [--also FILE ...]

The "joined" training format (train.py --join) drops the </s> between paragraphs of the stored id
stream, which equals the tokenization of the paragraphs joined by one space only if this holds
(the normalizer prepends U+2581 and turns spaces into it; merges were learned per word). Checks
--pairs consecutive paragraph pairs spread over the corpus with the reference tokenizer (npm tokenizers),
and, for each --also file (one paragraph per line), the whole file joined by spaces against the
concatenation of its lines. Exit status 1 on any mismatch.
"""
import argparse, json, sys, os

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from train import encode_ref  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tokenizer", required=True)
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--pairs", type=int, default=500)
    ap.add_argument("--also", action="append", default=[])
    ap.add_argument("--node-dir", default="/tmp/tok")
    args = ap.parse_args()
    paras = []
    for line in open(args.corpus, encoding="utf-8"):
        d = json.loads(line)
        paras += [(d["src"], p) for p in d["paras"]]
    step = max(1, (len(paras) - 1) // args.pairs)
    pairs = [(paras[i][1], paras[i + 1][1]) for i in range(0, len(paras) - 1, step)][: args.pairs]
    items = [[a, None] for a, _ in pairs] + [[b, None] for _, b in pairs] + [[a + " " + b, None] for a, b in pairs]
    enc = encode_ref(args.tokenizer, items, args.node_dir)
    n = len(pairs)
    bad = 0
    for i, (a, b) in enumerate(pairs):
        ea, eb, eab = enc[i]["ids"], enc[n + i]["ids"], enc[2 * n + i]["ids"]
        if eab != ea + eb[1:]:  # each starts with <s>
            bad += 1
            if bad <= 5:
                print(f"mismatch: {a[-40:]!r} + {b[:40]!r}")
    print(f"{n} corpus paragraph pairs: {n - bad} equal, {bad} differ")
    for f in args.also:
        lines = [l.strip() for l in open(f, encoding="utf-8") if l.strip()]
        enc = encode_ref(args.tokenizer, [[l, None] for l in lines] + [[" ".join(lines), None]], args.node_dir)
        cat = [1] + [t for e in enc[:-1] for t in e["ids"][1:]]
        same = cat == enc[-1]["ids"]
        print(f"{f}: {len(lines)} lines joined by spaces, {len(cat)} tokens: {'equal' if same else 'DIFFER'}")
        bad += 0 if same else 1
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
