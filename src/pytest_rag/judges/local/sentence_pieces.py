"""Tokenising texts that share sentences once per sentence: a premise span is its sentences'
tokens laid end to end.

The entailment model reads a check's premises, and they overlap: the spans of sentences 1-2, 2-3
and 1-3 of one passage hold the same sentences, so tokenising each span whole reads every
sentence two or three times. WordLlama's tokenizer (Llama 2's BPE) splits a text at nothing: it
writes a space as ``▁``, puts one ``▁`` before the text, and merges pairs across the whole text.
Its vocabulary has no token with ``▁`` after another character, so no merge joins anything
across a ``▁`` that follows a non-space: at such a place the text's tokens are the tokens before
it followed by the tokens of the rest read on its own (whose leading ``▁`` is the space). So a
text cut at single spaces after a sentence's end is tokenised as its pieces, each distinct piece
once, with the same ids. The character offsets are the pieces' shifted to where each stands,
except the first token of a later piece, which in the whole text starts at the space before it
(and, when it is a bare ``▁``, ends there too).

:class:`PieceEncoder` checks those properties of the tokenizer it is given once (its normaliser,
no pre-tokenizer, BPE, the vocabulary) and otherwise tokenises each text whole.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = ["PieceEncoder", "splits_at_spaces"]

IntArray = npt.NDArray[np.int64]

_SPACE = "\u2581"
_BREAK = re.compile(r"(?<=[.!?]) (?=\S)")
"""Where a text is cut into pieces: a single space after a sentence's end mark, before a non-space."""


def splits_at_spaces(tokenizer: Any) -> bool:
    """Whether ``tokenizer`` tokenises a text cut at a single space as its two sides (see the
    module docstring): Llama 2's normaliser (``▁`` prepended, spaces written as ``▁``), no
    pre-tokenizer, a BPE model, and no vocabulary entry with ``▁`` after another character. Read
    once per process (the vocabulary, 32,000 entries, takes about 70 ms)."""
    try:
        normalizer = json.loads(tokenizer.normalizer.__getstate__())
        if tokenizer.pre_tokenizer is not None or type(tokenizer.model).__name__ != "BPE":
            return False
        vocabulary = tokenizer.get_vocab(with_added_tokens=False)
    except (AttributeError, TypeError, ValueError):
        return False
    steps = [(n.get("type"), n.get("prepend"), (n.get("pattern") or {}).get("String"), n.get("content"))
             for n in normalizer.get("normalizers", [])]  # fmt: skip
    expected = [("Prepend", _SPACE, None, None), ("Replace", None, " ", _SPACE)]
    if normalizer.get("type") != "Sequence" or steps != expected:
        return False
    return not any(_SPACE in token.lstrip(_SPACE) for token in vocabulary)


class PieceEncoder:
    """Ids and character offsets of texts, as ``tokenizer.encode_batch`` gives them, read per piece."""

    def __init__(self, tokenizer: Any) -> None:
        self._tokenizer = tokenizer
        self._by_piece = splits_at_spaces(tokenizer)
        self._bare = tokenizer.token_to_id(_SPACE) if self._by_piece else None

    def encode(self, texts: Sequence[str]) -> list[tuple[IntArray, IntArray]]:
        """Per text, its token ids and its tokens' (start, end) character offsets, shape (n, 2)."""
        if not self._by_piece:
            return [
                _arrays(enc) for enc in self._tokenizer.encode_batch(list(texts), add_special_tokens=False)
            ]
        pieces = [_BREAK.split(text) for text in texts]
        distinct = list(dict.fromkeys(piece for cut in pieces for piece in cut))
        encoded = dict(
            zip(
                distinct,
                map(_arrays, self._tokenizer.encode_batch(distinct, add_special_tokens=False)),
                strict=True,
            )
        )
        out = []
        for cut in pieces:
            if len(cut) == 1:
                out.append(encoded[cut[0]])
                continue
            ids, offsets, shift = [], [], 0
            for piece in cut:
                piece_ids, piece_offsets = encoded[piece]
                placed = piece_offsets + shift
                if shift and len(piece_ids):
                    placed[0, 0] = shift - 1  # the space before the piece is its first token's ▁
                    if piece_ids[0] == self._bare:
                        placed[0, 1] = shift
                ids.append(piece_ids)
                offsets.append(placed)
                shift += len(piece) + 1
            out.append((np.concatenate(ids), np.concatenate(offsets)))
        return out


def _arrays(encoding: Any) -> tuple[IntArray, IntArray]:
    ids = np.asarray(encoding.ids, dtype=np.int64)
    offsets = np.asarray(encoding.offsets, dtype=np.int64).reshape(-1, 2)
    return ids, offsets
