#!/usr/bin/python3
"""Export a training checkpoint to a Hugging Face model folder (config.json,
model.safetensors in F16, tokenizer.json, attnscope.json), then reload the
exported F16 weights in float64 and measure the attention phenomena and write
reference outputs for the C++ tests.

  export.py --ckpt WORK/ckpt_XXXXXX.pt --tokenizer tok.json --out resources/models/NAME \
            --description "..." [--phenomena phenomena.json] [--reference reference_outputs.json]
"""
import argparse, json, os, shutil, struct, sys
import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from models import Bert, Llama  # noqa: E402
from train import encode_ref, dec_sink, enc_sep, best, SEP, CLS, MASK  # noqa: E402

TF_VERSION = "4.36.0.dev0"


def hf_config(kind, c):
    if kind == "enc":
        return {
            "architectures": ["BertForMaskedLM"],
            "attention_probs_dropout_prob": 0.0,
            "classifier_dropout": None,
            "hidden_act": "gelu",
            "hidden_dropout_prob": 0.0,
            "hidden_size": c["hidden_size"],
            "initializer_range": c["initializer_range"],
            "intermediate_size": c["intermediate_size"],
            "layer_norm_eps": c["layer_norm_eps"],
            "max_position_embeddings": c["max_position_embeddings"],
            "model_type": "bert",
            "num_attention_heads": c["num_attention_heads"],
            "num_hidden_layers": c["num_hidden_layers"],
            "pad_token_id": c["pad_token_id"],
            "position_embedding_type": "absolute",
            "torch_dtype": "float16",
            "transformers_version": TF_VERSION,
            "type_vocab_size": c["type_vocab_size"],
            "use_cache": True,
            "vocab_size": c["vocab_size"],
        }
    return {
        "architectures": ["LlamaForCausalLM"],
        "attention_bias": False,
        "attention_dropout": 0.0,
        "bos_token_id": c["bos_token_id"],
        "eos_token_id": c["eos_token_id"],
        "hidden_act": "silu",
        "hidden_size": c["hidden_size"],
        "initializer_range": c["initializer_range"],
        "intermediate_size": c["intermediate_size"],
        "max_position_embeddings": c["max_position_embeddings"],
        "model_type": "llama",
        "num_attention_heads": c["num_attention_heads"],
        "num_hidden_layers": c["num_hidden_layers"],
        "num_key_value_heads": c["num_key_value_heads"],
        "pretraining_tp": 1,
        "rms_norm_eps": c["rms_norm_eps"],
        "rope_scaling": None,
        "rope_theta": c["rope_theta"],
        "tie_word_embeddings": False,
        "torch_dtype": "float16",
        "transformers_version": TF_VERSION,
        "use_cache": True,
        "vocab_size": c["vocab_size"],
    }


def tokenizer_config(kind, positions):
    if kind == "enc":
        return {"tokenizer_class": "BertTokenizer", "do_lower_case": True, "strip_accents": False,
                "model_max_length": positions, "cls_token": "[CLS]", "sep_token": "[SEP]", "pad_token": "[PAD]",
                "unk_token": "[UNK]", "mask_token": "[MASK]"}
    return {"tokenizer_class": "LlamaTokenizer", "add_bos_token": True, "add_eos_token": False,
            "model_max_length": positions, "bos_token": "<s>", "eos_token": "</s>", "unk_token": "<unk>",
            "pad_token": None, "legacy": False}


def export_state(kind, sd):
    out = {}
    for k, v in sd.items():
        if kind == "enc" and (k.startswith("bert.pooler.") or k.startswith("cls.seq_relationship.")):
            continue  # NSP-only parts: not in BertForMaskedLM
        out[k] = v.detach().to(torch.float16).contiguous()
    return out


def write_safetensors(path, tensors):
    header = {"__metadata__": {"format": "pt"}}
    off = 0
    blobs = []
    for k in sorted(tensors):
        b = tensors[k].numpy().astype("<f2").tobytes()
        header[k] = {"dtype": "F16", "shape": list(tensors[k].shape), "data_offsets": [off, off + len(b)]}
        off += len(b)
        blobs.append(b)
    h = json.dumps(header, separators=(",", ":")).encode("utf-8")
    h += b" " * ((8 - len(h) % 8) % 8)
    with open(path, "wb") as fh:
        fh.write(struct.pack("<Q", len(h)))
        fh.write(h)
        for b in blobs:
            fh.write(b)


def read_safetensors(path):
    data = open(path, "rb").read()
    n = struct.unpack("<Q", data[:8])[0]
    header = json.loads(data[8:8 + n])
    out = {}
    for k, m in header.items():
        if k == "__metadata__":
            continue
        assert m["dtype"] == "F16"
        a, b = m["data_offsets"]
        arr = np.frombuffer(data[8 + n + a:8 + n + b], dtype="<f2").reshape(m["shape"])
        out[k] = torch.from_numpy(arr.astype(np.float64))
    return out


def load_f64(kind, cfg, st_path):
    torch.set_default_dtype(torch.float64)
    model = (Bert if kind == "enc" else Llama)(cfg)
    sd = read_safetensors(st_path)
    missing, unexpected = model.load_state_dict(sd, strict=False)
    assert not unexpected, unexpected
    if kind == "enc":
        assert all(k.startswith("bert.pooler.") or k.startswith("cls.seq_relationship.") for k in missing), missing
    else:
        assert not missing, missing
    model.eval()
    return model


def top5(logits, tok_vocab_inv):
    p = torch.softmax(logits, -1)
    v, i = p.topk(5)
    return [{"id": int(a), "token": tok_vocab_inv[int(a)], "prob": float(b)} for a, b in zip(i, v)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ckpt", required=True)
    ap.add_argument("--tokenizer", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--description", required=True)
    ap.add_argument("--node-dir", default="/tmp/tok")
    ap.add_argument("--phenomena", default=None, help="phenomena.json to update")
    ap.add_argument("--reference", default=None, help="reference_outputs JSON to write")
    args = ap.parse_args()
    torch.set_num_threads(1)
    ck = torch.load(args.ckpt)
    kind, cfg = ck["kind"], ck["config"]
    os.makedirs(args.out, exist_ok=True)
    st_path = os.path.join(args.out, "model.safetensors")
    write_safetensors(st_path, export_state(kind, ck["model"]))
    json.dump(hf_config(kind, cfg), open(os.path.join(args.out, "config.json"), "w"), indent=2, sort_keys=True)
    with open(os.path.join(args.out, "config.json"), "a") as fh:
        fh.write("\n")
    shutil.copyfile(args.tokenizer, os.path.join(args.out, "tokenizer.json"))
    json.dump(tokenizer_config(kind, cfg["max_position_embeddings"]), open(os.path.join(args.out, "tokenizer_config.json"), "w"), indent=2)
    settings = {"description": args.description}
    if ck.get("hp", {}).get("join"):  # trained on <s> p1 p2 ... (train.py --join): paragraphinput.h
        settings["paragraphs"] = "space"
    json.dump(settings, open(os.path.join(args.out, "attnscope.json"), "w"), ensure_ascii=False, indent=2)
    print("exported", args.out, "step", ck["step"], "tokens", ck["tokens"])

    model = load_f64(kind, cfg, st_path)
    tok = json.load(open(args.tokenizer, encoding="utf-8"))
    inv = {i: t for t, i in tok["model"]["vocab"].items()}
    probes = json.load(open(os.path.join(HERE, "probes.json"), encoding="utf-8"))
    L, H = cfg["num_hidden_layers"], cfg["num_attention_heads"]
    with torch.no_grad():
        if kind == "dec":
            enc = encode_ref(args.tokenizer, [[s, None] for s in probes["decoder"]], args.node_dir)
            m = dec_sink(model, [e["ids"] for e in enc])
            phen = {"decoder_best_bos_sink": best(m), "decoder_bos_sink_matrix": np.round(m, 6).tolist(),
                    "decoder_sentences": probes["decoder"], "decoder_step": ck["step"],
                    "decoder_tokens_seen": ck["tokens"],
                    "decoder_definition": "for each held-out sentence encoded with <s> (BOS) first: mean over query "
                                          "positions q>=4 of attention[q][0]; then mean over sentences; "
                                          "F16 weights evaluated in float64; best over all layers/heads"}
            ref_items = [[s, None] for s in probes["decoder"][:3]] + [[probes["decoder"][6], None]]
        else:
            pairs = [list(p) for p in probes["encoder_pairs"]]
            enc = encode_ref(args.tokenizer, pairs, args.node_dir)
            m = enc_sep(model, enc)
            phen = {"encoder_best_mid_sep": best(m, middle_only=True), "encoder_best_any_sep": best(m),
                    "encoder_sep_matrix": np.round(m, 6).tolist(), "encoder_pairs": probes["encoder_pairs"],
                    "encoder_step": ck["step"], "encoder_tokens_seen": ck["tokens"],
                    "encoder_definition": "each held-out pair encoded as [CLS] A [SEP] B [SEP] (token types 0/1); "
                                          "for every query token that is not [CLS]/[SEP], sum the attention on both "
                                          "[SEP] tokens; mean over those queries, then over pairs; F16 weights "
                                          "evaluated in float64; middle layers = 1..L-2 (0-based)"}
            d = probes["decoder"]
            ref_items = [[d[0], None], [d[1], None], [d[2], None], list(probes["encoder_pairs"][0]),
                         [probes["encoder_masked"][1], None]]
        refs = encode_ref(args.tokenizer, ref_items, args.node_dir)
        out_items = []
        for e in refs:
            ids = torch.tensor([e["ids"]])
            if kind == "dec":
                logits, probs = model(ids, need_probs=True)
                extra = {"next_token_top5": top5(logits[0, -1], inv)}
            else:
                h, probs = model(ids, torch.tensor([e["type_ids"]]), torch.ones_like(ids), need_probs=True)
                extra = {"mask_top5": [{"position": int(p), "top5": top5(model.mlm_logits(h[0, p]), inv)}
                                       for p in range(ids.shape[1]) if e["ids"][p] == MASK]}
            att = torch.stack([p[0] for p in probs]).double()  # L,H,n,n
            item = dict(e)
            item.update(extra)
            item["attentions"] = att.tolist()
            out_items.append(item)
    ref = {"model": os.path.basename(os.path.normpath(args.out)), "kind": kind,
           "note": "ids/tokens/offsets from npm tokenizers 0.23.2 (HF tokenizers core); attentions [layer][head][query]"
                   "[key] computed in float64 from the exported F16 weights by tools/train-builtin-models/models.py",
           "items": out_items}
    if args.reference:
        with open(args.reference, "w", encoding="utf-8") as fh:
            json.dump(ref, fh, ensure_ascii=False)
    if args.phenomena:
        old = json.load(open(args.phenomena)) if os.path.exists(args.phenomena) else {}
        old.update(phen)
        json.dump(old, open(args.phenomena, "w"), ensure_ascii=False, indent=1)
    print(json.dumps({k: v for k, v in phen.items() if "best" in k}))
    for e in out_items:
        print(e["tokens"], e.get("next_token_top5") or e.get("mask_top5"))


if __name__ == "__main__":
    main()
