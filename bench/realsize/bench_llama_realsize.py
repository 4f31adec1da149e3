#!/usr/bin/python3
"""Llama at its real size (issue 15, point 4): a random-weight BF16 folder with Llama-3.2-1B's (or
Llama-3.1-8B's) real config.json, every layer's attention through `attnscope attention` as a whole process
(npy out), side by side in the same run with upstream transformers' eager float32 forward with
output_attentions=True on the same shape and ids; wall time, peak RSS (/usr/bin/time -v) and the fraction
of the machine's FMA peak.

    cd /work/oracle && . ./env.sh && cd -        # transformers from the oracle kit (PYTHONPATH)
    /usr/bin/python3 bench/realsize/bench_llama_realsize.py --shape 1b --tokens 128,512 --reps 3 \\
        --attnscope build/dev/app/attnscope --dir /tmp/llama-1b-random --peak-gflops 300 \\
        --transformers-openblas default,SkylakeX

--peak-gflops: the two cores' FMA peak measured that hour (build/dev/bench/bench_attention --json prints its
"fma_peak"); 300 is what they gave on 2026-12-02, not the 574 of the issue's text.

--attnscope before=OLD,after=NEW compares two builds (LABEL=BINARY@SkylakeX sets OPENBLAS_CORETYPE for one);
every side runs once per round (interleaved).
torch (Debian's 1.13) computes with the system's OpenBLAS too, so --transformers-openblas also measures it
with the kernels that fit the CPU (OpenBLAS 0.3.21 falls back to Prescott's on CPUs newer than itself).

--shape 8b writes a 16 GB folder and transformers' float32 copy needs ~32 GB: run it only on a machine
with that much free memory (--skip-transformers keeps AttnScope's side alone, peak RSS target ≤ 18 GB).
Prints one JSON line per measurement.
"""
import argparse
import json
import os
import re
import statistics
import struct
import subprocess
import sys
import tempfile
import time

import numpy as np

# The published config.json of meta-llama/Llama-3.2-1B and meta-llama/Llama-3.1-8B.
SHAPES = {
    "1b": dict(vocab_size=128256, hidden_size=2048, intermediate_size=8192, num_hidden_layers=16,
               num_attention_heads=32, num_key_value_heads=8, head_dim=64, tie_word_embeddings=True,
               rope_scaling=dict(rope_type="llama3", factor=32.0, low_freq_factor=1.0, high_freq_factor=4.0,
                                 original_max_position_embeddings=8192)),
    "8b": dict(vocab_size=128256, hidden_size=4096, intermediate_size=14336, num_hidden_layers=32,
               num_attention_heads=32, num_key_value_heads=8, head_dim=128, tie_word_embeddings=False,
               rope_scaling=dict(rope_type="llama3", factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,
                                 original_max_position_embeddings=8192)),
}


def config_of(shape):
    c = dict(architectures=["LlamaForCausalLM"], model_type="llama", hidden_act="silu",
             max_position_embeddings=131072, rms_norm_eps=1e-5, rope_theta=500000.0, attention_bias=False,
             mlp_bias=False, bos_token_id=128000, eos_token_id=128001, torch_dtype="bfloat16")
    c.update(SHAPES[shape])
    return c


def tensors_of(c):
    h, I, V = c["hidden_size"], c["intermediate_size"], c["vocab_size"]
    H, KV, d = c["num_attention_heads"], c["num_key_value_heads"], c["head_dim"]
    out = [("model.embed_tokens.weight", (V, h))]
    for l in range(c["num_hidden_layers"]):
        p = f"model.layers.{l}."
        out += [(p + "input_layernorm.weight", (h,)), (p + "self_attn.q_proj.weight", (H * d, h)),
                (p + "self_attn.k_proj.weight", (KV * d, h)), (p + "self_attn.v_proj.weight", (KV * d, h)),
                (p + "self_attn.o_proj.weight", (h, H * d)), (p + "post_attention_layernorm.weight", (h,)),
                (p + "mlp.gate_proj.weight", (I, h)), (p + "mlp.up_proj.weight", (I, h)),
                (p + "mlp.down_proj.weight", (h, I))]
    out.append(("model.norm.weight", (h,)))
    if not c["tie_word_embeddings"]:
        out.append(("lm_head.weight", (V, h)))
    return out


def write_folder(folder, shape, sparse=False):
    """Random BF16 weights (normal, std 0.02; norms 1), written tensor by tensor: never the whole model in memory.

    sparse: the matrices are left as holes of the file (zeros; no disk blocks), only the norms written. For the
    8B shape on a disk without 16 GB free: the timing and the memory do not depend on the values (reading a
    hole still fills the page cache), but every activation is then 0 and the attention uniform."""
    c = config_of(shape)
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, "model.safetensors")
    tensors = tensors_of(c)
    header, offset = {}, 0
    for name, dims in tensors:
        n = int(np.prod(dims))
        header[name] = dict(dtype="BF16", shape=list(dims), data_offsets=[offset, offset + 2 * n])
        offset += 2 * n
    if os.path.exists(path) and os.path.getsize(path) > offset:
        return c
    blob = json.dumps(header).encode()
    blob += b" " * (-len(blob) % 8)
    # One block of 16 Mi random normals (std 0.02, truncated to bf16), written at a different rotation for
    # each chunk: drawing 1-8 billion normals would take longer than the benchmark, and timing does not
    # depend on the values.
    rng = np.random.default_rng(0)
    block = ((rng.standard_normal(1 << 24, dtype=np.float32) * np.float32(0.02)).view(np.uint32) >> 16).astype(np.uint16)
    one = np.full(1 << 24, 0x3F80, np.uint16)  # bf16 1.0 for the norms
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(blob)))
        f.write(blob)
        if sparse:
            base = 8 + len(blob)
            for name, dims in tensors:
                if len(dims) == 1:
                    f.seek(base + header[name]["data_offsets"][0])
                    f.write(one[:dims[0]].tobytes())
            f.truncate(base + offset)
            tensors = []
        for index, (name, dims) in enumerate(tensors):
            n = int(np.prod(dims))
            for start in range(0, n, 1 << 24):
                count = min(1 << 24, n - start)
                if len(dims) == 1:
                    f.write(one[:count].tobytes())
                    continue
                shift = (index * 7919 + start // 4099) % (1 << 24)
                rotated = np.concatenate((block[shift:], block[:shift]))
                f.write(rotated[:count].tobytes())
    with open(os.path.join(folder, "config.json"), "w") as f:
        json.dump(c, f, indent=2)
    return c


def rss_kib(pid):
    """Resident KiB of a process and its children (0 once gone)."""
    total = 0
    try:
        with open(f"/proc/{pid}/status") as f:
            total += int(next((l.split()[1] for l in f if l.startswith("VmRSS:")), 0))
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            total += sum(rss_kib(int(child)) for child in f.read().split())
    except (OSError, ValueError):
        pass
    return total


def timed(command, env=None, rss_limit_mib=0):
    """Whole-process wall seconds and peak RSS (KiB) from /usr/bin/time -v. With rss_limit_mib the process is
    killed when it grows past that (the team's memory rule on a shared machine): None is returned then."""
    process = subprocess.Popen(["/usr/bin/time", "-v"] + command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, env=env)
    if rss_limit_mib:
        while process.poll() is None:
            if rss_kib(process.pid) > rss_limit_mib * 1024:
                process.kill()
                subprocess.run(["pkill", "-KILL", "-P", str(process.pid)])
                process.communicate()
                print(json.dumps(dict(killed=command[:3], over_mib=rss_limit_mib)), flush=True)
                return None
            time.sleep(0.2)
    stdout, stderr = process.communicate()
    if process.returncode != 0:
        sys.exit(f"failed: {' '.join(command[:3])}...\n{stderr[-2000:]}")
    wall = re.search(r"Elapsed \(wall clock\) time.*: (?:(\d+):)?(\d+):([\d.]+)", stderr)
    seconds = (int(wall.group(1) or 0) * 3600 + int(wall.group(2)) * 60 + float(wall.group(3)))
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", stderr).group(1))
    cpu = sum(float(x) for x in re.findall(r"(?:User|System) time \(seconds\): ([\d.]+)", stderr))
    return seconds, rss, cpu, stdout


TRANSFORMERS_RUN = r"""
import json, struct, sys, time, numpy as np, torch
from transformers import LlamaConfig, LlamaForCausalLM
from transformers.modeling_utils import no_init_weights
config_path, weights, ids_text, threads = sys.argv[1:5]
torch.set_num_threads(int(threads))
config = json.load(open(config_path))
config.pop("rope_scaling", None)  # transformers 4.36 predates rope_type llama3; the cost is the same
config.pop("head_dim", None)      # 4.36 derives it (hidden / heads, the same here)
# 4.36 precomputes RoPE's cos/sin for every position in every layer (1 GB at 131,072 positions): without
# rope scaling, positions past the input change nothing.
config["max_position_embeddings"] = 4096
cfg = LlamaConfig(**config)
cfg._attn_implementation = "eager"
with no_init_weights():
    model = LlamaForCausalLM(cfg)  # float32, as upstream computes
model.tie_weights()
params = dict(model.named_parameters())
# The bf16 file read in pieces with plain reads (not mapped: mapped pages would count in this process's RSS
# on top of the float32 model, and push it past the shared machine's 8 GB rule).
with open(weights, "rb") as fh:
    length = struct.unpack("<Q", fh.read(8))[0]
    header, base = json.loads(fh.read(length)), 8 + length
    for name, meta in header.items():
        if name == "__metadata__":
            continue
        begin, end = meta["data_offsets"]
        target, count, piece = params[name].data.view(-1), (end - begin) // 2, 1 << 24
        for start in range(0, count, piece):
            n = min(piece, count - start)
            fh.seek(base + begin + 2 * start)
            raw = np.frombuffer(fh.read(2 * n), dtype=np.uint16)
            target[start:start + n].copy_(torch.from_numpy((raw.astype(np.uint32) << 16).view(np.float32)))
model.eval()
ids = torch.tensor([[int(x) for x in ids_text.split(",")]])
with torch.no_grad():
    start = time.perf_counter()
    out = model(ids, output_attentions=True, use_cache=False)
    forward = time.perf_counter() - start
print(json.dumps(dict(forward_s=forward, layers=len(out.attentions))))
"""


def environment(openblas_core):
    """os.environ with OPENBLAS_CORETYPE removed ("default": the program's own choice) or set."""
    env = dict(os.environ)
    env.pop("OPENBLAS_CORETYPE", None)
    if openblas_core != "default":
        env["OPENBLAS_CORETYPE"] = openblas_core
    return env


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--shape", choices=sorted(SHAPES), default="1b")
    parser.add_argument("--tokens", default="128,512")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--attnscope", default="build/dev/app/attnscope",
                        help="binary, or LABEL=BINARY,LABEL=BINARY,... (e.g. before=/tmp/old/attnscope,after=...)")
    parser.add_argument("--transformers-openblas", default="default",
                        help="OPENBLAS_CORETYPE for transformers' runs, comma-separated: default (unset), SkylakeX, ...")
    parser.add_argument("--dir", default=None)
    parser.add_argument("--peak-gflops", type=float, default=0.0, help="measured fp32 FMA peak (bench_attention)")
    parser.add_argument("--skip-transformers", action="store_true")
    parser.add_argument("--sparse", action="store_true",
                        help="leave the matrices as holes in the file (zeros): for the 8B shape on a small disk")
    parser.add_argument("--rss-limit-mib", type=int, default=7800, help="kill transformers' run past this (0: none)")
    args = parser.parse_args()
    folder = args.dir or os.path.join(tempfile.gettempdir(), f"llama-{args.shape}-random")
    c = write_folder(folder, args.shape, args.sparse)
    weights = os.path.join(folder, "model.safetensors")
    weight_bytes = os.path.getsize(weights)
    H, d, L = c["num_attention_heads"], c["head_dim"], c["num_hidden_layers"]
    non_embedding = sum(int(np.prod(s)) for n, s in tensors_of(c) if "embed" not in n and "lm_head" not in n)
    out = os.path.join(tempfile.gettempdir(), "bench-llama-attention.npy")
    # LABEL=BINARY[@OPENBLAS_CORETYPE]: a build, optionally with OpenBLAS's kernels named by hand.
    binaries = []
    for item in args.attnscope.split(","):
        label, binary = item.split("=", 1) if "=" in item else ("attnscope", item)
        binary, core = binary.split("@", 1) if "@" in binary else (binary, "default")
        binaries.append((label, binary, core))
    cores = [] if args.skip_transformers else args.transformers_openblas.split(",")
    for n in [int(t) for t in args.tokens.split(",")]:
        ids = ",".join(str(128000 if i == 0 else 1000 + (i * 7919) % 120000) for i in range(n))
        # Projections and MLP 2·params·n, attention 4·n²·d·H halved for causal.
        flops = 2.0 * non_embedding * n + 2.0 * n * n * d * H * L
        # AttnScope asked for attention only skips the last layer's MLP (LayerStep::restOfLayerUnused), so its
        # share of the peak is also given on the work it does; transformers does the whole forward.
        last_mlp = 3 * c["hidden_size"] * c["intermediate_size"]
        flops_done = flops - 2.0 * last_mlp * n
        # Every side once per round, so that all of them see the same machine.
        sides = [("attnscope:" + label, [binary, "attention", "--model", folder, "--ids", ids, "--format", "npy",
                                         "--out", out, "--force"], environment(core)) for label, binary, core in binaries]
        sides += [("transformers_eager_f32:openblas=" + core,
                   [sys.executable, "-c", TRANSFORMERS_RUN, os.path.join(folder, "config.json"), weights, ids,
                    str(args.threads)], environment(core)) for core in cores]
        runs = {name: [] for name, _, _ in sides}
        for _ in range(args.reps):
            for name, command, env in sides:
                result = timed(command, env=env, rss_limit_mib=0 if name.startswith("attnscope") else args.rss_limit_mib)
                if result:
                    runs[name].append(result)
        for name, _, _ in sides:
            if not runs[name]:
                continue
            walls = [r[0] for r in runs[name]]
            line = dict(bench="llama_realsize", shape=args.shape, side=name, tokens=n, reps=args.reps,
                        median_s=statistics.median(walls), all_s=[round(w, 3) for w in walls],
                        median_cpu_s=statistics.median(r[2] for r in runs[name]),
                        peak_rss_mib=max(r[1] for r in runs[name]) / 1024, gflop=flops / 1e9)
            if name.startswith("attnscope"):
                line.update(weights_mib=weight_bytes / 2**20,
                            rss_over_weights=line["peak_rss_mib"] * 2**20 / weight_bytes,
                            gflop_done=flops_done / 1e9)
                if args.peak_gflops:
                    line["fraction_of_fma_peak_on_work_done"] = flops_done / 1e9 / line["median_s"] / args.peak_gflops
            else:
                line["median_forward_s"] = statistics.median(
                    json.loads(r[3].strip().splitlines()[-1])["forward_s"] for r in runs[name])
            if args.peak_gflops:
                line["fraction_of_fma_peak"] = flops / 1e9 / line["median_s"] / args.peak_gflops
            print(json.dumps(line), flush=True)


if __name__ == "__main__":
    main()
