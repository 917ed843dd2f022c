"""Generation with fast-forward (refimpl/decoding/generate.py) and `maskref generate` (refimpl/showing/cli.py).

- every text generated is accepted by the grammar (or, cut by max_tokens, a prefix of an
  accepted text), on typed grammars, JSON schemas and Lark on GPT-2, and on random
  grammars and vocabularies;
- fast-forward saves model calls, and with a model that would have chosen the forced
  tokens anyway (it scores the first forced token highest) the output is the same as
  without fast-forward, token for token;
- max_tokens is respected, forced tokens included; samplers only pick allowed tokens
  among the k best, reproducibly;
- the CLI prints the text, the parsed value and the calls saved.
"""
import enum
import json
import sys
from dataclasses import dataclass
from typing import Annotated, List, Literal, Optional

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from refimpl import Grammar, Matcher, Vocabulary
from refimpl.decoding import Generation, RandomModel, TopK, generate, greedy
from refimpl.decoding.topk import reference_top_k
from refimpl.recognition.recognizer import Recognizer
from refimpl.showing.cli import main
from refimpl.typed import Length, Range, parse
from tests.support.budget import examples
from tests.support.grammars import regex_grammar, regexes, token_lists, vocabulary
from tests.support.paths import ROOT

GPT2 = Vocabulary.load("gpt2")
COMPACT = {"whitespace_flexible": False, "item_separator": ", ", "key_separator": ": "}


class Role(enum.Enum):
    WARRIOR = "warrior"
    MAGE = "mage"


@dataclass
class Stats:
    level: Annotated[int, Range(ge=1, le=99)]
    role: Role


@dataclass
class Character:
    name: Annotated[str, Length(1, 12)]
    alive: bool
    stats: Stats
    tags: List[Literal["brave", "wise", "quick"]]
    nickname: Optional[Annotated[str, Length(0, 8)]] = None


SCHEMA = {"type": "object", "properties": {"id": {"type": "integer", "minimum": 0, "maximum": 9999},
                                           "label": {"type": "string", "maxLength": 10},
                                           "ok": {"type": "boolean"}},
          "required": ["id", "label", "ok"], "additionalProperties": False}
LARK = 'start: "(" item ("," item)* ")"\nitem: NAME "=" NUMBER\nNAME: /[a-z]{1,6}/\nNUMBER: /[0-9]{1,3}/\n'


def accepted(grammar, data):
    r = Recognizer(grammar.compiled)
    return r.consume_bytes(data) and r.is_accepting()


def prefix_ok(grammar, data):
    return Recognizer(grammar.compiled).consume_bytes(data)


class KnowsTheFormat:
    """A model that would choose the forced tokens anyway: the random model's logits,
    except that where the grammar forces tokens (it replays the ids in its own Matcher),
    the first forced token scores highest."""

    def __init__(self, model, grammar, vocab):
        self.model, self.matcher, self.seen = model, Matcher(grammar, vocab), []

    def __call__(self, ids):
        assert ids[: len(self.seen)] == self.seen
        for t in ids[len(self.seen):]:
            assert self.matcher.consume(t)
            self.seen.append(t)
        logits = self.model(ids)
        forced = self.matcher.forced_tokens()
        if forced:
            logits[forced[0]] = max(logits) + 1.0
        return logits


def counted(model):
    calls = []

    def call(ids):
        calls.append(list(ids))
        return model(ids)
    return call, calls


GRAMMARS = [
    ("type", lambda: Grammar.from_type(Character, **COMPACT)),
    ("schema", lambda: Grammar.from_json_schema(SCHEMA, **COMPACT)),
    ("lark", lambda: Grammar.from_lark(LARK)),
]


@pytest.mark.parametrize("name, make", GRAMMARS, ids=[g[0] for g in GRAMMARS])
def test_generated_texts_are_accepted_and_fast_forward_saves_calls(name, make):
    g = make()
    saved = 0
    for seed in range(4):
        for sampler in (greedy, TopK(8, seed=seed)):
            model, calls = counted(RandomModel(GPT2, seed))
            r = generate(model, Matcher(g, GPT2), max_tokens=300, sampler=sampler)
            assert isinstance(r, Generation) and r.stop == "eos" and r.accepted, (name, seed, r.text)
            assert r.tokens[-1] == GPT2.eos_token_id and r.data == GPT2.decode(r.tokens[:-1])
            assert accepted(g, r.data), (name, seed, r.text)
            assert r.model_calls == len(calls) and r.model_calls + r.saved_calls == len(r.tokens)
            assert all(c == r.tokens[:len(c)] for c in calls)  # the model saw the ids so far
            assert r.forced_at == sorted(set(range(len(r.tokens))) - {len(c) for c in calls})
            if name == "type":
                assert isinstance(parse(Character, r.text), Character)
            elif name == "schema":
                assert set(json.loads(r.text)) == {"id", "label", "ok"}
            saved += r.saved_calls
    if name != "lark":  # the JSON layouts force keys and punctuation
        assert saved > 8 * 10


@pytest.mark.parametrize("name, make", GRAMMARS[:2], ids=[g[0] for g in GRAMMARS[:2]])
def test_fast_forward_gives_what_the_model_would_have_chosen(name, make):
    g = make()
    for seed in range(3):
        runs = [generate(KnowsTheFormat(RandomModel(GPT2, seed), g, GPT2), Matcher(g, GPT2), max_tokens=300,
                         fast_forward=ff) for ff in (True, False)]
        fast, slow = runs
        assert fast.tokens == slow.tokens and fast.text == slow.text and fast.accepted, (name, seed)
        assert slow.saved_calls == 0 and slow.model_calls == len(slow.tokens)
        assert fast.saved_calls > 0 and fast.model_calls == slow.model_calls - fast.saved_calls


def test_max_tokens_is_respected():
    g = Grammar.from_type(Character, **COMPACT)
    full = generate(RandomModel(GPT2, 5), Matcher(g, GPT2), max_tokens=300)
    assert full.stop == "eos"
    for n in (0, 1, 2, 3, 5, 8, len(full.tokens) - 1):
        r = generate(RandomModel(GPT2, 5), Matcher(g, GPT2), max_tokens=n)
        assert r.tokens == full.tokens[:n] and r.stop == "max_tokens", n
        assert r.accepted == (n == len(full.tokens) - 1)  # all but EOS
        assert prefix_ok(g, r.data)
    r = generate(RandomModel(GPT2, 5), Matcher(g, GPT2), max_tokens=len(full.tokens))
    assert r.tokens == full.tokens and r.stop == "eos"
    with pytest.raises(ValueError, match="max_tokens must be >= 0"):
        generate(RandomModel(GPT2, 5), Matcher(g, GPT2), max_tokens=-1)


def test_top_k_sampling_picks_among_the_k_best_allowed_reproducibly():
    g = Grammar.from_json_schema(SCHEMA, **COMPACT)
    seen = []

    class Watching(TopK):
        def __call__(self, matcher, logits):
            t = super().__call__(matcher, logits)
            seen.append((t, reference_top_k(matcher, logits, self.k)))
            return t

    first = generate(RandomModel(GPT2, 9), Matcher(g, GPT2), max_tokens=300, sampler=Watching(4, seed=3))
    assert seen and all(t in best for t, best in seen)
    assert any(t != best[0] for t, best in seen)  # not greedy
    again = generate(RandomModel(GPT2, 9), Matcher(g, GPT2), max_tokens=300, sampler=TopK(4, seed=3))
    assert again.tokens == first.tokens
    with pytest.raises(ValueError, match="k must be >= 1"):
        TopK(0)


def test_eos_is_forced_where_nothing_else_may_come():
    v = Vocabulary.from_bytes([b"<eos>", b"a", b"b", b"ab"], eos_token_id=0)
    model, calls = counted(lambda ids: [0.0, 1.0, 0.5, 0.2])
    r = generate(model, Matcher(Grammar.from_regex("a(b|bb)?"), v), max_tokens=10)
    # "a" (not forced: "ab" may come instead), "b", "b" from the model (EOS may come
    # too), then EOS alone may come: forced
    assert r.tokens == [1, 2, 2, 0] and r.model_calls == 3 and r.forced_at == [3] and r.stop == "eos"
    r = generate(model, Matcher(Grammar.from_regex("ab"), v), max_tokens=10)
    assert r.tokens == [3, 0] and r.model_calls == 0 and r.forced_at == [0, 1] and r.text == "ab"
    no_eos = Vocabulary.from_bytes([b"a", b"b"])
    r = generate(model, Matcher(Grammar.from_regex("ab"), no_eos), max_tokens=10)
    assert r.tokens == [0, 1] and r.stop == "eos" and r.accepted and r.model_calls == 0


def test_a_dead_end_stops_generation():
    """A grammar whose continuation no token spells: nothing is allowed."""
    v = Vocabulary.from_bytes([b"<eos>", b"a", b"c"], eos_token_id=0)
    r = generate(lambda ids: [0.0, 1.0, 2.0], Matcher(Grammar.from_regex("a(b|bc)"), v), max_tokens=10)
    assert r.tokens == [1] and r.stop == "no_token" and not r.accepted


def test_a_sampler_that_breaks_the_rules_is_an_error():
    v = Vocabulary.from_bytes([b"<eos>", b"a", b"b"], eos_token_id=0)
    with pytest.raises(ValueError, match="chose token 2"):
        generate(lambda ids: [0.0] * 3, Matcher(Grammar.from_regex("a+"), v), max_tokens=3, sampler=lambda m, x: 2)


@settings(max_examples=examples(60))
@given(regexes, token_lists, st.integers(0, 2 ** 16), st.integers(0, 12))
def test_random_grammars_and_vocabularies(pattern, tokens, seed, max_tokens):
    """Whatever the grammar and vocabulary: texts valid (accepted when EOS ended them),
    max_tokens kept, and the format-aware model's output the same with and without
    fast-forward."""
    g, v = regex_grammar(pattern), vocabulary(tokens)
    runs = []
    for ff in (True, False):
        model = KnowsTheFormat(RandomModel(v, seed), g, v)
        runs.append(generate(model, Matcher(g, v), max_tokens=max_tokens, fast_forward=ff))
    for r in runs:
        assert len(r.tokens) <= max_tokens and prefix_ok(g, r.data)
        assert (r.stop == "eos") <= accepted(g, r.data)
        assert r.stop == "eos" or r.stop == "no_token" or len(r.tokens) == max_tokens
    assert runs[0].tokens == runs[1].tokens
    for r in runs:  # a dead end is found after a model call
        assert r.model_calls + r.saved_calls == len(r.tokens) + (r.stop == "no_token")


# -- the CLI ---------------------------------------------------------------------------------

def run_cli(argv, capsys):
    code = main(["generate"] + argv)
    out = capsys.readouterr().out
    fields = {}
    for line in out.splitlines():
        key, _, value = line.partition(" ")
        fields[key] = value.strip()
    return code, fields


def saved_calls(fields):
    tokens = fields["tokens"]
    return int(tokens.split("model calls saved: ")[1].split(" ")[0]), int(tokens.split(":")[0])


def test_cli_type(monkeypatch, capsys):
    """docs/examples/character.py, the type of docs/generation.md, as a module on the path."""
    monkeypatch.syspath_prepend(str(ROOT / "docs" / "examples"))
    monkeypatch.delitem(sys.modules, "character", raising=False)
    code, fields = run_cli(["--type", "character:Character", "--model", "random", "--seed", "1"], capsys)
    assert code == 0, fields
    module = sys.modules["character"]
    value = parse(module.Character, fields["text"])
    assert fields["value"] == repr(value) and isinstance(value.metadata.role, module.Class)
    saved, total = saved_calls(fields)
    assert 0 < saved < total
    again = run_cli(["--type", "character:Character", "--seed", "1"], capsys)[1]
    assert again["text"] == fields["text"]  # deterministic
    other = run_cli(["--type", "character:Character", "--seed", "2", "--top-k", "5"], capsys)[1]
    assert other["text"] != fields["text"] and "top-5 sampling" in other["model"]
    slow = run_cli(["--type", "character:Character", "--seed", "1", "--no-fast-forward"], capsys)[1]
    assert saved_calls(slow)[0] == 0


def test_cli_schema_and_lark(tmp_path, capsys):
    schema = tmp_path / "schema.json"
    schema.write_text(json.dumps(SCHEMA))
    code, fields = run_cli(["--schema", str(schema), "--seed", "4"], capsys)
    assert code == 0 and json.loads(fields["text"]) == eval(fields["value"])  # noqa: S307 -- our own repr of a dict
    assert saved_calls(fields)[0] > 0
    lark = tmp_path / "g.lark"
    lark.write_text(LARK)
    code, fields = run_cli(["--lark", str(lark), "--seed", "4"], capsys)
    assert code == 0 and accepted(Grammar.from_lark(LARK), fields["text"].encode()) and "value" not in fields


def test_cli_incomplete_text(tmp_path, capsys):
    schema = tmp_path / "schema.json"
    schema.write_text(json.dumps(SCHEMA))
    code, fields = run_cli(["--schema", str(schema), "--max-tokens", "3"], capsys)
    assert code == 1 and "incomplete" in fields["stopped"] and "value" not in fields
    assert saved_calls(fields)[1] == 3
