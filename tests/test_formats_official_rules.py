"""The official scorers' rules (../shared/peer/*/RULES.md) on hand-worked sentences: what each quirk counts,
how each scorer pairs sentences, and the one line that says why the unchanged scorer would crash."""

from __future__ import annotations

from pathlib import Path

from aggregator.formats.model import Sentence
from aggregator.formats.official import gas
from aggregator.formats.official.base import by_position, length_crash, never
from aggregator.formats.registry import FORMATS
from aggregator.formats.tally import Tally


def _sentence(key: str) -> Sentence[object]:
    return Sentence(key, int(key), key, (), ())


def _read(fmt: str, lines: list[str], path: Path) -> list[Sentence[object]]:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return FORMATS[fmt].read(path)


def test_sentences_pair_by_position_up_to_the_longer_file() -> None:
    one, two, three = _sentence("1"), _sentence("2"), _sentence("3")
    assert by_position([one, two], [three]) == [(one, three), (two, None)]
    assert by_position([one], [two, three]) == [(one, two), (None, three)]
    assert by_position([], []) == []


def test_a_scorer_that_asserts_equal_lengths_says_both() -> None:
    one, two = _sentence("1"), _sentence("2")
    assert length_crash([one], [one]) is None
    assert length_crash([one, two], [one]) == \
        "AssertionError: the files have 2 and 1 sentences (the scorer pairs them by line)"
    assert length_crash([one], [one, two], "ValueError") == \
        "ValueError: the files have 1 and 2 sentences (the scorer pairs them by line)"
    assert never([one], [], {}) is None


ASTE_GOLD = ["a b c d e f####[([1, 2, 3], [5], 'POS')]", "a b c d e f####[([0], [2], 'NEG')]"]
ASTE_PRED = ["a b c d e f####[([1, 9, 3], [5], 'POS'), ([1, 3], [5], 'POS')]",
             "a b c d e f####[([0], [2], 'NEG'), ([0], [2], 'NEG')]"]


def test_span_aste_and_gts_count_endpoints_and_pairs(tmp_path: Path) -> None:
    """Sentence 1: gold [1,2,3] (tokens 1–3); predictions [1,9,3] (a gapped list) and [1,3] (two endpoints, tokens
    1–3). Sentence 2: one gold triplet predicted twice. Span-ASTE keeps first and last index only (both
    predictions are the gold's span) and counts every equal (prediction, gold) pair: 2 + 2 hits of 4 predictions
    and 2 gold; GTS takes the same keys as sets: 1 + 1 of 2 and 2; as read (the gapped list is its own
    span), sets: 1 + 1 of 3 and 2, with pairs: 1 + 2 of 4 and 2."""
    gold, pred = _read("aste", ASTE_GOLD, tmp_path / "gold"), _read("aste", ASTE_PRED, tmp_path / "pred")
    span_aste, gts = FORMATS["aste"].scorers[:2]
    counted = {name: span_aste.run(gold, pred, frozenset(quirks))[("sentiment aspect opinion", "all")]
               for name, quirks in (("official", span_aste.all_quirks), ("gts", gts.all_quirks), ("none", ()),
                                    ("pairs", {"pair_multiplication"}))}
    assert counted == {"official": Tally(4, 0, -2), "gts": Tally(2, 0, 0), "none": Tally(2, 1, 0), "pairs": Tally(3, 1, -1)}
    assert span_aste.events(gold, pred) == {"endpoint_spans": 1, "pair_multiplication": 2}


ASQP_GOLD = ["the pizza is great####[['pizza', 'food quality', 'positive', 'great']]",
             "it was fine####[['NULL', 'restaurant general', 'neutral', 'fine']]", "nothing here####[]"]
ASQP_PRED = ["the pizza is great####[['pizza', 'food quality', 'positive', 'great '], "
             "['pizza', 'food quality', 'positive', 'great']]",
             "it was fine####[['It', 'restaurant general', 'neutral', 'fine']]", "nothing here####[]"]


def test_absa_quad_counts_through_the_paraphrase_round_trip(tmp_path: Path) -> None:
    """ABSA-QUAD: sentence 1 predicts the gold quad twice, once with a trailing space on the opinion (stripped by
    the round trip): 2 hits; sentence 2 predicts the aspect 'It', which reads back as NULL: a hit; sentence 3
    is empty on both sides, one ('', '', '', '') quad each: a hit. 4 hits of 4 predictions and 3 gold. The
    tuple-level variant compares the quads as written (one hit, 'great ' and 'It' miss, no junk), the sound
    scorer their words as a set per sentence (the two of sentence 1 are one)."""
    gold, pred = _read("asqp", ASQP_GOLD, tmp_path / "gold"), _read("asqp", ASQP_PRED, tmp_path / "pred")
    official, tuple_level = FORMATS["asqp"].scorers
    counted = [scorer.run(gold, pred, quirks)[("category sentiment aspect opinion", "all")]
               for scorer, quirks in ((official, official.all_quirks), (tuple_level, tuple_level.all_quirks),
                                      (official, frozenset()))]
    assert counted == [Tally(4, 0, -1), Tally(1, 2, 1), Tally(1, 1, 1)]
    assert official.events(gold, pred) == {"duplicates": 1, "exact_strings": 1, "paraphrase_round_trip": 2,
                                           "empty_junk": 2}
    assert official.crash(gold, pred, {}) is None



def test_absa_quad_pieces_that_do_not_split_back(tmp_path: Path) -> None:
    """Sentence 1: an aspect with ' is ' gives a piece that does not split in two (one junk quad), an aspect with
    '[SSEP]' two such pieces: 3 junk quads on each side, 3 hits, and the round trip changes 2 quads and adds one.
    Sentence 2: sentiments the paraphrase has no word for are kept as written (where the scorer raises
    KeyError), so 'Positive' and 'POSITIVE' differ: a miss, and no change by the round trip."""
    pizza = "the pizza is hot####[['the pizza is hot', 'food quality', 'positive', 'great'], " \
            "['x [SSEP] y', 'food quality', 'negative', 'bad']]"
    unknown = "pizza good####[['pizza', 'food quality', '{}', 'good']]"
    gold = _read("asqp", [pizza, unknown.format("Positive")], tmp_path / "gold")
    pred = _read("asqp", [pizza, unknown.format("POSITIVE")], tmp_path / "pred")
    official = FORMATS["asqp"].scorers[0]
    assert official.run(gold, pred, official.all_quirks)[("category sentiment aspect opinion", "all")] == Tally(3, 1, 1)
    assert official.events(gold, pred) == {"duplicates": 0, "exact_strings": 2, "paraphrase_round_trip": 6,
                                           "empty_junk": 0}

def test_absa_quad_crashes_on_a_sentiment_it_has_no_word_for(tmp_path: Path) -> None:
    gold = _read("asqp", ASQP_GOLD, tmp_path / "gold")
    pred = _read("asqp", [ASQP_PRED[0], ASQP_PRED[1].replace("'neutral'", "'Neutral'")], tmp_path / "pred")
    official = FORMATS["asqp"].scorers[0]
    assert official.crash(gold, pred, {}) == \
        "KeyError: 'Neutral' (line 2: sentiment is not positive, negative or neutral)"
    assert official.crash(gold, pred[:1], {}) == \
        "AssertionError: the files have 3 and 1 sentences (the scorer pairs them by line)"


ACOS_GOLD = ["a b c d\t0,1 FOOD#QUALITY 2 1,2\t-1,-1 FOOD#PRICES 0 2,3", "e f g"]
ACOS_PRED = ["a b c d\t0,1 FOOD#QUALITY 2 1,2\t-1,-1 FOOD#PRICES 1 2,3", "e f g\t0,1 SERVICE#GENERAL 2 -1,-1"]


def test_acos_ignores_sentences_without_gold_and_breaks_down_whole_sentences(tmp_path: Path) -> None:
    """Sentence 1: gold quads of types EA&EO and IA&EO, the first predicted right, the second with another
    sentiment: 1 tp, 1 fp, 1 fn, counted whole in both its types' breakdowns. Sentence 2 has no gold quad, so
    its predicted EA&IO quad is not counted at all. Without the quirks: that quad is a false positive (of EA&IO),
    and each type counts its own quads."""
    gold, pred = _read("acos", ACOS_GOLD, tmp_path / "gold"), _read("acos", ACOS_PRED, tmp_path / "pred")
    official = FORMATS["acos"].scorers[0]
    quad = "category sentiment aspect opinion"
    kinds = ("all", "EA&EO", "IA&EO", "EA&IO", "IA&IO")
    assert [official.run(gold, pred, official.all_quirks)[(quad, k)] for k in kinds] == [
        Tally(1, 1, 1), Tally(1, 1, 1), Tally(1, 1, 1), Tally(0, 0, 0), Tally(0, 0, 0)]
    assert [official.run(gold, pred, frozenset())[(quad, k)] for k in kinds] == [
        Tally(1, 2, 1), Tally(1, 0, 0), Tally(0, 1, 1), Tally(0, 1, 0), Tally(0, 0, 0)]
    assert official.events(gold, pred) == {"empty_gold_ignored": 1, "whole_sentence_types": 2}
    assert official.crash(gold, pred, {}) is None
    unknown = _read("acos", [*ACOS_PRED, "x y", "z"], tmp_path / "unknown")
    assert official.crash(gold, unknown, {}) == \
        "KeyError: line 3 of the predictions: its sentence is not in the gold (2 such)"


NIKLUGE_GOLD = ['{"id": "a", "sentence_form": "s1", "annotation": [["본품#품질", ["기어", 0, 2], "positive"], '
                '["본품#디자인", [null, 0, 0], "negative"]]}',
                '{"id": "b", "sentence_form": "s2", "annotation": [["제품 전체#일반", [null, 0, 0], "neutral"]]}']
NIKLUGE_PRED = ['{"id": "a", "annotation": [["본품#품질", "negative"], ["본품#품질", "positive"], ["본품#품질", "positive"], '
                '["브랜드#인지도", "positive"]]}',
                '{"id": "b", "annotation": [["제품 전체#일반 ", "Neutral"]]}']


def test_nikluge_first_matches_exact_strings_and_stale_flags(tmp_path: Path) -> None:
    """Sentence a: gold 품질/positive and 디자인/negative; predictions 품질/negative, 품질/positive twice, 브랜드.
    Recall side: the first 품질 prediction is negative, so 품질 is a category hit but a pipeline miss; 디자인 is
    missed. Precision side: each prediction checks the first gold of its category: 품질/negative is a pipeline
    false positive, the two 품질/positive are not, 브랜드 is one for both units. Sentence b: a trailing space
    and 'Neutral' miss as exact strings. Before the 2022-11-02 fix, every prediction after the first matched
    one of its sentence is no false positive. Without the quirks (sets by id, normalized): b is right."""
    gold, pred = _read("nikluge", NIKLUGE_GOLD, tmp_path / "gold"), _read("nikluge", NIKLUGE_PRED, tmp_path / "pred")
    official, pre_fix = FORMATS["nikluge"].scorers
    units = (("category", "all"), ("category sentiment", "all"))
    assert [official.run(gold, pred, official.all_quirks)[u] for u in units] == [Tally(1, 2, 2), Tally(0, 3, 3)]
    assert [pre_fix.run(gold, pred, pre_fix.all_quirks)[u] for u in units] == [Tally(1, 1, 2), Tally(0, 2, 3)]
    assert [official.run(gold, pred, frozenset())[u] for u in units] == [Tally(2, 1, 1), Tally(2, 2, 1)]
    assert official.events(gold, pred) == {"position_pairing": 0, "exact_strings": 1, "polarity_at_index_1": 0,
                                           "gold_repeats": 0, "pred_repeats": 2, "first_match": 1, "stale_flags": 3}
    assert official.crash(gold, pred, official.run(gold, pred, official.all_quirks)) == \
        "ZeroDivisionError: division by zero (no pipeline true positive)"


def test_nikluge_pairs_by_position_and_crashes_as_the_baseline_does(tmp_path: Path) -> None:
    """The predictions in the other order: paired by position (ids unchecked), both sentences differ in id and
    no category hits, so the baseline divides by zero; fewer prediction lines than gold lines, or a gold
    annotation without its polarity at index 2, stop it earlier."""
    gold, pred = _read("nikluge", NIKLUGE_GOLD, tmp_path / "gold"), _read("nikluge", NIKLUGE_PRED[::-1], tmp_path / "pred")
    official = FORMATS["nikluge"].scorers[0]
    tallies = official.run(gold, pred, official.all_quirks)
    assert tallies[("category", "all")] == Tally(0, 5, 3) and official.events(gold, pred)["position_pairing"] == 2
    assert official.crash(gold, pred, tallies) == "ZeroDivisionError: division by zero (no category true positive)"
    assert official.crash(gold, pred[:1], tallies) == \
        "IndexError: list index out of range (gold has 2 lines, the predictions 1)"
    short = _read("nikluge", ['{"id": "a", "annotation": [["본품#품질", "positive"]]}'], tmp_path / "short")
    assert official.crash(short, short, tallies) == \
        "IndexError: list index out of range (a gold annotation has no polarity at index 2)"


def _semeval(path: Path, *sentences: tuple[str, list[str], list[str]]) -> list[Sentence[object]]:
    """A SemEval-2014 file of sentences (id, term offsets "from-to", category names)."""
    body = "".join(
        f'<sentence id="{key}"><text>The fish was fresh</text><aspectTerms>'
        + "".join(f'<aspectTerm term="t" from="{span.split("-")[0]}" to="{span.split("-")[1]}"/>' for span in terms)
        + "</aspectTerms><aspectCategories>" + "".join(f'<aspectCategory category="{c}"/>' for c in categories)
        + "</aspectCategories></sentence>\n" for key, terms, categories in sentences)
    path.write_text(f"<sentences>\n{body}</sentences>\n", encoding="utf-8")
    return FORMATS["semeval14"].read(path)


def test_semeval14_repeats_lower_case_and_position(tmp_path: Path) -> None:
    """Gold: the term 4–8 twice, the category food twice; prediction: the term once, FOOD and food. The 2014
    evaluator counts a predicted term found among the gold's (1 of 1 retrieved, 2 relevant), lower-cases the
    categories and de-duplicates the predicted ones only (1 of 1, 2 relevant); without its quirks both sides
    are sets and FOOD is another category."""
    gold = _semeval(tmp_path / "gold.xml", ("s1", ["4-8", "4-8"], ["food", "food"]))
    pred = _semeval(tmp_path / "pred.xml", ("s1", ["4-8"], ["FOOD", "food"]))
    official = FORMATS["semeval14"].scorers[0]
    units = (("aspect", "all"), ("category", "all"))
    assert [official.run(gold, pred, official.all_quirks)[u] for u in units] == [Tally(1, 0, 1), Tally(1, 0, 1)]
    assert [official.run(gold, pred, frozenset())[u] for u in units] == [Tally(1, 0, 0), Tally(1, 1, 0)]
    assert official.events(gold, pred) == {"position_pairing": 0, "offset_strings": 0, "lower_case_categories": 1,
                                           "duplicates": 3}
    assert official.crash(gold, pred, official.run(gold, pred, official.all_quirks)) is None


def test_semeval14_pairs_by_position_and_crashes_as_the_evaluator_does(tmp_path: Path) -> None:
    """Predictions in the other order pair by position (ids unchecked); fewer predicted sentences stop the
    evaluator, and so does a gold without terms (recall divides by 0)."""
    gold = _semeval(tmp_path / "gold.xml", ("s1", ["4-8"], ["food"]), ("s2", [], ["service"]))
    pred = _semeval(tmp_path / "pred.xml", ("s2", [], ["service"]), ("s1", ["4-8"], ["food"]))
    official = FORMATS["semeval14"].scorers[0]
    tallies = official.run(gold, pred, official.all_quirks)
    assert tallies[("aspect", "all")] == Tally(0, 1, 1) and tallies[("category", "all")] == Tally(0, 2, 2)
    assert official.events(gold, pred)["position_pairing"] == 2
    assert official.crash(gold, pred[:1], tallies) == \
        "IndexError: list index out of range (gold has 2 sentences, the predictions 1)"
    no_terms = _semeval(tmp_path / "none.xml", ("s1", [], ["food"]))
    assert official.crash(no_terms, no_terms, official.run(no_terms, no_terms, official.all_quirks)) == \
        "ZeroDivisionError: float division by zero (no gold aspect to recall)"


GAS_GOLD = ["the food was great but service slow####[([1], [3], 'POS'), ([5], [6], 'NEG')]", "nice place####[]",
            "a food and a food####[([1], [0], 'POS')]"]
GAS_PRED = ["the food was great but service slow####[([1], [3], 'POS'), ([1], [3], 'POS'), ([5], [6], 'POS')]",
            "nice place####[]", "a food and a food####[([4], [3], 'POS')]"]


def test_gas_compares_words_keeps_repeats_and_junk(tmp_path: Path) -> None:
    """Sentence 1: (food, great, positive) predicted twice, 2 hits, and (service, slow, positive) a miss;
    sentence 2: empty on both sides, one ('', '', '') each, a hit; sentence 3: the words of the gold triplet
    at other positions, a hit by surface text. Raw: 4 hits of 5 predictions and 4 gold. Fixed: sentence 2's junk
    takes the previous triplet's values (service, slow, positive), and words missing from "nice place" become
    the closest token, the first of the closest: service → nice (4 edits; place 5), slow → nice (4; place 4),
    a miss. Without the quirks: positions as sets, 1 hit of 3 and 3."""
    gold, pred = _read("aste", GAS_GOLD, tmp_path / "gold"), _read("aste", GAS_PRED, tmp_path / "pred")
    raw, fixed = FORMATS["aste"].scorers[2:]
    triplet = ("sentiment aspect opinion", "all")
    assert raw.run(gold, pred, raw.all_quirks)[triplet] == Tally(4, 1, 0)
    assert fixed.run(gold, pred, fixed.all_quirks)[triplet] == Tally(3, 2, 1)
    assert raw.run(gold, pred, frozenset())[triplet] == Tally(1, 2, 2)
    assert raw.events(gold, pred) == {"duplicates": 1, "surface_text": 1, "round_trip": 0, "empty_junk": 2}
    assert fixed.events(gold, pred) == {"duplicates": 1, "surface_text": 1, "round_trip": 0, "empty_junk": 2,
                                        "edit_distance_fix": 1}
    assert raw.crash(gold, pred, {}) is None and fixed.crash(gold, pred, {}) is None


def test_gas_round_trip_and_its_crash_lines(tmp_path: Path) -> None:
    """A term with ', ' cannot be parsed back; a one-token span outside its sentence stops the raw scorer; the
    fixed pass stops on a first prediction it cannot decode, and on a word to recover in a sentence without
    tokens."""
    assert gas.round_trip([("food, great", "good", "positive"), ("a", "b", "negative")]) == [
        ("", "", ""), ("a", "b", "negative")]
    raw, fixed = FORMATS["aste"].scorers[2:]
    gold = _read("aste", GAS_GOLD[:2], tmp_path / "gold")
    outside = _read("aste", [GAS_PRED[0], "nice place####[([5], [0], 'POS')]"], tmp_path / "outside")
    assert raw.crash(gold, outside, {}) == \
        "IndexError: list index out of range (line 2: a one-token span outside the sentence)"
    empty_first = _read("aste", ["nice place####[]", GAS_PRED[0]], tmp_path / "empty")
    assert fixed.crash(gold, empty_first, {}) == (
        "UnboundLocalError: line 1: the first predicted triplet cannot be decoded (an empty prediction), and no "
        "earlier one set the variables fix_preds_aste reuses")
    no_tokens, guess = _read("aste", ["####[]"], tmp_path / "no_tokens"), _read("aste", ["x####[([0], [0], 'POS')]"],
                                                                                   tmp_path / "guess")
    assert fixed.crash(no_tokens, guess, {}) == \
        "ValueError: min() arg is an empty sequence (a predicted term to recover in a sentence without tokens)"


def test_acos_mixed_sentences_and_gold_without_prediction(tmp_path: Path) -> None:
    """Sentence 1 holds an EA&EO and an IA&EO quad (mixed: its breakdowns differ from its types' quads),
    sentences 2 and 3 one EA&EO quad each; all predicted right but sentence 3, missing from the predictions
    (its quad a false negative). Only sentence 1 is mixed."""
    gold = _read("acos", [ACOS_GOLD[0], "b c\t0,1 FOOD#QUALITY 2 1,2", "c d\t0,1 FOOD#PRICES 0 1,2"], tmp_path / "gold")
    pred = _read("acos", [ACOS_GOLD[0], "b c\t0,1 FOOD#QUALITY 2 1,2"], tmp_path / "pred")
    official = FORMATS["acos"].scorers[0]
    tallies = official.run(gold, pred, official.all_quirks)
    quad = "category sentiment aspect opinion"
    assert [tallies[(quad, k)] for k in ("all", "EA&EO", "IA&EO")] == [Tally(3, 0, 1), Tally(3, 0, 1), Tally(2, 0, 0)]
    assert official.events(gold, pred) == {"empty_gold_ignored": 0, "whole_sentence_types": 1}


def test_gas_words_of_an_index_list(tmp_path: Path) -> None:
    """One index is that token (Python's, so -1 is the last); a list the tokens from the first to the last; a
    single index beyond the sentence no word."""
    (sentence,) = _read("aste", ["a b####[([-1], [0], 'POS'), ([5], [0, 1], 'NEG')]"], tmp_path / "gold")
    assert gas.texts(sentence) == [("b", "a", "positive"), ("", "a b", "negative")]


def test_gas_fix_recovers_each_missing_word_as_fix_preds_aste_does() -> None:
    """A term not found in the sentence (as text: "ood wa" is found in "food was") has each word replaced by
    the closest token; a triplet read as (aspect, sentiment, opinion) comes back in that order (its opinion
    'neutral' recovered as "natural", 3 edits); a first triplet without a sentiment keeps its own values (the
    scorer stops there), its empty sentiment recovered as "neutral" (7 edits; positive and negative 8); with
    no tokens a term stays as it is."""
    tokens = ["the", "service", "slow", "food", "was", "positive", "natural"]
    predictions = [[("servce slw", "was", "positive"), ("ood wa", "oo", "negative"), ("food", "positive", "neutral")]]
    assert gas.fix(predictions, [tokens]) == [
        [("service slow", "was", "positive"), ("ood wa", "oo", "negative"), ("food", "positive", "natural")]]
    assert gas.fix([[("", "", "")], [("x", "y", "positive")]], [["a"], []]) == [[("", "", "neutral")], [("x", "y", "positive")]]


def test_gas_crash_lines_of_spans_and_of_words_without_tokens(tmp_path: Path) -> None:
    """A one-token index is read as Python reads it: -2 and 1 are in a sentence of 2 tokens, 2 is not. With no
    token in the gold sentence, a predicted aspect alone or an opinion alone (the other side empty: a two-index
    list beyond the sentence) has no closest token."""
    raw, fixed = FORMATS["aste"].scorers[2:]
    gold = _read("aste", ["a b####[([0], [1], 'POS')]"], tmp_path / "gold")
    inside, outside = (_read("aste", [f"a b####[([{i}], [1], 'POS')]"], tmp_path / f"pred{i}") for i in (-2, 2))
    assert raw.crash(gold, inside, {}) is None
    for scorer in (raw, fixed):
        assert scorer.crash(gold, outside, {}) == \
            "IndexError: list index out of range (line 1: a one-token span outside the sentence)"
    no_tokens = _read("aste", ["####[]"], tmp_path / "no_tokens")
    for line in ("x####[([0], [5, 6], 'POS')]", "x####[([5, 6], [0], 'POS')]"):
        assert fixed.crash(no_tokens, _read("aste", [line], tmp_path / "guess"), {}) == \
            "ValueError: min() arg is an empty sequence (a predicted term to recover in a sentence without tokens)"


def test_gas_events_and_the_fixed_pass_on_a_misspelled_prediction(tmp_path: Path) -> None:
    """Events: a surface-text hit in sentence 1, then a term with '; ' that the round trip splits in two
    (one triplet changed, one more: 2 on each side). Fixed: "fod" (a prediction whose sentence text differs)
    is recovered as "food" and hits; a predicted sentence beyond the gold is recovered against no tokens."""
    raw, fixed = FORMATS["aste"].scorers[2:]
    semicolon = "x; y b####[([0, 1], [2], 'POS')]"
    gold = _read("aste", [GAS_GOLD[2], semicolon], tmp_path / "gold")
    pred = _read("aste", [GAS_PRED[2], semicolon], tmp_path / "pred")
    assert raw.events(gold, pred) == {"duplicates": 0, "surface_text": 1, "round_trip": 4, "empty_junk": 0}
    gold = _read("aste", ["the food was great####[([1], [3], 'POS')]"], tmp_path / "gold")
    pred = _read("aste", ["the fod was great####[([1], [3], 'POS')]", "z####[([0], [0], 'NEG')]"], tmp_path / "pred")
    triplet = ("sentiment aspect opinion", "all")
    assert raw.run(gold, pred, raw.all_quirks)[triplet] == Tally(0, 2, 1)
    assert fixed.run(gold, pred, fixed.all_quirks)[triplet] == Tally(1, 1, 0)
    assert fixed.events(gold, pred)["edit_distance_fix"] == 1


def test_nikluge_first_gold_of_a_category_and_the_events(tmp_path: Path) -> None:
    """a: gold 품질/negative then 품질/positive (a repeated category); predictions 브랜드/negative, 품질/positive
    and '본품 #품질'/Positive. The 품질/positive prediction checks the first gold of its category, the negative
    one: a pipeline false positive, though the second gold is hit on the recall side. b: two predictions in
    the gold's 3-element form (their polarities the [term, start, end] lists, two distinct). c: 'Neutral'
    misses 'neutral' as exact strings. A fourth prediction line has no gold line."""
    gold = _read("nikluge", [
        '{"id": "a", "annotation": [["본품#품질", [null, 0, 0], "negative"], ["본품#품질", [null, 0, 0], "positive"]]}',
        '{"id": "b", "annotation": [["본품#디자인", ["기어", 0, 2], "positive"]]}',
        '{"id": "c", "annotation": [["제품 전체#일반", [null, 0, 0], "neutral"]]}'], tmp_path / "gold")
    pred = _read("nikluge", [
        '{"id": "a", "annotation": [["브랜드#인지도", "negative"], ["본품#품질", "positive"], ["본품 #품질", "Positive"]]}',
        '{"id": "b", "annotation": [["본품#디자인", ["기어", 0, 2], "positive"], ["본품#디자인", ["디자인", 3, 6], "positive"]]}',
        '{"id": "c", "annotation": [["제품 전체#일반", "Neutral"]]}', '{"id": "d", "annotation": []}'], tmp_path / "pred")
    official = FORMATS["nikluge"].scorers[0]
    tallies = official.run(gold, pred, official.all_quirks)
    assert [tallies[("category", "all")], tallies[("category sentiment", "all")]] == [Tally(4, 2, 0), Tally(1, 6, 3)]
    assert official.events(gold, pred) == {"position_pairing": 1, "exact_strings": 2, "polarity_at_index_1": 2,
                                           "gold_repeats": 1, "pred_repeats": 1, "first_match": 2, "stale_flags": 2}
    assert official.crash(gold, pred, tallies) is None


def test_semeval14_offsets_as_written_and_lower_case_in_the_events(tmp_path: Path) -> None:
    """The term 04–8 is written otherwise than it reads (one offset_strings event); lower-casing is Python's
    (ß stays ß, SS becomes ss: a miss; upper-casing would make both SS); a predicted sentence past the gold's
    is one position_pairing event."""
    gold = _semeval(tmp_path / "gold.xml", ("s1", ["4-8"], ["ß"]))
    pred = _semeval(tmp_path / "pred.xml", ("s1", ["04-8"], ["SS"]), ("s2", [], []))
    official = FORMATS["semeval14"].scorers[0]
    assert official.run(gold, pred, official.all_quirks)[("category", "all")] == Tally(0, 1, 1)
    assert official.events(gold, pred) == {"position_pairing": 1, "offset_strings": 1, "lower_case_categories": 1,
                                           "duplicates": 0}
