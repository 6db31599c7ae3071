"""GAS (IsakZhang/Generative-ABSA) ``compute_scores(..., 'extraction', 'aste')``: text-level ASTE.

Each triplet becomes ``(aspect words, opinion words, sentiment word)``, the words taken
from the first to the last index; a sentence's triplets are written as
``(a, o, s); (a, o, s)`` and parsed back (split on ``'; '`` then ``', '``; anything but 3
parts is ``('', '', '')``, so an empty list is one such triplet). Every predicted triplet
found in the gold list is a hit, repeats included. The ``fixed`` pass first replaces
predicted words missing from the sentence by the closest sentence token (edit distance). Linear
time per sentence: membership in a set, each word of a sentence recovered once (the same numbers, tested).
"""

from __future__ import annotations

from typing import Any

from aggregator.formats.official.base import Quirk, Scorer, Sentences, by_position, length_crash
from aggregator.formats.tally import Tallies, Tally

TRIPLET = "sentiment aspect opinion"
SENTIMENT_WORD = {"POS": "positive", "NEG": "negative", "NEU": "neutral"}
SENTIMENTS = ("positive", "negative", "neutral")
Text = tuple[str, ...]

QUIRKS = (
    Quirk("duplicates", "repeated triplets are kept: each repeated prediction found in gold is another hit, "
                        "and repeats count in the totals"),
    Quirk("surface_text", "triplets are compared by their words, not their positions: the same words elsewhere "
                          "in the sentence still match"),
    Quirk("round_trip", "a term containing ', ' or '; ' cannot be parsed back and becomes ('', '', '')"),
    Quirk("empty_junk", "an empty list becomes one ('', '', '') triplet, which an empty gold matches"),
)
FIX = Quirk("edit_distance_fix", "predicted words missing from the sentence are replaced by the closest token "
                                 "(edit distance); a ('', '', '') triplet takes the previous triplet's values")


def _words(tokens: list[str], indices: tuple[int, ...]) -> str:
    try:
        return tokens[indices[0]] if len(indices) == 1 else " ".join(tokens[indices[0]: indices[-1] + 1])
    except IndexError:
        return ""


def texts(sentence: Any) -> list[Text]:
    tokens = sentence.text.split()
    return [(_words(tokens, i.aspect), _words(tokens, i.opinion), SENTIMENT_WORD[i.label]) for i in sentence.raw]


def round_trip(triplets: list[Text]) -> list[Text]:
    """Written as the target string and parsed back, as the scorer does."""
    target = "; ".join("(" + ", ".join(t) + ")" for t in triplets)
    parsed = [part[1:-1].split(", ") for part in target.split("; ")]
    return [tuple(p) if len(p) == 3 else ("", "", "") for p in parsed]


def side(sentence: Any, quirks: frozenset[str]) -> list[Any]:
    """A sentence's triplets as compared under ``quirks`` (before any edit-distance fix)."""
    if sentence is None:
        return []
    if "surface_text" not in quirks:
        return [(t.aspect, t.opinion, t.polarity) for t in sentence.tuples]
    found = texts(sentence)
    if "round_trip" in quirks and (found or "empty_junk" in quirks):
        return round_trip(found)
    return found


class _NoTokens(ValueError):
    """The scorer's ``min()`` of no edit distances: a term to recover in a sentence without tokens."""


def _closest(word: str, candidates: list[str] | tuple[str, ...]) -> str:
    import editdistance

    distances = [editdistance.eval(word, c) for c in candidates]
    return candidates[distances.index(min(distances))]


def _recover(term: str, candidates: list[str] | tuple[str, ...], strict: bool = False,
             known: dict[str, str] | None = None) -> str:
    """The closest candidate of each word (the first of the closest); with no candidates the scorer raises
    (``strict``), else the term stays. ``known``: the words of this sentence already recovered."""
    if not candidates:
        if strict:
            raise _NoTokens(term)
        return term
    known = {} if known is None else known
    out = []
    for word in term.split(" "):
        if word not in known:
            known[word] = _closest(word, candidates)
        out.append(known[word])
    return " ".join(out)


def fix(predictions: list[list[Any]], sentences: list[list[str]], strict: bool = False) -> list[list[Any]]:
    """``fix_preds_aste``: the variables of the last decodable triplet stay set for the next ones.
    Predictions past the last sentence are recovered against no tokens (``strict``: raise, as the scorer)."""
    state: tuple[str, str, str, bool] | None = None
    fixed = []
    for triplets, tokens in zip(predictions, sentences):
        sentence, new, known, polar = " ".join(tokens), [], {}, {}  # type: ignore[var-annotated]
        for p0, p1, p2 in triplets:
            if p1 in SENTIMENTS or p2 in SENTIMENTS or state is None:
                state = (p0, p2, p1, False) if p1 in SENTIMENTS else (p0, p1, p2, True)
            at, ott, ac, extraction = state
            new_at = at if at in sentence else _recover(at, tokens, strict, known)
            new_ac = ac if ac in SENTIMENTS else _recover(ac, SENTIMENTS, strict, polar)
            new_ot = ", ".join(ot if ot in sentence else _recover(ot, tokens, strict, known) for ot in ott.split(", "))
            new.append((new_at, new_ot, new_ac) if extraction else (new_at, new_ac, new_ot))
        fixed.append(new)
    return fixed


def run(gold: Sentences, pred: Sentences, quirks: frozenset[str]) -> Tallies:
    pairs = by_position(gold, pred)
    golds = [side(g, quirks) for g, _ in pairs]
    preds = [side(p, quirks) for _, p in pairs]
    if "edit_distance_fix" in quirks:
        preds = fix(preds, [g.text.split() if g is not None else [] for g, _ in pairs])
    hits = n_pred = n_gold = 0
    for g_, p_ in zip(golds, preds):
        if "duplicates" not in quirks:
            g_, p_ = list(set(g_)), list(set(p_))
        found = set(g_)
        hits += sum(t in found for t in p_)
        n_pred, n_gold = n_pred + len(p_), n_gold + len(g_)
    return {(TRIPLET, "all"): Tally.of(hits, n_pred, n_gold)}


def _raw_crash(gold: Sentences, pred: Sentences) -> str | None:
    for sentence in (*gold, *pred):
        count = len(sentence.text.split())
        if any(len(x) == 1 and not -count <= x[0] < count for i in sentence.raw for x in (i.aspect, i.opinion)):
            return f"IndexError: list index out of range (line {sentence.line}: a one-token span outside the sentence)"
    return length_crash(gold, pred)


def raw_crash(gold: Sentences, pred: Sentences, tallies: Tallies) -> str | None:
    return _raw_crash(gold, pred)


def fixed_crash(gold: Sentences, pred: Sentences, tallies: Tallies) -> str | None:
    found = _raw_crash(gold, pred)
    if found is not None:
        return found
    parsed = [side(p, frozenset({"surface_text", "round_trip", "empty_junk"})) for p in pred]
    for sentence, triplets in zip(pred, parsed):
        for _p0, p1, p2 in triplets:
            if p1 in SENTIMENTS or p2 in SENTIMENTS:
                break
            return (f"UnboundLocalError: line {sentence.line}: the first predicted triplet cannot be decoded "
                    "(an empty prediction), and no earlier one set the variables fix_preds_aste reuses")
        else:
            continue
        break
    try:
        fix(parsed, [g.text.split() for g in gold], strict=True)
    except _NoTokens:
        return "ValueError: min() arg is an empty sequence (a predicted term to recover in a sentence without tokens)"
    return None


def events(gold: Sentences, pred: Sentences) -> dict[str, int]:
    everything = frozenset({"surface_text"})
    counts = {"duplicates": 0, "surface_text": 0, "round_trip": 0,
              "empty_junk": sum(not s.raw for s in (*gold, *pred))}
    for g, p in by_position(gold, pred):
        for s in (g, p):
            if s is not None:
                counts["duplicates"] += len(s.raw) - len(set(side(s, frozenset())))
                found = texts(s)
                after = round_trip(found) if found else []
                counts["round_trip"] += sum(a != b for a, b in zip(after, found)) + abs(len(after) - len(found))
        if g is not None and p is not None:
            gold_keys, gold_texts = set(side(g, frozenset())), set(side(g, everything))
            counts["surface_text"] += sum(k not in gold_keys and t in gold_texts
                                          for k, t in zip(side(p, frozenset()), side(p, everything)))
    return counts


def fixed_events(gold: Sentences, pred: Sentences) -> dict[str, int]:
    """:func:`events`, and how many predicted triplets the edit-distance pass changes."""
    pairs = by_position(gold, pred)
    parsed = [side(p, frozenset({"surface_text", "round_trip", "empty_junk"})) for _, p in pairs]
    fixed = fix(parsed, [g.text.split() if g is not None else [] for g, _ in pairs])
    changed = sum(a != b for before, after in zip(parsed, fixed) for a, b in zip(before, after))
    return {**events(gold, pred), "edit_distance_fix": changed}


RAW = Scorer("gas_compute_scores_extraction", "aste", "IsakZhang/Generative-ABSA eval_utils.compute_scores "
             "(extraction, aste), raw @ 8f4671b2", QUIRKS, run, raw_crash, events, aliases=("aste-gas", "gas-raw"))
FIXED = Scorer("gas_fixed_editdistance", "aste", "IsakZhang/Generative-ABSA eval_utils.compute_scores "
               "(extraction, aste), fixed @ 8f4671b2", (*QUIRKS, FIX), run, fixed_crash, fixed_events,
               aliases=("aste-gas-fixed", "gas-fixed", "fixed_editdistance"))
