"""The ImageNet sample images used for the assumption checks of Mahdavi et al. (Table 1, Fig. 1).

One image per ImageNet-1k class (1,000 JPEGs, 224 x 224), read in place from
``<data dir>/imagenet-samples/images`` (see :mod:`memnb.paths`); nothing is copied into the
repository. The paper used the first 2,000 ImageNet-1k training images (1,973 RGB ones).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np
import torch

from memnb.paths import data_dir_candidates, find_dataset

IMAGENET_SAMPLES = "imagenet-samples/images"
IMAGENET_MEAN = (0.485, 0.456, 0.406)
IMAGENET_STD = (0.229, 0.224, 0.225)
HALF = (0.5, 0.5, 0.5)

_HOW_TO_GET = (
    "The ImageNet sample images were not found. Put the 1,000 JPEGs of the public repository "
    "EliSchwartz/imagenet-sample-images (e.g. `git clone "
    "https://github.com/EliSchwartz/imagenet-sample-images`) in a folder named "
    f"'{IMAGENET_SAMPLES}' inside one of these data folders: {{candidates}} "
    "(or point the environment variable MEMNB_DATA_DIR at a folder that contains it). "
    "Any size works: images are resized and centre-cropped to 224 x 224 when loaded."
)


def imagenet_sample_dir() -> Path:
    """The folder of the ImageNet sample images; ``FileNotFoundError`` saying how to get them."""
    path = find_dataset(IMAGENET_SAMPLES)
    if path is None or not path.is_dir():
        candidates = ", ".join(str(c) for c in data_dir_candidates())
        raise FileNotFoundError(_HOW_TO_GET.format(candidates=candidates))
    return path


def list_images(limit: int | None = None) -> list[Path]:
    """The sample images in name order (``<wnid>_<name>.JPEG``), at most ``limit`` of them."""
    if limit is not None and limit < 1:
        raise ValueError(f"limit must be None or >= 1, got {limit}")
    folder = imagenet_sample_dir()
    paths = sorted(p for p in folder.iterdir()
                   if p.suffix.lower() in {".jpeg", ".jpg", ".png"})
    if not paths:
        candidates = ", ".join(str(c) for c in data_dir_candidates())
        raise FileNotFoundError(f"{folder} holds no images. "
                                + _HOW_TO_GET.format(candidates=candidates))
    return paths[:limit]


def load_image(path: Path, size: int = 224) -> torch.Tensor:
    """One RGB image as ``uint8 [3, size, size]``: short side resized to ``size``, centre crop."""
    from PIL import Image

    with Image.open(path) as img:
        img = img.convert("RGB")
        w, h = img.size
        scale = size / min(w, h)
        if (w, h) != (size, size):
            img = img.resize((max(size, round(w * scale)), max(size, round(h * scale))),
                             Image.Resampling.BICUBIC)
            w, h = img.size
            left, top = (w - size) // 2, (h - size) // 2
            img = img.crop((left, top, left + size, top + size))
        array = np.asarray(img, dtype=np.uint8).copy()
    return torch.from_numpy(array).permute(2, 0, 1)


def normalize(images: torch.Tensor, mean: Sequence[float], std: Sequence[float],
              dtype: torch.dtype = torch.float32) -> torch.Tensor:
    """``uint8 [B, 3, H, W]`` to ``(x / 255 - mean) / std``, computed in ``dtype``."""
    x = images.to(dtype) / 255.0
    m = torch.tensor(mean, dtype=dtype)[:, None, None]
    s = torch.tensor(std, dtype=dtype)[:, None, None]
    return (x - m) / s


def image_batches(paths: Sequence[Path], batch_size: int, *, mean: Sequence[float],
                  std: Sequence[float], size: int = 224) -> Iterator[torch.Tensor]:
    """Normalised float32 batches ``[B, 3, size, size]`` of the images in ``paths``."""
    if batch_size < 1:
        raise ValueError(f"batch_size must be >= 1, got {batch_size}")
    for start in range(0, len(paths), batch_size):
        chunk = paths[start:start + batch_size]
        yield normalize(torch.stack([load_image(p, size) for p in chunk]), mean, std)
