#!/usr/bin/env python3
"""NumPy/SciPy reference for core/benches/spectral_map.rs: time per point of a stability map.

Same per-point computation as the Rust benchmark: the two-mass oscillator of seed 000
(docs/methods.md §11.1, paper eqn 27), zero-order hold with model-based correction (alpha = 1), macro-step
10^-3.5 s, a 256 x 256 log map c_k in [1, 1e10] N/m x d_k in [1, 1e7] N*s/m, eight rows spread
over the map (2,048 points). Per point: the two subsystems' (A, B, C, D); each discretised
exactly by one scipy.linalg.expm of the augmented matrix [[A h, B h], [0, 0]] (docs/methods.md
§3.2); Phi built column by column from one linear step z -> z_next (docs/methods.md §9.1, paper eqns
16 and 24); rho = max |eig(Phi)| with scipy.linalg.eigvals (LAPACK dgeev, which balances).
This is a straightforward implementation, the way one would write it in a notebook; it is
not tuned (no batching across points).

Setup:  python3 -m venv .venv && .venv/bin/pip install numpy scipy
Run:    .venv/bin/python bench/numpy_map.py            # timing
        .venv/bin/python bench/numpy_map.py --check    # rho at a few points, to compare
                                                       # with `cosim map ... --metric rho`
"""
import os
import sys
import time

# One BLAS thread: these matrices are 3x3 to 10x10, and a threaded OpenBLAS spends far
# more time synchronising than computing (28x slower per point on the 2-core benchmark
# machine under load). The Rust side is single-threaded per point too.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np
from scipy.linalg import eigvals, expm

M1, C1, D1 = 10.0, 1e6, 1.0
M2, C2, D2 = 10.0, 1e7, 2.0
H = 10.0 ** -3.5
ALPHA = 1.0
SIDE, ROWS = 256, 8
# u = L y: inputs [Mass1.Fk, Mass2.s1, Mass2.v1], outputs [s1, v1, Fk].
L = np.array([[0.0, 0.0, 1.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])


def blocks(ck, dk):
    a1 = np.array([[0.0, 1.0], [-C1 / M1, -D1 / M1]])
    b1 = np.array([[0.0], [1.0 / M1]])
    c1 = np.eye(2)
    d1 = np.zeros((2, 1))
    a2 = np.array([[0.0, 1.0], [-(ck + C2) / M2, -(dk + D2) / M2]])
    b2 = np.array([[0.0, 0.0], [ck / M2, dk / M2]])
    c2 = np.array([[ck, dk]])
    d2 = np.array([[-ck, -dk]])
    return [(a1, b1, c1, d1), (a2, b2, c2, d2)]


def discretize(a, b, h):
    n, m = b.shape
    big = np.zeros((n + m, n + m))
    big[:n, :n] = a * h
    big[:n, n:] = b * h
    e = expm(big)
    return e[:n, :n], e[:n, n:]


def block_diag(ms):
    rows = sum(m.shape[0] for m in ms)
    cols = sum(m.shape[1] for m in ms)
    out = np.zeros((rows, cols))
    r = c = 0
    for m in ms:
        out[r:r + m.shape[0], c:c + m.shape[1]] = m
        r += m.shape[0]
        c += m.shape[1]
    return out


def rho(ck, dk, h=H):
    bl = blocks(ck, dk)
    disc = [discretize(a, b, h) for a, b, _, _ in bl]
    ad = block_diag([d[0] for d in disc])
    bd0 = block_diag([d[1] for d in disc])
    c = block_diag([x[2] for x in bl])
    d = block_diag([x[3] for x in bl])
    g0 = c @ bd0 + d
    s = np.linalg.inv(np.eye(3) - g0 @ L)
    nx, ny, nu = 4, 3, 3

    def step(z):
        x, ybar, du = z[:nx], z[nx:nx + ny], z[nx + ny:]
        u = L @ ybar + du
        x1 = ad @ x + bd0 @ u
        y1 = c @ x1 + d @ u
        ybar1 = s @ (y1 - g0 @ L @ ybar - g0 @ du)          # eqn 16
        du1 = (1 - ALPHA) * du + ALPHA * 0.5 * L @ (ybar1 - ybar)  # eqn 24
        return np.concatenate([x1, ybar1, du1])

    dim = nx + ny + nu
    phi = np.column_stack([step(np.eye(dim)[:, j]) for j in range(dim)])
    return float(np.max(np.abs(eigvals(phi))))


def main():
    ck = np.logspace(0, 10, SIDE)
    dk = np.logspace(0, 7, SIDE)
    if "--check" in sys.argv:
        for c, d in [(1.0, 1.0), (2e5, 5e2), (1e10, 1e7), (1e8, 1.0)]:
            print(f"ck={c:e} dk={d:e} rho={rho(c, d):.15f}")
        return
    rows = [k * (SIDE - 1) // (ROWS - 1) for k in range(ROWS)]
    rho(1.0, 1.0)  # warm-up (imports, first LAPACK calls)
    best = float("inf")
    for _ in range(3):
        t0 = time.perf_counter()
        total = 0.0
        for r in rows:
            for c in ck:
                total += rho(c, dk[r])
        best = min(best, time.perf_counter() - t0)
    points = ROWS * SIDE
    print(f"{points} points, best of 3: {best:.3f} s, {best / points * 1e6:.1f} us per point "
          f"(numpy {np.__version__}, scipy {__import__('scipy').__version__})")


if __name__ == "__main__":
    main()
