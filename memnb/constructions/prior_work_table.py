"""Table 1 of Dana, Pydi & Chevaleyre (AISTATS 2025), computed at given sizes.

The paper's Table 1 (with §7) compares memorization capacities and parameter counts:

* Mahdavi et al. (2024, Thm 1): ``T_0 = H (d_h - 1) + 1`` with ``O(S + N + T_0)`` parameters,
  needing ``S <= d``; Dana et al. §7 write Mahdavi et al.'s form ``H (min(Q, d_h) - 1) + 1``
  with ``Q`` the rank of the queries, and our notes' reconstruction of their Thm 1 reads
  ``H (min(n, d_h) - 1) + 1`` with ``n`` the context length
  (:func:`memnb.bounds.mahdavi_capacity`);
* Kim et al. (2023, Thm 4.1): ``T_0 = O(L^2)`` with depth ``L`` and ``O(S + N + sqrt(T_0 log
  T_0))`` parameters (§7; the table prints ``T_0 log T_0``);
* Dana et al. (Cor. 1): ``T_0 = H d_h + d`` with ``d (S + 2N + 4 d_h H)`` parameters, stated
  as ``2S + 4N + 8 T_0`` when ``d = 2`` (§7);
* Huben & Morris (2023, §7): ``O((d + S)(S + N + T_0))`` parameters, needing ``d_h >= S + 1``
  and ``d >= S + 2``.

:func:`table1` evaluates each at one size ``(N, S, d, d_h, H)``, the parameter counts at the
same ``T_0 = H d_h + d`` (Dana et al.'s capacity) so that the columns compare; orders are
evaluated with their constants dropped (marked ``order``), exact counts are marked ``exact``.
"""

from __future__ import annotations

import pandas as pd

from memnb.bounds import (
    dana_capacity,
    dana_parameter_count,
    dana_parameter_count_at_capacity,
    dana_previous_capacity,
    huben_morris_parameter_order,
    kim2023_parameter_order,
    linear_parameter_order,
    mahdavi_capacity,
)
from memnb.validation import check_int


def table1(N: int, S: int, d: int, d_h: int, H: int) -> pd.DataFrame:
    """Dana et al.'s (AISTATS 2025) Table 1 (and §7's Huben & Morris row) at one size,
    computed.

    Columns: ``size``, ``paper``, ``capacity`` (formula), ``T0`` (its value; ``None`` for Kim et
    al., whose capacity depends on the depth only), ``parameters`` (formula),
    ``parameters_at_T0`` (for ``T_0 = H d_h + d``), ``count`` (``exact`` or ``order``),
    ``condition`` and ``condition_holds``.
    """
    N, S, d = check_int("N", N, 1), check_int("S", S, 1), check_int("d", d, 2)
    d_h, H = check_int("d_h", d_h, 1, d), check_int("H", H, 1)
    t0 = dana_capacity(H, d_h, d)
    rows = [
        {"paper": "Dana et al. (Cor. 1)", "capacity": "H d_h + d", "T0": t0,
         "parameters": "d(S + 2N + 4 d_h H)",
         "parameters_at_T0": dana_parameter_count(N, S, d, d_h, H), "count": "exact",
         "condition": "d_h <= d", "condition_holds": d_h <= d},
        {"paper": "Dana et al. (Cor. 1, d = 2, same T_0)", "capacity": "H' d_h' + 2", "T0": t0,
         "parameters": "2(S + 2N + 4(T_0 - 2))",
         "parameters_at_T0": dana_parameter_count_at_capacity(N, S, 2, t0), "count": "exact",
         "condition": "d_h' <= 2, H' = (T_0 - 2)/d_h'", "condition_holds": True},
        {"paper": "Mahdavi et al. (Thm 1, Dana et al.'s reading)", "capacity": "H(d_h - 1) + 1",
         "T0": dana_previous_capacity(H, d_h), "parameters": "S + N + T_0",
         "parameters_at_T0": linear_parameter_order(t0, S, N), "count": "order",
         "condition": "S <= d", "condition_holds": S <= d},
        {"paper": "Mahdavi et al. (Thm 1, n = S) [reconstruction]",
         "capacity": "H(min(S, d_h) - 1) + 1",
         "T0": mahdavi_capacity(H, S, d_h), "parameters": "S + N + T_0",
         "parameters_at_T0": linear_parameter_order(t0, S, N), "count": "order",
         "condition": "S < d", "condition_holds": S < d},
        {"paper": "Kim et al. (Thm 4.1)", "capacity": "O(L^2)", "T0": None,
         "parameters": "S + N + sqrt(T_0 log T_0)",
         "parameters_at_T0": kim2023_parameter_order(t0, S, N), "count": "order",
         "condition": "depth L ~ sqrt(T_0)", "condition_holds": True},
        {"paper": "Huben & Morris (§7)", "capacity": "T_0 (one head per neuron)", "T0": t0,
         "parameters": "(d + S)(S + N + T_0)",
         "parameters_at_T0": huben_morris_parameter_order(t0, S, N, max(d, S + 2)),
         "count": "order", "condition": "d >= S + 2, d_h >= S + 1",
         "condition_holds": d >= S + 2 and d_h >= S + 1},
    ]
    out = pd.DataFrame(rows)
    out.insert(0, "size", f"N={N}, S={S}, d={d}, d_h={d_h}, H={H}")
    return out


def corollary1_printed_count(N: int, S: int, T0: int) -> int:
    """``2S + 4N + 8 T_0``: Dana et al.'s (AISTATS 2025) §7 statement of Cor. 1's parameter
    count at ``d = 2`` (the exact count is :func:`memnb.bounds.dana_parameter_count_at_capacity`,
    16 fewer)."""
    return 2 * check_int("S", S, 1) + 4 * check_int("N", N, 1) + 8 * check_int("T0", T0, 2)
