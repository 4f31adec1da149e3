#!/usr/bin/python3
"""StreamingLLM experiment (Xiao et al., ICLR 2024) on a built-in decoder, in plain torch.

  check_streaming.py --model resources/models/tiny-llama-en-tr --text-file heldout.txt \
                     [--cache 256] [--sinks 0,1,2,4,8] [--format eos|joined|plain] [--out result.json]

The text is one paragraph per line. --format eos (default) feeds the 2026-11 decoder what it was trained
on: <s> p1 </s> p2 </s> ...; --format joined the format of train.py --join: <s> p1 p2 ... (the lines
joined by one space); --format plain what a tokenizer gives for the whole file (<s> + text, line breaks
as they tokenize). Every policy yields the negative log-likelihood (nats) of every token
after the first, predicted from what that policy lets the model see:

* dense: one growing KV cache, positions 0..N-1 (past the model's positions RoPE extrapolates:
  the paper's "dense attention" baseline; only its first `max_position_embeddings` predictions are
  within the model's range).
* recompute: sliding window with re-computation (the paper's gold standard). The prediction of
  token t comes from a fresh forward pass over the previous `cache` tokens, positions 0..cache-1.
* recompute+bos: the same with <s> in front of the last cache-1 tokens (extra row: this model was
  always trained with <s> first).
* sinks k + window: a KV cache of `cache` entries (the current token included): the first k tokens
  and the most recent cache-k. Keys are cached *before* RoPE and rotated at every step by their slot
  in the cache, the query by its own slot: "positions assigned inside the cache", as the paper does.
  k = 0 is window attention with eviction (for RoPE, slot positions and original positions give the
  same scores, since only the difference matters).

Self-checks (asserted): the cached decoder equals models.Llama's full forward over the first tokens;
window attention with slot positions equals window attention with original positions.
"""
import argparse, json, math, os, sys, time

for _v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")
import numpy as np
import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from export import load_f64  # noqa: E402
from models import rotate_half  # noqa: E402
from train import encode_ref  # noqa: E402

BOS, EOS = 1, 2


def load_decoder(folder, dtype):
    cfg_hf = json.load(open(os.path.join(folder, "config.json")))
    keys = ("hidden_size", "num_hidden_layers", "num_attention_heads", "num_key_value_heads", "intermediate_size",
            "max_position_embeddings", "rms_norm_eps", "rope_theta", "initializer_range", "vocab_size")
    cfg = {k: cfg_hf[k] for k in keys}
    model = load_f64("dec", cfg, os.path.join(folder, "model.safetensors"))  # F16 file -> float64
    if dtype == "float32":
        torch.set_default_dtype(torch.float32)
        model = model.float()
    return model, cfg


def rope_table(model, n):
    return model.rope(n, model.model.embed_tokens.weight.dtype)  # [n, hd] each


class KVCache:
    """Per layer: keys before RoPE and values, [n_kv, n, hd]; the token ids they belong to."""

    def __init__(self, L):
        self.k = [None] * L
        self.v = [None] * L
        self.pos = []  # original position of each cached token

    def append(self, l, k, v):
        self.k[l] = k if self.k[l] is None else torch.cat([self.k[l], k], 1)
        self.v[l] = v if self.v[l] is None else torch.cat([self.v[l], v], 1)

    def evict(self, index):
        for l in range(len(self.k)):
            self.k[l] = torch.cat([self.k[l][:, :index], self.k[l][:, index + 1:]], 1)
            self.v[l] = torch.cat([self.v[l][:, :index], self.v[l][:, index + 1:]], 1)
        del self.pos[index]


def stream(model, ids, cache_size, sinks, slot_positions=True, want_first=None):
    """Token-by-token decoding with a KV cache of at most cache_size entries (None: unbounded).
    Returns nll[t] for t = 1..N-1 (prediction of ids[t]) and, if want_first, the attention
    probabilities of the first `want_first` steps (for the self-check)."""
    c = model.c
    L, nh, nkv = c["num_hidden_layers"], c["num_attention_heads"], c["num_key_value_heads"]
    hd = c["hidden_size"] // nh
    rep = nh // nkv
    n_table = (cache_size if slot_positions and cache_size else len(ids)) + 1
    cos, sin = rope_table(model, n_table)
    cache = KVCache(L)
    nll = np.zeros(len(ids) - 1)
    logits_first = []
    with torch.no_grad():
        for t, tok in enumerate(ids):
            cache.pos.append(t)
            if cache_size is not None and len(cache.pos) > cache_size:
                evict_at = sinks  # oldest token that is not a sink
                cache.evict(evict_at)  # drop it from every layer before this token's K/V are added
            n = len(cache.pos)
            kpos = torch.arange(n) if slot_positions else torch.tensor(cache.pos)
            qpos = kpos[-1:]
            x = model.model.embed_tokens(torch.tensor([tok]))  # [1, H]
            for l, layer in enumerate(model.model.layers):
                att = layer.self_attn
                h = layer.input_layernorm(x)
                q = att.q_proj(h).view(nh, 1, hd)
                k = att.k_proj(h).view(nkv, 1, hd)
                v = att.v_proj(h).view(nkv, 1, hd)
                cache.append(l, k, v)
                K = cache.k[l]
                K = K * cos[kpos] + rotate_half(K) * sin[kpos]
                q = q * cos[qpos] + rotate_half(q) * sin[qpos]
                K = K.repeat_interleave(rep, 0)
                V = cache.v[l].repeat_interleave(rep, 0)
                s = (q @ K.transpose(-1, -2)) / math.sqrt(hd)  # [nh, 1, n]
                p = s.softmax(-1)
                o = (p @ V).transpose(0, 1).reshape(1, nh * hd)
                x = x + att.o_proj(o)
                x = x + layer.mlp(layer.post_attention_layernorm(x))
            logits = model.lm_head(model.model.norm(x))[0]
            if want_first and t < want_first:
                logits_first.append(logits)
            if t + 1 < len(ids):
                nll[t] = float(torch.logsumexp(logits, -1) - logits[ids[t + 1]])
    return nll, logits_first


def last_logits(model, x):
    """models.Llama's forward over x [B, T], but only the logits of the last position (the last
    layer's attention and the head run for that query only): what re-computation needs."""
    c = model.c
    B, T = x.shape
    nh, nkv = c["num_attention_heads"], c["num_key_value_heads"]
    hd = c["hidden_size"] // nh
    dt = model.model.embed_tokens.weight.dtype
    cos, sin = model.rope(T, dt)
    mask_add = torch.full((T, T), torch.finfo(dt).min, dtype=dt).triu(1)
    h = model.model.embed_tokens(x)
    layers = model.model.layers
    for layer in layers[:-1]:
        h, _ = layer(h, cos, sin, mask_add)
    layer = layers[-1]
    att = layer.self_attn
    hn = layer.input_layernorm(h)
    q = att.q_proj(hn[:, -1:]).view(B, 1, nh, hd).transpose(1, 2)
    k = att.k_proj(hn).view(B, T, nkv, hd).transpose(1, 2)
    v = att.v_proj(hn).view(B, T, nkv, hd).transpose(1, 2)
    q = q * cos[-1:] + rotate_half(q) * sin[-1:]
    k = k * cos + rotate_half(k) * sin
    k = k.repeat_interleave(nh // nkv, dim=1)
    v = v.repeat_interleave(nh // nkv, dim=1)
    p = (q @ k.transpose(-1, -2) / math.sqrt(hd)).softmax(-1)
    o = (p @ v).transpose(1, 2).reshape(B, 1, nh * hd)
    y = h[:, -1:] + att.o_proj(o)
    y = y + layer.mlp(layer.post_attention_layernorm(y))
    return model.lm_head(model.model.norm(y))[:, 0]


def recompute(model, ids, window, keep_bos=False, batch=32):
    """Sliding window with re-computation: ids[t] is predicted from a fresh pass over the previous
    `window` tokens (positions 0..window-1); with keep_bos, <s> + the previous window-1 tokens."""
    N = len(ids)
    x = torch.tensor(ids)
    nll = np.zeros(N - 1)
    with torch.no_grad():
        head = x[: min(window, N)][None]
        logits, _ = model(head)
        lp = logits[0].log_softmax(-1)
        for t in range(1, head.shape[1]):
            nll[t - 1] = -float(lp[t - 1, ids[t]])
        targets = list(range(window, N))
        for b0 in range(0, len(targets), batch):
            ts = targets[b0:b0 + batch]
            if keep_bos:
                rows = [torch.cat([x[:1], x[t - window + 1:t]]) for t in ts]
            else:
                rows = [x[t - window:t] for t in ts]
            lp = last_logits(model, torch.stack(rows)).log_softmax(-1)
            for i, t in enumerate(ts):
                nll[t - 1] = -float(lp[i, ids[t]])
    return nll


def summary(nll, start_evict):
    """Perplexity over all predictions and over those made once the cache is full (target index
    >= cache, i.e. eviction has begun)."""
    after = nll[start_evict - 1:] if start_evict - 1 < len(nll) else nll[:0]
    return {"perplexity": float(np.exp(nll.mean())), "mean_nll": float(nll.mean()),
            "perplexity_after_eviction_starts": float(np.exp(after.mean())) if len(after) else None,
            "predictions": int(len(nll)), "predictions_after_eviction_starts": int(len(after))}


def tokenize_text(tok_path, paras, fmt, node_dir):
    if fmt == "eos":
        enc = encode_ref(tok_path, [[p, None] for p in paras], node_dir)
        ids = [BOS]
        for e in enc:
            assert e["ids"][0] == BOS
            ids += e["ids"][1:] + [EOS]
        return ids
    if fmt == "joined":
        enc = encode_ref(tok_path, [[" ".join(paras), None]], node_dir)
        return enc[0]["ids"]
    enc = encode_ref(tok_path, [["\n".join(paras), None]], node_dir)
    return enc[0]["ids"]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", required=True, help="HF folder (config.json, model.safetensors, tokenizer.json)")
    ap.add_argument("--text-file", required=True, help="one paragraph per line")
    ap.add_argument("--cache", type=int, default=256)
    ap.add_argument("--sinks", default="0,1,2,4,8")
    ap.add_argument("--format", choices=["eos", "joined", "plain"], default="eos")
    ap.add_argument("--max-tokens", type=int, default=None, help="use only the first N tokens")
    ap.add_argument("--dtype", choices=["float64", "float32"], default="float64")
    ap.add_argument("--no-dense", action="store_true", help="skip the dense (growing cache) run")
    ap.add_argument("--node-dir", default="/tmp/tok")
    ap.add_argument("--out", default=None, help="write the JSON result (with per-token NLL) here")
    ap.add_argument("--markdown", default=None, help="write the table and the criteria as Markdown here (docs/)")
    args = ap.parse_args()
    torch.set_num_threads(1)
    model, cfg = load_decoder(args.model, args.dtype)
    paras = [l.strip() for l in open(args.text_file, encoding="utf-8") if l.strip()]
    ids = tokenize_text(os.path.join(args.model, "tokenizer.json"), paras, args.format, args.node_dir)
    if args.max_tokens:
        ids = ids[: args.max_tokens]
    C = args.cache
    P = cfg["max_position_embeddings"]
    print(f"{args.text_file}: {len(ids)} tokens ({args.format}), cache {C}, model positions {P}", flush=True)
    if C > P:
        sys.exit(f"cache {C} > the model's {P} positions")

    # self-checks: cached decoding == full forward; slot positions == original positions for a window
    n0 = min(P, len(ids), 64 + C // 4)
    with torch.no_grad():
        full, _ = model(torch.tensor([ids[:n0]]))
    _, first = stream(model, ids[:n0], None, 0, want_first=n0)
    err = float((torch.stack(first) - full[0]).abs().max())
    with torch.no_grad():
        err_last = float((last_logits(model, torch.tensor([ids[:n0]]))[0] - full[0, -1]).abs().max())
    err = max(err, err_last)
    tol = 1e-9 if args.dtype == "float64" else 2e-4
    assert err < tol, f"cached decoding differs from the full forward by {err}"
    m = min(len(ids), C // 2 + 40)
    a, _ = stream(model, ids[:m], C // 2, 0, slot_positions=True)
    b, _ = stream(model, ids[:m], C // 2, 0, slot_positions=False)
    err2 = float(np.abs(a - b).max())
    # not exact: the RoPE table is computed in float32 (as transformers does), so rotating by a
    # different absolute angle rounds differently, at the 1e-7 level
    assert err2 < 1e-4, err2
    print(f"self-check: cached (and last-position) vs full forward max|dlogit| {err:.2e}; window slot vs original positions "
          f"max|dNLL| {err2:.2e}", flush=True)

    results = []

    def add(name, nll, secs, **extra):
        r = {"policy": name, **extra, **summary(nll, C), "seconds": round(secs, 1), "nll": np.round(nll, 5).tolist()}
        results.append(r)
        print(json.dumps({k: v for k, v in r.items() if k != "nll"}), flush=True)

    t0 = time.time()
    add("recompute", recompute(model, ids, C), time.time() - t0, window=C)
    t0 = time.time()
    add("recompute+bos", recompute(model, ids, C, keep_bos=True), time.time() - t0, window=C)
    for k in [int(s) for s in args.sinks.split(",")]:
        t0 = time.time()
        nll, _ = stream(model, ids, C, k)
        add("window" if k == 0 else "sinks+window", nll, time.time() - t0, sinks=k, window=C - k)
    if not args.no_dense:
        t0 = time.time()
        nll, _ = stream(model, ids, None, 0)
        add("dense", nll, time.time() - t0, within_positions=P - 1)
        r = results[-1]
        r["perplexity_within_positions"] = float(np.exp(nll[: P - 1].mean()))

    by = {(r["policy"], r.get("sinks")): r for r in results}
    ppl = lambda key, what="perplexity": by[key][what]  # noqa: E731
    criteria = {}
    for what in ("perplexity", "perplexity_after_eviction_starts"):
        if ("sinks+window", 4) in by and ("window", 0) in by:
            ratio_w = ppl(("window", 0), what) / ppl(("sinks+window", 4), what)
            ratio_r = ppl(("sinks+window", 4), what) / ppl(("recompute", None), what)
            criteria[what] = {
                "window_over_4sinks": ratio_w, "window_over_4sinks_ge_3": ratio_w >= 3.0,
                "4sinks_over_recompute": ratio_r, "4sinks_within_15pct_of_recompute": abs(ratio_r - 1.0) <= 0.15}
    out = {"model": os.path.abspath(args.model), "text_file": os.path.abspath(args.text_file), "format": args.format,
           "tokens": len(ids), "cache": C, "model_positions": P, "dtype": args.dtype,
           "self_check": {"cached_vs_full_max_abs_logit_diff": err, "window_slot_vs_original_max_abs_nll_diff": err2},
           "criteria": criteria, "policies": results}
    print(json.dumps(criteria, indent=1))
    lines = ["| policy | sinks | recent | perplexity | after eviction starts |", "|---|---|---|---|---|"]
    for r in results:
        lines.append(f"| {r['policy']} | {r.get('sinks', '')} | {r.get('window', '')} | {r['perplexity']:.2f} | "
                     f"{(r['perplexity_after_eviction_starts'] or float('nan')):.2f} |")
    print("\n".join(lines))
    if args.markdown:
        c = criteria.get("perplexity", {})
        with open(args.markdown, "w", encoding="utf-8") as fh:
            fh.write(f"# StreamingLLM on {os.path.basename(args.model)}\n\n"
                     f"Written by `tools/train-builtin-models/check_streaming.py`: {os.path.basename(args.text_file)}, "
                     f"{len(ids)} tokens ({args.format} format), KV cache of {C} entries (the current token "
                     f"included), {args.dtype}. Perplexity over all {len(ids) - 1} predictions and over those "
                     f"made once the cache is full.\n\n" + "\n".join(lines) + "\n\n"
                     f"- window / (4 sinks + {C - 4}): {c.get('window_over_4sinks', float('nan')):.3f} (issue 16: >= 3)\n"
                     f"- (4 sinks + {C - 4}) / re-computation: {c.get('4sinks_over_recompute', float('nan')):.3f} "
                     f"(issue 16: within 15%)\n")
    if args.out:
        json.dump(out, open(args.out, "w"), indent=1)


if __name__ == "__main__":
    main()
