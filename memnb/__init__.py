"""memnb: the helper package of the Memorization Book.

Reproductions of Kajitsuka & Sato (ICLR 2025), Mahdavi, Liao & Thrampoulidis (ICLR 2024) and
Dana, Pydi & Chevaleyre (AISTATS 2025): models, explicit constructions from the proofs, bounds,
one training loop, sweeps with caching, and the figures of the book.
"""

from memnb.numerics import flush_denormals as _flush_denormals

__version__ = "0.1.0"

# before torch starts its worker threads, which take the mode from this thread (memnb.numerics)
_flush_denormals()
