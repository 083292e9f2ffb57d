"""The architectures of the three papers, in one vocabulary (see docs/CONTRACTS.md)."""

from memnb.models.attention_mlp import AttentionMLPTransformer
from memnb.models.attention_only import AttentionOnlyTransformer
from memnb.models.compressed_attention_mlp import CompressedAttentionMLPTransformer
from memnb.models.compressed_attention_only import CompressedAttentionOnlyTransformer
from memnb.models.ffn_attention import FFNAttentionTransformer
from memnb.models.multi_head import MultiHeadAttention

__all__ = ["AttentionMLPTransformer", "AttentionOnlyTransformer",
           "CompressedAttentionMLPTransformer", "CompressedAttentionOnlyTransformer",
           "FFNAttentionTransformer", "MultiHeadAttention"]
