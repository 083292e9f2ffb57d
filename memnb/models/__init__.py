"""The architectures of the three papers, in one vocabulary (see docs/CONTRACTS.md)."""

from memnb.models.attention_mlp import AttentionMLPTransformer
from memnb.models.attention_only import AttentionOnlyTransformer

__all__ = ["AttentionMLPTransformer", "AttentionOnlyTransformer"]
