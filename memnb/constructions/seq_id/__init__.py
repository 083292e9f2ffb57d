"""Kajitsuka & Sato (ICLR 2025): a Transformer that memorizes N sequences with Õ(√N) parameters.

* :mod:`.relu_program` -- deep ReLU networks with exact integer / rational weights;
* :mod:`.hashing` -- token IDs, the token hash (FFN₁) and the averaging attention (contextual
  mapping, Definition 4.1 [unverified, from the 2024 paper]);
* :mod:`.memorizer` -- block packing and bit extraction (FFN₂, after Vardi et al. 2022);
* :mod:`.network` -- :func:`memorize`, which assembles the three parts (Thm 4.1, Cor. 4.1);
* :mod:`.transformer` -- ``memorize(...).transformer()``: the same construction as explicit
  residual blocks F^(SA), F^(FF) with embedding and read-out, evaluated in exact arithmetic,
  with ``width()`` and ``parameter_count()`` counted the paper's way;
* :mod:`.scaling` -- parameter counts for the scaling plots and sliders.
"""

from memnb.constructions.seq_id.network import SeqIdNetwork, check_consistency, memorize

__all__ = ["SeqIdNetwork", "check_consistency", "memorize"]
