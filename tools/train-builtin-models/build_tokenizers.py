#!/usr/bin/python3
"""Learn the two tokenizers from the training split of the corpus and write
Hugging Face tokenizer.json files.

* encoder: WordPiece (BERT-style, lowercase, accents kept), vocabulary learned
  the way HF's WordPieceTrainer does it: BPE merges over words whose
  non-initial pieces carry the "##" prefix.
* decoder: BPE with byte fallback (Llama-2 / TinyLlama layout: normalizer
  Prepend("▁") + Replace(" ", "▁"), no pre-tokenizer, <0x00>..<0xFF> tokens).

The learned vocabularies are written as tokenizer.json; the ids used for
training are then produced by the reference implementation (npm `tokenizers`,
see tokenize_corpus.js), so training and inference agree exactly.
"""
import argparse, collections, heapq, json, os, unicodedata

SPM = "\u2581"


def split_docs(docs, heldout_every=50):
    """Deterministic split: every 50th document of each source is held out."""
    train, held = [], []
    counters = collections.Counter()
    for d in docs:
        counters[d["src"]] += 1
        (held if counters[d["src"]] % heldout_every == 0 else train).append(d)
    return train, held


def learn_bpe(word_freqs, num_merges, join):
    """word_freqs: {tuple(symbols): freq}. join(a, b) -> merged symbol.
    Returns list of merges [(a, b)] in order. Ties broken by pair text."""
    words = [list(w) for w in word_freqs]
    freqs = list(word_freqs.values())
    counts = collections.Counter()
    where = collections.defaultdict(set)
    for i, w in enumerate(words):
        f = freqs[i]
        for p in zip(w, w[1:]):
            counts[p] += f
            where[p].add(i)
    heap = [(-c, p) for p, c in counts.items()]
    heapq.heapify(heap)
    merges = []
    while len(merges) < num_merges and heap:
        negc, pair = heapq.heappop(heap)
        if counts.get(pair, 0) != -negc or negc == 0:
            continue
        merges.append(pair)
        a, b = pair
        new = join(a, b)
        changed = collections.Counter()
        for i in sorted(where.pop(pair, ())):
            w = words[i]
            f = freqs[i]
            # remove old pairs
            for p in zip(w, w[1:]):
                counts[p] -= f
                changed[p] += 1
            j, out = 0, []
            while j < len(w):
                if j + 1 < len(w) and w[j] == a and w[j + 1] == b:
                    out.append(new)
                    j += 2
                else:
                    out.append(w[j])
                    j += 1
            words[i] = out
            for p in zip(out, out[1:]):
                counts[p] += f
                where[p].add(i)
                changed[p] += 1
        counts.pop(pair, None)
        for p in changed:
            c = counts.get(p, 0)
            if c > 0:
                heapq.heappush(heap, (-c, p))
    return merges


# ---------------------------------------------------------------- encoder

def _is_punct(ch):
    cp = ord(ch)
    if 33 <= cp <= 47 or 58 <= cp <= 64 or 91 <= cp <= 96 or 123 <= cp <= 126:
        return True
    return unicodedata.category(ch).startswith("P")


def bert_words(text):
    text = text.lower()
    words = []
    for chunk in text.split():
        cur = ""
        for ch in chunk:
            if _is_punct(ch):
                if cur:
                    words.append(cur)
                    cur = ""
                words.append(ch)
            else:
                cur += ch
        if cur:
            words.append(cur)
    return words


def build_wordpiece(paras, vocab_size, min_char_freq=10):
    wf = collections.Counter()
    for p in paras:
        wf.update(bert_words(p))
    chars = collections.Counter()
    for w, f in wf.items():
        for c in w:
            chars[c] += f
    alphabet = sorted(c for c, f in chars.items() if f >= min_char_freq)
    aset = set(alphabet)
    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    vocab = list(specials)
    for c in alphabet:
        vocab.append(c)
    for c in alphabet:
        vocab.append("##" + c)
    word_freqs = {}
    for w, f in wf.items():
        if len(w) > 100 or any(c not in aset for c in w) or f < 2:
            continue
        word_freqs[tuple([w[0]] + ["##" + c for c in w[1:]])] = f

    def join(a, b):
        return a + (b[2:] if b.startswith("##") else b)

    n_merges = vocab_size - len(vocab)
    merges = learn_bpe(word_freqs, n_merges * 2, join)
    seen = set(vocab)
    for a, b in merges:
        t = join(a, b)
        if t not in seen:
            seen.add(t)
            vocab.append(t)
        if len(vocab) >= vocab_size:
            break
    return vocab


def added(i, content):
    return {"id": i, "content": content, "single_word": False, "lstrip": False,
            "rstrip": False, "normalized": False, "special": True}


def wordpiece_json(vocab):
    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    sid = {s: vocab.index(s) for s in specials}
    return {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": [added(sid[s], s) for s in specials],
        "normalizer": {"type": "BertNormalizer", "clean_text": True, "handle_chinese_chars": True,
                       "strip_accents": False, "lowercase": True},
        "pre_tokenizer": {"type": "BertPreTokenizer"},
        "post_processor": {
            "type": "TemplateProcessing",
            "single": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}},
                       {"SpecialToken": {"id": "[SEP]", "type_id": 0}}],
            "pair": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}},
                     {"SpecialToken": {"id": "[SEP]", "type_id": 0}}, {"Sequence": {"id": "B", "type_id": 1}},
                     {"SpecialToken": {"id": "[SEP]", "type_id": 1}}],
            "special_tokens": {
                "[CLS]": {"id": "[CLS]", "ids": [sid["[CLS]"]], "tokens": ["[CLS]"]},
                "[SEP]": {"id": "[SEP]", "ids": [sid["[SEP]"]], "tokens": ["[SEP]"]},
            },
        },
        "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": True},
        "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
                  "max_input_chars_per_word": 100, "vocab": {t: i for i, t in enumerate(vocab)}},
    }


# ---------------------------------------------------------------- decoder

def build_bpe(paras, vocab_size, min_char_freq=20):
    wf = collections.Counter()
    for p in paras:
        # the Llama normalizer: prepend "▁", replace " " by "▁"; words start at "▁"
        s = SPM + p.replace(" ", SPM)
        for w in s.split(SPM)[1:]:
            wf[SPM + w] += 1
    chars = collections.Counter()
    for w, f in wf.items():
        for c in w:
            chars[c] += f
    alphabet = sorted(c for c, f in chars.items() if f >= min_char_freq)
    if SPM not in alphabet:
        alphabet.append(SPM)
    aset = set(alphabet)
    vocab = ["<unk>", "<s>", "</s>"] + ["<0x%02X>" % b for b in range(256)] + alphabet
    # words are split at characters outside the alphabet (they become bytes)
    word_freqs = collections.Counter()
    for w, f in wf.items():
        if f < 2:
            continue
        seg = []
        for c in w:
            if c in aset:
                seg.append(c)
            else:
                if len(seg) > 1:
                    word_freqs[tuple(seg)] += f
                seg = []
        if len(seg) > 1:
            word_freqs[tuple(seg)] += f
    n = vocab_size - len(vocab)
    merges = learn_bpe(dict(word_freqs), int(n * 1.1) + 10, lambda a, b: a + b)
    seen, kept = set(vocab), []
    for a, b in merges:
        if len(vocab) >= vocab_size:
            break
        kept.append((a, b))
        if a + b not in seen:  # two merge paths may give the same token
            seen.add(a + b)
            vocab.append(a + b)
    return vocab, kept


def bpe_json(vocab, merges):
    return {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": [added(0, "<unk>"), added(1, "<s>"), added(2, "</s>")],
        "normalizer": {"type": "Sequence", "normalizers": [
            {"type": "Prepend", "prepend": SPM},
            {"type": "Replace", "pattern": {"String": " "}, "content": SPM}]},
        "pre_tokenizer": None,
        "post_processor": {
            "type": "TemplateProcessing",
            "single": [{"SpecialToken": {"id": "<s>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}],
            "pair": [{"SpecialToken": {"id": "<s>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}},
                     {"SpecialToken": {"id": "<s>", "type_id": 1}}, {"Sequence": {"id": "B", "type_id": 1}}],
            "special_tokens": {"<s>": {"id": "<s>", "ids": [1], "tokens": ["<s>"]}},
        },
        "decoder": {"type": "Sequence", "decoders": [
            {"type": "Replace", "pattern": {"String": SPM}, "content": " "},
            {"type": "ByteFallback"}, {"type": "Fuse"},
            {"type": "Strip", "content": " ", "start": 1, "stop": 0}]},
        "model": {"type": "BPE", "dropout": None, "unk_token": "<unk>", "continuing_subword_prefix": None,
                  "end_of_word_suffix": None, "fuse_unk": True, "byte_fallback": True, "ignore_merges": False,
                  "vocab": {t: i for i, t in enumerate(vocab)},
                  "merges": [a + " " + b for a, b in merges]},
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cache", default="/tmp/attnscope-corpus")
    ap.add_argument("--enc-vocab", type=int, default=8000)
    ap.add_argument("--dec-vocab", type=int, default=4096)
    ap.add_argument("--out-enc", required=True)
    ap.add_argument("--out-dec", required=True)
    args = ap.parse_args()
    docs = [json.loads(l) for l in open(os.path.join(args.cache, "corpus.jsonl"), encoding="utf-8")]
    train, _ = split_docs(docs)
    paras = [p for d in train for p in d["paras"]]
    ev = build_wordpiece(paras, args.enc_vocab)
    os.makedirs(args.out_enc, exist_ok=True)
    with open(os.path.join(args.out_enc, "tokenizer.json"), "w", encoding="utf-8") as fh:
        json.dump(wordpiece_json(ev), fh, ensure_ascii=False, indent=1)
    print("encoder vocab", len(ev))
    dv, dm = build_bpe(paras, args.dec_vocab)
    os.makedirs(args.out_dec, exist_ok=True)
    with open(os.path.join(args.out_dec, "tokenizer.json"), "w", encoding="utf-8") as fh:
        json.dump(bpe_json(dv, dm), fh, ensure_ascii=False, indent=1)
    print("decoder vocab", len(dv), "merges", len(dm))


if __name__ == "__main__":
    main()
