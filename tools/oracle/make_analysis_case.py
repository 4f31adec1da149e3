#!/usr/bin/python3
"""Float64 references for issue 14 (value norms and head ablation) from upstream `transformers`.

A companion of make_case.py (same kit, same transformers 4.36 source): it reloads an existing oracle case folder
(config.json + model.safetensors) with from_pretrained in float64 and writes analysis.json beside nothing else:

  value_norms     [layers][heads][n][n]  ||alpha_ij f_h(x_j)||, f_h(x) = (x W_V + b_V) W_O[:, head h slice]^T
                  (Kobayashi et al. 2020). The value vectors are taken from the model's own value projection
                  by a forward hook (BERT: attention.self.value, GPT-2: the v third of attn.c_attn, Llama:
                  self_attn.v_proj; GQA: query head h reads kv head h // (H / H_kv)); W_O is the module's
                  own output projection; alpha is transformers' output_attentions.
  ablations       per ablated set of heads and mode: the reference's probabilities at the scored positions
                  (every [MASK] for encoders, the last position for decoders) with and without the ablation:
                  kl = sum over positions of KL(p_orig || p_abl), top_prob_delta per position
                  (p_abl[top_orig] - p_orig[top_orig]), and the ablated top-5 (id, probability).
                  zero: BERT and GPT-2 through transformers' own head_mask argument; Llama through a forward
                  pre-hook on self_attn.o_proj that zeroes the head's slice of its input (the attention output
                  before o_proj). mean: the same pre-hook (BERT: attention.output.dense, GPT-2: attn.c_proj)
                  replacing the head's slice by its mean over positions.

Usage: cd /work/oracle && . ./env.sh && $PY tools/oracle/make_analysis_case.py tests/data/oracle/bert_s0 \
          [--ids 2,16,4,...]
"""
import argparse
import json
import os
import sys

import numpy as np
import torch

from transformers import BertForMaskedLM, GPT2LMHeadModel, LlamaForCausalLM

torch.set_default_dtype(torch.float64)

ABLATION_SETS = [
    ("zero", [(0, 1)]),
    ("zero", [(1, 2)]),
    ("zero", [(0, 0), (1, 3)]),
    ("zero", [(1, 0), (1, 1), (1, 2), (1, 3)]),
    ("mean", [(0, 1)]),
    ("mean", [(1, 2)]),
    ("mean", [(0, 0), (1, 3)]),
]


def load(folder):
    config = json.load(open(os.path.join(folder, "config.json")))
    kind = config["model_type"]
    cls = {"bert": BertForMaskedLM, "gpt2": GPT2LMHeadModel, "llama": LlamaForCausalLM}[kind]
    kwargs = {"torch_dtype": torch.float64}
    if "attn_implementation" in cls.from_pretrained.__code__.co_varnames:
        kwargs["attn_implementation"] = "eager"
    model = cls.from_pretrained(folder, **kwargs).double().eval()
    return kind, model


def layers_of(kind, model):
    if kind == "bert":
        return model.bert.encoder.layer
    if kind == "gpt2":
        return model.transformer.h
    return model.model.layers


def shape(kind, model):
    c = model.config
    if kind == "gpt2":
        return c.n_layer, c.n_head, c.n_head, c.n_embd // c.n_head, c.n_embd
    kv = getattr(c, "num_key_value_heads", None) or c.num_attention_heads
    return c.num_hidden_layers, c.num_attention_heads, kv, c.hidden_size // c.num_attention_heads, c.hidden_size


def output_projection(kind, layer):
    """W_O as [hidden_out, heads*d_in] and the module whose input is the concatenated head outputs."""
    if kind == "bert":
        m = layer.attention.output.dense
        return m.weight.detach(), m
    if kind == "gpt2":
        m = layer.attn.c_proj  # Conv1D: weight [in, out]
        return m.weight.detach().T, m
    m = layer.self_attn.o_proj
    return m.weight.detach(), m


def value_norms(kind, model, ids):
    L, H, Hkv, d, hidden = shape(kind, model)
    values = {}
    hooks = []
    for l, layer in enumerate(layers_of(kind, model)):
        if kind == "bert":
            mod = layer.attention.self.value
            hooks.append(mod.register_forward_hook(lambda m, i, o, l=l: values.__setitem__(l, o[0].detach())))
        elif kind == "gpt2":
            mod = layer.attn.c_attn
            hooks.append(mod.register_forward_hook(
                lambda m, i, o, l=l: values.__setitem__(l, o[0, :, 2 * hidden:].detach())))
        else:
            mod = layer.self_attn.v_proj
            hooks.append(mod.register_forward_hook(lambda m, i, o, l=l: values.__setitem__(l, o[0].detach())))
    with torch.no_grad():
        out = model(torch.tensor([ids]), output_attentions=True)
    for h in hooks:
        h.remove()
    n = len(ids)
    result = np.zeros((L, H, n, n))
    for l, layer in enumerate(layers_of(kind, model)):
        w_o, _ = output_projection(kind, layer)
        v = values[l].reshape(n, Hkv, d)
        alpha = out.attentions[l][0]  # [H, n, n]
        for h in range(H):
            kv = h // (H // Hkv)
            f = v[:, kv, :] @ w_o[:, h * d:(h + 1) * d].T  # [n, hidden]
            norms = torch.linalg.norm(f, dim=1)  # [n]
            result[l, h] = (alpha[h] * norms[None, :]).numpy()
    return result


def scored_positions(kind, model, ids):
    if kind == "bert":
        mask = 4  # [MASK] in the kit's tiny vocabulary
        return [i for i, t in enumerate(ids) if t == mask]
    return [len(ids) - 1]


def probabilities(kind, model, ids, head_mask=None, hooks=()):
    handles = [module.register_forward_pre_hook(fn) for module, fn in hooks]
    with torch.no_grad():
        kwargs = {"head_mask": head_mask} if head_mask is not None else {}
        logits = model(torch.tensor([ids]), **kwargs).logits[0]
    for h in handles:
        h.remove()
    return torch.softmax(logits, dim=-1)


def head_hook(heads, d, mode):
    def fn(module, args):
        x = args[0].clone()  # [1, n, H*d]
        for h in heads:
            sl = x[..., h * d:(h + 1) * d]
            if mode == "zero":
                x[..., h * d:(h + 1) * d] = 0
            else:
                x[..., h * d:(h + 1) * d] = sl.mean(dim=1, keepdim=True)
        return (x,) + tuple(args[1:])
    return fn


def ablate(kind, model, ids, mode, heads):
    L, H, Hkv, d, hidden = shape(kind, model)
    layers = layers_of(kind, model)
    if mode == "zero" and kind in ("bert", "gpt2"):
        mask = torch.ones(L, H)
        for l, h in heads:
            mask[l, h] = 0
        return probabilities(kind, model, ids, head_mask=mask)
    hooks = []
    for l in sorted({l for l, _ in heads}):
        _, module = output_projection(kind, layers[l])
        hooks.append((module, head_hook([h for ll, h in heads if ll == l], d, mode)))
    return probabilities(kind, model, ids, hooks=hooks)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("folder")
    ap.add_argument("--ids", help="input ids (default: the case's input_ids)")
    args = ap.parse_args()
    case = json.load(open(os.path.join(args.folder, "case.json")))
    ids = [int(x) for x in args.ids.split(",")] if args.ids else case["input_ids"]
    kind, model = load(args.folder)
    positions = scored_positions(kind, model, ids)
    assert positions, "the input has nothing to score"
    p0 = probabilities(kind, model, ids)
    ablations = []
    for mode, heads in ABLATION_SETS:
        p1 = ablate(kind, model, ids, mode, heads)
        kl = 0.0
        deltas, tops = [], []
        for pos in positions:
            a, b = p0[pos], p1[pos]
            kl += float(torch.sum(a * (torch.log(a) - torch.log(b))))
            top = int(torch.argmax(a))
            deltas.append(float(b[top] - a[top]))
            values, indices = torch.topk(b, 5)
            tops.append([[int(i), float(v)] for v, i in zip(values, indices)])
        ablations.append({"mode": mode, "heads": [[l, h] for l, h in heads], "kl": kl,
                          "top_prob_delta": deltas, "top": tops})
    original_top = []
    for pos in positions:
        values, indices = torch.topk(p0[pos], 5)
        original_top.append([[int(i), float(v)] for v, i in zip(values, indices)])
    out = {
        "made_by": "tools/oracle/make_analysis_case.py " + " ".join(sys.argv[1:]),
        "transformers": __import__("transformers").__version__,
        "input_ids": ids,
        "positions": positions,
        "top": original_top,
        "value_norms": value_norms(kind, model, ids).tolist(),
        "ablations": ablations,
    }
    with open(os.path.join(args.folder, "analysis.json"), "w") as f:
        json.dump(out, f, indent=None)
        f.write("\n")
    print(args.folder, "analysis.json:", len(ablations), "ablations, positions", positions)


if __name__ == "__main__":
    main()
