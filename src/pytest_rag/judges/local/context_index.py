"""The contexts indexed once per call: candidate spans found through a lexical index, so cost follows the answer.

Every run of one to ``MAX_WINDOW`` consecutive sentences of one context is a candidate span. Small
contexts (up to ``FULL_SCAN_SENTENCES`` sentences, which covers a handful of retrieved passages and
every labelled record the judge was fitted on) are indexed whole: every span is a candidate for
every answer sentence, exactly as the calibrated models saw them. Larger contexts go through a
lexical first stage (:class:`.lexical.SentenceTable`): an answer sentence's candidates are the
spans around the ``CANDIDATE_SENTENCES`` context sentences that share the most of its content words,
and only those are embedded. Judging then costs the index build (tokenising, linear and cheap) plus
work proportional to the answer, not to the corpus.

The index also keeps the contexts' vocabulary, numbers and what each number counts (looked up
lazily, per number the answer states), and the vectors the alignment compares with.

A long page is often checked more than once (several answers, several metrics against the same
retrieved page), and reading it is the one cost that grows with it. So :func:`shared_index` keeps
the last ``KEPT_INDEXES`` indexes of contexts of at least ``KEPT_FROM_CHARACTERS`` characters: a
later check against the same texts costs what its answer costs. An index only ever adds entries
derived from its own texts, so sharing one changes no verdict.
"""

from __future__ import annotations

import threading
from collections import Counter, OrderedDict
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from functools import cached_property
from itertools import accumulate, chain, pairwise

import numpy as np

from ...scoring.text import NEGATION_WORDS, STOPWORDS, normalize_number
from .comparisons import MORE_OR_LESS, comparisons_in
from .embedder import PIECE_RE, FloatArray, StaticEmbedder
from .lexical import SentenceTable, cached_stem
from .money import Amount, amounts
from .negation import states_negation
from .normalise import context_forms, name_forms
from .numbers import clock_times, number_set, numbers_with_units
from .shares import FRACTION_STEMS, Share, percent_numbers, shares
from .spans import MAX_WINDOW, Candidates, Span

FULL_SCAN_SENTENCES = 64
"""Contexts with at most this many sentences make every span a candidate for every answer sentence."""

CANDIDATE_SENTENCES = 24
"""In larger contexts, the context sentences sharing the most content words with an answer sentence
whose spans become its candidates."""


KEPT_FROM_CHARACTERS = 8_000
"""Contexts of at least this many characters in all (about 1,300 words) keep their index."""

KEPT_INDEXES = 4
"""How many large contexts' indexes are kept, least recently used dropped first."""


class ContextIndex:
    """Contexts split, tokenised and indexed once, for scoring many sentences against them."""

    def __init__(self, embedder: StaticEmbedder, contexts: Sequence[str]) -> None:
        self._embedder = embedder
        self.table = SentenceTable(contexts)
        table = self.table
        self.sentence_count = len(table.texts)
        self.tokens: frozenset[str] = frozenset(table.counts)
        self.vocabulary: tuple[str, ...] = tuple(t for t in table.counts if t not in STOPWORDS)
        self.content: frozenset[str] = frozenset(cached_stem(t) for t in self.vocabulary)
        spelled = name_forms().numbers
        self.numbers: frozenset[str] = table.number_forms() | {
            spelled[t] for t in table.counts if t in spelled
        }
        self._clock_times: frozenset[str] | None = None
        self.vocabulary_vectors = embedder.word_vectors(self.vocabulary)
        self.full_scan = self.sentence_count <= FULL_SCAN_SENTENCES
        self._sentence_sums: dict[int, tuple[FloatArray, float]] = {}
        self._spans: dict[tuple[int, int], tuple[Span, FloatArray]] = {}
        self._units: dict[int, tuple[tuple[str, str], ...]] = {}
        self._words: dict[int, _SentenceWords] = {}
        self._forms: dict[int, _SentenceForms] = {}
        dim = embedder.dim
        self._bigrams: frozenset[tuple[str, ...]] = frozenset()
        self._found_bigrams: dict[tuple[str, ...], bool] = {}
        if self.full_scan:
            self._bigrams = frozenset(pair for stems in table.stems for pair in pairwise(stems))
            sums = embedder.token_sums(list(table.texts))
            for i in range(self.sentence_count):
                self._sentence_sums[i] = (sums.sums[i], float(sums.counts[i]))
            self.pooled_vector = (
                sums.pooled(0, self.sentence_count)
                if self.sentence_count
                else np.zeros(dim, dtype=np.float32)
            )
            self._all = self._gather(self._windows(range(self.sentence_count)))
        else:
            # Pooling every token of a large corpus through the tokenizer costs more than the
            # whole judgment: the same average is built from counts of its words and marks.
            pieces: Counter[str] = Counter()
            for context in contexts:
                pieces.update(PIECE_RE.findall(context))
            self.pooled_vector = embedder.pooled_from_pieces(pieces)

    def amounts_for(self, numbers: Collection[str]) -> list[Amount]:
        """The amounts of money the contexts state with these numbers, each with its currency (see
        :mod:`.money`), read from the sentences that hold them: a long page is not read whole."""
        held = sorted({i for number in numbers for i in self.table.with_number(number)})
        return [amount for i in held for amount in self._read(i).amounts if amount.number in numbers]

    def shares_for(self, wanted: Sequence[Share]) -> list[Share]:
        """The shares the contexts state that could write ``wanted`` in the other form (see
        :mod:`.shares`): their percentages near a fraction, their fractions for a percentage."""
        held: set[int] = set()
        for share in wanted:
            if share.in_words:
                held.update(i for number in percent_numbers(share) for i in self.table.with_number(number))
            else:
                held.update(i for word in FRACTION_STEMS for i in self.table.with_stem(word))
        return [found for i in sorted(held) for found in self._read(i).shares]

    def _read(self, i: int) -> _SentenceForms:
        if i not in self._forms:
            text = self.table.texts[i]
            self._forms[i] = _SentenceForms(tuple(amounts(text)), tuple(shares(text)))
        return self._forms[i]

    @cached_property
    def name_forms(self) -> frozenset[str]:
        """Every form of the contexts' words and multi-word places (see :mod:`.normalise`)."""
        starts = name_forms().phrases
        sentences = {
            i for first in starts if first in self.tokens for i in self.table.with_stem(cached_stem(first))
        }
        return context_forms(self.tokens, (self.table.tokens[i] for i in sorted(sentences)))

    @cached_property
    def initials(self) -> frozenset[str]:
        """First letters of the contexts' content words: what a lone capital may abbreviate."""
        return frozenset(word[0] for word in self.vocabulary if word[0].isalpha())

    @property
    def empty(self) -> bool:
        """True when the contexts contain no words at all."""
        return self.sentence_count == 0

    def candidates(self, stems: Sequence[str]) -> Candidates:
        """The spans a sentence with these stemmed content words is compared with."""
        if self.full_scan:
            return self._all
        ranked = self.table.rank(set(stems) - NEGATION_WORDS, CANDIDATE_SENTENCES)
        return self._gather(self._windows(ranked))

    def bigram_share(self, bigrams: Sequence[tuple[str, ...]], candidates: Candidates) -> float:
        """Share of a sentence's stemmed bigrams that occur within some context sentence (1.0 for
        none). A small context holds them all in one set; in a large one a bigram with a content
        word is looked up through that word's sentences, and a bigram of two function words
        ("of the") among the sentence's candidate spans."""
        if not bigrams:
            return 1.0
        if self.full_scan:
            return sum(1 for b in bigrams if b in self._bigrams) / len(bigrams)
        nearby = frozenset(b for span in candidates.spans if span.width == 1 for b in span.bigrams)
        return sum(1 for b in bigrams if b in nearby or self._has_bigram(b)) / len(bigrams)

    def _has_bigram(self, pair: tuple[str, ...]) -> bool:
        if pair not in self._found_bigrams:
            lists = [self.table.with_stem(w) for w in pair if w in self.content]
            rows = min(lists, key=len) if lists else []
            self._found_bigrams[pair] = any(pair in set(pairwise(self.table.stems[i])) for i in rows)
        return self._found_bigrams[pair]

    def numbers_near(self, stems: Sequence[str]) -> frozenset[str]:
        """The numbers that can back a sentence with these stemmed content words: in a small
        context, every number of it; in a large one, the numbers within ``MAX_WINDOW`` sentences
        of the context sentences that share at least half of those words. On a long page nearly
        every year and count occurs somewhere ("automated in 1979" where the page says 1987 and
        an unrelated paragraph mentions 1979), so the whole page backs nothing. When no sentence
        shares half of the words, every number of the contexts counts, as in a small context."""
        wanted = set(stems) - NEGATION_WORDS
        if self.full_scan or not wanted:
            return self.numbers
        table = self.table
        close = [
            i
            for i in table.rank(wanted, CANDIDATE_SENTENCES)
            if 2 * len(wanted & set(table.stems[i])) >= len(wanted)
        ]
        if not close:
            return self.numbers
        rows = {
            j
            for i in close
            for j in range(max(0, i - MAX_WINDOW + 1), min(self.sentence_count, i + MAX_WINDOW))
            if table.context_of[j] == table.context_of[i]
        }
        spelled = name_forms().numbers
        tokens = [t for j in sorted(rows) for t in table.tokens[j]]
        return frozenset(number_set(tokens)) | {spelled[t] for t in tokens if t in spelled}

    def clock_times(self) -> frozenset[str]:
        """Every clock time of the contexts in 24-hour form ("8:00" for "8 am" and "08:00"); read
        on first need, since most answers state no time."""
        if self._clock_times is None:
            table = self.table
            with_digits = {i for n in table.numbers() for i in table.with_number(n)}
            self._clock_times = frozenset(
                time for i in with_digits for time in clock_times(table.tokens[i]).values()
            )
        return self._clock_times

    def counted_with(self, number: str) -> frozenset[str]:
        """The stemmed words the contexts count with ``number`` (see numbers.numbers_with_units)."""
        return frozenset(
            unit for i in self.table.with_number(number) for n, unit in self._units_of(i) if n == number
        )

    def bounds(self, number: str) -> bool:
        """Whether the contexts state ``number`` as a bound ("up to 30 hours", "no more than 6
        tablets"): a bound of the answer is borne out by an exact number, not by another bound."""
        return any(
            family == MORE_OR_LESS and normalize_number(compared) == number
            for i in self.table.with_number(number)
            for family, _, compared in comparisons_in(self.table.tokens[i])
        )

    def counts_anything_as(self, unit: str) -> bool:
        """Whether some number of the contexts counts the stemmed word ``unit``."""
        return any(u == unit for i in self.table.with_stem(unit) for _, u in self._units_of(i))

    # -- building spans on demand ----------------------------------------------------------------

    def _units_of(self, i: int) -> tuple[tuple[str, str], ...]:
        if i not in self._units:
            self._units[i] = tuple(numbers_with_units(self.table.tokens[i]))
        return self._units[i]

    def _windows(self, sentences: Sequence[int] | range) -> list[tuple[int, int]]:
        """Every (start, width) window of one context that contains one of ``sentences``."""
        table = self.table
        windows: dict[tuple[int, int], None] = {}
        for i in sorted(sentences):
            ci = table.context_of[i]
            for start in range(max(0, i - MAX_WINDOW + 1), i + 1):
                if table.context_of[start] != ci:
                    continue
                for width in range(1, MAX_WINDOW + 1):
                    stop = start + width
                    if stop <= i or stop > self.sentence_count or table.context_of[stop - 1] != ci:
                        continue
                    windows[(start, width)] = None
        return sorted(windows)

    def _gather(self, windows: Sequence[tuple[int, int]]) -> Candidates:
        dim = self._embedder.dim
        if not windows:
            return Candidates((), np.zeros((0, dim), dtype=np.float32), np.zeros(0, dtype=bool))
        self._embed_sentences({i for start, width in windows for i in range(start, start + width)})
        self._build_spans([key for key in windows if key not in self._spans])
        built = [self._spans[key] for key in windows]
        return Candidates(
            spans=tuple(span for span, _ in built),
            vectors=np.stack([vector for _, vector in built]),
            single_sentence=np.array([width == 1 for _, width in windows], dtype=bool),
        )

    def _embed_sentences(self, wanted: set[int]) -> None:
        missing = sorted(i for i in wanted if i not in self._sentence_sums)
        if missing:
            sums = self._embedder.token_sums([self.table.texts[i] for i in missing])
            for row, i in enumerate(missing):
                self._sentence_sums[i] = (sums.sums[row], float(sums.counts[row]))

    def _sentence_words(self, i: int) -> _SentenceWords:
        if i not in self._words:
            tokens = self.table.tokens[i]
            content = [t for t in tokens if t not in STOPWORDS]
            self._words[i] = _SentenceWords(
                content=frozenset(cached_stem(t) for t in content),
                core=frozenset(cached_stem(t) for t in content if t not in NEGATION_WORDS),
                bigrams=frozenset(pairwise(self.table.stems[i])),
                has_negation=any(t in NEGATION_WORDS for t in tokens),
            )
        return self._words[i]

    def _build_spans(self, windows: Sequence[tuple[int, int]]) -> None:
        """Spans of these windows, from each sentence's words and token sums read once: a
        window's word sets are the union of its sentences' (its bigrams add those across a
        sentence boundary), and its vector is their token sums added in sentence order, the
        order in which a per-span sum adds them, so every vector is the same to the bit."""
        if not windows:
            return
        table = self.table
        totals = np.stack([self._sentence_sums[start][0] for start, _ in windows])
        for extra in range(1, MAX_WINDOW):
            wider = [row for row, (_, width) in enumerate(windows) if width > extra]
            if wider:
                totals[wider] += np.stack([self._sentence_sums[windows[r][0] + extra][0] for r in wider])
        # a vector's norm as ``np.linalg.norm`` takes it (the square root of the row's dot with
        # itself), then every vector divided at once
        norms = np.array([np.sqrt(total.dot(total)) for total in totals], dtype=np.float32)
        vectors = (totals / np.maximum(norms, np.float32(1e-12))[:, None]).astype(np.float32)
        for row, (start, width) in enumerate(windows):
            rows = range(start, start + width)
            own = [self._sentence_words(i) for i in rows]
            if width == 1:
                tokens = tuple(table.tokens[start])
                content, core, bigrams = own[0].content, own[0].core, own[0].bigrams
            else:
                tokens = tuple(chain.from_iterable(table.tokens[i] for i in rows))
                content = frozenset().union(*(w.content for w in own))
                core = frozenset().union(*(w.core for w in own))
                stems = list(chain.from_iterable(table.stems[i] for i in rows))
                ends = list(accumulate(len(table.stems[i]) for i in rows))[:-1]
                across = {(stems[k - 1], stems[k]) for k in ends if 0 < k < len(stems)}
                bigrams = frozenset().union(across, *(w.bigrams for w in own))
            has_negation = any(w.has_negation for w in own)
            span = Span(
                context_index=table.context_of[start],
                text=" ".join(table.texts[i] for i in rows),
                tokens=tokens,
                content=content,
                bigrams=bigrams,
                has_negation=has_negation,
                width=width,
                core=core,
                # a span without a negation word states none: the reading is skipped, not changed
                states_negation=has_negation and states_negation(tokens),
            )
            self._spans[(start, width)] = (span, vectors[row])


@dataclass(frozen=True)
class _SentenceForms:
    """The amounts of money and the shares of one context sentence, read when an answer asks."""

    amounts: tuple[Amount, ...]
    shares: tuple[Share, ...]


@dataclass(frozen=True)
class _SentenceWords:
    """What a span takes from each of its sentences, read once per sentence."""

    content: frozenset[str]
    core: frozenset[str]
    bigrams: frozenset[tuple[str, ...]]
    has_negation: bool


_kept: OrderedDict[tuple[int, tuple[str, ...]], ContextIndex] = OrderedDict()
_kept_lock = threading.Lock()


def shared_index(embedder: StaticEmbedder, contexts: Sequence[str]) -> ContextIndex:
    """The index of ``contexts``: built anew for small contexts, kept for large ones (see the module
    docstring)."""
    texts = tuple(contexts)
    if sum(len(text) for text in texts) < KEPT_FROM_CHARACTERS:
        return ContextIndex(embedder, texts)
    key = (id(embedder), texts)
    with _kept_lock:
        found = _kept.get(key)
        if found is not None:
            _kept.move_to_end(key)
            return found
    built = ContextIndex(embedder, texts)
    with _kept_lock:
        _kept[key] = built
        while len(_kept) > KEPT_INDEXES:
            _kept.popitem(last=False)
    return built


def forget_shared_indexes() -> None:
    """Drop every kept index (for measurements of a first check, and tests)."""
    with _kept_lock:
        _kept.clear()
