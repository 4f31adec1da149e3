#!/usr/bin/python3
"""numpy reference for attention rollout (Abnar & Zuidema 2020) and the Gu et al. (ICLR 2025) sink census.

Reads a case's attentions.npy (float64 [layers, heads, n, n], upstream transformers) and writes rollout.json
beside it:
  rollout   [layers][n][n]  R_l = A_hat_l @ R_{l-1}, A_hat_l = rownorm(0.5 * mean_h A_l + 0.5 * I)
  alpha     [layers][heads][n]  alpha_k = mean over queries i >= k of A[i, k]
  sink_score [n]  share of (layer, head) pairs with alpha_k > epsilon (0.3)
Written from the papers' formulas, independently of the C++ (core/analysis/rollout.cpp, sinkcensus.cpp).

Usage: /usr/bin/python3 tools/oracle/rollout_census_reference.py tests/data/oracle/gpt2_s0 [--epsilon 0.3]
"""
import argparse
import json
import os

import numpy as np

ap = argparse.ArgumentParser()
ap.add_argument("folder")
ap.add_argument("--epsilon", type=float, default=0.3)
args = ap.parse_args()
A = np.load(os.path.join(args.folder, "attentions.npy"))
L, H, n, _ = A.shape
rollout = []
R = None
for l in range(L):
    a = 0.5 * A[l].mean(axis=0) + 0.5 * np.eye(n)
    a = a / a.sum(axis=1, keepdims=True)
    R = a if R is None else a @ R
    rollout.append(R.tolist())
alpha = np.zeros((L, H, n))
for k in range(n):
    alpha[:, :, k] = A[:, :, k:, k].mean(axis=2)
sink = (alpha > args.epsilon).reshape(L * H, n).mean(axis=0)
with open(os.path.join(args.folder, "rollout.json"), "w") as f:
    json.dump({"made_by": "tools/oracle/rollout_census_reference.py", "epsilon": args.epsilon,
               "rollout": rollout, "alpha": alpha.tolist(), "sink_score": sink.tolist()}, f)
    f.write("\n")
print(args.folder, "rollout.json: sink scores", np.round(sink, 3).tolist())
