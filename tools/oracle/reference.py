#!/usr/bin/python3
"""A transformers-free float64 reference for every model family AttnScope runs.

Reads a Hugging Face folder (config.json + model.safetensors) and computes, with plain numpy, the attention
probabilities of every layer and head and the hidden states as transformers returns them
(output_hidden_states: the input of every layer, then the last layer's output after the final norm for
decoders; the embeddings and every layer's output for encoders).

Written from the published formulas and from reading transformers' modeling files (llama, mistral, qwen2,
qwen3, gemma, gemma2, gemma3, phi3, smollm3, phi, gpt_neox, bert, roberta, xlm_roberta, distilbert, gpt2) and
modeling_rope_utils.py; no code is taken from them. Where transformers computes something in float32 even
in a float64 model (the RoPE inverse frequencies, angles, cos and sin), this does the same, so that a
float64 model in transformers and this reference agree to ~1e-12.

run(..., dtype=np.float32) computes the same forward pass with every array in float32 (numpy's float32
products, sums and exp): the "upstream float32" of the families transformers 4.36 predates, against which
AttnScope's own float32 error is judged (tests/data/oracle/README.md, upstream_f32_error.json).

    usage: reference.py FOLDER --ids 1,5,7 [--out DIR] [--float32]    (writes attentions.npy, hidden.npy)
           or import it: attentions, hidden = reference.run(folder, ids)
"""
import argparse
import json
import math
import os
import struct

import numpy as np

# The dtype every array is computed in: float64 (the reference) or float32 (run(..., dtype=np.float32)).
# The RoPE tables are float32 either way, as transformers makes them.
COMPUTE = np.float64

# ----------------------------------------------------------------------------------------------------------------
# Files


def load_safetensors(path, dtype=np.float64):
    buf = open(path, "rb").read()
    (n,) = struct.unpack("<Q", buf[:8])
    header = json.loads(buf[8:8 + n])
    header.pop("__metadata__", None)
    base = 8 + n
    tensors = {}
    for name, info in header.items():
        begin, end = info["data_offsets"]
        raw = buf[base + begin:base + end]
        if info["dtype"] == "BF16":
            values = (np.frombuffer(raw, "<u2").astype(np.uint32) << 16).view(np.float32)
        else:
            values = np.frombuffer(raw, {"F32": "<f4", "F16": "<f2", "F64": "<f8"}[info["dtype"]])
        tensors[name] = values.astype(dtype).reshape(info["shape"])
    return tensors


class Weights:
    """Tensors by name, the model prefix ("model.", "bert.", ...) removed when every name has it."""

    def __init__(self, tensors, prefixes):
        self.tensors = tensors
        self.prefix = ""
        for p in prefixes:
            if any(k.startswith(p) for k in tensors):
                self.prefix = p
                break

    def __call__(self, name):
        return self.tensors[self.prefix + name]

    def get(self, name):
        return self.tensors.get(self.prefix + name)

    def has(self, name):
        return self.prefix + name in self.tensors

    def top(self, name):  # names outside the base model (lm_head.weight)
        return self.tensors.get(name)


# ----------------------------------------------------------------------------------------------------------------
# Building blocks (x is [n, width], one row per token)


def softmax(s):
    s = s - s.max(-1, keepdims=True)
    e = np.exp(s)
    return e / e.sum(-1, keepdims=True)


def layer_norm(x, gamma, beta, eps):
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    out = (x - mean) / np.sqrt(var + eps) * gamma
    return out + beta if beta is not None else out


def rms_norm(x, gamma, eps, plus_one=False):
    """Llama: x / rms · w.  Gemma: x / rms · (1 + w)."""
    return x / np.sqrt((x ** 2).mean(-1, keepdims=True) + eps) * ((1.0 + gamma) if plus_one else gamma)


def gelu_erf(x):
    return 0.5 * x * (1 + np.vectorize(math.erf, otypes=[x.dtype])(x / math.sqrt(2)))


def gelu_tanh(x):
    return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))


def silu(x):
    return x / (1 + np.exp(-x))


ACTIVATIONS = {"gelu": gelu_erf, "gelu_new": gelu_tanh, "gelu_pytorch_tanh": gelu_tanh, "gelu_fast": gelu_tanh,
               "silu": silu, "swish": silu, "relu": lambda x: np.maximum(x, 0)}


def linear(x, w, b=None):
    """nn.Linear: w is [out, in]."""
    y = x @ w.T
    return y + b if b is not None else y


def conv1d(x, w, b):
    """GPT-2's Conv1D: w is [in, out]."""
    return x @ w + b


def f32(x):
    return np.asarray(x, dtype=np.float32)


# ----------------------------------------------------------------------------------------------------------------
# Rotary position embedding and its scalings (modeling_rope_utils.py)


class Rope:
    """theta, the rotary dimension and rope_scaling of one layer kind."""

    def __init__(self, theta, rotary_dim, scaling=None, max_positions=None, original_max_positions=None):
        self.theta = float(theta)
        self.dim = rotary_dim
        self.scaling = scaling or {}
        self.max_positions = max_positions
        self.original_max_positions = original_max_positions  # Phi-3's top-level field (longrope)

    def kind(self):
        return self.scaling.get("rope_type", self.scaling.get("type", "default"))

    def base_exponents(self):
        return np.arange(0, self.dim, 2, dtype=np.float64) / self.dim  # 2p / r

    def inverse_frequencies(self, seq_len):
        """(inv_freq as float32, attention factor): what transformers' rope init function returns."""
        s, kind, d = self.scaling, self.kind(), self.dim
        default = 1.0 / self.theta ** self.base_exponents()
        if kind == "default":
            return f32(default), 1.0
        if kind == "linear":
            return f32(f32(default) / s["factor"]), 1.0
        if kind == "dynamic":
            # NTK-aware: theta grows once the sequence is longer than max_position_embeddings.
            factor, m = s["factor"], self.max_positions
            seq = max(seq_len, m)
            base = self.theta * ((factor * seq / m) - (factor - 1)) ** (d / (d - 2))
            return f32(1.0 / base ** self.base_exponents()), 1.0
        if kind == "llama3":
            factor, low, high = s["factor"], s["low_freq_factor"], s["high_freq_factor"]
            old = s["original_max_position_embeddings"]
            inv = f32(default).astype(np.float64)
            wavelen = 2 * math.pi / inv
            low_wavelen, high_wavelen = old / low, old / high
            scaled = np.where(wavelen > low_wavelen, inv / factor, inv)   # long wavelengths: interpolate fully
            smooth = (old / wavelen - low) / (high - low)
            smoothed = (1 - smooth) * scaled / factor + smooth * scaled
            medium = (wavelen >= high_wavelen) & (wavelen <= low_wavelen)  # in between: blend
            return f32(np.where(medium, smoothed, scaled)), 1.0
        if kind == "yarn":
            original = s.get("original_max_position_embeddings") or self.max_positions
            factor = s.get("factor")
            if factor is None:
                factor = self.max_positions / original

            def mscale(scale, m=1.0):
                return 1.0 if scale <= 1 else 0.1 * m * math.log(scale) + 1.0

            attention = s.get("attention_factor")
            if attention is None:
                if s.get("mscale") and s.get("mscale_all_dim"):
                    attention = mscale(factor, s["mscale"]) / mscale(factor, s["mscale_all_dim"])
                else:
                    attention = mscale(factor)
            beta_fast, beta_slow = s.get("beta_fast") or 32, s.get("beta_slow") or 1

            def correction_dim(rotations):  # the dimension whose wavelength makes `rotations` turns in `original`
                return d * math.log(original / (rotations * 2 * math.pi)) / (2 * math.log(self.theta))

            lo, hi = correction_dim(beta_fast), correction_dim(beta_slow)
            if s.get("truncate", True):
                lo, hi = math.floor(lo), math.ceil(hi)
            lo, hi = max(lo, 0), min(hi, d - 1)
            if lo == hi:
                hi += 0.001
            ramp = np.clip((np.arange(d // 2, dtype=np.float64) - lo) / (hi - lo), 0, 1)
            extrapolation = 1 - ramp  # 1: keep the original frequency, 0: divide it by factor
            pos_freqs = f32(self.theta ** self.base_exponents()).astype(np.float64)
            inv = (1 / (factor * pos_freqs)) * (1 - extrapolation) + (1 / pos_freqs) * extrapolation
            return f32(inv), attention
        if kind == "longrope":
            original = s.get("original_max_position_embeddings") or self.original_max_positions
            factor = s.get("factor")
            if factor is None:
                factor = self.max_positions / original
            attention = s.get("attention_factor")
            if attention is None:
                attention = 1.0 if factor <= 1 else math.sqrt(1 + math.log(factor) / math.log(original))
            ext = np.array(s["long_factor"] if seq_len > original else s["short_factor"], dtype=np.float64)
            return f32(1.0 / (f32(ext).astype(np.float64) * self.theta ** self.base_exponents())), attention
        raise ValueError(f"rope_scaling type {kind!r}")

    def cos_sin(self, positions):
        """cos and sin [n, dim/2] in float32 (angles position · inv_freq in float32), times the attention factor."""
        inv, attention = self.inverse_frequencies(int(max(positions)) + 1)
        angles = f32(np.asarray(positions, np.float32)[:, None] * inv[None, :])
        cos = f32(np.cos(angles.astype(np.float64)))
        sin = f32(np.sin(angles.astype(np.float64)))
        return (f32(cos * np.float32(attention)).astype(COMPUTE), f32(sin * np.float32(attention)).astype(COMPUTE))

    def rotate(self, x, positions):
        """x [n, heads, head_dim]: NeoX / Llama rotate-half on the first `dim` components, the rest untouched."""
        cos, sin = self.cos_sin(positions)
        half = self.dim // 2
        a, b = x[..., :half], x[..., half:self.dim]
        c, s_ = cos[:, None, :], sin[:, None, :]
        out = x.copy()
        out[..., :half] = a * c - b * s_
        out[..., half:self.dim] = b * c + a * s_
        return out


def rope_from(cfg, head_dim, theta_key="rope_theta", default_theta=10000.0, partial=None, scaling="from_cfg"):
    partial = cfg.get("partial_rotary_factor", 1.0) if partial is None else partial
    return Rope(cfg.get(theta_key, default_theta), int(head_dim * partial),
                cfg.get("rope_scaling") if scaling == "from_cfg" else scaling,
                cfg.get("max_position_embeddings"), cfg.get("original_max_position_embeddings"))


# ----------------------------------------------------------------------------------------------------------------
# Attention


def attend(q, k, v, scale, causal, window=None, softcap=None):
    """q [n, H, d], k and v [n, H_kv, d] -> P [H, n, n], O [n, H·d].

    S = q·kᵀ · scale; soft-capping S = c · tanh(S / c) before the mask; key j is visible to query i when
    j <= i (causal) and i − j < window (sliding window)."""
    n, heads, d = q.shape
    group = heads // k.shape[1]
    i = np.arange(n)[:, None]
    j = np.arange(n)[None, :]
    visible = np.ones((n, n), bool)
    if causal:
        visible &= j <= i
    if window:
        visible &= (i - j) < window
    probabilities, outputs = [], []
    for h in range(heads):
        s = (q[:, h, :] @ k[:, h // group, :].T) * scale
        if softcap:
            s = softcap * np.tanh(s / softcap)
        p = softmax(np.where(visible, s, -np.inf))
        probabilities.append(p)
        outputs.append(p @ v[:, h // group, :])
    return np.stack(probabilities), np.concatenate(outputs, -1)


def heads(x, count):
    return x.reshape(x.shape[0], count, -1)


# ----------------------------------------------------------------------------------------------------------------
# Decoders with RMSNorm, RoPE and a gated MLP: llama, mistral, qwen2, qwen3, gemma, gemma2, gemma3_text, phi3,
# smollm3 (its NoPE layers skip RoPE)


def gemma3_layer_kinds(cfg):
    if cfg.get("layer_types"):
        return list(cfg["layer_types"])
    pattern = cfg.get("sliding_window_pattern", 6)
    return ["sliding_attention" if (i + 1) % pattern else "full_attention" for i in range(cfg["num_hidden_layers"])]


def gated_decoder(cfg, tensors, ids, positions=None):
    t = cfg["model_type"]
    w = Weights(tensors, ["model."])
    H, hidden = cfg["num_attention_heads"], cfg["hidden_size"]
    KV = cfg.get("num_key_value_heads") or H
    d = cfg.get("head_dim") or hidden // H
    L = cfg["num_hidden_layers"]
    eps = cfg.get("rms_norm_eps", 1e-6)
    gemma = t in ("gemma", "gemma2", "gemma3_text")
    n = len(ids)
    positions = np.arange(n) if positions is None else np.asarray(positions)

    norm = lambda x, name: rms_norm(x, w(name), eps, plus_one=gemma)
    if gemma:
        act = ACTIVATIONS[cfg.get("hidden_activation") or "gelu_pytorch_tanh"]
    else:
        act = ACTIVATIONS[cfg.get("hidden_act", "silu")]
    qkv_bias = t == "qwen2" or cfg.get("attention_bias", False)
    o_bias = cfg.get("attention_bias", False) and t != "qwen2"

    # Per layer: its RoPE, sliding window and soft cap.
    rope = rope_from(cfg, d)
    ropes, windows = [rope] * L, [None] * L
    softcap = cfg.get("attn_logit_softcapping") if t in ("gemma2", "gemma3_text") else None
    scale = d ** -0.5
    if t in ("gemma2", "gemma3_text"):
        scale = cfg["query_pre_attn_scalar"] ** -0.5
    if t == "gemma2":
        windows = [cfg.get("sliding_window") if l % 2 == 0 else None for l in range(L)]
    elif t == "gemma3_text":
        local = Rope(cfg.get("rope_local_base_freq", 10000.0), d)  # local layers: plain RoPE, their own base
        kinds = gemma3_layer_kinds(cfg)
        ropes = [local if k == "sliding_attention" else rope for k in kinds]
        windows = [cfg.get("sliding_window") if k == "sliding_attention" else None for k in kinds]
    elif t in ("mistral", "phi3"):
        windows = [cfg.get("sliding_window")] * L
    elif t in ("qwen2", "qwen3") and cfg.get("use_sliding_window"):
        first = cfg.get("max_window_layers", L)
        windows = [cfg.get("sliding_window") if l >= first else None for l in range(L)]
    elif t == "smollm3":
        # no_rope_layers: 1 = RoPE, 0 = NoPE (modeling_smollm3.py: use_rope = config.no_rope_layers[layer_idx]).
        flags = cfg.get("no_rope_layers") or [int((l + 1) % cfg.get("no_rope_layer_interval", 4) != 0)
                                              for l in range(L)]
        ropes = [rope if flags[l] else None for l in range(L)]
        if cfg.get("use_sliding_window") and cfg.get("sliding_window"):
            kinds = cfg.get("layer_types") or ["full_attention" if f else "sliding_attention" for f in flags[:L]]
            windows = [cfg["sliding_window"] if k == "sliding_attention" else None for k in kinds]

    x = w("embed_tokens.weight")[ids]
    if gemma:
        x = x * np.float32(math.sqrt(hidden))  # the normalizer in the model's dtype (float32 here)
    hidden_states, attentions = [], []
    for l in range(L):
        p = f"layers.{l}."
        hidden_states.append(x)
        h = norm(x, p + "input_layernorm.weight")
        if t == "phi3":
            qkv = linear(h, w(p + "self_attn.qkv_proj.weight"))
            q, k, v = np.split(qkv, [H * d, H * d + KV * d], -1)
        else:
            bias = (lambda name: w(p + name)) if qkv_bias else (lambda name: None)
            q = linear(h, w(p + "self_attn.q_proj.weight"), bias("self_attn.q_proj.bias"))
            k = linear(h, w(p + "self_attn.k_proj.weight"), bias("self_attn.k_proj.bias"))
            v = linear(h, w(p + "self_attn.v_proj.weight"), bias("self_attn.v_proj.bias"))
        q, k, v = heads(q, H), heads(k, KV), heads(v, KV)
        if t in ("qwen3", "gemma3_text"):  # QK-norm over each head vector, before RoPE
            q = rms_norm(q, w(p + "self_attn.q_norm.weight"), eps, plus_one=gemma)
            k = rms_norm(k, w(p + "self_attn.k_norm.weight"), eps, plus_one=gemma)
        if ropes[l] is not None:
            q, k = ropes[l].rotate(q, positions), ropes[l].rotate(k, positions)
        probabilities, o = attend(q, k, v, scale, True, windows[l], softcap)
        attentions.append(probabilities)
        a = linear(o, w(p + "self_attn.o_proj.weight"), w(p + "self_attn.o_proj.bias") if o_bias else None)
        if t in ("gemma2", "gemma3_text"):
            x = x + norm(a, p + "post_attention_layernorm.weight")
            h = norm(x, p + "pre_feedforward_layernorm.weight")
        else:
            x = x + a
            h = norm(x, p + "post_attention_layernorm.weight")
        if t == "phi3":
            gate, up = np.split(linear(h, w(p + "mlp.gate_up_proj.weight")), 2, -1)
        else:
            mlp_bias = (lambda name: w(p + name)) if cfg.get("mlp_bias") else (lambda name: None)
            gate = linear(h, w(p + "mlp.gate_proj.weight"), mlp_bias("mlp.gate_proj.bias"))
            up = linear(h, w(p + "mlp.up_proj.weight"), mlp_bias("mlp.up_proj.bias"))
        m = linear(act(gate) * up, w(p + "mlp.down_proj.weight"),
                   w(p + "mlp.down_proj.bias") if cfg.get("mlp_bias") else None)
        if t in ("gemma2", "gemma3_text"):
            m = norm(m, p + "post_feedforward_layernorm.weight")
        x = x + m
    hidden_states.append(norm(x, "norm.weight"))
    return np.stack(attentions), np.stack(hidden_states)


# ----------------------------------------------------------------------------------------------------------------
# Other decoders


def gpt_neox(cfg, tensors, ids, positions=None):
    w = Weights(tensors, ["gpt_neox."])
    H, hidden = cfg["num_attention_heads"], cfg["hidden_size"]
    d = hidden // H
    eps = cfg.get("layer_norm_eps", 1e-5)
    n = len(ids)
    positions = np.arange(n) if positions is None else np.asarray(positions)
    partial = cfg.get("partial_rotary_factor", cfg.get("rotary_pct", 0.25))
    theta = cfg.get("rope_theta", cfg.get("rotary_emb_base", 10000.0))
    rope = Rope(theta, int(d * partial), cfg.get("rope_scaling"), cfg.get("max_position_embeddings"))
    act = ACTIVATIONS[cfg.get("hidden_act", "gelu")]
    bias = cfg.get("attention_bias", True)
    x = w("embed_in.weight")[ids]
    hidden_states, attentions = [], []
    for l in range(cfg["num_hidden_layers"]):
        p = f"layers.{l}."
        hidden_states.append(x)
        ln = lambda t, name: layer_norm(t, w(p + name + ".weight"), w(p + name + ".bias"), eps)
        qkv = linear(ln(x, "input_layernorm"), w(p + "attention.query_key_value.weight"),
                     w(p + "attention.query_key_value.bias") if bias else None)
        qkv = qkv.reshape(n, H, 3 * d)  # head-interleaved: per head its q, k and v
        q, k, v = qkv[..., :d], qkv[..., d:2 * d], qkv[..., 2 * d:]
        q, k = rope.rotate(q, positions), rope.rotate(k, positions)
        probabilities, o = attend(q, k, v, d ** -0.5, True)
        attentions.append(probabilities)
        a = linear(o, w(p + "attention.dense.weight"), w(p + "attention.dense.bias") if bias else None)
        mlp = lambda t: linear(act(linear(t, w(p + "mlp.dense_h_to_4h.weight"), w(p + "mlp.dense_h_to_4h.bias"))),
                               w(p + "mlp.dense_4h_to_h.weight"), w(p + "mlp.dense_4h_to_h.bias"))
        if cfg.get("use_parallel_residual", True):
            x = x + a + mlp(ln(x, "post_attention_layernorm"))
        else:
            x = x + a
            x = x + mlp(ln(x, "post_attention_layernorm"))
    hidden_states.append(layer_norm(x, w("final_layer_norm.weight"), w("final_layer_norm.bias"), eps))
    return np.stack(attentions), np.stack(hidden_states)


def phi(cfg, tensors, ids, positions=None):
    """Phi-1/1.5/2: one LayerNorm, attention and MLP side by side, partial rotary."""
    w = Weights(tensors, ["model."])
    H, hidden = cfg["num_attention_heads"], cfg["hidden_size"]
    KV = cfg.get("num_key_value_heads") or H
    d = hidden // H
    eps = cfg.get("layer_norm_eps", 1e-5)
    n = len(ids)
    positions = np.arange(n) if positions is None else np.asarray(positions)
    rope = rope_from(cfg, d, partial=cfg.get("partial_rotary_factor", 0.5))
    act = ACTIVATIONS[cfg.get("hidden_act", "gelu_new")]
    x = w("embed_tokens.weight")[ids]
    hidden_states, attentions = [], []
    for l in range(cfg["num_hidden_layers"]):
        p = f"layers.{l}."
        hidden_states.append(x)
        h = layer_norm(x, w(p + "input_layernorm.weight"), w(p + "input_layernorm.bias"), eps)
        proj = lambda name: linear(h, w(p + f"self_attn.{name}.weight"), w(p + f"self_attn.{name}.bias"))
        if w.has(p + "self_attn.query_key_value.weight"):
            # transformers 4.36.dev's layout: one fused projection, per head its q, k and v (as GPT-NeoX)
            qkv = proj("query_key_value").reshape(n, H, 3 * d)
            q, k, v = qkv[..., :d], qkv[..., d:2 * d], qkv[..., 2 * d:]
        else:  # the released layout (microsoft/phi-2 on the hub)
            q, k, v = heads(proj("q_proj"), H), heads(proj("k_proj"), KV), heads(proj("v_proj"), KV)
        if cfg.get("qk_layernorm"):
            q = layer_norm(q, w(p + "self_attn.q_layernorm.weight"), w(p + "self_attn.q_layernorm.bias"), eps)
            k = layer_norm(k, w(p + "self_attn.k_layernorm.weight"), w(p + "self_attn.k_layernorm.bias"), eps)
        q, k = rope.rotate(q, positions), rope.rotate(k, positions)
        probabilities, o = attend(q, k, v, d ** -0.5, True)
        attentions.append(probabilities)
        a = linear(o, w(p + "self_attn.dense.weight"), w(p + "self_attn.dense.bias"))
        m = linear(act(linear(h, w(p + "mlp.fc1.weight"), w(p + "mlp.fc1.bias"))), w(p + "mlp.fc2.weight"),
                   w(p + "mlp.fc2.bias"))
        x = x + a + m
    hidden_states.append(layer_norm(x, w("final_layernorm.weight"), w("final_layernorm.bias"), eps))
    return np.stack(attentions), np.stack(hidden_states)


def gpt2(cfg, tensors, ids, positions=None):
    w = Weights(tensors, ["transformer."])
    H, hidden = cfg["n_head"], cfg["n_embd"]
    d = hidden // H
    eps = cfg.get("layer_norm_epsilon", 1e-5)
    n = len(ids)
    positions = np.arange(n) if positions is None else np.asarray(positions)
    x = w("wte.weight")[ids] + w("wpe.weight")[positions]
    hidden_states, attentions = [], []
    for l in range(cfg["n_layer"]):
        p = f"h.{l}."
        hidden_states.append(x)
        h = layer_norm(x, w(p + "ln_1.weight"), w(p + "ln_1.bias"), eps)
        q, k, v = np.split(conv1d(h, w(p + "attn.c_attn.weight"), w(p + "attn.c_attn.bias")), 3, -1)
        probabilities, o = attend(heads(q, H), heads(k, H), heads(v, H), d ** -0.5, True)
        attentions.append(probabilities)
        x = x + conv1d(o, w(p + "attn.c_proj.weight"), w(p + "attn.c_proj.bias"))
        h = layer_norm(x, w(p + "ln_2.weight"), w(p + "ln_2.bias"), eps)
        x = x + conv1d(gelu_tanh(conv1d(h, w(p + "mlp.c_fc.weight"), w(p + "mlp.c_fc.bias"))),
                       w(p + "mlp.c_proj.weight"), w(p + "mlp.c_proj.bias"))
    hidden_states.append(layer_norm(x, w("ln_f.weight"), w("ln_f.bias"), eps))
    return np.stack(attentions), np.stack(hidden_states)


# ----------------------------------------------------------------------------------------------------------------
# Encoders


def roberta_positions(ids, pad):
    """RoBERTa/XLM-R: pad + 1, pad + 2, ... over the non-padding tokens; padding tokens sit at `pad`."""
    mask = (np.asarray(ids) != pad).astype(int)
    return np.cumsum(mask) * mask + pad


def bert(cfg, tensors, ids, positions=None, type_ids=None):
    t = cfg["model_type"]
    roberta = t in ("roberta", "xlm-roberta")
    w = Weights(tensors, ["roberta.", "bert."])
    H, hidden = cfg["num_attention_heads"], cfg["hidden_size"]
    d = hidden // H
    eps = cfg.get("layer_norm_eps", 1e-12)
    act = ACTIVATIONS[cfg.get("hidden_act", "gelu")]
    n = len(ids)
    if positions is None:
        positions = roberta_positions(ids, cfg.get("pad_token_id", 1)) if roberta else np.arange(n)
    type_ids = np.zeros(n, int) if type_ids is None else np.asarray(type_ids)
    e = "embeddings."
    x = w(e + "word_embeddings.weight")[ids] + w(e + "position_embeddings.weight")[positions] \
        + w(e + "token_type_embeddings.weight")[type_ids]
    x = layer_norm(x, w(e + "LayerNorm.weight"), w(e + "LayerNorm.bias"), eps)
    hidden_states, attentions = [x], []
    lin = lambda t_, name: linear(t_, w(name + ".weight"), w(name + ".bias"))
    for l in range(cfg["num_hidden_layers"]):
        p = f"encoder.layer.{l}."
        q, k, v = (heads(lin(x, p + "attention.self." + m), H) for m in ("query", "key", "value"))
        probabilities, o = attend(q, k, v, d ** -0.5, False)
        attentions.append(probabilities)
        x = layer_norm(lin(o, p + "attention.output.dense") + x, w(p + "attention.output.LayerNorm.weight"),
                       w(p + "attention.output.LayerNorm.bias"), eps)
        m = lin(act(lin(x, p + "intermediate.dense")), p + "output.dense")
        x = layer_norm(m + x, w(p + "output.LayerNorm.weight"), w(p + "output.LayerNorm.bias"), eps)
        hidden_states.append(x)
    return np.stack(attentions), np.stack(hidden_states)


def sinusoidal_positions(count, dim):
    """DistilBERT's sinusoidal_pos_embds: sin on even columns, cos on odd, angle pos / 10000^(2·(j//2)/dim)."""
    j = np.arange(dim)
    angles = np.arange(count)[:, None] / np.power(10000, 2 * (j // 2) / dim)[None, :]
    out = np.zeros((count, dim))
    out[:, 0::2] = np.sin(angles[:, 0::2])
    out[:, 1::2] = np.cos(angles[:, 1::2])
    return out.astype(COMPUTE)


def distilbert(cfg, tensors, ids, positions=None):
    w = Weights(tensors, ["distilbert."])
    H, hidden = cfg["n_heads"], cfg["dim"]
    d = hidden // H
    eps = 1e-12
    act = ACTIVATIONS[cfg.get("activation", "gelu")]
    n = len(ids)
    positions = np.arange(n) if positions is None else np.asarray(positions)
    e = "embeddings."
    table = w.get(e + "position_embeddings.weight")
    if table is None:
        table = sinusoidal_positions(cfg["max_position_embeddings"], hidden)
    x = layer_norm(w(e + "word_embeddings.weight")[ids] + table[positions], w(e + "LayerNorm.weight"),
                   w(e + "LayerNorm.bias"), eps)
    hidden_states, attentions = [x], []
    lin = lambda t_, name: linear(t_, w(name + ".weight"), w(name + ".bias"))
    for l in range(cfg["n_layers"]):
        p = f"transformer.layer.{l}."
        q, k, v = (heads(lin(x, p + "attention." + m), H) for m in ("q_lin", "k_lin", "v_lin"))
        probabilities, o = attend(q, k, v, d ** -0.5, False)
        attentions.append(probabilities)
        x = layer_norm(lin(o, p + "attention.out_lin") + x, w(p + "sa_layer_norm.weight"),
                       w(p + "sa_layer_norm.bias"), eps)
        m = lin(act(lin(x, p + "ffn.lin1")), p + "ffn.lin2")
        x = layer_norm(m + x, w(p + "output_layer_norm.weight"), w(p + "output_layer_norm.bias"), eps)
        hidden_states.append(x)
    return np.stack(attentions), np.stack(hidden_states)


FAMILIES = {
    "llama": gated_decoder, "mistral": gated_decoder, "qwen2": gated_decoder, "qwen3": gated_decoder,
    "gemma": gated_decoder, "gemma2": gated_decoder, "gemma3_text": gated_decoder, "phi3": gated_decoder,
    "smollm3": gated_decoder,
    "gpt_neox": gpt_neox, "phi": phi, "gpt2": gpt2,
    "bert": bert, "roberta": bert, "xlm-roberta": bert, "distilbert": distilbert,
}


def run(folder, ids, positions=None, dtype=np.float64):
    """(attentions, hidden) computed in `dtype` (float64: the reference; float32: its float32 twin)."""
    global COMPUTE
    cfg = json.load(open(os.path.join(folder, "config.json")))
    tensors = load_safetensors(os.path.join(folder, "model.safetensors"), dtype)
    COMPUTE = dtype
    try:
        attentions, hidden = FAMILIES[cfg["model_type"]](cfg, tensors, list(ids), positions)
    finally:
        COMPUTE = np.float64
    # Nothing may have been promoted on the way (a float64 constant would make the float32 run a float64 one).
    assert attentions.dtype == dtype and hidden.dtype == dtype, (attentions.dtype, hidden.dtype)
    return attentions, hidden


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("folder")
    ap.add_argument("--ids", required=True, help="comma separated token ids")
    ap.add_argument("--out", help="write attentions.npy and hidden.npy here")
    ap.add_argument("--float32", action="store_true", help="compute in float32 instead of float64")
    a = ap.parse_args()
    att, hid = run(a.folder, [int(i) for i in a.ids.split(",")], dtype=np.float32 if a.float32 else np.float64)
    print(f"attentions {att.shape}, hidden {hid.shape}")
    if a.out:
        np.save(os.path.join(a.out, "attentions.npy"), att)
        np.save(os.path.join(a.out, "hidden.npy"), hid)


if __name__ == "__main__":
    main()
