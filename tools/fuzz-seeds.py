#!/usr/bin/env python3
"""Writes the committed part of the fuzzers' seed corpora (fuzz/seeds/), derived from the test fixtures.

The rest of each corpus is taken from tests/data at run time by tools/fuzz.sh. Run from the repository root:
    /usr/bin/python3 tools/fuzz-seeds.py
Writes:
  fuzz/seeds/tokenizer/*.json  the overlays of tests/data/tokenizers (Metaspace, Split regexes, NFKC/NFD,
                               Roberta/Bert/Template post-processors, ...) applied onto the small oracle
                               tokenizers instead of the 0.5-1.4 MB real vocabularies, so each execution is fast
  fuzz/seeds/texts.txt         texts the tokenizer seeds are paired with (one per line)
  fuzz/seeds/safetensors/*     tiny files: every dtype, empty tensors, __metadata__
  fuzz/seeds/config/*.json     config.json variants the oracle cases lack (Mistral, Qwen2, head_dim, ...)
  fuzz/seeds/npy/*.npy         float32/float64, versions 1-3, 0-d and empty arrays
  fuzz/seeds/gguf/*.gguf       tiny llama and gpt2 files (metadata, F32/F16/Q8_0 tensors, tokenizer metadata)
"""
import json
import os
import struct

ROOT = os.getcwd()
OUT = os.path.join(ROOT, "fuzz", "seeds")


def load(path):
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        return json.load(f)


def write(path, data):
    path = os.path.join(OUT, path)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    mode = "wb" if isinstance(data, bytes) else "w"
    with open(path, mode, **({} if mode == "wb" else {"encoding": "utf-8"})) as f:
        f.write(data)


# Tokenizers: each overlay's sections on a small base of the same kind.
SMALL_BASE = {
    "../bert-base-uncased/tokenizer.json": "tests/data/oracle/bert_s0/tokenizer.json",
    "../gpt2/tokenizer.json": "tests/data/oracle/gpt2_s0/tokenizer.json",
    "../llama-sp/tokenizer.json": "tests/data/tokenizers/llama-sp/tokenizer.json",
}
tokenizers = os.path.join(ROOT, "tests", "data", "tokenizers")
for name in sorted(os.listdir(tokenizers)):
    overlay_path = os.path.join(tokenizers, name, "overlay.json")
    if not os.path.exists(overlay_path):
        continue
    overlay = load(os.path.relpath(overlay_path, ROOT))
    tokenizer = load(SMALL_BASE[overlay["base"]])
    tokenizer.update(overlay.get("replace", {}))
    tokenizer["model"].update(overlay.get("model", {}))
    write(f"tokenizer/{name}.json", json.dumps(tokenizer, ensure_ascii=False, separators=(",", ":")))

texts = [
    "The quick brown fox jumps over the lazy dog.",
    "kedi mindere oturdu; İstanbul'da ılık bir gün",
    "Straße ΣΊΣΥΦΟΣ ὀδυσσεύς",
    "你好，世界 𠀋𡈽 日本語のテキスト 한국어",
    "مرحبا بالعالم שלום",
    "👩‍👩‍👧‍👦 👍🏽 e\u0301\u0301 a\u200bb",
    "tab\there  two  spaces\u00a0nbsp \u3000 end",
    "[CLS] [MASK] <s> </s> <|endoftext|> <mask> [SEP]",
    "x" * 300,
    "",
    "123 4567 89.0 1e10 $5 #tag @user http://a.b/c?d=e",
]
write("texts.txt", "\n".join(texts) + "\n")

# Safetensors: u64 header length, JSON header padded to 8 bytes, data.
def safetensors(tensors, metadata=None):
    header = {}
    data = b""
    for name, dtype, shape, raw in tensors:
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    if metadata is not None:
        header["__metadata__"] = metadata
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    return struct.pack("<Q", len(text)) + text + data


write("safetensors/dtypes.safetensors", safetensors([
    ("f32", "F32", [2, 2], struct.pack("<4f", 1.0, -2.0, 0.5, 3.0)),
    ("f16", "F16", [3], struct.pack("<3H", 0x3C00, 0x7C00, 0x0001)),
    ("bf16", "BF16", [2], struct.pack("<2H", 0x3F80, 0x7FC0)),
    ("f64", "F64", [1], struct.pack("<d", 1.0)),
    ("i64", "I64", [2], struct.pack("<2q", 0, 1)),
    ("i32", "I32", [1], struct.pack("<i", 7)),
    ("i16", "I16", [1], struct.pack("<h", 7)),
    ("i8", "I8", [2], b"\x01\x02"),
    ("u8", "U8", [1], b"\xff"),
    ("bool", "BOOL", [1], b"\x01"),
    ("e4m3", "F8_E4M3", [1], b"\x38"),
    ("e5m2", "F8_E5M2", [1], b"\x3c"),
], {"format": "pt"}))
write("safetensors/empty.safetensors", safetensors([
    ("nothing", "F32", [0], b""), ("scalar", "F32", [], struct.pack("<f", 2.5)), ("zero", "F16", [4, 0], b""),
]))
write("safetensors/no-tensors.safetensors", safetensors([], {}))

# config.json variants.
llama = load("tests/data/oracle/llama_s0/config.json")
write("config/mistral.json", json.dumps(dict(llama, model_type="mistral", architectures=["MistralForCausalLM"],
                                             sliding_window=4096, num_key_value_heads=2), indent=1))
write("config/qwen2.json", json.dumps(dict(llama, model_type="qwen2", architectures=["Qwen2ForCausalLM"],
                                           use_sliding_window=True, sliding_window=32,
                                           rope_scaling={"rope_type": "default"}, attention_bias=True,
                                           mlp_bias=True, head_dim=8), indent=1))
gpt2 = load("tests/data/oracle/gpt2_s0/config.json")
write("config/gpt2-inner.json", json.dumps(dict(gpt2, n_inner=48, activation_function="relu",
                                                scale_attn_by_inverse_layer_idx=True, tie_word_embeddings=False)))
write("config/by-class.json", json.dumps({"architectures": ["BertForMaskedLM"], "hidden_size": 8,
                                          "num_attention_heads": 2, "num_hidden_layers": 1,
                                          "intermediate_size": 16, "vocab_size": 10}))

# npy: header dicts by hand, as numpy writes them.
def npy(descr, shape, payload, version=1):
    dims = ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "")
    text = "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }" % (descr, dims)
    prefix = 10 if version == 1 else 12
    text += " " * ((64 - (prefix + len(text) + 1) % 64) % 64) + "\n"
    length = struct.pack("<H", len(text)) if version == 1 else struct.pack("<I", len(text))
    return b"\x93NUMPY" + bytes([version, 0]) + length + text.encode("latin-1") + payload


write("npy/f8-v1.npy", npy("<f8", [2, 2], struct.pack("<4d", 1, 2, 3, 4)))
write("npy/f4-v2.npy", npy("<f4", [3], struct.pack("<3f", 1, 2, 3), version=2))
write("npy/f4-v3-scalar.npy", npy("<f4", [], struct.pack("<f", 1), version=3))
write("npy/f4-empty.npy", npy("<f4", [0, 5], b""))


# GGUF v3: "GGUF", u32 version, u64 tensor count, u64 kv count, kvs, tensor infos, padding to 32, data.
GGUF_U32, GGUF_I32, GGUF_F32, GGUF_BOOL, GGUF_STRING, GGUF_ARRAY = 4, 5, 6, 7, 8, 9


def gguf_string(text):
    data = text.encode("utf-8")
    return struct.pack("<Q", len(data)) + data


def gguf_value(kind, value):
    if kind == GGUF_U32:
        return struct.pack("<I", value)
    if kind == GGUF_I32:
        return struct.pack("<i", value)
    if kind == GGUF_F32:
        return struct.pack("<f", value)
    if kind == GGUF_BOOL:
        return struct.pack("<B", 1 if value else 0)
    if kind == GGUF_STRING:
        return gguf_string(value)
    element, items = value
    return struct.pack("<IQ", element, len(items)) + b"".join(gguf_value(element, i) for i in items)


def gguf(metadata, tensors):
    """metadata: [(key, kind, value)]; tensors: [(name, torch shape, ggml type, encoded bytes)]."""
    out = b"GGUF" + struct.pack("<IQQ", 3, len(tensors), len(metadata))
    for key, kind, value in metadata:
        out += gguf_string(key) + struct.pack("<I", kind) + gguf_value(kind, value)
    offset, blobs = 0, b""
    for name, shape, kind, data in tensors:
        ne = list(reversed(shape))
        out += gguf_string(name) + struct.pack("<I", len(ne)) + b"".join(struct.pack("<Q", n) for n in ne)
        out += struct.pack("<IQ", kind, offset)
        padded = data + b"\0" * ((32 - len(data) % 32) % 32)
        blobs += padded
        offset += len(padded)
    out += b"\0" * ((32 - len(out) % 32) % 32)
    return out + blobs


def f32(shape, scale=0.1):
    count = 1
    for n in shape:
        count *= n
    return struct.pack("<%df" % count, *[scale * ((i * 7919) % 17 - 8) / 8 for i in range(count)])


def f16_ones(count):
    return struct.pack("<%de" % count, *([1.0] * count))


def q8_0(count):
    # blocks of 32: f16 scale, 32 int8
    return b"".join(struct.pack("<e", 0.01) + bytes((i * 37) % 256 for i in range(32)) for _ in range(count // 32))


F32_TYPE, F16_TYPE, Q8_0_TYPE = 0, 1, 8
HIDDEN, HEADS, FF, VOCAB = 8, 2, 16, 12
SPM_TOKENS = ["<unk>", "<s>", "</s>", "\u2581", "\u2581a", "a", "b", "c", "\u2581ab", "d", "e", "<0x41>"]


def llama_gguf(tensor_type=F32_TYPE):
    meta = [("general.architecture", GGUF_STRING, "llama"), ("general.alignment", GGUF_U32, 32),
            ("llama.block_count", GGUF_U32, 1), ("llama.context_length", GGUF_U32, 32),
            ("llama.embedding_length", GGUF_U32, HIDDEN), ("llama.feed_forward_length", GGUF_U32, FF),
            ("llama.attention.head_count", GGUF_U32, HEADS), ("llama.attention.head_count_kv", GGUF_U32, HEADS),
            ("llama.rope.freq_base", GGUF_F32, 10000.0),
            ("llama.attention.layer_norm_rms_epsilon", GGUF_F32, 1e-5),
            ("tokenizer.ggml.model", GGUF_STRING, "llama"),
            ("tokenizer.ggml.tokens", GGUF_ARRAY, (GGUF_STRING, SPM_TOKENS)),
            ("tokenizer.ggml.scores", GGUF_ARRAY, (GGUF_F32, [-float(i) for i in range(VOCAB)])),
            ("tokenizer.ggml.token_type", GGUF_ARRAY, (GGUF_I32, [2, 3, 3] + [1] * 8 + [6])),
            ("tokenizer.ggml.bos_token_id", GGUF_U32, 1), ("tokenizer.ggml.eos_token_id", GGUF_U32, 2),
            ("tokenizer.ggml.unknown_token_id", GGUF_U32, 0), ("tokenizer.ggml.add_bos_token", GGUF_BOOL, True)]
    tensors = [("token_embd.weight", [VOCAB, HIDDEN], F32_TYPE, f32([VOCAB, HIDDEN], 1.0)),
               ("output_norm.weight", [HIDDEN], F16_TYPE, f16_ones(HIDDEN))]
    for name, shape in [("attn_norm.weight", [HIDDEN]), ("ffn_norm.weight", [HIDDEN]),
                        ("attn_q.weight", [HIDDEN, HIDDEN]), ("attn_k.weight", [HIDDEN, HIDDEN]),
                        ("attn_v.weight", [HIDDEN, HIDDEN]), ("attn_output.weight", [HIDDEN, HIDDEN]),
                        ("ffn_gate.weight", [FF, HIDDEN]), ("ffn_up.weight", [FF, HIDDEN]),
                        ("ffn_down.weight", [HIDDEN, FF])]:
        tensors.append(("blk.0." + name, shape, F32_TYPE, f32(shape)))
    return gguf(meta, tensors)


def gpt2_gguf():
    tokens = ["a", "b", "c", "\u0120", "\u0120a", "ab", "abc", "d", "e", "f", "<|endoftext|>", "!"]
    meta = [("general.architecture", GGUF_STRING, "gpt2"), ("gpt2.block_count", GGUF_U32, 1),
            ("gpt2.context_length", GGUF_U32, 16), ("gpt2.embedding_length", GGUF_U32, HIDDEN),
            ("gpt2.feed_forward_length", GGUF_U32, 4 * HIDDEN), ("gpt2.attention.head_count", GGUF_U32, HEADS),
            ("gpt2.attention.layer_norm_epsilon", GGUF_F32, 1e-5),
            ("tokenizer.ggml.model", GGUF_STRING, "gpt2"), ("tokenizer.ggml.pre", GGUF_STRING, "gpt-2"),
            ("tokenizer.ggml.tokens", GGUF_ARRAY, (GGUF_STRING, tokens)),
            ("tokenizer.ggml.merges", GGUF_ARRAY, (GGUF_STRING, ["a b", "ab c", "\u0120 a"])),
            ("tokenizer.ggml.bos_token_id", GGUF_U32, 10)]
    tensors = [("token_embd.weight", [VOCAB, HIDDEN], F32_TYPE, f32([VOCAB, HIDDEN], 1.0)),
               ("position_embd.weight", [16, HIDDEN], F32_TYPE, f32([16, HIDDEN])),
               ("output_norm.weight", [HIDDEN], F32_TYPE, f32([HIDDEN])),
               ("output_norm.bias", [HIDDEN], F32_TYPE, f32([HIDDEN]))]
    for name, shape in [("attn_norm.weight", [HIDDEN]), ("attn_norm.bias", [HIDDEN]),
                        ("attn_qkv.weight", [3 * HIDDEN, HIDDEN]), ("attn_qkv.bias", [3 * HIDDEN]),
                        ("attn_output.weight", [HIDDEN, HIDDEN]), ("attn_output.bias", [HIDDEN]),
                        ("ffn_norm.weight", [HIDDEN]), ("ffn_norm.bias", [HIDDEN]),
                        ("ffn_up.weight", [4 * HIDDEN, HIDDEN]), ("ffn_up.bias", [4 * HIDDEN]),
                        ("ffn_down.weight", [HIDDEN, 4 * HIDDEN]), ("ffn_down.bias", [HIDDEN])]:
        tensors.append(("blk.0." + name, shape, F32_TYPE, f32(shape)))
    return gguf(meta, tensors)


write("gguf/llama-f32.gguf", llama_gguf())
write("gguf/gpt2-f32.gguf", gpt2_gguf())
write("gguf/q8_0-tensor.gguf", gguf([("general.architecture", GGUF_STRING, "llama")],
                                     [("t.weight", [2, 32], Q8_0_TYPE, q8_0(64))]))
write("gguf/empty.gguf", gguf([], []))
