#!/usr/bin/python3
"""Tiny random models of the families the oracle kit's transformers (4.36) predates, with their float64
reference from reference.py: Llama 3 / YaRN RoPE scaling, Qwen2, Qwen3, Gemma 1/2/3, Phi-3.

Each case is a Hugging Face folder: config.json (the fields transformers' config class of that model type
writes, with the values of the preset), model.safetensors (F32 or BF16; the reference reads the stored,
rounded values back), attentions.npy [layers, heads, n, n] and hidden.npy [layers + 1, n, hidden] in float64,
case.json (input_ids, the preset, the command, and for every feature the preset exercises, how far the
attention moves when that feature is switched off: proof that the case can tell a wrong implementation).

    usage: make_numpy_case.py PRESET --out DIR        PRESET in the table below; --list prints them
"""
import argparse
import copy
import json
import os
import struct
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reference  # noqa: E402

# ----------------------------------------------------------------------------------------------------------------
# Presets: model type, config (over the family defaults below), storage dtype, seed, tokens; `ablate` lists
# config edits that switch one feature off, to show the attention depends on it.

LLAMA3 = {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
          "original_max_position_embeddings": 32}
YARN = {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 64}
LONGROPE_SHORT = [1.0, 1.1, 1.3, 1.6, 2.0, 2.5]
LONGROPE_LONG = [1.0, 1.5, 2.5, 4.0, 6.0, 9.0]

PRESETS = {
    "llama3_s0": ("llama", {"rope_scaling": LLAMA3}, "f32", 0, 16,
                  {"no rope_scaling": {"rope_scaling": None}}),
    "llama3_s1": ("llama", {"rope_scaling": LLAMA3, "num_key_value_heads": 1, "rope_theta": 50000.0}, "bf16", 1, 16,
                  {"no rope_scaling": {"rope_scaling": None}}),
    "yarn_s0": ("llama", {"rope_scaling": YARN}, "f32", 0, 14, {"no rope_scaling": {"rope_scaling": None}}),
    "yarn_s1": ("qwen3", {"rope_scaling": dict(YARN, beta_fast=16.0, factor=2.0)}, "bf16", 1, 14,
                {"no rope_scaling": {"rope_scaling": None}}),
    "qwen2_s0": ("qwen2", {}, "f32", 0, 12, {}),
    "qwen2_s1": ("qwen2", {"tie_word_embeddings": True, "num_key_value_heads": 1}, "bf16", 1, 12, {}),
    "qwen3_s0": ("qwen3", {}, "f32", 0, 12, {}),
    "qwen3_s1": ("qwen3", {"num_key_value_heads": 1, "head_dim": 24}, "bf16", 1, 12, {}),
    "gemma_s0": ("gemma", {"head_dim": 256, "num_key_value_heads": 1}, "f32", 0, 10, {}),
    "gemma_s1": ("gemma", {}, "bf16", 1, 12, {}),
    "gemma2_s0": ("gemma2", {}, "f32", 0, 12,
                  {"no soft-capping": {"attn_logit_softcapping": None}, "no sliding window": {"sliding_window": 64}}),
    "gemma2_s1": ("gemma2", {"num_key_value_heads": 1, "attn_logit_softcapping": 20.0, "sliding_window": 3}, "bf16",
                  1, 12, {"no soft-capping": {"attn_logit_softcapping": None}}),
    "gemma3_s0": ("gemma3_text", {}, "f32", 0, 12,
                  {"one RoPE base": {"rope_local_base_freq": 1000000.0}, "no sliding window": {"sliding_window": 64}}),
    "gemma3_s1": ("gemma3_text", {"rope_scaling": {"rope_type": "linear", "factor": 8.0}, "num_key_value_heads": 1,
                                  "layer_types": ["sliding_attention", "full_attention", "sliding_attention"]},
                  "bf16", 1, 12, {"no rope_scaling": {"rope_scaling": None}}),
    "phi3_s0": ("phi3", {}, "f32", 0, 12, {}),
    "phi3_s1": ("phi3", {"num_attention_heads": 2, "num_key_value_heads": 1, "partial_rotary_factor": 0.75, "sliding_window": 7, "max_position_embeddings": 64,
                         "original_max_position_embeddings": 16,
                         "rope_scaling": {"type": "longrope", "short_factor": LONGROPE_SHORT,
                                          "long_factor": LONGROPE_LONG}},
                "bf16", 1, 20, {"no rope_scaling": {"rope_scaling": None}}),
}

# Family defaults: small shapes (hidden 32, 2 layers, vocab 128); head_dim given where the family has one.
BASE = {
    "llama": {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 32,
              "intermediate_size": 64, "num_hidden_layers": 2, "num_attention_heads": 2, "num_key_value_heads": 2,
              "head_dim": 16, "hidden_act": "silu", "max_position_embeddings": 256, "rms_norm_eps": 1e-5,
              "rope_theta": 10000.0, "rope_scaling": None, "attention_bias": False, "mlp_bias": False,
              "tie_word_embeddings": False, "vocab_size": 128, "bos_token_id": 1, "eos_token_id": 2},
    "qwen2": {"architectures": ["Qwen2ForCausalLM"], "model_type": "qwen2", "hidden_size": 32,
              "intermediate_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
              "hidden_act": "silu", "max_position_embeddings": 256, "rms_norm_eps": 1e-6, "rope_theta": 1000000.0,
              "rope_scaling": None, "use_sliding_window": False, "sliding_window": 4096, "max_window_layers": 2,
              "tie_word_embeddings": False, "vocab_size": 128, "bos_token_id": 1, "eos_token_id": 2},
    "qwen3": {"architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3", "hidden_size": 32,
              "intermediate_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
              "head_dim": 16, "hidden_act": "silu", "max_position_embeddings": 256, "rms_norm_eps": 1e-6,
              "rope_theta": 1000000.0, "rope_scaling": None, "attention_bias": False, "use_sliding_window": False,
              "sliding_window": None, "max_window_layers": 2, "tie_word_embeddings": False, "vocab_size": 128,
              "bos_token_id": 1, "eos_token_id": 2},
    "gemma": {"architectures": ["GemmaForCausalLM"], "model_type": "gemma", "hidden_size": 32,
              "intermediate_size": 64, "num_hidden_layers": 2, "num_attention_heads": 2, "num_key_value_heads": 2,
              "head_dim": 48, "hidden_act": "gelu", "hidden_activation": "gelu_pytorch_tanh",
              "max_position_embeddings": 256, "rms_norm_eps": 1e-6, "rope_theta": 10000.0, "attention_bias": False,
              "tie_word_embeddings": True, "vocab_size": 128, "pad_token_id": 0, "bos_token_id": 2,
              "eos_token_id": 1},
    "gemma2": {"architectures": ["Gemma2ForCausalLM"], "model_type": "gemma2", "hidden_size": 32,
               "intermediate_size": 64, "num_hidden_layers": 2, "num_attention_heads": 2, "num_key_value_heads": 2,
               "head_dim": 48, "hidden_activation": "gelu_pytorch_tanh", "max_position_embeddings": 256,
               "rms_norm_eps": 1e-6, "rope_theta": 10000.0, "attention_bias": False,
               "query_pre_attn_scalar": 32, "sliding_window": 5, "attn_logit_softcapping": 8.0,
               "final_logit_softcapping": 30.0, "tie_word_embeddings": True, "vocab_size": 128, "pad_token_id": 0,
               "bos_token_id": 2, "eos_token_id": 1},
    "gemma3_text": {"architectures": ["Gemma3ForCausalLM"], "model_type": "gemma3_text", "hidden_size": 32,
                    "intermediate_size": 64, "num_hidden_layers": 3, "num_attention_heads": 2,
                    "num_key_value_heads": 2, "head_dim": 48, "hidden_activation": "gelu_pytorch_tanh",
                    "max_position_embeddings": 256, "rms_norm_eps": 1e-6, "rope_theta": 1000000.0,
                    "rope_local_base_freq": 10000.0, "rope_scaling": None, "attention_bias": False,
                    "query_pre_attn_scalar": 48, "sliding_window": 4, "sliding_window_pattern": 3,
                    "attn_logit_softcapping": None, "final_logit_softcapping": None, "tie_word_embeddings": True,
                    "vocab_size": 128, "pad_token_id": 0, "bos_token_id": 2, "eos_token_id": 1},
    "phi3": {"architectures": ["Phi3ForCausalLM"], "model_type": "phi3", "hidden_size": 32, "intermediate_size": 64,
             "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2, "hidden_act": "silu",
             "max_position_embeddings": 256, "original_max_position_embeddings": 256, "rms_norm_eps": 1e-5,
             "rope_theta": 10000.0, "rope_scaling": None, "sliding_window": None, "partial_rotary_factor": 1.0,
             "tie_word_embeddings": False, "vocab_size": 128, "bos_token_id": 1, "eos_token_id": 32000},
}


def tensor_shapes(cfg):
    """name -> shape of every tensor a *ForCausalLM checkpoint of this config holds."""
    t = cfg["model_type"]
    h, inter, V = cfg["hidden_size"], cfg["intermediate_size"], cfg["vocab_size"]
    H = cfg["num_attention_heads"]
    KV = cfg.get("num_key_value_heads") or H
    d = cfg.get("head_dim") or h // H
    shapes = {"model.embed_tokens.weight": [V, h], "model.norm.weight": [h]}
    for l in range(cfg["num_hidden_layers"]):
        p = f"model.layers.{l}."
        shapes[p + "input_layernorm.weight"] = [h]
        shapes[p + "post_attention_layernorm.weight"] = [h]
        if t in ("gemma2", "gemma3_text"):
            shapes[p + "pre_feedforward_layernorm.weight"] = [h]
            shapes[p + "post_feedforward_layernorm.weight"] = [h]
        if t == "phi3":
            shapes[p + "self_attn.qkv_proj.weight"] = [(H + 2 * KV) * d, h]
            shapes[p + "mlp.gate_up_proj.weight"] = [2 * inter, h]
        else:
            shapes[p + "self_attn.q_proj.weight"] = [H * d, h]
            shapes[p + "self_attn.k_proj.weight"] = [KV * d, h]
            shapes[p + "self_attn.v_proj.weight"] = [KV * d, h]
            shapes[p + "mlp.gate_proj.weight"] = [inter, h]
            shapes[p + "mlp.up_proj.weight"] = [inter, h]
        if t == "qwen2":
            shapes[p + "self_attn.q_proj.bias"] = [H * d]
            shapes[p + "self_attn.k_proj.bias"] = [KV * d]
            shapes[p + "self_attn.v_proj.bias"] = [KV * d]
        if t in ("qwen3", "gemma3_text"):
            shapes[p + "self_attn.q_norm.weight"] = [d]
            shapes[p + "self_attn.k_norm.weight"] = [d]
        shapes[p + "self_attn.o_proj.weight"] = [h, H * d]
        shapes[p + "mlp.down_proj.weight"] = [h, inter]
    if not cfg.get("tie_word_embeddings"):
        shapes["lm_head.weight"] = [V, h]
    return shapes


def to_bf16(values):
    """Round float32 to bfloat16 (nearest, ties to even); returns the 16-bit patterns."""
    bits = np.asarray(values, np.float32).view(np.uint32).astype(np.uint64)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
    return rounded.astype(np.uint16)


def write_safetensors(path, tensors, dtype):
    header, blobs, offset = {}, [], 0
    for name in sorted(tensors):
        values = np.asarray(tensors[name], np.float32)
        raw = to_bf16(values).tobytes() if dtype == "bf16" else values.astype("<f4").tobytes()
        header[name] = {"dtype": "BF16" if dtype == "bf16" else "F32", "shape": list(values.shape),
                        "data_offsets": [offset, offset + len(raw)]}
        blobs.append(raw)
        offset += len(raw)
    header["__metadata__"] = {"format": "pt"}
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for blob in blobs:
            f.write(blob)


def random_tensors(cfg, seed, std=0.3):
    """Wide weights so attention is far from uniform; norm weights near 1 (Gemma stores w of 1 + w near 0)."""
    g = np.random.default_rng(seed)
    gemma = cfg["model_type"].startswith("gemma")
    tensors = {}
    for name, shape in sorted(tensor_shapes(cfg).items()):
        if "norm" in name:
            tensors[name] = (0.0 if gemma else 1.0) + 0.2 * g.standard_normal(shape)
        elif name.endswith(".bias"):
            tensors[name] = 0.1 * g.standard_normal(shape)
        else:
            tensors[name] = std * g.standard_normal(shape)
    return tensors


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("preset", nargs="?")
    ap.add_argument("--out")
    ap.add_argument("--list", action="store_true")
    a = ap.parse_args()
    if a.list or not a.preset:
        for name, (t, over, dtype, seed, n, ablate) in PRESETS.items():
            print(f"{name:12} {t:12} {dtype:5} n={n:3} {json.dumps(over)}")
        return
    model_type, overrides, dtype, seed, n, ablate = PRESETS[a.preset]
    cfg = copy.deepcopy(BASE[model_type])
    cfg.update(copy.deepcopy(overrides))
    cfg["torch_dtype"] = "bfloat16" if dtype == "bf16" else "float32"
    out = a.out or a.preset
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "config.json"), "w") as f:
        json.dump(cfg, f, indent=2)
    write_safetensors(os.path.join(out, "model.safetensors"), random_tensors(cfg, seed), dtype)
    ids = [1] + np.random.default_rng(1000 + seed).integers(3, cfg["vocab_size"], n - 1).tolist()

    attentions, hidden = reference.run(out, ids)
    np.save(os.path.join(out, "attentions.npy"), attentions)
    np.save(os.path.join(out, "hidden.npy"), hidden)
    assert np.allclose(attentions.sum(-1), 1.0) and np.abs(np.triu(attentions, 1)).max() == 0.0

    # How much each feature of the preset moves the attention: a case that cannot tell is no test.
    sensitivity = {}
    tensors = reference.load_safetensors(os.path.join(out, "model.safetensors"))
    for label, edit in ablate.items():
        other = copy.deepcopy(cfg)
        other.update(edit)
        changed, _ = reference.FAMILIES[model_type](other, tensors, ids)
        sensitivity[label] = float(np.abs(changed - attentions).max())
    case = {"arch": model_type, "preset": a.preset, "seed": seed, "storage_dtype": dtype, "input_ids": ids,
            "text": None, "tokens": None, "reference": "tools/oracle/reference.py (numpy, float64)",
            "command": f"tools/oracle/make_numpy_case.py {a.preset} --out {a.preset}",
            "attentions_shape": list(attentions.shape), "feature_sensitivity": sensitivity}
    with open(os.path.join(out, "case.json"), "w") as f:
        json.dump(case, f, indent=1)
    entropy = -(attentions * np.log(np.clip(attentions, 1e-300, None))).sum(-1).mean()
    print(f"{a.preset}: {model_type} {dtype} attentions {attentions.shape}, mean row entropy {entropy:.3f}, "
          f"max {attentions.max():.4f}, sensitivity {sensitivity}")


if __name__ == "__main__":
    main()
