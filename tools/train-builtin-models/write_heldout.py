#!/usr/bin/python3
"""Write the held-out texts (census corpus, streaming texts) that no built-in model trains on.

  write_heldout.py --cache /tmp/attnscope-corpus --out resources/corpus [--heldout-every 10]

Split: build_tokenizers.split_docs(docs, N): every N-th document of each source is held out.
N = 10 is the held-out split of the models trained with `prepare_data.py --heldout-every 10`;
since every 50th document is also every 10th, it contains the held-out split of the 2026-11 models
(N = 50), and every line says which ("split": "held50" = held out from those models too, "held10" =
held out only from models trained with N = 10).

Files:
  census-sentences.jsonl  one sentence per line: {"text", "lang", "source", "split"}
  census-pairs.jsonl      consecutive sentences of one document: {"text", "text_b", ...}
                          (sentences 0+1, 2+3, ... of each document)
  stream-en.txt           one held50 English man page (seccomp(2)), one paragraph per line
  stream-tr.txt           the held50 Turkish documents in corpus order, one paragraph per line
Sentences are prepare_data.sentences (the encoder's sentence split); sentences of fewer than 3
words are left out.
"""
import argparse, json, os, sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from build_tokenizers import split_docs  # noqa: E402
from prepare_data import sentences  # noqa: E402

STREAM_EN = "usr/share/man/man2/seccomp.2.gz"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cache", default="/tmp/attnscope-corpus")
    ap.add_argument("--out", required=True)
    ap.add_argument("--heldout-every", type=int, default=10)
    args = ap.parse_args()
    docs = [json.loads(l) for l in open(os.path.join(args.cache, "corpus.jsonl"), encoding="utf-8")]
    _, held = split_docs(docs, args.heldout_every)
    _, held50 = split_docs(docs, 50)
    held50_names = {(d["src"], d["name"]) for d in held50}
    assert held50_names <= {(d["src"], d["name"]) for d in held}, "held-out split must contain every 50th document"
    os.makedirs(args.out, exist_ok=True)
    counts = {}
    with open(os.path.join(args.out, "census-sentences.jsonl"), "w", encoding="utf-8") as fs, \
            open(os.path.join(args.out, "census-pairs.jsonl"), "w", encoding="utf-8") as fp:
        for d in held:
            split = "held50" if (d["src"], d["name"]) in held50_names else "held10"
            meta = {"lang": d["lang"], "source": d["src"], "split": split}
            ss = [s for s in sentences(d) if len(s.split()) >= 3]
            for s in ss:
                fs.write(json.dumps({"text": s, **meta}, ensure_ascii=False) + "\n")
            for i in range(0, len(ss) - 1, 2):
                fp.write(json.dumps({"text": ss[i], "text_b": ss[i + 1], **meta}, ensure_ascii=False) + "\n")
            c = counts.setdefault(f"{split}/{d['lang']}", [0, 0, 0])
            c[0] += 1
            c[1] += len(ss)
            c[2] += len(ss) // 2
    by_name = {d["name"]: d for d in held50}
    with open(os.path.join(args.out, "stream-en.txt"), "w", encoding="utf-8") as fh:
        fh.write("\n".join(by_name[STREAM_EN]["paras"]) + "\n")
    with open(os.path.join(args.out, "stream-tr.txt"), "w", encoding="utf-8") as fh:
        fh.write("\n".join(p for d in held50 if d["lang"] == "tr" for p in d["paras"]) + "\n")
    print(json.dumps({k: {"docs": v[0], "sentences": v[1], "pairs": v[2]} for k, v in sorted(counts.items())},
                     indent=1))


if __name__ == "__main__":
    main()
