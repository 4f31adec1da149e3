#!/usr/bin/python3
"""Train AttnScope's built-in tiny encoder (BERT, MLM + NSP) or decoder
(Llama, next-token prediction). One torch thread; deterministic; resumable.

  train.py --model enc|dec --work DIR [--resume] [--steps N] [--stop-at HH:MM]

Checkpoints: DIR/ckpt_<step>.pt (every --ckpt-every steps) and DIR/last.pt.
Log: DIR/log.jsonl (train loss every 50 steps, eval + phenomena every --eval-every).

Recipe flags beyond the 2026-11 defaults (each is recorded in meta.json and in every checkpoint's
"hp" only when given, so checkpoints of the default recipe still resume):
  --positions N       max_position_embeddings (and the decoder's sequence length, unless --seq-len)
  --seq-len/--batch   sequence length and sequences per step
  dec: --bos-prob P   fraction of sequences that are <s> + paragraphs from a paragraph start (the
                      default 1.0); the others are a window of the token stream starting at any token,
                      without <s> (packed pre-training style)
       --join         paragraphs joined without the </s> between them (<s> p1 p2 ...): the stored stream
                      with every </s> dropped, which is the tokenization of the paragraphs joined by one
                      space (check_join_tokenization.py); then <s> is the only token every sequence shares
  --init PATH         start from these weights (an exported model folder or a train.py checkpoint) with a
                      fresh optimizer and schedule; the architecture must match apart from the positions
  enc: --single-prob P  fraction of [CLS] A [SEP] inputs (no NSP label) among the [CLS] A [SEP] B [SEP]
                      pairs; half of these singles are one sentence
       --long-every K --long-seq-len T --long-batch B: every K-th step is a batch of B sequences of T
                      tokens (BERT trained 90% of its steps at 128 tokens and the rest at 512)
"""
import argparse, datetime, json, math, os, subprocess, sys, tempfile, time
# one compute thread per model: torch.set_num_threads(1) does not limit the
# OpenBLAS pool of Debian's torch/numpy, so pin it before they are imported
for _v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_v] = "1"
import numpy as np
import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from models import Bert, Llama  # noqa: E402

ENC_CONFIG = dict(hidden_size=128, num_hidden_layers=6, num_attention_heads=8, intermediate_size=512,
                  max_position_embeddings=128, type_vocab_size=2, layer_norm_eps=1e-12, pad_token_id=0,
                  initializer_range=0.02, hidden_act="gelu", vocab_size=8000)
DEC_CONFIG = dict(hidden_size=128, num_hidden_layers=4, num_attention_heads=8, num_key_value_heads=4,
                  intermediate_size=352, max_position_embeddings=256, rms_norm_eps=1e-5, rope_theta=10000.0,
                  initializer_range=0.02, hidden_act="silu", vocab_size=4096, bos_token_id=1, eos_token_id=2)

HP = {
    "enc": dict(seq_len=128, batch=32, lr=2e-3, warmup=500, steps=7000, wd=0.01, mlm_prob=0.15,
                short_seq_prob=0.1, nsp=True),
    "dec": dict(seq_len=256, batch=16, lr=2e-3, warmup=500, steps=6000, wd=0.1),
}
SEED = 1234
CLS, SEP, MASK, PAD = 2, 3, 4, 0
BOS, EOS = 1, 2


def encode_ref(tok_path, items, node_dir):
    """Tokenize with the reference implementation (npm tokenizers via node)."""
    with tempfile.TemporaryDirectory() as td:
        i, o = os.path.join(td, "in.json"), os.path.join(td, "out.json")
        json.dump(items, open(i, "w"), ensure_ascii=False)
        env = dict(os.environ, NODE_PATH=os.path.join(node_dir, "node_modules"))
        subprocess.run(["node", os.path.join(HERE, "encode.js"), tok_path, i, o], check=True, env=env)
        return json.load(open(o))


# ---------------------------------------------------------------- data

class EncData:
    def __init__(self, cache, split):
        self.ids = np.load(os.path.join(cache, f"enc_{split}_ids.npy")).astype(np.int64)
        self.offs = np.load(os.path.join(cache, f"enc_{split}_offs.npy"))
        self.doc = np.load(os.path.join(cache, f"enc_{split}_doc.npy"))
        self.n = len(self.doc)

    def sent(self, i):
        return self.ids[self.offs[i]:self.offs[i + 1]]

    def single(self, rng, T):
        """[CLS] A [SEP]: one sentence (half the time) or a run of consecutive sentences."""
        maxn = T - 2
        i = int(rng.integers(self.n))
        while not len(self.sent(i)):
            i = int(rng.integers(self.n))
        if rng.random() < 0.5:
            A = list(self.sent(i))
        else:
            target = int(rng.integers(2, maxn + 1))
            A, j = [], i
            while j < self.n and self.doc[j] == self.doc[i] and len(A) < target:
                A += list(self.sent(j))
                j += 1
        if len(A) > maxn:  # keep a random window of maxn tokens
            a = int(rng.integers(len(A) - maxn + 1))
            A = A[a:a + maxn]
        ids = [CLS] + A + [SEP]
        return ids, [0] * len(ids), -100  # no NSP label

    def instance(self, rng, T, short_p):
        maxn = T - 3
        target = maxn if rng.random() >= short_p else int(rng.integers(2, maxn + 1))
        while True:
            i = int(rng.integers(self.n))
            chunk, tot, j = [], 0, i
            while j < self.n and self.doc[j] == self.doc[i] and tot < target:
                s = self.sent(j)
                if len(s):
                    chunk.append(s)
                    tot += len(s)
                j += 1
            if chunk:
                break
        if len(chunk) >= 2:
            a_end = int(rng.integers(1, len(chunk)))
        else:
            a_end = 1
        A = np.concatenate(chunk[:a_end])
        if len(chunk) >= 2 and rng.random() < 0.5:
            Bs, label = np.concatenate(chunk[a_end:]), 0  # IsNext (HF label 0)
        else:
            label = 1  # NotNext: B from a random other document
            need = max(1, target - len(A))
            for _ in range(10):
                k = int(rng.integers(self.n))
                if self.doc[k] != self.doc[i]:
                    break
            parts, tot = [], 0
            while k < self.n and tot < need:
                s = self.sent(k)
                parts.append(s)
                tot += len(s)
                k += 1
            Bs = np.concatenate(parts) if parts else np.zeros(0, np.int64)
        A, Bs = list(A), list(Bs)
        while len(A) + len(Bs) > target:  # BERT's truncate_seq_pair
            t = A if len(A) > len(Bs) else Bs
            if rng.random() < 0.5:
                del t[0]
            else:
                t.pop()
        if not A:
            A = [Bs.pop(0)] if len(Bs) > 1 else [MASK]
        if not Bs:
            Bs = [A.pop()] if len(A) > 1 else [MASK]
        ids = [CLS] + A + [SEP] + Bs + [SEP]
        tt = [0] * (len(A) + 2) + [1] * (len(Bs) + 1)
        return ids, tt, label

    def batch(self, rng, B, T, mlm_prob, short_p, V, single_p=0.0):
        ids = np.zeros((B, T), np.int64)
        tt = np.zeros((B, T), np.int64)
        am = np.zeros((B, T), np.int64)
        labels = np.full((B, T), -100, np.int64)
        nsp = np.zeros(B, np.int64)
        for b in range(B):
            if single_p > 0 and rng.random() < single_p:
                x, t, lab = self.single(rng, T)
            else:
                x, t, lab = self.instance(rng, T, short_p)
            x = np.array(x)
            n = len(x)
            cand = np.nonzero((x != CLS) & (x != SEP))[0]
            k = max(1, int(round(len(cand) * mlm_prob)))
            pos = rng.permutation(cand)[:k]
            labels[b, pos] = x[pos]
            r = rng.random(len(pos))
            x[pos[r < 0.8]] = MASK
            rnd = pos[(r >= 0.8) & (r < 0.9)]
            x[rnd] = rng.integers(5, V, size=len(rnd))
            ids[b, :n], tt[b, :n], am[b, :n], nsp[b] = x, t, 1, lab
        return [torch.from_numpy(a) for a in (ids, tt, am, labels, nsp)]


class DecData:
    def __init__(self, cache, split, T, join=False):
        self.ids = np.load(os.path.join(cache, f"dec_{split}_ids.npy")).astype(np.int64)
        st = np.load(os.path.join(cache, f"dec_{split}_starts.npy"))
        if join:  # drop every </s>; a paragraph start moves to its index in the shortened stream
            keep = self.ids != EOS
            st = (np.cumsum(keep) - 1)[st]  # a paragraph never starts with </s> (no empty paragraphs)
            self.ids = self.ids[keep]
        self.starts = st[st + T - 1 <= len(self.ids)]

    def batch(self, rng, B, T, bos_prob=1.0):
        if bos_prob >= 1.0:  # the 2026-11 recipe, draw for draw
            s = self.starts[rng.integers(len(self.starts), size=B)]
            x = np.stack([np.concatenate([[BOS], self.ids[a:a + T - 1]]) for a in s])
            return torch.from_numpy(x)
        rows = []
        for _ in range(B):
            if rng.random() < bos_prob:
                a = int(self.starts[rng.integers(len(self.starts))])
                rows.append(np.concatenate([[BOS], self.ids[a:a + T - 1]]))
            else:  # any token of the stream, no <s>
                a = int(rng.integers(len(self.ids) - T + 1))
                rows.append(self.ids[a:a + T])
        return torch.from_numpy(np.stack(rows))


# ---------------------------------------------------------------- phenomena

def dec_sink(model, probe_ids):
    """Per (layer, head): mean over probes of the mean attention on position 0
    (BOS) over query positions >= 4."""
    acc = None
    with torch.no_grad():
        for ids in probe_ids:
            _, probs = model(torch.tensor([ids]), need_probs=True)
            P = torch.stack([p[0] for p in probs]).double()  # L,H,n,n
            v = P[:, :, 4:, 0].mean(-1)
            acc = v if acc is None else acc + v
    return (acc / len(probe_ids)).numpy()


def enc_sep(model, probes):
    """Per (layer, head): mean over probes and over non-special query tokens of
    the total attention mass on all [SEP] tokens of the input."""
    acc = None
    with torch.no_grad():
        for e in probes:
            ids = torch.tensor([e["ids"]])
            tt = torch.tensor([e["type_ids"]])
            am = torch.ones_like(ids)
            _, probs = model(ids, tt, am, need_probs=True)
            P = torch.stack([p[0] for p in probs]).double()
            x = ids[0]
            sep = x == SEP
            q = (x != SEP) & (x != CLS)
            v = P[:, :, q][:, :, :, sep].sum(-1).mean(-1)
            acc = v if acc is None else acc + v
    return (acc / len(probes)).numpy()


def stream_proxy(model, ids, cache=256):
    """Perplexity of the predictions made once a 256-entry KV cache is full, for window attention,
    4 sinks + 252 recent (StreamingLLM) and sliding window with re-computation."""
    from check_streaming import recompute, stream  # lazy: check_streaming imports this module
    out = {}
    for name, nll in (("window", stream(model, ids, cache, 0)[0]), ("sinks4", stream(model, ids, cache, 4)[0]),
                      ("recompute", recompute(model, ids, cache))):
        out[name] = round(float(np.exp(nll[cache - 1:].mean())), 3)
    out["window_over_sinks4"] = round(out["window"] / out["sinks4"], 3)
    out["sinks4_over_recompute"] = round(out["sinks4"] / out["recompute"], 3)
    return out


def best(m, middle_only=False):
    L = m.shape[0]
    rows = range(1, L - 1) if middle_only else range(L)
    l, h = max(((l, h) for l in rows for h in range(m.shape[1])), key=lambda t: m[t])
    return {"layer": int(l), "head": int(h), "value": float(m[l, h])}


# ---------------------------------------------------------------- training

def lr_at(step, hp):
    if step < hp["warmup"]:
        return hp["lr"] * (step + 1) / hp["warmup"]
    t = min(1.0, (step - hp["warmup"]) / max(1, hp["steps"] - hp["warmup"]))
    return hp["lr"] * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * t)))


def load_init(model, kind, cfg, path):
    """Copy weights from an exported folder (model.safetensors) or a train.py checkpoint into model.
    max_position_embeddings may differ (the decoder has no position table: RoPE is computed)."""
    if os.path.isdir(path):
        from export import read_safetensors  # lazy: export imports this module
        sd = {k: v.float() for k, v in read_safetensors(os.path.join(path, "model.safetensors")).items()}
        src = json.load(open(os.path.join(path, "config.json")))
    else:
        ck = torch.load(path, map_location="cpu")
        sd, src = ck["model"], ck["config"]
    for key, val in cfg.items():
        if key != "max_position_embeddings" and key in src and src[key] != val:
            sys.exit(f"{path}: {key} is {src[key]}, this run has {val}")
    if kind == "enc" and src.get("max_position_embeddings") != cfg["max_position_embeddings"]:
        sys.exit(f"{path}: the encoder's position table has {src.get('max_position_embeddings')} rows")
    missing, unexpected = model.load_state_dict(sd, strict=False)
    assert not unexpected, unexpected
    assert all(k.startswith("bert.pooler.") or k.startswith("cls.seq_relationship.") for k in missing), missing
    print(f"initial weights from {path} ({len(sd)} tensors)", flush=True)


def make_model(kind, vocab_size, overrides=None):
    if kind == "enc":
        c = dict(ENC_CONFIG, vocab_size=vocab_size, **(overrides or {}))
        return Bert(c), c
    c = dict(DEC_CONFIG, vocab_size=vocab_size, **(overrides or {}))
    return Llama(c), c


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", choices=["enc", "dec"], required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--cache", default="/tmp/attnscope-corpus")
    ap.add_argument("--tokenizer", required=True)
    ap.add_argument("--node-dir", default="/tmp/tok")
    ap.add_argument("--resume", action="store_true")
    ap.add_argument("--steps", type=int, default=None, help="schedule length (default from HP)")
    ap.add_argument("--stop-step", type=int, default=None, help="stop (with checkpoint) at this step")
    ap.add_argument("--stop-at", default=None, help="UTC HH:MM: checkpoint and stop at this time")
    ap.add_argument("--eval-every", type=int, default=250)
    ap.add_argument("--ckpt-every", type=int, default=250)
    ap.add_argument("--bench", type=int, default=0, help="time N steps and exit")
    # recipe overrides (recorded in meta.json and in every checkpoint; --resume keeps the checkpoint's)
    ap.add_argument("--layers", type=int, default=None, help="num_hidden_layers")
    ap.add_argument("--heads", type=int, default=None, help="num_attention_heads")
    ap.add_argument("--lr", type=float, default=None, help="peak learning rate")
    ap.add_argument("--warmup", type=int, default=None, help="linear warm-up steps")
    ap.add_argument("--positions", type=int, default=None, help="max_position_embeddings")
    ap.add_argument("--seq-len", type=int, default=None, help="tokens per sequence (dec default: --positions)")
    ap.add_argument("--batch", type=int, default=None, help="sequences per step")
    ap.add_argument("--bos-prob", type=float, default=None, help="dec: fraction of sequences starting with <s>")
    ap.add_argument("--join", action="store_true", help="dec: paragraphs joined without </s> between them")
    ap.add_argument("--init", default=None, help="initial weights: exported model folder or train.py checkpoint")
    ap.add_argument("--single-prob", type=float, default=None, help="enc: fraction of single-segment inputs")
    ap.add_argument("--long-every", type=int, default=None, help="enc: every K-th step is a long batch")
    ap.add_argument("--long-seq-len", type=int, default=None, help="enc: tokens per sequence of a long batch")
    ap.add_argument("--long-batch", type=int, default=None, help="enc: sequences in a long batch")
    args = ap.parse_args()

    torch.set_num_threads(1)
    torch.manual_seed(SEED)
    kind = args.model
    hp = dict(HP[kind])
    if args.steps:
        hp["steps"] = args.steps
    if args.positions and kind == "dec" and args.seq_len is None:
        args.seq_len = args.positions
    for key, val in (("lr", args.lr), ("warmup", args.warmup), ("seq_len", args.seq_len), ("batch", args.batch),
                     ("bos_prob", args.bos_prob), ("single_prob", args.single_prob), ("long_every", args.long_every),
                     ("long_seq_len", args.long_seq_len), ("long_batch", args.long_batch),
                     ("join", args.join or None), ("init", args.init and os.path.abspath(args.init))):
        if val is not None:
            hp[key] = val
    overrides = {k: v for k, v in (("num_hidden_layers", args.layers), ("num_attention_heads", args.heads),
                                   ("max_position_embeddings", args.positions)) if v is not None}
    if kind == "enc" and hp.get("long_every"):
        hp.setdefault("long_seq_len", args.positions or ENC_CONFIG["max_position_embeddings"])
        hp.setdefault("long_batch", max(1, hp["batch"] * hp["seq_len"] // hp["long_seq_len"]))
    os.makedirs(args.work, exist_ok=True)
    tok = json.load(open(args.tokenizer, encoding="utf-8"))
    V = len(tok["model"]["vocab"])
    model, cfg = make_model(kind, V, overrides)
    nparams = sum(p.numel() for p in model.parameters())
    decay = [p for n, p in model.named_parameters() if p.dim() >= 2]
    nodecay = [p for n, p in model.named_parameters() if p.dim() < 2]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": hp["wd"]},
                             {"params": nodecay, "weight_decay": 0.0}], lr=hp["lr"], betas=(0.9, 0.98), eps=1e-6)
    step, tokens = 0, 0
    last = os.path.join(args.work, "last.pt")
    if args.init and not (args.resume and os.path.exists(last)):
        load_init(model, kind, cfg, args.init)
    if args.resume and os.path.exists(last):
        ck = torch.load(last)
        if ck["config"] != cfg or ck["hp"] != hp:
            sys.exit(f"{last}: checkpoint was trained with config {ck['config']} and hp {ck['hp']}; "
                     "pass the same recipe flags (see meta.json) to resume it")
        model.load_state_dict(ck["model"])
        opt.load_state_dict(ck["opt"])
        step, tokens = ck["step"], ck["tokens"]
        print(f"resumed at step {step}", flush=True)

    probes = json.load(open(os.path.join(HERE, "probes.json"), encoding="utf-8"))
    long_ids, stream_ids = [], []
    if kind == "dec":
        data = DecData(args.cache, "train", hp["seq_len"], hp.get("join", False))
        held = DecData(args.cache, "held", hp["seq_len"], hp.get("join", False))
        hrng = np.random.default_rng(999)
        # held-out loss on 16,384 tokens whatever the sequence length (16 x 256 for the default recipe)
        held_batches = [held.batch(hrng, max(1, 4096 // hp["seq_len"]), hp["seq_len"]) for _ in range(4)]
        probe_enc = encode_ref(args.tokenizer, [[s, None] for s in probes["decoder"]], args.node_dir)
        probe_ids = [e["ids"] for e in probe_enc]
        if cfg["max_position_embeddings"] > 256:  # sink over long held-out text (<s> + paragraphs)
            long_ids = [b[0].tolist()[:512] for b in held_batches[:2]]
            # StreamingLLM in small: 768 held-out tokens through a 256-entry KV cache (check_streaming.py)
            s0 = int(held.starts[0])
            stream_ids = [BOS] + held.ids[s0:s0 + 767].tolist()
    else:
        data = EncData(args.cache, "train")
        held = EncData(args.cache, "held")
        hrng = np.random.default_rng(999)
        held_batches = [held.batch(hrng, 32, hp["seq_len"], hp["mlm_prob"], 0.0, V) for _ in range(8)]
        probe_enc = encode_ref(args.tokenizer, [list(p) for p in probes["encoder_pairs"]], args.node_dir)
        probe_single = encode_ref(args.tokenizer, [[s, None] for s in probes["decoder"]], args.node_dir)

    data_stats = os.path.join(args.cache, "data_stats.json")
    meta = {"kind": kind, "config": cfg, "hp": hp, "seed": SEED, "params": nparams, "data": os.path.abspath(args.cache),
            "data_stats": json.load(open(data_stats)) if os.path.exists(data_stats) else None}
    json.dump(meta, open(os.path.join(args.work, "meta.json"), "w"), indent=1)
    logf = open(os.path.join(args.work, "log.jsonl"), "a")
    print(json.dumps(meta), flush=True)

    def loss_on(batch, train=True):
        if kind == "dec":
            x = batch
            logits, _ = model(x[:, :-1])
            return F.cross_entropy(logits.reshape(-1, V), x[:, 1:].reshape(-1)), {}
        ids, tt, am, labels, nsp = batch
        h, _ = model(ids, tt, am)
        m = labels != -100
        mlm = F.cross_entropy(model.mlm_logits(h[m]), labels[m])
        nl = model.nsp_logits(h)
        has = nsp != -100  # single-segment inputs carry no NSP label
        if not bool(has.any()):
            return mlm, {"mlm": mlm.item()}
        nspl = F.cross_entropy(nl[has], nsp[has])
        acc = (nl[has].argmax(-1) == nsp[has]).float().mean().item()
        return mlm + nspl, {"mlm": mlm.item(), "nsp": nspl.item(), "nsp_acc": acc}

    def evaluate():
        model.eval()
        with torch.no_grad():
            ls, ex = [], {}
            for b in held_batches:
                l, e = loss_on(b)
                ls.append(l.item())
                for k, v in e.items():
                    ex.setdefault(k, []).append(v)
            rec = {"held_loss": float(np.mean(ls))}
            rec.update({"held_" + k: float(np.mean(v)) for k, v in ex.items()})
            if kind == "dec":
                m = dec_sink(model, probe_ids)
                rec["best_bos_sink"] = best(m)
                if long_ids:
                    ml = dec_sink(model, long_ids)  # 2 held-out sequences of 512 tokens
                    rec["best_bos_sink_512"] = best(ml)
                    rec["matrix_512"] = np.round(ml, 4).tolist()
                if stream_ids:
                    rec["stream768"] = stream_proxy(model, stream_ids)
            else:
                m = enc_sep(model, probe_enc)
                rec["best_mid_sep"] = best(m, middle_only=True)
                rec["best_any_sep"] = best(m)
                if hp.get("single_prob"):
                    ms = enc_sep(model, probe_single)  # the decoder probes as [CLS] A [SEP]
                    rec["best_mid_sep_single"] = best(ms, middle_only=True)
                    rec["layer_sep_single"] = np.round(ms.mean(1), 4).tolist()
                rec["layer_sep"] = np.round(m.mean(1), 4).tolist()
            rec["matrix"] = np.round(m, 4).tolist()
        model.train()
        return rec

    def save(tag=None):
        ck = {"model": model.state_dict(), "opt": opt.state_dict(), "step": step, "tokens": tokens,
              "config": cfg, "hp": hp, "kind": kind}
        tmp = last + ".tmp"
        torch.save(ck, tmp)
        os.replace(tmp, last)
        if tag:
            torch.save({"model": model.state_dict(), "step": step, "tokens": tokens, "config": cfg, "hp": hp,
                        "kind": kind}, os.path.join(args.work, f"ckpt_{step:06d}.pt"))

    stop_time = None
    if args.stop_at:
        hh, mm = map(int, args.stop_at.split(":"))
        now = datetime.datetime.utcnow()
        stop_time = now.replace(hour=hh, minute=mm, second=0, microsecond=0).timestamp()
        stop_time -= (datetime.datetime.utcnow().timestamp() - time.time())  # utc->local epoch (same on Linux)
    stop_step = args.stop_step or hp["steps"]
    model.train()
    t0, tl, nl, ex_acc = time.time(), 0.0, 0, {}
    tb, cb = time.time(), time.process_time()
    while step < stop_step:
        rng = np.random.default_rng([SEED, step])
        if kind == "dec":
            batch = data.batch(rng, hp["batch"], hp["seq_len"], hp.get("bos_prob", 1.0))
            ntok = batch.numel()
        else:
            B, T = hp["batch"], hp["seq_len"]
            if hp.get("long_every") and step % hp["long_every"] == hp["long_every"] - 1:
                B, T = hp["long_batch"], hp["long_seq_len"]
            batch = data.batch(rng, B, T, hp["mlm_prob"], hp["short_seq_prob"], V, hp.get("single_prob", 0.0))
            ntok = int(batch[2].sum())
        for g in opt.param_groups:
            g["lr"] = lr_at(step, hp)
        loss, ex = loss_on(batch)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        gn = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        step += 1
        tokens += ntok
        tl += loss.item()
        nl += 1
        for k, v in ex.items():
            ex_acc[k] = ex_acc.get(k, 0.0) + v
        if args.bench and step >= args.bench:
            dt = time.time() - tb
            cpu = time.process_time() - cb  # the process's own CPU time: what the steps cost on a free core
            print(f"bench: {args.bench} steps {dt:.1f}s {tokens / dt:.0f} tok/s {dt / args.bench:.3f} s/step; "
                  f"CPU {cpu / args.bench:.3f} s/step")
            return
        if step % 50 == 0:
            rec = {"step": step, "tokens": tokens, "loss": tl / nl, "lr": lr_at(step - 1, hp),
                   "gnorm": float(gn), "time": time.time() - t0,
                   "utc": datetime.datetime.utcnow().strftime("%H:%M:%S")}
            rec.update({k: v / nl for k, v in ex_acc.items()})
            tl, nl, ex_acc = 0.0, 0, {}
            if step % args.eval_every == 0:
                rec["eval"] = evaluate()
            logf.write(json.dumps(rec) + "\n")
            logf.flush()
            short = {k: v for k, v in rec.items() if k != "eval"}
            if "eval" in rec:
                short["eval"] = {k: v for k, v in rec["eval"].items() if k != "matrix"}
            print(json.dumps(short), flush=True)
        if step % args.ckpt_every == 0:
            save(tag=True)
        if stop_time and time.time() >= stop_time:
            print("stop time reached", flush=True)
            break
    save(tag=True)
    rec = {"step": step, "tokens": tokens, "final": True, "eval": evaluate()}
    logf.write(json.dumps(rec) + "\n")
    print(json.dumps({k: v for k, v in rec["eval"].items() if k != "matrix"}), flush=True)


if __name__ == "__main__":
    main()
