#!/usr/bin/python3
"""Tiny random models of issue 37's families (SmolLM3's NoPE layers, gpt-oss's learned sinks and experts), with
their float64 reference: reference.py (smollm3, through its gated decoder) and reference_gpt_oss.py (gpt_oss).
transformers 4.36 (the oracle kit's) has neither family.

Each case is a Hugging Face folder as make_numpy_case.py writes it (config.json with the fields of the real
checkpoint's config scaled down, model.safetensors, attentions.npy, hidden.npy, case.json with each feature's
sensitivity: how far P moves when the feature is switched off, upstream_f32_error.json by f32error.py), plus
README.md naming the upstream files and
commits the reference was written from.

    usage: make_sink_case.py PRESET --out DIR        PRESET: smollm3_s0, gpt_oss_s0
"""
import argparse
import copy
import json
import os
import struct
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import f32error  # noqa: E402
import reference  # noqa: E402
import reference_gpt_oss  # noqa: E402,F401  (adds gpt_oss to reference.FAMILIES)
from make_numpy_case import to_bf16  # noqa: E402

# HuggingFaceTB/SmolLM3-3B's config.json, scaled down: hidden 2048 -> 32, 36 layers -> 4 (every 4th NoPE),
# heads 16/4 -> 4/2, intermediate 11008 -> 64, vocab 128256 -> 128.
SMOLLM3 = {"architectures": ["SmolLM3ForCausalLM"], "model_type": "smollm3", "hidden_size": 32,
           "intermediate_size": 64, "num_hidden_layers": 4, "num_attention_heads": 4, "num_key_value_heads": 2,
           "hidden_act": "silu", "max_position_embeddings": 65536, "rms_norm_eps": 1e-6, "rope_theta": 5000000.0,
           "rope_scaling": None, "attention_bias": False, "mlp_bias": False, "use_sliding_window": False,
           "sliding_window": None, "no_rope_layers": [1, 1, 1, 0], "no_rope_layer_interval": 4,
           "layer_types": ["full_attention"] * 4, "tie_word_embeddings": True, "vocab_size": 128,
           "pad_token_id": 0, "bos_token_id": 1, "eos_token_id": 2}

# openai/gpt-oss-20b's config.json, scaled down: hidden 2880 -> 32, 24 layers -> 4 (sliding and full
# alternating), heads 64/8 of 64 -> 4/2 of 16 (head_dim independent of hidden / heads, as there), 32 experts
# top-4 -> 4 top-2, intermediate 2880 -> 24, window 128 -> 4 (n = 12), vocab 201088 -> 128. YaRN as shipped:
# factor 32, original 4096, beta 32/1, truncate false, rope_theta 150000.
GPT_OSS = {"architectures": ["GptOssForCausalLM"], "model_type": "gpt_oss", "hidden_size": 32,
           "intermediate_size": 24, "num_hidden_layers": 4, "num_attention_heads": 4, "num_key_value_heads": 2,
           "head_dim": 16, "num_local_experts": 4, "num_experts_per_tok": 2, "experts_per_token": 2,
           "hidden_act": "silu", "max_position_embeddings": 131072, "initial_context_length": 4096,
           "rms_norm_eps": 1e-5, "rope_theta": 150000.0,
           "rope_scaling": {"rope_type": "yarn", "factor": 32.0, "beta_fast": 32.0, "beta_slow": 1.0,
                            "truncate": False, "original_max_position_embeddings": 4096},
           "sliding_window": 4, "layer_types": ["sliding_attention", "full_attention"] * 2,
           "attention_bias": True, "attention_dropout": 0.0, "swiglu_limit": 7.0, "router_aux_loss_coef": 0.9,
           "output_router_logits": False, "tie_word_embeddings": False, "vocab_size": 128, "pad_token_id": 0,
           "eos_token_id": 2}


def no_sinks(cfg, tensors, ids):
    return reference_gpt_oss.gpt_oss(cfg, tensors, ids, use_sinks=False)


# name: (config, storage of the sinks, storage of the rest, seed, tokens, {feature: (config edit, forward)})
PRESETS = {
    "smollm3_s0": (SMOLLM3, "f32", "f32", 0, 12,
                   {"RoPE on every layer": ({"no_rope_layers": [1, 1, 1, 1]}, None)}),
    # No no_rope_layers: every no_rope_layer_interval-th (2nd) layer NoPE; use_sliding_window without
    # layer_types: the NoPE layers slide (window 4 < n); q/k/v/o biases.
    "smollm3_s1": (dict(SMOLLM3, no_rope_layers=None, no_rope_layer_interval=2, layer_types=None,
                        use_sliding_window=True, sliding_window=4, attention_bias=True, num_key_value_heads=1),
                   "bf16", "bf16", 1, 14,
                   {"RoPE on every layer": ({"no_rope_layers": [1, 1, 1, 1]}, None),
                    "no sliding window": ({"use_sliding_window": False}, None)}),
    # Everything BF16, one key/value head, 3 of 4 experts per token, no layer_types (even layers slide).
    "gpt_oss_s1": (dict(GPT_OSS, num_key_value_heads=1, num_experts_per_tok=3, experts_per_token=3,
                        sliding_window=3, layer_types=None), "bf16", "bf16", 5, 12,
                   {"no sinks": ({}, no_sinks),
                    "no sliding window": ({"layer_types": ["full_attention"] * 4}, None)}),
    "gpt_oss_s0": (GPT_OSS, "bf16", "f32", 0, 12,
                   {"no sinks": ({}, no_sinks),
                    "no sliding window": ({"layer_types": ["full_attention"] * 4}, None),
                    "YaRN attention factor 1": (
                        {"rope_scaling": dict(GPT_OSS["rope_scaling"], attention_factor=1.0)}, None)}),
}


def tensor_shapes(cfg):
    h, inter, V = cfg["hidden_size"], cfg["intermediate_size"], cfg["vocab_size"]
    H = cfg["num_attention_heads"]
    KV = cfg["num_key_value_heads"]
    d = cfg.get("head_dim") or h // H
    gpt_oss = cfg["model_type"] == "gpt_oss"
    shapes = {"model.embed_tokens.weight": [V, h], "model.norm.weight": [h]}
    for l in range(cfg["num_hidden_layers"]):
        p = f"model.layers.{l}."
        shapes[p + "input_layernorm.weight"] = [h]
        shapes[p + "post_attention_layernorm.weight"] = [h]
        shapes[p + "self_attn.q_proj.weight"] = [H * d, h]
        shapes[p + "self_attn.k_proj.weight"] = [KV * d, h]
        shapes[p + "self_attn.v_proj.weight"] = [KV * d, h]
        shapes[p + "self_attn.o_proj.weight"] = [h, H * d]
        if gpt_oss:
            E = cfg["num_local_experts"]
            for name, size in (("q_proj", H * d), ("k_proj", KV * d), ("v_proj", KV * d), ("o_proj", h)):
                shapes[p + f"self_attn.{name}.bias"] = [size]
            shapes[p + "self_attn.sinks"] = [H]
            shapes[p + "mlp.router.weight"] = [E, h]
            shapes[p + "mlp.router.bias"] = [E]
            shapes[p + "mlp.experts.gate_up_proj"] = [E, h, 2 * inter]
            shapes[p + "mlp.experts.gate_up_proj_bias"] = [E, 2 * inter]
            shapes[p + "mlp.experts.down_proj"] = [E, inter, h]
            shapes[p + "mlp.experts.down_proj_bias"] = [E, h]
        else:
            if cfg.get("attention_bias"):
                for name, size in (("q_proj", H * d), ("k_proj", KV * d), ("v_proj", KV * d), ("o_proj", h)):
                    shapes[p + f"self_attn.{name}.bias"] = [size]
            shapes[p + "mlp.gate_proj.weight"] = [inter, h]
            shapes[p + "mlp.up_proj.weight"] = [inter, h]
            shapes[p + "mlp.down_proj.weight"] = [h, inter]
    if not cfg.get("tie_word_embeddings"):
        shapes["lm_head.weight"] = [V, h]
    return shapes


def random_tensors(cfg, seed, std=0.3):
    """Wide weights so attention is far from uniform; norm weights near 1; sinks about as large as the
    largest scores (2 ± 1.5), so that the sink's share of a row ranges from almost nothing to almost all; expert weights wide enough that the clamp at 7
    bites on some gate and up values."""
    g = np.random.default_rng(seed)
    tensors = {}
    for name, shape in sorted(tensor_shapes(cfg).items()):
        if "norm" in name:
            tensors[name] = 1.0 + 0.2 * g.standard_normal(shape)
        elif name.endswith("sinks"):
            tensors[name] = 2.0 + 1.5 * g.standard_normal(shape)
        elif name.endswith("bias"):
            tensors[name] = 0.1 * g.standard_normal(shape)
        elif "experts" in name:
            tensors[name] = 0.6 * g.standard_normal(shape)
        else:
            tensors[name] = std * g.standard_normal(shape)
    return tensors


def write_safetensors(path, tensors, dtype_of):
    header, blobs, offset = {}, [], 0
    for name in sorted(tensors):
        values = np.asarray(tensors[name], np.float32)
        bf16 = dtype_of(name) == "bf16"
        raw = to_bf16(values).tobytes() if bf16 else values.astype("<f4").tobytes()
        header[name] = {"dtype": "BF16" if bf16 else "F32", "shape": list(values.shape),
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


SMOLLM3_SOURCES = """Reference: `tools/oracle/reference.py` (its gated decoder, `smollm3` branch), float64 numpy, written from
huggingface/transformers `src/transformers/models/smollm3/modeling_smollm3.py` at commit
b0fc62de0305fe2977549846eb8ba12048edadf3 (`use_rope = config.no_rope_layers[layer_idx]`: q and k are rotated
only where it is 1; `sliding_window` only where `use_sliding_window` and layer_types say "sliding_attention") and
`configuration_smollm3.py` at commit 6551e17f8b5c3d17840d6be0ee8ce40a3626c544 (the default `no_rope_layers`,
`layer_types`). transformers 4.36 (the oracle kit) has no SmolLM3.
"""

GPT_OSS_SOURCES = """`attentions.npy` holds P as the model defines it: softmax over the scores and the head's sink logit, the sink's
column dropped, so every row sums to less than 1 (1 − the row sum is the sink's mass).

Reference: `tools/oracle/reference_gpt_oss.py`, float64 numpy, written from huggingface/transformers
`src/transformers/models/gpt_oss/modeling_gpt_oss.py` at commit 6edf5b311854175ff83c59179b3360beca1ceffc
(eager_attention_forward with the sinks, GptOssTopKRouter, GptOssExperts) and `configuration_gpt_oss.py` at
commit 828a27fd326e49d4a1c4b08210bfd32c107facc9 (default layer_types, rope_scaling); the YaRN frequencies are
reference.py's (modeling_rope_utils.py). transformers 4.36 (the oracle kit) has no gpt-oss.
"""

README = {
    "smollm3_s1": """# smollm3_s1: SmolLM3 with NoPE layers that slide, random weights

HuggingFaceTB/SmolLM3-3B's config scaled down (see `tools/oracle/make_sink_case.py`), with what the release does
not use switched on: no `no_rope_layers`, so `no_rope_layer_interval` 2 makes layers 1 and 3 NoPE;
`use_sliding_window` with window 4 (n = 14) and no `layer_types`, so the NoPE layers slide; `attention_bias`
(q/k/v/o biases); one key/value head; BF16.

""" + SMOLLM3_SOURCES + """
Made by `tools/oracle/make_sink_case.py smollm3_s1 --out smollm3_s1`.
""",
    "gpt_oss_s1": """# gpt_oss_s1: gpt-oss, everything BF16, random weights

As gpt_oss_s0 (see `tools/oracle/make_sink_case.py`) with every tensor BF16, one key/value head, 3 of 4
experts per token, window 3 (n = 12) and no `layer_types` (GptOssConfig's default: even layers slide).

""" + GPT_OSS_SOURCES + """
Made by `tools/oracle/make_sink_case.py gpt_oss_s1 --out gpt_oss_s1`.
""",
    "smollm3_s0": """# smollm3_s0: SmolLM3 with a NoPE layer, random weights

HuggingFaceTB/SmolLM3-3B's config scaled down (see `tools/oracle/make_sink_case.py`): 4 layers, the 4th NoPE
(`no_rope_layers` [1, 1, 1, 0]), GQA 4/2, rope_theta 5e6, tied embeddings; F32.

Reference: `tools/oracle/reference.py` (its gated decoder, `smollm3` branch), float64 numpy, written from
huggingface/transformers `src/transformers/models/smollm3/modeling_smollm3.py` at commit
b0fc62de0305fe2977549846eb8ba12048edadf3 (`use_rope = config.no_rope_layers[layer_idx]`: q and k are rotated
only where it is 1) and `configuration_smollm3.py` at commit 6551e17f8b5c3d17840d6be0ee8ce40a3626c544 (the
default `no_rope_layers`, `layer_types`). transformers 4.36 (the oracle kit) has no SmolLM3.

Made by `tools/oracle/make_sink_case.py smollm3_s0 --out smollm3_s0`.
""",
    "gpt_oss_s0": """# gpt_oss_s0: gpt-oss with learned sinks, alternating windows, YaRN and experts, random weights

openai/gpt-oss-20b's config scaled down (see `tools/oracle/make_sink_case.py`): 4 layers alternating sliding
(window 4, n = 12) and full attention, 4 query heads of 16 over 2 key/value heads, q/k/v/o biases, YaRN as
shipped (factor 32, original 4096, truncate false: attention factor 0.1·ln 32 + 1 on cos and sin), 4 experts,
top-2, the clamped SwiGLU. Weights F32 except `self_attn.sinks`, stored BF16 as in the released checkpoint.

`attentions.npy` holds P as the model defines it: softmax over the scores and the head's sink logit, the sink's
column dropped, so every row sums to less than 1 (1 − the row sum is the sink's mass).

Reference: `tools/oracle/reference_gpt_oss.py`, float64 numpy, written from huggingface/transformers
`src/transformers/models/gpt_oss/modeling_gpt_oss.py` at commit 6edf5b311854175ff83c59179b3360beca1ceffc
(eager_attention_forward with the sinks, GptOssTopKRouter, GptOssExperts) and `configuration_gpt_oss.py` at
commit 828a27fd326e49d4a1c4b08210bfd32c107facc9 (default layer_types, rope_scaling); the YaRN frequencies are
reference.py's (modeling_rope_utils.py). transformers 4.36 (the oracle kit) has no gpt-oss.

Made by `tools/oracle/make_sink_case.py gpt_oss_s0 --out gpt_oss_s0`.
""",
}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("preset", choices=sorted(PRESETS))
    ap.add_argument("--out")
    a = ap.parse_args()
    base, sink_dtype, dtype, seed, n, ablate = PRESETS[a.preset]
    cfg = {k: v for k, v in copy.deepcopy(base).items() if v is not None or k in ("rope_scaling", "sliding_window")}
    cfg["torch_dtype"] = "bfloat16" if dtype == "bf16" else "float32"
    out = a.out or a.preset
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "config.json"), "w") as f:
        json.dump(cfg, f, indent=2)
    write_safetensors(os.path.join(out, "model.safetensors"), random_tensors(cfg, seed),
                      lambda name: sink_dtype if name.endswith("sinks") else dtype)
    with open(os.path.join(out, "README.md"), "w") as f:
        f.write(README[a.preset])
    ids = [1] + np.random.default_rng(1000 + seed).integers(3, cfg["vocab_size"], n - 1).tolist()

    attentions, hidden = reference.run(out, ids)
    np.save(os.path.join(out, "attentions.npy"), attentions)
    np.save(os.path.join(out, "hidden.npy"), hidden)
    sums = attentions.sum(-1)
    if cfg["model_type"] == "gpt_oss":
        assert (sums < 1.0).all() and (sums > 0.0).all()
    else:
        assert np.allclose(sums, 1.0)
    assert np.abs(np.triu(attentions, 1)).max() == 0.0

    sensitivity = {}
    tensors = reference.load_safetensors(os.path.join(out, "model.safetensors"))
    for label, (edit, forward) in ablate.items():
        other = copy.deepcopy(cfg)
        other.update(edit)
        changed, _ = (forward or reference.FAMILIES[cfg["model_type"]])(other, tensors, ids)
        sensitivity[label] = float(np.abs(changed - attentions).max())
    case = {"arch": cfg["model_type"], "preset": a.preset, "seed": seed, "storage_dtype": dtype,
            "sink_storage_dtype": sink_dtype if cfg["model_type"] == "gpt_oss" else None, "input_ids": ids,
            "text": None, "tokens": None,
            "reference": "tools/oracle/reference.py" + (" + reference_gpt_oss.py" if "gpt_oss" in a.preset else "")
            + " (numpy, float64)",
            "command": f"tools/oracle/make_sink_case.py {a.preset} --out {a.preset}",
            "attentions_shape": list(attentions.shape), "feature_sensitivity": sensitivity,
            "row_sum_range": [float(sums.min()), float(sums.max())]}
    with open(os.path.join(out, "case.json"), "w") as f:
        json.dump(case, f, indent=1)
    print(f"{a.preset}: attentions {attentions.shape}, row sums {sums.min():.4f}..{sums.max():.4f}, "
          f"max {attentions.max():.4f}, sensitivity {sensitivity}")
    f32error.numpy_case(out)  # upstream_f32_error.json: reference.py's forward pass in float32


if __name__ == "__main__":
    main()
