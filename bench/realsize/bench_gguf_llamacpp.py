#!/usr/bin/python3
"""GGUF files at full speed (issue 32, point 2): AttnScope against llama.cpp on the same files, in one run.

The Llama-3.2-1B shape with random weights (bench_llama_realsize.py's BF16 folder), and the same weights as
F16, Q8_0 and Q4_K GGUF files written here (llama.cpp's layout: q/k rows permuted for its RoPE; the
quantizers are plain numpy ones with simple per-block scales, not llama.cpp's optimising ones, which does
not change the cost of a product). Each round runs, interleaved:

  - `attnscope attention` on each file: the whole process, every layer's attention, npy out (as
    bench_llama_realsize.py);
  - llama.cpp through npm node-llama-cpp (its own prebuilt CPU build) with N threads:
    `evaluateWithoutGeneratingNewTokens` on the same GGUF and the same token ids; the evaluation alone is
    timed inside the process (the figure issue 32 compares with), and the whole process too.

The bf16 safetensors row has no llama.cpp side (llama.cpp does not read safetensors); its F16 GGUF is the
peer. The fp32 FMA peak is measured in the same run (bench_attention --json, before and after; the larger).

    /usr/bin/python3 bench/realsize/bench_gguf_llamacpp.py --reps 3 --tokens 128,512 \\
        --attnscope build/dev/app/attnscope --bench-attention build/dev/bench/bench_attention \\
        --dir /tmp/llama-1b-gguf

npm installs node-llama-cpp@3.22.1 into DIR/node (the bench's own work folder, never the build). Prints one
JSON line per measurement, then a table: medians, ratios to llama.cpp's evaluation and to the bf16 file,
share of the FMA peak.
"""
import argparse
import json
import os
import statistics
import struct
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_llama_realsize import tensors_of, timed, write_folder  # noqa: E402

NODE_LLAMA_CPP = "node-llama-cpp@3.22.1"
GGML = dict(F32=0, F16=1, Q8_0=8, Q4_K=12)

# ------------------------------------------------------------------------------------------ quantizers


def quantize_q8_0(x):
    """[rows, cols] float32 -> ggml block_q8_0 bytes (f16 d, 32 × int8), rows of cols / 32 blocks."""
    b = x.reshape(-1, 32)
    d = np.abs(b).max(axis=1) / 127.0
    inv = np.where(d > 0, 1.0 / np.where(d > 0, d, 1), 0)
    q = np.clip(np.rint(b * inv[:, None]), -127, 127).astype(np.int8)
    out = np.empty((b.shape[0], 34), np.uint8)
    out[:, 0:2] = d.astype(np.float16).view(np.uint8).reshape(-1, 2)
    out[:, 2:] = q.view(np.uint8)
    return out.tobytes()


def quantize_q4_k(x):
    """[rows, cols] float32 -> ggml block_q4_K bytes: per 256 elements f16 d, f16 dmin, 12 bytes of 6-bit
    sub-block scales and mins (get_scale_min_k4's packing), 128 bytes of nibbles; y = d·sc·q − dmin·m."""
    b = x.reshape(-1, 8, 32).astype(np.float32)
    low = np.minimum(b.min(axis=2), 0.0)                 # [blocks, 8], ≤ 0
    step = (b.max(axis=2) - low) / 15.0                  # [blocks, 8]
    d = step.max(axis=1) / 63.0
    dmin = (-low).max(axis=1) / 63.0
    d16, dmin16 = d.astype(np.float16), dmin.astype(np.float16)
    d, dmin = d16.astype(np.float32), dmin16.astype(np.float32)
    safe = lambda v: np.where(v > 0, v, 1.0)             # noqa: E731
    sc = np.clip(np.rint(step / safe(d)[:, None]), 0, 63).astype(np.uint8)
    m = np.clip(np.rint(-low / safe(dmin)[:, None]), 0, 63).astype(np.uint8)
    scale = d[:, None] * sc
    q = np.clip(np.rint((b + (dmin[:, None] * m)[:, :, None]) / safe(scale)[:, :, None]), 0, 15).astype(np.uint8)
    scales = np.zeros((b.shape[0], 12), np.uint8)
    scales[:, 0:4] = (sc[:, 0:4] & 63) | ((sc[:, 4:8] >> 4) << 6)
    scales[:, 4:8] = (m[:, 0:4] & 63) | ((m[:, 4:8] >> 4) << 6)
    scales[:, 8:12] = (sc[:, 4:8] & 0xF) | ((m[:, 4:8] & 0xF) << 4)
    # 64-element chunk c: byte l holds element 64c + l (low nibble) and 64c + 32 + l (high nibble).
    qs = (q[:, 0::2, :] | (q[:, 1::2, :] << 4)).reshape(-1, 128)
    out = np.empty((b.shape[0], 144), np.uint8)
    out[:, 0:2] = d16.view(np.uint8).reshape(-1, 2)
    out[:, 2:4] = dmin16.view(np.uint8).reshape(-1, 2)
    out[:, 4:16] = scales
    out[:, 16:] = qs
    return out.tobytes()


def encode(kind, x):
    if kind == "F32":
        return x.astype(np.float32).tobytes()
    if kind == "F16":
        return x.astype(np.float16).tobytes()
    return quantize_q8_0(x) if kind == "Q8_0" else quantize_q4_k(x)


def encoded_bytes(kind, n):
    return {"F32": 4 * n, "F16": 2 * n, "Q8_0": n // 32 * 34, "Q4_K": n // 256 * 144}[kind]


# ------------------------------------------------------------------------------------------ GGUF writer


def gguf_string(s):
    b = s.encode()
    return struct.pack("<Q", len(b)) + b


def gguf_kv(key, value):
    """One metadata pair: str, bool, int (u32), float (f32), or a list of str / float / int (i32)."""
    out = gguf_string(key)
    if isinstance(value, bool):  # before int: a bool is an int to Python, and llama.cpp wants type 7
        return out + struct.pack("<IB", 7, value)
    if isinstance(value, str):
        return out + struct.pack("<I", 8) + gguf_string(value)
    if isinstance(value, float):
        return out + struct.pack("<If", 6, value)
    if isinstance(value, int):
        return out + struct.pack("<II", 4, value)
    first = value[0]
    if isinstance(first, str):
        return out + struct.pack("<IIQ", 9, 8, len(value)) + b"".join(gguf_string(v) for v in value)
    if isinstance(first, float):
        return out + struct.pack("<IIQ", 9, 6, len(value)) + np.asarray(value, np.float32).tobytes()
    return out + struct.pack("<IIQ", 9, 5, len(value)) + np.asarray(value, np.int32).tobytes()


def bf16_tensor(f, base, header, name):
    begin, end = header[name]["data_offsets"]
    f.seek(base + begin)
    raw = np.fromfile(f, dtype=np.uint16, count=(end - begin) // 2)
    return (raw.astype(np.uint32) << 16).view(np.float32).reshape(header[name]["shape"])


def permute_for_llama_cpp(w, heads):
    """convert_hf_to_gguf.py's LlamaModel.permute: rotate-half rows (i, i + d/2) to interleaved (2i, 2i + 1)."""
    rows = w.shape[0]
    return w.reshape(heads, 2, rows // heads // 2, *w.shape[1:]).swapaxes(1, 2).reshape(w.shape)


def gguf_name(hf):
    if hf == "model.embed_tokens.weight":
        return "token_embd.weight"
    if hf == "model.norm.weight":
        return "output_norm.weight"
    if hf == "lm_head.weight":
        return "output.weight"
    parts = hf.split(".")
    layer, rest = parts[2], ".".join(parts[3:])
    names = {"input_layernorm.weight": "attn_norm.weight", "post_attention_layernorm.weight": "ffn_norm.weight",
             "self_attn.q_proj.weight": "attn_q.weight", "self_attn.k_proj.weight": "attn_k.weight",
             "self_attn.v_proj.weight": "attn_v.weight", "self_attn.o_proj.weight": "attn_output.weight",
             "mlp.gate_proj.weight": "ffn_gate.weight", "mlp.up_proj.weight": "ffn_up.weight",
             "mlp.down_proj.weight": "ffn_down.weight"}
    return f"blk.{layer}.{names[rest]}"


def write_gguf(folder, c, kind, path):
    """The BF16 folder's weights as a llama GGUF: matrices in `kind`, norms F32; a SentencePiece-style
    vocabulary of vocab_size made-up pieces (256 byte pieces, <unk>, <s>, </s>) so both programs open it."""
    if os.path.exists(path):
        return
    V = c["vocab_size"]
    tokens = ["<unk>", "<s>", "</s>"] + [f"<0x{b:02X}>" for b in range(256)]
    tokens += [f"▁t{i}" for i in range(V - len(tokens))]
    types = [2, 3, 3] + [6] * 256 + [1] * (V - 259)
    kv = [("general.architecture", "llama"), ("general.name", "llama-3.2-1b-shape-random"),
          ("general.file_type", {"F16": 1, "Q8_0": 7, "Q4_K": 15}[kind]),
          ("general.quantization_version", 2),
          ("llama.block_count", c["num_hidden_layers"]), ("llama.context_length", 4096),
          ("llama.embedding_length", c["hidden_size"]), ("llama.feed_forward_length", c["intermediate_size"]),
          ("llama.attention.head_count", c["num_attention_heads"]),
          ("llama.attention.head_count_kv", c["num_key_value_heads"]),
          ("llama.rope.dimension_count", c["head_dim"]), ("llama.rope.freq_base", float(c["rope_theta"])),
          ("llama.attention.layer_norm_rms_epsilon", float(c["rms_norm_eps"])), ("llama.vocab_size", V),
          ("tokenizer.ggml.model", "llama"), ("tokenizer.ggml.tokens", tokens),
          ("tokenizer.ggml.scores", [float(-i) for i in range(V)]), ("tokenizer.ggml.token_type", types),
          ("tokenizer.ggml.bos_token_id", 1), ("tokenizer.ggml.eos_token_id", 2),
          ("tokenizer.ggml.unknown_token_id", 0), ("tokenizer.ggml.add_bos_token", False)]
    weights = os.path.join(folder, "model.safetensors")
    with open(weights, "rb") as f:
        length = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(length))
    base = 8 + length
    tensors = tensors_of(c)
    infos, offset, layout = [], 0, []
    for name, dims in tensors:
        stored = kind if len(dims) == 2 else "F32"
        n = int(np.prod(dims))
        infos.append(gguf_string(gguf_name(name)) + struct.pack("<I", len(dims)) +
                     b"".join(struct.pack("<Q", x) for x in reversed(dims)) +
                     struct.pack("<IQ", GGML[stored], offset))
        layout.append((name, dims, stored, offset))
        offset += (encoded_bytes(stored, n) + 31) // 32 * 32
    head = b"GGUF" + struct.pack("<IQQ", 3, len(tensors), len(kv)) + b"".join(gguf_kv(k, v) for k, v in kv)
    head += b"".join(infos)
    head += b"\0" * (-len(head) % 32)
    partial = path + ".partial"
    with open(weights, "rb") as f, open(partial, "wb") as out:
        out.write(head)
        for name, dims, stored, at in layout:
            out.seek(len(head) + at)
            w = bf16_tensor(f, base, header, name)
            if name.endswith(("q_proj.weight", "k_proj.weight")):
                heads = c["num_attention_heads"] if "q_proj" in name else c["num_key_value_heads"]
                w = permute_for_llama_cpp(w, heads)
            for r0 in range(0, w.shape[0], 4096):  # in row chunks: the embedding is 263 M values
                out.write(encode(stored, w[r0:r0 + 4096] if w.ndim == 2 else w))
                if w.ndim == 1:
                    break
        out.truncate(len(head) + offset)
    os.replace(partial, path)


# ------------------------------------------------------------------------------------------ llama.cpp

LLAMA_RUN = r"""
import {getLlama} from "node-llama-cpp";
const [modelPath, idsText, threads] = process.argv.slice(2);
const ids = idsText.split(",").map(Number);
const llama = await getLlama({gpu: false, build: "never", logLevel: "error"});
const t0 = performance.now();
const model = await llama.loadModel({modelPath, gpuLayers: 0});
const context = await model.createContext({contextSize: Math.max(1024, ids.length + 64),
                                          batchSize: Math.max(512, ids.length), threads: Number(threads),
                                          sequences: 1});
const sequence = context.getSequence();
const t1 = performance.now(), cpu1 = process.cpuUsage();
await sequence.evaluateWithoutGeneratingNewTokens(ids);
const t2 = performance.now(), cpu = process.cpuUsage(cpu1);
console.log(JSON.stringify({load_s: (t1 - t0) / 1000, eval_s: (t2 - t1) / 1000,
                            eval_cpu_s: (cpu.user + cpu.system) / 1e6,
                            threads: context.currentThreads, ideal_threads: context.idealThreads,
                            build: llama.buildType, gpu: llama.gpu}));
await context.dispose();
await model.dispose();
"""


def install_node_llama_cpp(work):
    node = os.path.join(work, "node")
    os.makedirs(node, exist_ok=True)
    if not os.path.exists(os.path.join(node, "package.json")):
        with open(os.path.join(node, "package.json"), "w") as f:
            json.dump(dict(name="bench-gguf-llamacpp", private=True, type="module"), f)
    if not os.path.isdir(os.path.join(node, "node_modules", "node-llama-cpp")):
        subprocess.run(["npm", "install", "--no-audit", "--no-fund", NODE_LLAMA_CPP], cwd=node, check=True)
    script = os.path.join(node, "run.mjs")
    with open(script, "w") as f:
        f.write(LLAMA_RUN)
    return script


# ------------------------------------------------------------------------------------------ main


def fma_peak(bench_attention, threads):
    out = subprocess.run([bench_attention, "--json", "--n", "64", "--reps", "1", "--threads", str(threads)],
                         capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        if '"fma_peak"' in line:
            return json.loads(line)["gflops"]
    sys.exit("bench_attention printed no fma_peak")


def load_average():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tokens", default="128,512")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--kinds", default="bf16,F16,Q8_0,Q4_K")
    parser.add_argument("--attnscope", default="build/dev/app/attnscope")
    parser.add_argument("--bench-attention", default="build/dev/bench/bench_attention")
    parser.add_argument("--dir", default="/tmp/llama-1b-gguf")
    parser.add_argument("--skip-llamacpp", action="store_true")
    parser.add_argument("--prepare-only", action="store_true", help="write the files, install npm's side, stop")
    args = parser.parse_args()

    folder = os.path.join(args.dir, "bf16")
    c = write_folder(folder, "1b")
    kinds = args.kinds.split(",")
    files = {}
    for kind in kinds:
        if kind == "bf16":
            files[kind] = folder
        else:
            files[kind] = os.path.join(args.dir, f"llama-1b-{kind}.gguf")
            write_gguf(folder, c, kind, files[kind])
    script = None if args.skip_llamacpp else install_node_llama_cpp(args.dir)
    if args.prepare_only:
        return
    peaks = [fma_peak(args.bench_attention, args.threads)]
    loads = [load_average()]

    H, d, L = c["num_attention_heads"], c["head_dim"], c["num_hidden_layers"]
    non_embedding = sum(int(np.prod(s)) for n, s in tensors_of(c) if "embed" not in n and "lm_head" not in n)
    last_mlp = 3 * c["hidden_size"] * c["intermediate_size"]
    out = os.path.join(args.dir, "attention.npy")
    env = dict(os.environ, OMP_NUM_THREADS=str(args.threads))
    results = []
    for n in [int(t) for t in args.tokens.split(",")]:
        ids = ",".join(str(1 if i == 0 else 1000 + (i * 7919) % 120000) for i in range(n))
        flops = 2.0 * non_embedding * n + 2.0 * n * n * d * H * L
        flops_done = flops - 2.0 * last_mlp * n  # AttnScope skips the last layer's MLP for attention only
        sides = []
        for kind in kinds:
            # attention has no thread option: it takes every core (2 on the machine the issue measured).
            sides.append(("attnscope", kind, [args.attnscope, "attention", "--model", files[kind], "--ids", ids,
                                              "--format", "npy", "--out", out, "--force"]))
            if script and kind != "bf16":
                sides.append(("llama.cpp", kind, ["node", script, files[kind], ids, str(args.threads)]))
        runs = {(side, kind): [] for side, kind, _ in sides}
        for _ in range(args.reps):
            for side, kind, command in sides:
                seconds, rss, cpu, stdout = timed(command, env=env)
                extra = json.loads(stdout.strip().splitlines()[-1]) if side == "llama.cpp" else {}
                runs[(side, kind)].append(dict(wall_s=seconds, rss_mib=rss / 1024, cpu_s=cpu, **extra))
            loads.append(load_average())
        for (side, kind), rs in runs.items():
            line = dict(bench="gguf_llamacpp", side=side, kind=kind, tokens=n, reps=args.reps,
                        median_s=statistics.median(r["wall_s"] for r in rs), all_s=[round(r["wall_s"], 3) for r in rs],
                        median_cpu_s=statistics.median(r["cpu_s"] for r in rs),
                        peak_rss_mib=max(r["rss_mib"] for r in rs), gflop=flops / 1e9)
            if side == "llama.cpp":
                line.update(median_eval_s=statistics.median(r["eval_s"] for r in rs),
                            median_eval_cpu_s=statistics.median(r["eval_cpu_s"] for r in rs),
                            median_load_s=statistics.median(r["load_s"] for r in rs),
                            threads=rs[0].get("threads"), build=rs[0].get("build"))
            else:
                line.update(gflop_done=flops_done / 1e9)
            results.append(line)
            print(json.dumps(line), flush=True)
    peaks.append(fma_peak(args.bench_attention, args.threads))
    peak = max(peaks)
    print(json.dumps(dict(bench="gguf_llamacpp", fma_peak_gflops=peaks, load_average=loads)), flush=True)

    by = {(r["side"], r["kind"], r["tokens"]): r for r in results}
    print(f"\nFMA peak {peak:.0f} GFLOP/s ({args.threads} threads; measured {peaks}); load average per round {loads}")
    # On a shared machine the wall time is mostly waiting for a core: CPU time (user + system, all threads)
    # is given beside it, AttnScope's for the whole process, llama.cpp's for the evaluation alone.
    print("| weights | tokens | AttnScope wall s (CPU s) | llama.cpp eval wall s (CPU s) [whole process] |"
          " AttnScope / llama.cpp eval, wall (CPU) | AttnScope / bf16, wall (CPU) |"
          " share of FMA peak, AttnScope / llama.cpp eval (wall) |")
    print("|---|---|---|---|---|---|---|")
    for n in [int(t) for t in args.tokens.split(",")]:
        bf16 = by.get(("attnscope", "bf16", n))
        for kind in kinds:
            a = by.get(("attnscope", kind, n))
            peer = by.get(("llama.cpp", kind, n))
            if not a:
                continue
            cells = [kind, str(n), f"{a['median_s']:.2f} ({a['median_cpu_s']:.2f})",
                     (f"{peer['median_eval_s']:.2f} ({peer['median_eval_cpu_s']:.2f}) [{peer['median_s']:.2f}]"
                      if peer else "–"),
                     (f"{a['median_s'] / peer['median_eval_s']:.2f}× ({a['median_cpu_s'] / peer['median_eval_cpu_s']:.2f}×)"
                      if peer else "–"),
                     (f"{a['median_s'] / bf16['median_s']:.2f}× ({a['median_cpu_s'] / bf16['median_cpu_s']:.2f}×)"
                      if bf16 else "–"),
                     f"{a['gflop_done'] / a['median_s'] / peak:.0%} / "
                     + (f"{peer['gflop'] / peer['median_eval_s'] / peak:.0%}" if peer else "–")]
            print("| " + " | ".join(cells) + " |")

if __name__ == "__main__":
    main()
