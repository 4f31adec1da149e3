#!/usr/bin/python3
"""Independent attention oracle: build a tiny random HF model with upstream `transformers`
(v4.36.0.dev0 source, commit 0864dd3be, on torch 1.13), save it as a Hugging Face style folder
(config.json + model.safetensors [+ tokenizer files]) and dump the per-layer, per-head attention
weights that upstream code computes with output_attentions=True.

Copied from the shared oracle kit (shared/oracle-kit/make_case.py) and extended for the families added in
issue 15: mistral (sliding window), gpt_neox (partial rotary, parallel or sequential residual), phi
(Phi-1/1.5/2: partial rotary, optional QK LayerNorm), roberta and xlm-roberta (positions from the input ids),
distilbert (learned or sinusoidal positions), llama with rope_scaling linear/dynamic; hidden.npy for all.
case.json no longer repeats the attentions as nested lists (attentions.npy has them).

Usage (from the kit's work folder, which holds transformers' source in src/):
  cd /work/oracle && . ./env.sh && $PY /path/to/tools/oracle/make_case.py ARCH SEED [options]
  ARCH in {gpt2, bert, llama, mistral, gpt_neox, phi, roberta, xlm-roberta, distilbert}

Outputs in OUT (default $ORACLE_DIR/cases/<arch>_s<seed>):
  config.json, model.safetensors        written by upstream save_pretrained (+ safetensors' python layer)
  tokenizer.json (+ vocab.json/merges.txt or vocab.txt)  gpt2/bert only: tiny hand-built vocab;
                                        input ids come from the upstream *slow* tokenizer (pure python)
  attentions.npy    float64 [layers, heads, n, n]   (batch 0)
  hidden.npy        float64 [layers+1, n, hidden]   hidden_states from upstream (embeddings + each layer)
  case.json         metadata: arch, seed, input_ids, text, shapes, config summary, the command
  upstream_f32_error.json  how far transformers' own float32 run (the saved folder reloaded with
                    torch_dtype=float32) is from attentions.npy, per layer and overall (f32error.py)

  make_case.py --f32-error FOLDER...   writes only upstream_f32_error.json for existing kit cases (their
                    case.json gives the architecture and the ids; attentions.npy is not touched)

Weights are re-drawn with a larger std than HF's initializer_range so attention is far from uniform,
rounded to --dtype for storage, and the oracle runs the model *reloaded from the saved folder* with
from_pretrained, upcast to float64 (Llama's eager attention still does softmax in float32 upstream).
"""
import argparse
import json
import os
import struct
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import f32error  # noqa: E402

import transformers
from transformers import (
    BertConfig, BertForMaskedLM, BertModel,
    DistilBertConfig, DistilBertForMaskedLM, DistilBertModel,
    GPT2Config, GPT2LMHeadModel, GPT2Model,
    GPTNeoXConfig, GPTNeoXForCausalLM, GPTNeoXModel,
    LlamaConfig, LlamaForCausalLM, LlamaModel,
    MistralConfig, MistralForCausalLM, MistralModel,
    PhiConfig, PhiForCausalLM, PhiModel,
    RobertaConfig, RobertaForMaskedLM, RobertaModel,
    XLMRobertaConfig, XLMRobertaForMaskedLM, XLMRobertaModel,
)

DEFAULT_TEXT = "The quick brown fox jumps over the lazy dog."

# Shim (tokenization only, not modeling): without the Rust `tokenizers` package, transformers 4.36 falls back to a
# python AddedToken dataclass(eq=True) that is unhashable, so slow tokenizers cannot even be constructed.
# Give it the semantics of tokenizers.AddedToken: hash and equality by `content`.
if not transformers.utils.is_tokenizers_available():
    from transformers import tokenization_utils_base as _tub

    _tub.AddedToken.__hash__ = lambda self: hash(self.content)
    _tub.AddedToken.__eq__ = lambda self, o: isinstance(o, _tub.AddedToken) and self.content == o.content
    _tub.AddedToken.__setstate__ = lambda self, state: self.__dict__.update(state)

# ----------------------------------------------------------------------------------------------
# tiny tokenizers (vocab files for upstream slow tokenizers + equivalent tokenizer.json)
# ----------------------------------------------------------------------------------------------
WORDS = ("the quick brown fox jumps over lazy dog hello world attention head layer token "
         "a an is of to in and it was on for with as at by this that be are").split()


def bytes_to_unicode():
    # same table as GPT-2's encoder.py / transformers' tokenization_gpt2
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    cs = bs[:]
    n = 0
    for b in range(2 ** 8):
        if b not in bs:
            bs.append(b)
            cs.append(2 ** 8 + n)
            n += 1
    return dict(zip(bs, map(chr, cs)))


def build_gpt2_tokenizer(out, vocab_size):
    b2u = bytes_to_unicode()
    vocab = {b2u[b]: i for i, b in enumerate(range(256))}
    merges = []
    # merges that build each word left to right, then one merge "Ġ" + word (so " word" is a single token)
    def add(x, y):
        if x + y not in vocab and len(vocab) < vocab_size - 1:
            merges.append((x, y))
            vocab[x + y] = len(vocab)

    for w in WORDS:
        cur = w[0]
        for ch in w[1:]:
            add(cur, ch)
            cur += ch
        add("Ġ", w) if len(w) > 1 else add("Ġ", w)
    vocab["<|endoftext|>"] = len(vocab)
    assert len(vocab) <= vocab_size, (len(vocab), vocab_size)
    with open(os.path.join(out, "vocab.json"), "w", encoding="utf-8") as f:
        json.dump(vocab, f, ensure_ascii=False)
    with open(os.path.join(out, "merges.txt"), "w", encoding="utf-8") as f:
        f.write("#version: 0.2\n")
        for a, b in merges:
            f.write(f"{a} {b}\n")
    eos = vocab["<|endoftext|>"]
    tj = {
        "version": "1.0", "truncation": None, "padding": None,
        "added_tokens": [{"id": eos, "content": "<|endoftext|>", "single_word": False, "lstrip": False,
                          "rstrip": False, "normalized": True, "special": True}],
        "normalizer": None,
        "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True},
        "post_processor": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": False, "use_regex": True},
        "decoder": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True},
        "model": {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": "",
                  "end_of_word_suffix": "", "fuse_unk": False, "byte_fallback": False,
                  "vocab": vocab, "merges": [f"{a} {b}" for a, b in merges]},
    }
    with open(os.path.join(out, "tokenizer.json"), "w", encoding="utf-8") as f:
        json.dump(tj, f, ensure_ascii=False, indent=1)
    with open(os.path.join(out, "tokenizer_config.json"), "w") as f:
        json.dump({"tokenizer_class": "GPT2Tokenizer", "bos_token": "<|endoftext|>", "eos_token": "<|endoftext|>",
                   "unk_token": "<|endoftext|>", "model_max_length": 1024, "add_prefix_space": False}, f, indent=1)
    tok = transformers.GPT2Tokenizer(os.path.join(out, "vocab.json"), os.path.join(out, "merges.txt"))
    return tok, len(vocab)


def build_bert_tokenizer(out, vocab_size):
    toks = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    toks += list(".,!?'\"-:;()")
    toks += [w for w in WORDS if w not in toks]
    toks += ["##s", "##ed", "##ing", "##er", "##ly", "##y"]
    toks += [c for c in "abcdefghijklmnopqrstuvwxyz0123456789"]
    toks += ["##" + c for c in "abcdefghijklmnopqrstuvwxyz"]
    seen, uniq = set(), []
    for t in toks:
        if t not in seen:
            seen.add(t)
            uniq.append(t)
    toks = uniq[:vocab_size]
    with open(os.path.join(out, "vocab.txt"), "w", encoding="utf-8") as f:
        f.write("\n".join(toks) + "\n")
    vocab = {t: i for i, t in enumerate(toks)}
    tj = {
        "version": "1.0", "truncation": None, "padding": None,
        "added_tokens": [{"id": vocab[t], "content": t, "single_word": False, "lstrip": False, "rstrip": False,
                          "normalized": False, "special": True} for t in ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]],
        "normalizer": {"type": "BertNormalizer", "clean_text": True, "handle_chinese_chars": True,
                       "strip_accents": None, "lowercase": True},
        "pre_tokenizer": {"type": "BertPreTokenizer"},
        "post_processor": {"type": "TemplateProcessing",
                           "single": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}},
                                      {"SpecialToken": {"id": "[SEP]", "type_id": 0}}],
                           "pair": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}},
                                    {"SpecialToken": {"id": "[SEP]", "type_id": 0}}, {"Sequence": {"id": "B", "type_id": 1}},
                                    {"SpecialToken": {"id": "[SEP]", "type_id": 1}}],
                           "special_tokens": {t: {"id": t, "ids": [vocab[t]], "tokens": [t]} for t in ["[CLS]", "[SEP]"]}},
        "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": True},
        "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
                  "max_input_chars_per_word": 100, "vocab": vocab},
    }
    with open(os.path.join(out, "tokenizer.json"), "w", encoding="utf-8") as f:
        json.dump(tj, f, ensure_ascii=False, indent=1)
    with open(os.path.join(out, "tokenizer_config.json"), "w") as f:
        json.dump({"tokenizer_class": "BertTokenizer", "do_lower_case": True, "model_max_length": 512}, f, indent=1)
    tok = transformers.BertTokenizer(os.path.join(out, "vocab.txt"), do_lower_case=True)
    return tok, len(toks)


# ----------------------------------------------------------------------------------------------
def rope_scaling(a):
    """--rope-scaling linear:2 / dynamic:2 -> the rope_scaling dict of transformers 4.36 ({"type", "factor"})."""
    if not a.rope_scaling:
        return None
    kind, factor = a.rope_scaling.split(":")
    return {"type": kind, "factor": float(factor)}


def make_config(a):
    if a.arch == "gpt2":
        return GPT2Config(vocab_size=a.vocab, n_positions=a.max_pos, n_embd=a.hidden, n_layer=a.layers,
                          n_head=a.heads, n_inner=None, activation_function="gelu_new",
                          resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0, layer_norm_epsilon=a.eps or 1e-5,
                          bos_token_id=a.vocab - 1, eos_token_id=a.vocab - 1)
    if a.arch == "bert":
        return BertConfig(vocab_size=a.vocab, hidden_size=a.hidden, num_hidden_layers=a.layers,
                          num_attention_heads=a.heads, intermediate_size=a.inter or 2 * a.hidden, hidden_act="gelu",
                          hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0,
                          max_position_embeddings=a.max_pos, type_vocab_size=2, layer_norm_eps=a.eps or 1e-12,
                          pad_token_id=0)
    if a.arch in ("roberta", "xlm-roberta"):
        cls = RobertaConfig if a.arch == "roberta" else XLMRobertaConfig
        # RoBERTa's positions start at pad_token_id + 1, so the table has 2 more rows than usable positions.
        return cls(vocab_size=a.vocab, hidden_size=a.hidden, num_hidden_layers=a.layers,
                   num_attention_heads=a.heads, intermediate_size=a.inter or 2 * a.hidden, hidden_act="gelu",
                   hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0,
                   max_position_embeddings=a.max_pos + 2, type_vocab_size=1, layer_norm_eps=a.eps or 1e-5,
                   pad_token_id=1, bos_token_id=0, eos_token_id=2)
    if a.arch == "distilbert":
        return DistilBertConfig(vocab_size=a.vocab, dim=a.hidden, n_layers=a.layers, n_heads=a.heads,
                                hidden_dim=a.inter or 2 * a.hidden, activation="gelu", dropout=0.0,
                                attention_dropout=0.0, max_position_embeddings=a.max_pos,
                                sinusoidal_pos_embds=a.sinusoidal, pad_token_id=0)
    if a.arch in ("llama", "mistral"):
        common = dict(vocab_size=a.vocab, hidden_size=a.hidden, intermediate_size=a.inter or 2 * a.hidden,
                      num_hidden_layers=a.layers, num_attention_heads=a.heads,
                      num_key_value_heads=a.kv_heads, hidden_act="silu", max_position_embeddings=a.max_pos,
                      rms_norm_eps=a.eps or 1e-5, rope_theta=a.rope_theta, tie_word_embeddings=False,
                      bos_token_id=1, eos_token_id=2)
        if a.arch == "mistral":
            return MistralConfig(sliding_window=a.sliding_window or 4096, **common)
        return LlamaConfig(attention_bias=False, rope_scaling=rope_scaling(a), **common)
    if a.arch == "gpt_neox":
        return GPTNeoXConfig(vocab_size=a.vocab, hidden_size=a.hidden, num_hidden_layers=a.layers,
                             num_attention_heads=a.heads, intermediate_size=a.inter or 4 * a.hidden,
                             hidden_act="gelu", rotary_pct=a.rotary_pct, rotary_emb_base=a.rope_theta,
                             max_position_embeddings=a.max_pos, layer_norm_eps=a.eps or 1e-5,
                             use_parallel_residual=not a.sequential_residual, rope_scaling=rope_scaling(a),
                             tie_word_embeddings=False, bos_token_id=0, eos_token_id=2)
    if a.arch == "phi":
        return PhiConfig(vocab_size=a.vocab, hidden_size=a.hidden, intermediate_size=a.inter or 4 * a.hidden,
                         num_hidden_layers=a.layers, num_attention_heads=a.heads, hidden_act="gelu_new",
                         max_position_embeddings=a.max_pos, layer_norm_eps=a.eps or 1e-5,
                         rope_theta=a.rope_theta, partial_rotary_factor=a.rotary_pct, qk_layernorm=a.qk_layernorm,
                         rope_scaling=rope_scaling(a), resid_pdrop=0.0, embd_pdrop=0.0, attention_dropout=0.0,
                         tie_word_embeddings=False, bos_token_id=1, eos_token_id=2)
    raise SystemExit(f"unknown arch {a.arch}")


CLASSES = {"gpt2": (GPT2Model, GPT2LMHeadModel), "bert": (BertModel, BertForMaskedLM),
           "llama": (LlamaModel, LlamaForCausalLM), "mistral": (MistralModel, MistralForCausalLM),
           "gpt_neox": (GPTNeoXModel, GPTNeoXForCausalLM), "phi": (PhiModel, PhiForCausalLM),
           "roberta": (RobertaModel, RobertaForMaskedLM), "xlm-roberta": (XLMRobertaModel, XLMRobertaForMaskedLM),
           "distilbert": (DistilBertModel, DistilBertForMaskedLM)}
ENCODERS = ("bert", "roberta", "xlm-roberta", "distilbert")
DTYPES = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}


def randomize(model, std, gen, keep=()):
    """Re-draw every parameter so attention is peaky; norms get weight ~1+noise. Names ending in `keep` stay."""
    with torch.no_grad():
        for name, p in model.named_parameters():
            if name.endswith(tuple(keep)):
                continue
            if name.endswith(".weight") and ("norm" in name.lower() or ".ln_" in name or name.startswith("ln_")
                                              or "LayerNorm" in name or name.endswith("layer_norm.weight")):
                p.copy_(1.0 + 0.2 * torch.randn(p.shape, generator=gen, dtype=torch.float64).to(p.dtype))
            elif name.endswith("bias"):
                p.copy_(0.1 * torch.randn(p.shape, generator=gen, dtype=torch.float64).to(p.dtype))
            else:
                p.copy_(std * torch.randn(p.shape, generator=gen, dtype=torch.float64).to(p.dtype))


def check_safetensors(path):
    """Minimal independent parse of the file (8-byte LE header len + JSON + raw data)."""
    with open(path, "rb") as f:
        buf = f.read()
    (n,) = struct.unpack("<Q", buf[:8])
    header = json.loads(buf[8:8 + n])
    header.pop("__metadata__", None)
    end = max(v["data_offsets"][1] for v in header.values())
    assert 8 + n + end == len(buf), "safetensors size mismatch"
    return {k: (v["dtype"], v["shape"]) for k, v in sorted(header.items())}


def run_attentions(cls, folder, ids, arch, dtype):
    """Upstream's attentions [L, H, n, n] of the saved folder reloaded in `dtype`, and its hidden states."""
    # default dtype = the model's, so that e.g. torch.full(..., finfo(dtype).min) in upstream mask code fits
    torch.set_default_dtype(dtype)
    loaded = cls.from_pretrained(folder, torch_dtype=dtype, attn_implementation="eager") \
        if "attn_implementation" in cls.from_pretrained.__code__.co_varnames else \
        cls.from_pretrained(folder, torch_dtype=dtype)
    loaded = loaded.to(dtype).eval()
    x = torch.tensor([ids])
    kw = {}
    if arch in ("bert", "roberta", "xlm-roberta"):
        kw["token_type_ids"] = torch.zeros_like(x)
    with torch.no_grad():
        o = loaded(input_ids=x, attention_mask=torch.ones_like(x), output_attentions=True,
                   output_hidden_states=True, **kw)
    torch.set_default_dtype(torch.float64)
    return torch.stack([t[0] for t in o.attentions]).double().numpy(), \
        torch.stack([t[0] for t in o.hidden_states]).double().numpy()


def write_f32_error(folder, arch, ids, att64):
    """upstream_f32_error.json: the same folder, ids and code in float32 against the float64 attentions, as is
    and with every product's inputs summed in f32error.ORDERS other orders (nn.Linear's F.linear and GPT-2's
    Conv1D given their inputs permuted: the same sums, other roundings)."""
    att32, _ = run_attentions(CLASSES[arch][0], folder, ids, arch, torch.float32)
    from transformers import pytorch_utils
    linear, conv1d = torch.nn.functional.linear, pytorch_utils.Conv1D.forward
    orders = []
    try:
        for seed in range(f32error.ORDERS):
            gen = torch.Generator().manual_seed(seed)

            def permuted_linear(x, w, b=None):
                p = torch.randperm(x.shape[-1], generator=gen)
                return linear(x[..., p], w[:, p], b)

            def permuted_conv1d(self, x):
                p = torch.randperm(x.shape[-1], generator=gen)
                y = torch.addmm(self.bias, x.reshape(-1, x.shape[-1])[:, p], self.weight[p, :])
                return y.view(x.shape[:-1] + (self.nf,))

            torch.nn.functional.linear = permuted_linear
            pytorch_utils.Conv1D.forward = permuted_conv1d
            run32, _ = run_attentions(CLASSES[arch][0], folder, ids, arch, torch.float32)
            orders.append(float(np.abs(run32 - att64).max()))
    finally:
        torch.nn.functional.linear, pytorch_utils.Conv1D.forward = linear, conv1d
    made_by = (f"transformers {transformers.__version__} (source of commit 0864dd3be), torch {torch.__version__}: "
               f"{CLASSES[arch][0].__name__}.from_pretrained(torch_dtype=float32), eager attention, "
               f"{torch.get_num_threads()} threads")
    fig = f32error.figure(att32, att64, made_by, orders)
    fig["over_orders"]["how"] = "each product's inputs (F.linear, Conv1D) summed in a random order (torch seeds)"
    f32error.write(folder, fig)


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--f32-error":
        for folder in sys.argv[2:]:
            case = json.load(open(os.path.join(folder, "case.json")))
            write_f32_error(folder, case["arch"], case["input_ids"], np.load(os.path.join(folder, "attentions.npy")))
        return
    ap = argparse.ArgumentParser()
    ap.add_argument("arch", choices=list(CLASSES))
    ap.add_argument("seed", type=int)
    ap.add_argument("--out")
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--kv-heads", type=int, default=2, help="llama only (GQA when < heads)")
    ap.add_argument("--hidden", type=int, default=32)
    ap.add_argument("--inter", type=int, default=0)
    ap.add_argument("--vocab", type=int, default=0, help="default: tokenizer size (gpt2/bert) or 128 (llama)")
    ap.add_argument("--max-pos", type=int, default=64)
    ap.add_argument("--rope-theta", type=float, default=500000.0)
    ap.add_argument("--eps", type=float, default=0.0)
    ap.add_argument("--std", type=float, default=0.3, help="std of re-drawn weights")
    ap.add_argument("--dtype", choices=list(DTYPES), default="f32", help="storage dtype of model.safetensors")
    ap.add_argument("--save-as", choices=["head", "base"], default="head",
                    help="head: GPT2LMHeadModel/BertForMaskedLM/LlamaForCausalLM keys (transformer./bert./model. "
                         "prefixes); base: GPT2Model/BertModel/LlamaModel keys (no prefix)")
    ap.add_argument("--rope-scaling", default="", help="llama/gpt_neox/phi: linear:FACTOR or dynamic:FACTOR")
    ap.add_argument("--sliding-window", type=int, default=0, help="mistral: the sliding window")
    ap.add_argument("--rotary-pct", type=float, default=0.25, help="gpt_neox rotary_pct / phi partial_rotary_factor")
    ap.add_argument("--sequential-residual", action="store_true", help="gpt_neox: use_parallel_residual=False")
    ap.add_argument("--qk-layernorm", action="store_true", help="phi: LayerNorm on each query and key head")
    ap.add_argument("--sinusoidal", action="store_true", help="distilbert: sinusoidal_pos_embds")
    ap.add_argument("--n", type=int, default=12, help="number of random ids when neither a tokenizer nor --ids")
    ap.add_argument("--text", default=DEFAULT_TEXT)
    ap.add_argument("--ids", default="", help="comma separated token ids (skips the tokenizer)")
    a = ap.parse_args()
    out = a.out or os.path.join(os.environ.get("ORACLE_DIR", "."), "cases", f"{a.arch}_s{a.seed}")
    os.makedirs(out, exist_ok=True)

    tok = None
    if a.arch in ("gpt2", "bert") and not a.ids:
        tok, n = (build_gpt2_tokenizer if a.arch == "gpt2" else build_bert_tokenizer)(out, a.vocab or 10 ** 6)
        a.vocab = a.vocab or n
    a.vocab = a.vocab or 128
    if tok is not None:
        ids = tok(a.text)["input_ids"]
        tokens = tok.convert_ids_to_tokens(ids)
    else:
        g = np.random.default_rng(a.seed)
        ids = [int(x) for x in a.ids.split(",")] if a.ids else [1] + g.integers(3, a.vocab, a.n - 1).tolist()
        tokens = None
    assert max(ids) < a.vocab and (len(ids) <= a.max_pos or a.rope_scaling.startswith("dynamic"))

    torch.manual_seed(a.seed)
    cfg = make_config(a)
    base_cls, head_cls = CLASSES[a.arch]
    save_cls = head_cls if a.save_as == "head" else base_cls
    model = save_cls(cfg).eval()
    # DistilBERT's sinusoidal table is stored like a learned one; keep it sinusoidal so that a copy without the
    # tensor (which the runtime then computes) must give the same attention.
    # (transformers 4.36 builds the table in Embeddings.__init__, then post_init re-draws every nn.Embedding at
    # random: upstream's own create_sinusoidal_embeddings writes it again here.)
    keep = []
    if a.arch == "distilbert" and a.sinusoidal:
        from transformers.models.distilbert.modeling_distilbert import create_sinusoidal_embeddings
        with torch.no_grad():
            create_sinusoidal_embeddings(a.max_pos, a.hidden, model.distilbert.embeddings.position_embeddings.weight)
        keep = ["position_embeddings.weight"]
    randomize(model, a.std, torch.Generator().manual_seed(a.seed), keep)
    model = model.to(DTYPES[a.dtype])
    model.save_pretrained(out, safe_serialization=True)          # upstream code writes config.json + model.safetensors
    keys = check_safetensors(os.path.join(out, "model.safetensors"))

    # oracle: reload the saved folder with upstream from_pretrained, compute in float64
    att, hid = run_attentions(base_cls, out, ids, a.arch, torch.float64)  # [L, H, n, n], [L+1, n, d]
    np.save(os.path.join(out, "attentions.npy"), att)
    np.save(os.path.join(out, "hidden.npy"), hid)

    # sanity: rows sum to 1, causal archs are lower-triangular
    assert np.allclose(att.sum(-1), 1.0, atol=1e-6)
    if a.arch not in ENCODERS:
        assert np.abs(np.triu(att, 1)).max() == 0.0
    case = {
        "arch": a.arch, "seed": a.seed, "transformers": transformers.__version__, "torch": torch.__version__,
        "storage_dtype": a.dtype, "save_as": save_cls.__name__, "text": a.text if tok is not None else None,
        "input_ids": ids, "tokens": tokens,
        "config": {k: v for k, v in cfg.to_dict().items() if k in (
            "n_layer", "n_head", "n_embd", "num_hidden_layers", "num_attention_heads", "num_key_value_heads",
            "hidden_size", "intermediate_size", "rope_theta", "rms_norm_eps", "layer_norm_eps",
            "layer_norm_epsilon", "vocab_size", "max_position_embeddings", "n_positions", "rope_scaling",
            "sliding_window", "rotary_pct", "rotary_emb_base", "use_parallel_residual", "partial_rotary_factor",
            "qk_layernorm", "sinusoidal_pos_embds", "dim", "n_layers", "n_heads", "pad_token_id")},
        "command": " ".join(["make_case.py"] + sys.argv[1:]),
        "attentions_shape": list(att.shape),
        "tensors": keys,
    }
    with open(os.path.join(out, "case.json"), "w") as f:
        json.dump(case, f)
    write_f32_error(out, a.arch, ids, att)
    ent = -(att * np.log(np.clip(att, 1e-300, None))).sum(-1).mean()
    print(f"{a.arch} seed={a.seed} -> {out}: attentions {att.shape}, ids={ids}, mean row entropy={ent:.3f}, "
          f"max={att.max():.4f}")


if __name__ == "__main__":
    main()
