"""External anchors of the cross-paper chapter: bits stored per parameter by trained language
models, as two papers measure them. Each value carries its source; ``DEFINITIONS`` says what
each paper counts, so the chapter can say how it differs from our count.

* Allen-Zhu & Li, *Physics of Language Models: Part 3.3, Knowledge Capacity Scaling Laws*
  (arXiv:2404.05405, 2024; ICLR 2025).
* Morris, Sitawarin, Guo, Kokhlikyan, Suh, Rush, Chaudhuri & Mahloujifar, *How much do language
  models memorize?* (arXiv:2505.24832, 2025).
"""

from __future__ import annotations

from memnb.papers import Published

#: "language models can and only can store 2 bits of knowledge per parameter, even when quantized
#: to int8" (abstract); reached with about 1000 exposures of each piece of knowledge
#: (recalled, [unverified], as :data:`DEFINITIONS` marks it).
ALLEN_ZHU_LI_BITS_PER_PARAMETER = Published(
    2.0, "Allen-Zhu & Li 2024, arXiv:2404.05405, abstract (2 bits of knowledge per parameter)")
#: With only 100 exposures per piece of knowledge the capacity ratio is about 1 bit/parameter.
ALLEN_ZHU_LI_UNDERTRAINED_BITS_PER_PARAMETER = Published(
    1.0, "Allen-Zhu & Li 2024, arXiv:2404.05405, training-duration result (100 exposures: "
    "1 bit/param) [unverified: read in a summary of the paper, result number not checked]")
#: "our measurements estimate that GPT-style models have a capacity of approximately 3.6 bits
#: per parameter" (abstract).
MORRIS_BITS_PER_PARAMETER = Published(
    3.6, "Morris et al. 2025, arXiv:2505.24832, abstract (approximately 3.6 bits per parameter)")

#: Marks a description of an anchor that no project source holds: our notes cover the three
#: papers of the chapters only, not these two, so what each anchor counts is recalled from the
#: paper (the abstracts' sentences quoted above are the anchors' values). Every clause of an
#: anchor's description in :data:`DEFINITIONS` ends with it; :data:`UNVERIFIED_MEANS` says what it
#: means, for the chapter to state once.
UNVERIFIED = "*[unverified]*"
#: What :data:`UNVERIFIED` means, in the chapter's words.
UNVERIFIED_MEANS = "recalled from the paper, not in our sources"

#: What each anchor counts, and how that differs from this chapter's count (ours). The anchors'
#: descriptions are recalled (:data:`UNVERIFIED` after each clause); ours is our own.
DEFINITIONS: dict[str, str] = {
    "allenzhu2024": (
        "knowledge bits: synthetic biographies of random individuals with attributes drawn "
        f"from known distributions {UNVERIFIED}; the bits are an information-theoretic lower "
        "bound computed from the trained model's loss on each attribute, so partially recalled "
        f"attributes count partially {UNVERIFIED}; GPT-2-style models of millions to about a "
        f"billion parameters, each fact seen about 1000 times {UNVERIFIED}"),
    "morris2025": (
        "unintended memorization in bits: the compression gain that the trained model gives on "
        "its training set of uniformly random bit strings (model likelihood against the known "
        f"uniform distribution), summed over the data set and taken at saturation {UNVERIFIED}; "
        f"GPT-style models from 500K to 1.5B parameters {UNVERIFIED}"),
    "ours": (
        "examples memorized exactly: the largest number N of random-label sequences fitted at "
        "100 % training accuracy, times log2 C bits per label; partial information (a label "
        "ranked high but not first) counts nothing; our models are the small ones of the "
        "budgets above"),
}


#: How the chapter names each anchor.
NAMES: dict[str, str] = {"allenzhu2024": "Allen-Zhu & Li (2024)",
                         "morris2025": "Morris et al. (2025)"}


def anchors() -> dict[str, Published]:
    """The external bits-per-parameter figures by bibliography key."""
    return {"allenzhu2024": ALLEN_ZHU_LI_BITS_PER_PARAMETER,
            "morris2025": MORRIS_BITS_PER_PARAMETER}
