"""The papers' constructive proofs and numbered statements, built and checked numerically.

* Dana, Pydi & Chevaleyre (AISTATS 2025): :mod:`.aot` (Thm 1 / Cor. 1, exact memorization),
  :mod:`.aot_draw` (generic weights, Lemmas 2-3), :mod:`.aot_rank1` (Remark 2),
  :mod:`.aot_accuracy` (Cor. 2), :mod:`.aot_distribution` (Thm 1 with ε > 0),
  :mod:`.jl_lookup` (Thm 2), :mod:`.prior_work_table` (Table 1), and two items of their 2024
  preprint, draft and slides that the camera-ready does not contain:
  :mod:`.associative_memory` and :mod:`.encoder_least_squares`.
* Mahdavi, Liao & Thrampoulidis (ICLR 2024): :mod:`.mha` (Thm 1 / Prop. 1) and
  :mod:`.mha_checks` (the other numbered statements).
* Kajitsuka & Sato (ICLR 2025): :mod:`.seq_id` (Thm 4.1 / Cor. 4.1).

The three constructions are our [reconstruction]s of the proofs' shape (each module says where
it departs from the paper).
"""
