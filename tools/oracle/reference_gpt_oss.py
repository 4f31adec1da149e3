#!/usr/bin/python3
"""gpt-oss in float64 numpy, beside reference.py's families (importing this module adds "gpt_oss" to
reference.FAMILIES).

Written from reading transformers' modeling_gpt_oss.py (commit 6edf5b311854175ff83c59179b3360beca1ceffc) and
configuration_gpt_oss.py (commit 828a27fd326e49d4a1c4b08210bfd32c107facc9); no code is taken from them:
  - attention with a learned sink per head (self_attn.sinks): the softmax runs over [S + mask, sink] and the
    sink's column is dropped, so each row of P sums to less than 1; P · V uses that P;
  - layer_types: "sliding_attention" layers see the keys with i − j < sliding_window, the others all keys;
    by default even layers slide (layer 0, 2, ...);
  - q/k/v/o biases (attention_bias is always true); scale head_dim^-1/2;
  - RoPE as reference.Rope computes it, YaRN included (its attention factor multiplies cos and sin);
  - RMSNorm x / rms · w;
  - MoE: router logits = h · Wᵀ + b; the top num_experts_per_tok logits, softmaxed among themselves, weight
    their experts; expert e: gate_up = h · gate_up_proj[e] + gate_up_proj_bias[e] ([hidden, 2·I], gate and up
    interleaved: gate = columns 0, 2, ..., up = 1, 3, ...), gate clamped above at limit 7, up to [−7, 7],
    glu = gate · sigmoid(1.702 · gate), out = ((up + 1) · glu) · down_proj[e] + down_proj_bias[e].
"""
import numpy as np

import reference
from reference import Weights, heads, rms_norm, rope_from

# Products through reference.linear and reference.conv1d (looked up at each call): f32error.py replaces them
# to sum each product's inputs in other orders.

ALPHA, LIMIT = 1.702, 7.0


def layer_kinds(cfg):
    if cfg.get("layer_types"):
        return list(cfg["layer_types"])
    return ["sliding_attention" if (i + 1) % 2 else "full_attention" for i in range(cfg["num_hidden_layers"])]


def attend_with_sinks(q, k, v, scale, window, sinks):
    """q [n, H, d], k and v [n, H_kv, d], sinks [H] or None -> P [H, n, n] (rows sum to < 1), O [n, H·d]."""
    n, H, d = q.shape
    group = H // k.shape[1]
    i = np.arange(n)[:, None]
    j = np.arange(n)[None, :]
    visible = j <= i
    if window:
        visible &= (i - j) < window
    probabilities, outputs = [], []
    for h in range(H):
        s = np.where(visible, (q[:, h, :] @ k[:, h // group, :].T) * scale, -np.inf)
        if sinks is not None:
            s = np.concatenate([s, np.full((n, 1), sinks[h])], -1)
        e = np.exp(s - s.max(-1, keepdims=True))
        p = (e / e.sum(-1, keepdims=True))[:, :n]  # the sink's column dropped
        probabilities.append(p)
        outputs.append(p @ v[:, h // group, :])
    return np.stack(probabilities), np.concatenate(outputs, -1)


def moe(cfg, w, p, h):
    """The expert FFN of layer prefix p for h [n, hidden]."""
    top_k = cfg["num_experts_per_tok"]
    logits = reference.linear(h, w(p + "mlp.router.weight"), w(p + "mlp.router.bias"))
    out = np.zeros_like(h)
    gate_up_w, gate_up_b = w(p + "mlp.experts.gate_up_proj"), w(p + "mlp.experts.gate_up_proj_bias")
    down_w, down_b = w(p + "mlp.experts.down_proj"), w(p + "mlp.experts.down_proj_bias")
    for t in range(h.shape[0]):
        chosen = np.argsort(-logits[t], kind="stable")[:top_k]
        top = logits[t, chosen]
        weights = np.exp(top - top.max())
        weights = weights / weights.sum()
        for e, weight in zip(chosen, weights):
            gate_up = reference.conv1d(h[t:t + 1], gate_up_w[e], gate_up_b[e])[0]  # [in, out] weights
            gate = np.minimum(gate_up[0::2], LIMIT)
            up = np.clip(gate_up[1::2], -LIMIT, LIMIT)
            glu = gate / (1 + np.exp(-ALPHA * gate))
            out[t] += weight * reference.conv1d(((up + 1) * glu)[None, :], down_w[e], down_b[e])[0]
    return out


def gpt_oss(cfg, tensors, ids, positions=None, use_sinks=True):
    w = Weights(tensors, ["model."])
    H, hidden = cfg["num_attention_heads"], cfg["hidden_size"]
    KV = cfg.get("num_key_value_heads") or H
    d = cfg.get("head_dim") or hidden // H
    eps = cfg.get("rms_norm_eps", 1e-5)
    n = len(ids)
    positions = np.arange(n) if positions is None else np.asarray(positions)
    rope = rope_from(cfg, d, default_theta=150000.0)
    kinds = layer_kinds(cfg)

    x = w("embed_tokens.weight")[ids]
    hidden_states, attentions = [], []
    for l in range(cfg["num_hidden_layers"]):
        p = f"layers.{l}."
        hidden_states.append(x)
        h = rms_norm(x, w(p + "input_layernorm.weight"), eps)
        q = heads(reference.linear(h, w(p + "self_attn.q_proj.weight"), w(p + "self_attn.q_proj.bias")), H)
        k = heads(reference.linear(h, w(p + "self_attn.k_proj.weight"), w(p + "self_attn.k_proj.bias")), KV)
        v = heads(reference.linear(h, w(p + "self_attn.v_proj.weight"), w(p + "self_attn.v_proj.bias")), KV)
        q, k = rope.rotate(q, positions), rope.rotate(k, positions)
        window = cfg.get("sliding_window") if kinds[l] == "sliding_attention" else None
        sinks = w(p + "self_attn.sinks") if use_sinks else None
        probabilities, o = attend_with_sinks(q, k, v, d ** -0.5, window, sinks)
        attentions.append(probabilities)
        x = x + reference.linear(o, w(p + "self_attn.o_proj.weight"), w(p + "self_attn.o_proj.bias"))
        x = x + moe(cfg, w, p, rms_norm(x, w(p + "post_attention_layernorm.weight"), eps))
    hidden_states.append(rms_norm(x, w("norm.weight"), eps))
    return np.stack(attentions), np.stack(hidden_states)


reference.FAMILIES["gpt_oss"] = gpt_oss
