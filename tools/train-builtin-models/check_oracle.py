#!/usr/bin/python3
"""Check that models.py computes exactly what transformers computes: load the
upstream-made fixtures (tests/data/oracle/{bert,llama}_s*: weights saved by
transformers and the attentions it returned) and compare attention maps."""
import json, os, struct, sys
import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from models import Bert, Llama  # noqa: E402


def read_st(path):
    data = open(path, "rb").read()
    n = struct.unpack("<Q", data[:8])[0]
    h = json.loads(data[8:8 + n])
    out = {}
    for k, m in h.items():
        if k == "__metadata__":
            continue
        raw = data[8 + n + m["data_offsets"][0]:8 + n + m["data_offsets"][1]]
        if m["dtype"] == "BF16":
            a = (np.frombuffer(raw, dtype="<u2").astype(np.uint32) << 16).view(np.float32)
        else:
            a = np.frombuffer(raw, dtype={"F32": "<f4", "F16": "<f2"}[m["dtype"]])
        out[k] = torch.from_numpy(a.reshape(m["shape"]).astype(np.float64))
    return out


def main(root):
    torch.set_default_dtype(torch.float64)
    worst = 0.0
    for name in sorted(os.listdir(root)):
        if not (name.startswith("bert") or name.startswith("llama")):
            continue
        d = os.path.join(root, name)
        cfg = json.load(open(os.path.join(d, "config.json")))
        case = json.load(open(os.path.join(d, "case.json")))
        ref = np.load(os.path.join(d, "attentions.npy"))
        sd = read_st(os.path.join(d, "model.safetensors"))
        ids = torch.tensor([case["input_ids"]])
        if cfg["model_type"] == "bert":
            cfg.setdefault("type_vocab_size", 2)
            m = Bert(cfg)
            miss, unexp = m.load_state_dict(sd, strict=False)
            assert not unexp and all("pooler" in k or "seq_relationship" in k for k in miss), (miss, unexp)
            _, probs = m(ids, torch.zeros_like(ids), torch.ones_like(ids), need_probs=True)
        else:
            m = Llama(cfg)
            m.load_state_dict(sd, strict=True)
            _, probs = m(ids, need_probs=True)
        att = torch.stack([p[0] for p in probs]).detach().numpy()
        err = float(np.abs(att - ref).max())
        worst = max(worst, err)
        print(f"{name}: attention shape {att.shape} max |diff| vs transformers = {err:.2e}")
    assert worst < 1e-5, worst
    print("OK")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "../../tests/data/oracle"))
