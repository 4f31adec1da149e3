#!/usr/bin/python3
"""Cross-checks the numpy reference (reference.py) against cases made by upstream transformers (make_case.py):
both compute the same folder's attentions and hidden states; they must agree to well below the 1e-5 that the
C++ runtime is held to. Run it on every kit case of a family that reference.py also serves the numpy-only
cases for (llama RoPE scaling, mistral sliding window, gpt_neox partial rotary, ...).

    usage: crosscheck.py CASE_DIR [CASE_DIR ...]     exit status 1 when any case differs by 1e-6 or more

Expect ~1e-15 for BERT, RoBERTa, DistilBERT and GPT-2, and up to ~5e-7 for Llama, Mistral, GPT-NeoX and Phi:
in a float64 model transformers 4.36 still computes their softmax (Llama, Mistral) or their q·k (Phi, NeoX) in
float32, which reference.py does not copy. A wrong formula moves P by 1e-3 or more.
"""
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reference  # noqa: E402


def main():
    worst = 0.0
    for folder in sys.argv[1:]:
        case = json.load(open(os.path.join(folder, "case.json")))
        attentions, hidden = reference.run(folder, case["input_ids"])
        expected_att = np.load(os.path.join(folder, "attentions.npy"))
        error_att = float(np.abs(attentions - expected_att).max())
        line = f"{folder}: {case['arch']} attentions max|numpy - transformers| = {error_att:.3e}"
        worst = max(worst, error_att)
        hidden_path = os.path.join(folder, "hidden.npy")
        if os.path.exists(hidden_path):
            expected_hid = np.load(hidden_path)
            scale = max(1.0, float(np.abs(expected_hid).max()))
            error_hid = float(np.abs(hidden - expected_hid).max()) / scale
            line += f", hidden states (relative to max |h| {scale:.3g}) {error_hid:.3e}"
            worst = max(worst, error_hid)
        print(line)
    print(f"worst {worst:.3e}")
    sys.exit(0 if worst < 1e-6 else 1)


if __name__ == "__main__":
    main()
