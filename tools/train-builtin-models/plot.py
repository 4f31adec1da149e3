#!/usr/bin/python3
"""Loss curves (and the attention phenomena measured during training) as PNG."""
import argparse, json, os
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def load(path):
    return [json.loads(l) for l in open(path)]


def plot(recs, kind, out):
    tr = [r for r in recs if "loss" in r]
    ev = [r for r in recs if "eval" in r]
    fig, ax = plt.subplots(1, 2, figsize=(11, 4))
    x = [r["tokens"] / 1e6 for r in tr]
    if kind == "enc":
        ax[0].plot(x, [r["mlm"] for r in tr], label="train MLM loss", lw=1)
        ax[0].plot(x, [r["nsp"] for r in tr], label="train NSP loss", lw=1)
        ax[0].plot([r["tokens"] / 1e6 for r in ev], [r["eval"]["held_mlm"] for r in ev], "o-", ms=3,
                   label="held-out MLM loss")
    else:
        ax[0].plot(x, [r["loss"] for r in tr], label="train loss", lw=1)
        ax[0].plot([r["tokens"] / 1e6 for r in ev], [r["eval"]["held_loss"] for r in ev], "o-", ms=3,
                   label="held-out loss")
    ax[0].set_xlabel("training tokens (millions)")
    ax[0].set_ylabel("cross-entropy (nats)")
    ax[0].legend()
    ax[0].grid(alpha=0.3)
    ax[0].set_title("tiny-bert-en-tr (MLM + NSP)" if kind == "enc" else "tiny-llama-en-tr (next token)")
    ex = [r["tokens"] / 1e6 for r in ev]
    if kind == "enc":
        ax[1].plot(ex, [r["eval"]["best_mid_sep"]["value"] for r in ev], "o-", ms=3,
                   label="best middle-layer head: attention on [SEP]")
        ax[1].axhline(0.3, color="r", ls="--", lw=0.8, label="floor 0.3")
        ax[1].axhline(0.5, color="g", ls=":", lw=0.8, label="goal 0.5")
    else:
        ax[1].plot(ex, [r["eval"]["best_bos_sink"]["value"] for r in ev], "o-", ms=3,
                   label="best head: attention on BOS (q>=4)")
        ax[1].axhline(0.5, color="r", ls="--", lw=0.8, label="floor 0.5")
    ax[1].set_ylim(0, 1)
    ax[1].set_xlabel("training tokens (millions)")
    ax[1].set_ylabel("mean attention (held-out probes)")
    ax[1].legend()
    ax[1].grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(out, dpi=90)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--enc")
    ap.add_argument("--dec")
    ap.add_argument("--out", default=os.path.dirname(os.path.abspath(__file__)))
    a = ap.parse_args()
    if a.enc:
        plot(load(a.enc), "enc", os.path.join(a.out, "loss_encoder.png"))
    if a.dec:
        plot(load(a.dec), "dec", os.path.join(a.out, "loss_decoder.png"))


if __name__ == "__main__":
    main()
