#!/usr/bin/python3
"""upstream_f32_error.json: how far upstream's own float32 run of an oracle case is from its float64
reference (attentions.npy), the yardstick of AttnScope's float32 error (tests/app/tst_oracle_precision.cpp).

Besides the plain run ("max_abs_error", "per_layer"), "over_orders" gives the same float32 code's error with the
inputs of every product summed in another order (ORDERS random permutations of each product's inputs, the
same for x and W: the same sums, other roundings): min, median and max. On these small, wide random models
the error moves by a factor of 2 to 5 between orders that are all equally right, so one run's figure is one
draw (tests/data/oracle/README.md).

Kit cases (transformers 4.36): make_case.py writes it for a new case, `make_case.py --f32-error FOLDER` for
an existing one (needs the kit). Numpy cases (families transformers 4.36 predates): the same forward pass of
reference.py in float32, written by make_numpy_case.py or by this script:

    usage: f32error.py FOLDER...        (numpy cases only: case.json names reference.py)
"""
import json
import os
import sys

import numpy as np

NAME = "upstream_f32_error.json"
ORDERS = 20


def figure(att32, att64, made_by, order_errors=None):
    """The JSON object: max |float32 − float64| over everything and per layer, and what made the float32 run;
    order_errors: the max abs errors of the runs with permuted product orders."""
    error = np.abs(np.asarray(att32, np.float64) - np.asarray(att64, np.float64))
    per_layer = error.reshape(error.shape[0], -1).max(1)
    fig = {"max_abs_error": float(error.max()), "per_layer": [float(e) for e in per_layer],
           "made_by": made_by, "compared_with": "attentions.npy (float64 reference)"}
    if order_errors:
        e = np.array(order_errors)
        fig["over_orders"] = {"orders": len(e), "min": float(e.min()), "median": float(np.median(e)),
                              "max": float(e.max()),
                              "how": "each product's inputs summed in a random order (numpy seeds 0..orders-1)"}
    return fig


def write(folder, fig):
    with open(os.path.join(folder, NAME), "w") as f:
        json.dump(fig, f, indent=1)
        f.write("\n")
    orders = fig.get("over_orders")
    spread = f"; over {orders['orders']} orders {orders['min']:.2g} .. {orders['median']:.2g} .. {orders['max']:.2g}" \
        if orders else ""
    print(f"{os.path.basename(os.path.normpath(folder))}: upstream float32 error {fig['max_abs_error']:.3g} "
          f"(per layer {', '.join('%.2g' % e for e in fig['per_layer'])}){spread}")


def numpy_case(folder):
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import reference
    import reference_gpt_oss  # noqa: F401  (adds gpt_oss to reference.FAMILIES)
    case = json.load(open(os.path.join(folder, "case.json")))
    if "reference.py" not in str(case.get("reference", "")):
        raise SystemExit(f"{folder}: not a numpy case (use make_case.py --f32-error in the kit)")
    att64 = np.load(os.path.join(folder, "attentions.npy"))
    att32, _ = reference.run(folder, case["input_ids"], dtype=np.float32)
    linear, conv1d = reference.linear, reference.conv1d
    orders = []
    try:
        for seed in range(ORDERS):
            rng = np.random.default_rng(seed)

            def permuted(x, w, b=None, inputs_last=True):
                p = rng.permutation(x.shape[-1])
                y = x[..., p] @ (w[:, p].T if inputs_last else w[p, :])
                return y + b if b is not None else y

            reference.linear = permuted
            reference.conv1d = lambda x, w, b: permuted(x, w, b, inputs_last=False)
            run32, _ = reference.run(folder, case["input_ids"], dtype=np.float32)
            orders.append(np.abs(run32.astype(np.float64) - att64).max())
    finally:
        reference.linear, reference.conv1d = linear, conv1d
    made_by = (f"tools/oracle/reference.py in float32 (numpy {np.__version__}): the float64 reference's own "
               "forward pass with every array float32")
    write(folder, figure(att32, att64, made_by, orders))


if __name__ == "__main__":
    if len(sys.argv) < 2:
        raise SystemExit(__doc__)
    for folder in sys.argv[1:]:
        numpy_case(folder)
