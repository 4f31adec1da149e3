#!/usr/bin/python3
"""Encoder-decoder oracle (issue 31): a tiny random-weight MarianMTModel with a real Marian tokenizer, or a
BartForConditionalGeneration given as ids, and the float64 encoder, decoder and cross attentions upstream
`transformers` 4.36 computes for it.

marian:
Tokenizer files as the Helsinki-NLP/opus-mt-* checkpoints ship them: source.spm and target.spm (SentencePiece
unigram models, trained here by python3-sentencepiece on a few English and Turkish sentences), vocab.json (the
joint vocabulary: "</s>" 0, "<unk>" 1, the pieces of both models in an order of its own, "<pad>" last, as in
opus-mt, so an id is never the .spm's own id) and tokenizer_config.json. The ids of the case texts come from
the upstream *slow* MarianTokenizer (pure python over python3-sentencepiece). Without sacremoses (absent from
the kit, as from Debian) its Moses punctuation normaliser is the identity.

mbart: BART's blocks pre-LN, with a LayerNorm after each stack and scale_embedding (mbart-large-cc25's settings);
ids as for bart, source ending "</s> lang_code" as MBartTokenizer ends it; decoder_start </s>.

t5: T5ForConditionalGeneration as t5-small (v1.0: ReLU, tied LM head) with T5's tokenizer files (spiece.model,
trained here, and tokenizer_config.json); the ids of its texts from the upstream *slow* T5Tokenizer (legacy, the
default). flan_t5: the same class as flan-t5-small / T5 v1.1 (gated-gelu, untied LM head), ids drawn. Both add
relative_position_buckets to case.json: T5Attention._relative_position_bucket of relative positions -300..300.

bart: learned positions (a table of max_position_embeddings + 2 rows, read from row 2 on), layernorm_embedding,
gelu, no embedding scale (bart-base's settings); no tokenizer files: the ids are drawn (<s> first, </s> last)
and the decoder input is [decoder_start (= </s>)] + source[:-1].

Usage (from the kit's work folder, which holds transformers' source in src/):
  cd /work/oraclekit && . ./env.sh && $PY /path/to/tools/oracle/make_seq2seq_case.py ARCH SEED --out DIR

Outputs in DIR:
  config.json, model.safetensors, generation_config.json   upstream save_pretrained (F32)
  source.spm, target.spm, vocab.json, tokenizer_config.json   marian only
  encoder_attentions.npy  float64 [encoder layers, heads, n_src, n_src]
  decoder_attentions.npy  float64 [decoder layers, heads, n_tgt, n_tgt]   (causal)
  cross_attentions.npy    float64 [decoder layers, heads, n_tgt, n_src]
  case.json   source_text, source_ids, target_text, decoder_input_ids ([decoder_start] + target ids[:-1], as
              shift_tokens_right makes them), tokenizer_cases (text -> source ids; target text -> target ids, and those ids decoded),
              greedy / beam generate() outputs (generate; generate_cases: more sources, greedy and 4 beams,
              max_length 20), config summary, tensor list, the command
"""
import argparse
import io
import json
import os
import sys

import numpy as np
import sentencepiece as spm
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_case import check_safetensors, randomize  # noqa: E402  (also installs the AddedToken shim)

import transformers  # noqa: E402
from transformers import (BartConfig, BartForConditionalGeneration, MarianConfig, MarianMTModel,  # noqa: E402
                          MarianTokenizer, MBartConfig, MBartForConditionalGeneration, T5Config,
                          T5ForConditionalGeneration, T5Tokenizer)
from transformers.models.t5.modeling_t5 import T5Attention  # noqa: E402

TURKISH = [
    "kedi mindere oturdu", "Kedi minderin üstünde uyuyor.", "Köpek bahçede koşuyor ve havlıyor.",
    "Öğretmen çocuklara güzel bir şarkı söyledi.", "Bugün hava çok güneşli, yarın yağmur yağacak.",
    "İstanbul'da iki milyon kişi çalışıyor.", "Çay içmeyi sever misin?", "Ağaçların yaprakları düştü.",
]
ENGLISH = [
    "the cat sat on the cushion", "The cat is sleeping on the cushion.", "The dog runs in the garden and barks.",
    "The teacher sang a beautiful song to the children.", "Today the weather is very sunny, it will rain tomorrow.",
    "Two million people work in Istanbul.", "Do you like drinking tea?", "The leaves of the trees fell.",
]
# Source texts whose ids the case records: Turkish, English, digits, a language code, characters the models
# never saw (pieces outside vocab.json -> <unk>), spaces to collapse, nothing at all, and special tokens typed
# in the text.
SOURCE_TEXTS = [
    "kedi mindere oturdu", "Öğretmen çocuklara şarkı söyledi.", "The cat sat on the cushion.",
    "İki kedi, 3 köpek ve 42 kuş!", ">>tur<< the cat sat", "snow ☃ and 雪 and ß", "  many   spaces  here ",
    "", "ÇĞİÖŞÜ çğıöşü",
    # special tokens typed in the text: the slow tokenizer splits them out (its added-tokens trie)
    "kedi</s>oturdu", "kedi </s> oturdu", "a <unk> b<pad>", ">>tur<< kedi </s>", "</s", " </s> ",
]
TARGET_TEXTS = ["the cat sat on the cushion", "Two cats, 3 dogs!", "İstanbul ☃"]


def train_spm(sentences, vocab_size):
    model = io.BytesIO()
    spm.SentencePieceTrainer.train(sentence_iterator=iter(sentences * 4), model_writer=model,
                                   vocab_size=vocab_size, model_type="unigram", character_coverage=1.0,
                                   hard_vocab_limit=False, minloglevel=2)
    return model.getvalue()


def build_tokenizer(out, seed):
    source = train_spm(TURKISH + ENGLISH[:3], 90)
    target = train_spm(ENGLISH + TURKISH[:2], 80)
    for name, blob in (("source.spm", source), ("target.spm", target)):
        with open(os.path.join(out, name), "wb") as f:
            f.write(blob)
    pieces = []
    for blob in (source, target):
        proc = spm.SentencePieceProcessor(model_proto=blob)
        for i in range(proc.get_piece_size()):
            if not (proc.is_control(i) or proc.is_unknown(i)) and proc.id_to_piece(i) not in pieces:
                pieces.append(proc.id_to_piece(i))
    # An order of vocab.json's own (opus-mt's is Marian's joint vocabulary, not either .spm's ids).
    np.random.default_rng(seed).shuffle(pieces)
    vocab = {"</s>": 0, "<unk>": 1, ">>tur<<": 2}
    for p in pieces:
        vocab[p] = len(vocab)
    vocab["<pad>"] = len(vocab)
    with open(os.path.join(out, "vocab.json"), "w", encoding="utf-8") as f:
        json.dump(vocab, f, ensure_ascii=False, indent=1)
    with open(os.path.join(out, "tokenizer_config.json"), "w") as f:
        json.dump({"tokenizer_class": "MarianTokenizer", "source_lang": "tr", "target_lang": "en",
                   "model_max_length": 512, "separate_vocabs": False}, f, indent=1)
    tok = MarianTokenizer(os.path.join(out, "source.spm"), os.path.join(out, "target.spm"),
                          os.path.join(out, "vocab.json"), source_lang="tr", target_lang="en")
    return tok, vocab


def stack_sizes(a, vocab):
    """The config fields every case takes alike from the command line (two stacks of the same shape), and no
    dropout of any kind."""
    return dict(vocab_size=vocab, d_model=a.d_model, encoder_layers=a.encoder_layers,
                decoder_layers=a.decoder_layers, encoder_attention_heads=a.heads, decoder_attention_heads=a.heads,
                encoder_ffn_dim=a.ffn, decoder_ffn_dim=a.ffn, max_position_embeddings=a.max_pos, dropout=0.0,
                attention_dropout=0.0, activation_dropout=0.0)


def marian_case(a, out):
    tok, vocab = build_tokenizer(out, a.seed)
    pad, eos = vocab["<pad>"], vocab["</s>"]
    tokenizer_cases = [{"text": t, "ids": tok(t)["input_ids"]} for t in SOURCE_TEXTS]
    target_cases = [{"text": t, "ids": tok(text_target=t)["input_ids"]} for t in TARGET_TEXTS]
    for c in target_cases:  # MarianTokenizer.decode: through target.spm
        c["decoded"] = tok.decode(c["ids"], skip_special_tokens=True)
        c["decoded_with_special"] = tok.decode(c["ids"], skip_special_tokens=False)
    # The fields of an opus-mt config.json, the BART-era ones included (transformers keeps unknown keys).
    cfg = MarianConfig(**stack_sizes(a, len(vocab)), decoder_vocab_size=len(vocab), activation_function="swish",
                       scale_embedding=True, pad_token_id=pad, eos_token_id=eos, forced_eos_token_id=eos,
                       decoder_start_token_id=pad, share_encoder_decoder_embeddings=True, bad_words_ids=[[pad]],
                       num_beams=4, max_length=16, static_position_embeddings=True, normalize_before=False,
                       normalize_embedding=False, add_bias_logits=False, add_final_layer_norm=False,
                       architectures=["MarianMTModel"])
    source_ids = tokenizer_cases[0]["ids"]
    target_ids = target_cases[0]["ids"]
    extra = {"source_text": SOURCE_TEXTS[0], "source_tokens": tok.convert_ids_to_tokens(source_ids),
             "target_text": TARGET_TEXTS[0], "target_ids": target_ids,
             "tokenizer_cases": tokenizer_cases, "target_tokenizer_cases": target_cases}
    extra["generate_sources"] = [c["ids"] for c in tokenizer_cases]
    return cfg, MarianMTModel, ("embed_positions.weight",), source_ids, target_ids, extra


def bart_case(a, out):
    vocab = 128
    cfg = BartConfig(**stack_sizes(a, vocab), activation_function="gelu", scale_embedding=False, pad_token_id=1,
                     bos_token_id=0, eos_token_id=2, decoder_start_token_id=2, forced_eos_token_id=2,
                     forced_bos_token_id=0, normalize_before=False, add_final_layer_norm=False,
                     no_repeat_ngram_size=3, num_beams=4, architectures=["BartForConditionalGeneration"])
    g = np.random.default_rng(a.seed)
    source_ids = [0] + g.integers(3, vocab, 9).tolist() + [2]
    target_ids = [0] + g.integers(3, vocab, 11).tolist() + [2]
    more = [[0] + g.integers(3, vocab, n).tolist() + [2] for n in (4, 14, 7)]
    return cfg, BartForConditionalGeneration, (), source_ids, target_ids, {"generate_sources": [source_ids] + more}


def mbart_case(a, out):
    """mBART (mbart-large-cc25's settings): pre-LN layers, a final LayerNorm on each stack, scale_embedding."""
    vocab = 128
    cfg = MBartConfig(**stack_sizes(a, vocab), activation_function="gelu", scale_embedding=True, pad_token_id=1,
                      bos_token_id=0, eos_token_id=2, decoder_start_token_id=2, forced_eos_token_id=2, num_beams=5,
                      architectures=["MBartForConditionalGeneration"])
    g = np.random.default_rng(a.seed)
    source_ids = g.integers(3, vocab, 9).tolist() + [2, 125]  # text </s> lang_code, as MBartTokenizer ends
    target_ids = g.integers(3, vocab, 11).tolist() + [2, 126]
    more = [g.integers(3, vocab, n).tolist() + [2, 125] for n in (4, 14)]
    return cfg, MBartForConditionalGeneration, (), source_ids, target_ids, {"generate_sources": [source_ids] + more}


# T5's tokenizer cases: SOURCE_TEXTS and its sentinels (<extra_id_N>: lstrip, rstrip and single_word, so the
# spaces beside them go and one glued to a word stays text), a text already ending in </s> (no second </s>),
# a task prefix, and the piece marker typed as a character.
T5_TEXTS = SOURCE_TEXTS + [
    "translate Turkish to English: kedi mindere oturdu", "<extra_id_0> kedi <extra_id_1> oturdu",
    "kedi<extra_id_0>oturdu", "kedi <extra_id_0>.", "<extra_id_99><extra_id_100>", "kedi </s>", "</s>",
    "\u2581kedi \u2581 oturdu", "a<extra_id_5> b <extra_id_7>c",
]


def t5_tokenizer(out):
    """T5's tokenizer files where a checkpoint has no tokenizer.json: spiece.model (a unigram model with T5's
    special ids: <pad> 0, </s> 1, <unk> 2, no <s>) and tokenizer_config.json (extra_ids 100: the sentinels
    <extra_id_0..99> take the ids after the pieces, <extra_id_0> the last)."""
    model = io.BytesIO()
    spm.SentencePieceTrainer.train(sentence_iterator=iter((TURKISH + ENGLISH) * 4), model_writer=model,
                                   vocab_size=120, model_type="unigram", character_coverage=1.0,
                                   hard_vocab_limit=False, pad_id=0, eos_id=1, unk_id=2, bos_id=-1,
                                   minloglevel=2)
    with open(os.path.join(out, "spiece.model"), "wb") as f:
        f.write(model.getvalue())
    with open(os.path.join(out, "tokenizer_config.json"), "w") as f:
        json.dump({"tokenizer_class": "T5Tokenizer", "extra_ids": 100, "model_max_length": 512,
                   "eos_token": "</s>", "unk_token": "<unk>", "pad_token": "<pad>"}, f, indent=1)
    return T5Tokenizer.from_pretrained(out)


def t5_config(a, vocab, **kw):
    return T5Config(vocab_size=vocab, d_model=a.d_model, d_kv=kw.pop("d_kv"), d_ff=a.ffn,
                    num_layers=a.encoder_layers, num_decoder_layers=a.decoder_layers, num_heads=a.heads,
                    dropout_rate=0.0, pad_token_id=0, eos_token_id=1, decoder_start_token_id=0,
                    architectures=["T5ForConditionalGeneration"], **kw)


def t5_case(a, out):
    """T5 v1.0 (t5-small's settings): ReLU feed-forward, the LM head tied to the embedding (the decoder's
    output scaled by d_model^-0.5 before it); d_kv 6, so heads · d_kv (24) is not d_model (32); few buckets
    (8, max_distance 16) so that a dozen tokens reach the logarithmic buckets and the clip."""
    tok = t5_tokenizer(out)
    vocab = len(tok)
    cfg = t5_config(a, vocab, d_kv=6, feed_forward_proj="relu", tie_word_embeddings=True,
                    relative_attention_num_buckets=8, relative_attention_max_distance=16)
    cases = [{"text": t, "ids": tok(t)["input_ids"], "tokens": tok.convert_ids_to_tokens(tok(t)["input_ids"])}
             for t in T5_TEXTS]
    source_ids = cases[T5_TEXTS.index("translate Turkish to English: kedi mindere oturdu")]["ids"]
    target_ids = tok(text_target=TARGET_TEXTS[0])["input_ids"]
    extra = {"source_text": "translate Turkish to English: kedi mindere oturdu",
             "source_tokens": tok.convert_ids_to_tokens(source_ids), "target_text": TARGET_TEXTS[0],
             "target_ids": target_ids, "tokenizer_cases": cases,
             # the last one holds <pad>, which generate() masks out of the attention
             "generate_sources": [cases[0]["ids"], source_ids, cases[1]["ids"],
                                  cases[T5_TEXTS.index("a <unk> b<pad>")]["ids"]]}
    return cfg, T5ForConditionalGeneration, (), source_ids, target_ids, extra


def flan_t5_case(a, out):
    """T5 v1.1 / Flan-T5 (flan-t5-small's settings): gated-gelu (gelu_new) feed-forward, an LM head of its own
    (tie_word_embeddings false, no output scaling), the default 32 buckets and max_distance 128; ids drawn."""
    vocab = 128
    cfg = t5_config(a, vocab, d_kv=8, feed_forward_proj="gated-gelu", tie_word_embeddings=False)
    g = np.random.default_rng(a.seed)
    source_ids = g.integers(3, vocab, 13).tolist() + [1]
    target_ids = g.integers(3, vocab, 11).tolist() + [1]
    more = [g.integers(3, vocab, n).tolist() + [1] for n in (4, 20)]
    padded = source_ids[:5] + [0, 0] + source_ids[5:]  # <pad> inside: generate() masks it out of the attention
    return cfg, T5ForConditionalGeneration, (), source_ids, target_ids, {
        "generate_sources": [source_ids] + more + [padded]}


def relative_buckets(cfg):
    """T5Attention._relative_position_bucket over relative positions -300..300 (key - query), as the encoder
    (bidirectional) and the decoder (causal) use it, computed as the model computes it (float32 log)."""
    rel = torch.arange(-300, 301, dtype=torch.long)
    run = lambda bidirectional: T5Attention._relative_position_bucket(  # noqa: E731
        rel, bidirectional=bidirectional, num_buckets=cfg.relative_attention_num_buckets,
        max_distance=cfg.relative_attention_max_distance).tolist()
    return {"num_buckets": cfg.relative_attention_num_buckets,
            "max_distance": cfg.relative_attention_max_distance, "first_relative_position": -300,
            "bidirectional": run(True), "causal": run(False)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("arch", choices=["marian", "bart", "mbart", "t5", "flan_t5"])
    ap.add_argument("seed", type=int)
    ap.add_argument("--out", required=True)
    ap.add_argument("--d-model", type=int, default=32)
    ap.add_argument("--encoder-layers", type=int, default=2)
    ap.add_argument("--decoder-layers", type=int, default=2)
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--ffn", type=int, default=64)
    ap.add_argument("--max-pos", type=int, default=64)
    ap.add_argument("--std", type=float, default=None,
                    help="std of re-drawn weights (default 0.3; 0.2 for t5 and flan_t5, whose scores have no "
                         "1/sqrt(d_kv): at 0.3 their rows are near one-hot and float32 rounding moves P by 5e-5)")
    a = ap.parse_args()
    if a.std is None:
        a.std = 0.2 if a.arch in ("t5", "flan_t5") else 0.3
    out = a.out
    os.makedirs(out, exist_ok=True)

    cfg, cls, keep, source_ids, target_ids, extra = {"marian": marian_case, "bart": bart_case,
                                                     "mbart": mbart_case, "t5": t5_case,
                                                     "flan_t5": flan_t5_case}[a.arch](a, out)
    torch.manual_seed(a.seed)
    model = cls(cfg).eval()
    randomize(model, a.std, torch.Generator().manual_seed(a.seed), keep=keep)
    model.save_pretrained(out, safe_serialization=True)
    keys = check_safetensors(os.path.join(out, "model.safetensors"))

    decoder_input_ids = [cfg.decoder_start_token_id] + target_ids[:-1]  # shift_tokens_right

    torch.set_default_dtype(torch.float64)
    loaded = cls.from_pretrained(out, torch_dtype=torch.float64).double().eval()
    x, y = torch.tensor([source_ids]), torch.tensor([decoder_input_ids])
    with torch.no_grad():
        o = loaded(input_ids=x, attention_mask=torch.ones_like(x), decoder_input_ids=y, output_attentions=True)
        greedy = loaded.generate(x, num_beams=1, max_length=12, do_sample=False)[0].tolist()
        beam = loaded.generate(x, num_beams=3, max_length=12, do_sample=False)[0].tolist()
        # More sources, greedy and 4 beams up to 20 tokens: outputs that end on their own </s>, beams that
        # finish at different lengths.
        generate_cases = []
        for source in extra.pop("generate_sources"):
            for beams in (1, 4):
                out_ids = loaded.generate(torch.tensor([source]), num_beams=beams, max_length=20,
                                          do_sample=False)[0].tolist()
                generate_cases.append({"source_ids": source, "num_beams": beams, "max_length": 20, "ids": out_ids})
    parts = {"encoder_attentions": o.encoder_attentions, "decoder_attentions": o.decoder_attentions,
             "cross_attentions": o.cross_attentions}
    shapes = {}
    for name, t in parts.items():
        arr = torch.stack([layer[0] for layer in t]).numpy()  # [L, H, queries, keys]
        assert np.allclose(arr.sum(-1), 1.0, atol=1e-9), name
        np.save(os.path.join(out, name + ".npy"), arr)
        shapes[name] = list(arr.shape)
    dec = np.load(os.path.join(out, "decoder_attentions.npy"))
    assert np.abs(np.triu(dec, 1)).max() == 0.0

    case = {
        "arch": a.arch, "seed": a.seed, "transformers": transformers.__version__, "torch": torch.__version__,
        "command": " ".join(["make_seq2seq_case.py"] + sys.argv[1:]),
        "source_text": None, "source_ids": source_ids, "target_text": None, "target_ids": target_ids,
        "decoder_input_ids": decoder_input_ids,
        "generate": {"greedy": {"num_beams": 1, "max_length": 12, "ids": greedy},
                     "beam": {"num_beams": 3, "max_length": 12, "ids": beam}},
        "generate_cases": generate_cases,
        "config": {k: v for k, v in cfg.to_dict().items() if k in (
            "d_model", "encoder_layers", "decoder_layers", "encoder_attention_heads", "decoder_attention_heads",
            "encoder_ffn_dim", "decoder_ffn_dim", "vocab_size", "max_position_embeddings", "scale_embedding",
            "activation_function", "pad_token_id", "eos_token_id", "decoder_start_token_id", "d_kv", "d_ff",
            "num_layers", "num_decoder_layers", "num_heads", "feed_forward_proj", "tie_word_embeddings",
            "relative_attention_num_buckets", "relative_attention_max_distance")},
        "attention_shapes": shapes, "tensors": keys,
    }
    case.update(extra)
    if isinstance(cfg, T5Config):
        case["relative_position_buckets"] = relative_buckets(cfg)
    ent = {n: float(-(np.load(os.path.join(out, n + ".npy")) * np.log(np.clip(
        np.load(os.path.join(out, n + ".npy")), 1e-300, None))).sum(-1).mean()) for n in parts}
    with open(os.path.join(out, "case.json"), "w", encoding="utf-8") as f:
        json.dump(case, f, ensure_ascii=False, indent=1)
    print(f"{a.arch} seed={a.seed} -> {out}: {shapes}, source {source_ids}, decoder {decoder_input_ids}, "
          f"greedy {greedy}, beam {beam}, mean row entropy {ent}")


if __name__ == "__main__":
    main()
