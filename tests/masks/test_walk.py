"""The trie walk (refimpl/masks/walk.py): what it keeps while it walks, and the subtrees it
takes whole.

The walk's masks equal the naive definition on every path (tests/masks/test_matcher.py);
here, the pieces that make it fast and could make it wrong: restart's answers kept per
entry of the (depth, top) stack, `restart` and `advance` asked only where a lexeme ends
and the next may begin, and subtrees taken whole where every character loops — tokens of
complete, cut-short and malformed UTF-8 against such states.
"""
from hypothesis import event, given, settings
from hypothesis import strategies as st

from refimpl import Grammar, Matcher, Vocabulary, open_matcher
from refimpl.masks import walk as walk_module
from tests.support.budget import examples
from tests.support.grammars import (
    cfg_grammar,
    cfg_grammars,
    cfg_tokens,
    check_path,
    lockstep,
    regex_grammar,
    regexes,
    token_lists,
    vocabulary,
)


def native_if_built():
    try:
        import accel
    except ImportError:
        return []
    return ["native"] if accel.available_backends().get("native") is None else []


def test_restarts_are_kept_per_entry_not_per_top():
    """The walk keeps restart()'s answers per entry of its (depth, top) stack. Here the
    lexer state inside C is the same after "a" and after "b" (both rows allow C alone),
    and so is the top; only the row below differs, and with it what follows C. Answers
    kept per (state, top) would let "acq" and "bcp" through."""
    g = Grammar.from_lark('start: "a" C "p" | "b" C "q"\nC: /c+/')
    v = Vocabulary.from_bytes([b"acp", b"acq", b"bcp", b"bcq", b"acc", b"bccq"])
    for backend in ["python"] + native_if_built():
        with open_matcher(g, v, backend=backend) as m:
            assert m.mask().allowed() == [0, 3, 4, 5], backend


def test_the_walk_restarts_once_per_state():
    """Where a lexeme ends, the walk asks `restart` once per lexer state (and entry), and
    `advance` only where the next lexeme may start with the byte: after `{"a": 1, ` on
    GPT-2, most of the ~400 nodes where the number or the whitespace ends are refused by
    the first byte of the next lexeme, without a call of `advance`."""
    g = Grammar.from_json_schema({"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "string"}}})
    m = Matcher(g, Vocabulary.load("gpt2"), slices=[])
    assert m.consume_bytes(b'{"a": 1, ')
    rec, calls = m.recognizer, {"advance": 0, "restart": 0}

    def counting(name, hook):
        def counted(*args):
            calls[name] += 1
            return hook(*args)
        return counted

    for name in calls:
        setattr(rec, name, counting(name, getattr(rec, name)))
    allowed = m.mask().allowed()
    assert allowed and all(m.vocab.tokens[t][:1] in b'" \t\n\r' for t in allowed)
    assert m.vocab.tokens.index(b'"') in allowed and m.stats["trie_nodes_walked"] > 300
    assert 0 < calls["restart"] <= 10 and 0 < calls["advance"] <= 10, calls


# Subtrees taken whole by their characters (tokens/subtrees.py): tokens of complete,
# cut-short and malformed UTF-8 against states where every character loops, or not.
UTF8_PIECES = [b"a", b"\"", b"\\", "é".encode(), "€".encode(), "😀".encode(), b"\xc3", b"\xe2\x82", b"\xf0\x9f",
               b"\x80", b"\xff", b"\xc0\x80", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b" "]
utf8_tokens = st.lists(st.lists(st.sampled_from(UTF8_PIECES), min_size=1, max_size=4).map(b"".join),
                       min_size=4, max_size=30)
CHARACTER_LOOPS = ['"[^"\\\\]*"', "[^a]*", "(?s:.)*", r"\w*", "[^\u20ac]*x", "[a-z\u00e0-\u00ff]+", "(?s:.){0,3}",
                   r"(?-u:\xc3)(?s:.)*"]  # a raw byte, then characters: the trie's path is not


@settings(max_examples=examples(150))
@given(st.sampled_from(CHARACTER_LOOPS), utf8_tokens, st.lists(st.integers(0, 1000), max_size=5))
def test_character_loops_equal_the_naive_mask(pattern, tokens, choices):
    check_path(regex_grammar(pattern), vocabulary(tokens), choices)


# Plans, learned refusals and all below a node at once (walk.py) engage at nodes with MANY
# children or more, which small random vocabularies rarely have: with MANY lowered to 2
# they engage at every node with siblings; and the start state's region is used from the
# second walk from a state on (after one that filled the table entries it reads, so that
# its frontier reaches below the root), paying or not (PAYS and PER_FRONTIER_NODE 0). Against the same walk
# with none of them (MANY beyond any fanout, no region), on two compilations of one grammar
# (each its own lexer and rows): the same masks and stats, and the same calls into the
# lexer and the parser, in the same order, step by step — what the C walker, which has
# none of them, relies on.

def with_many(many):
    """walk.walk with walk.MANY set to `many` for the call, and regions wherever a plan may
    be made (many < 256: from the second walk from a state, paying or not) or none."""
    settings = {"MANY": many, "REGION_AFTER": 2 if many < 256 else 10**9, "PAYS": 0, "PER_FRONTIER_NODE": 0}
    def run(*args):
        saved = {name: getattr(walk_module, name) for name in settings}
        for name, value in settings.items():
            setattr(walk_module, name, value)
        try:
            return walk_module.walk(*args)
        finally:
            for name, value in saved.items():
                setattr(walk_module, name, value)
    return run


def recorded(matcher):
    """The matcher, with every call of the walk into its lexer and parser logged."""
    rec, log = matcher.recognizer, []
    lexer = rec.lexer
    def logging(name, hook):
        def logged(*args):
            answer = hook(*args)
            log.append((name, args, answer))
            return answer
        return logged

    for owner, name in ((rec, "advance"), (rec, "restart"), (lexer, "fill"), (lexer, "loop")):
        setattr(owner, name, logging(name, getattr(owner, name)))
    return log


def plans_change_nothing(grammar_of, vocab, choices):
    planned = Matcher(grammar_of(), vocab, walker=with_many(2), slices=[])
    plain = Matcher(grammar_of(), vocab, walker=with_many(256), slices=[])
    logs = recorded(planned), recorded(plain)
    for _ in range(2):  # a second pass reads what the first learned
        for matcher in (planned, plain):
            matcher.reset()
        lockstep(planned, plain, vocab, choices, same_stats=True)
        assert logs[0] == logs[1]
    event("refusals learned" if walk_module.refusals(planned.recognizer.lexer) else "none learned")


@settings(max_examples=examples(150))
@given(cfg_grammars(), cfg_tokens, st.lists(st.integers(0, 1000), max_size=8))
def test_plans_change_no_mask_and_no_call_cfg(ir, tokens, choices):
    cfg_grammar(ir)  # skips an IR that does not compile
    plans_change_nothing(lambda: cfg_grammar(ir), vocabulary(tokens), choices)


@settings(max_examples=examples(150))
@given(regexes, token_lists, st.lists(st.integers(0, 1000), max_size=6))
def test_plans_change_no_mask_and_no_call_regex(pattern, tokens, choices):
    regex_grammar(pattern)
    plans_change_nothing(lambda: regex_grammar(pattern), vocabulary(tokens), choices)


@settings(max_examples=examples(60))
@given(st.sampled_from(CHARACTER_LOOPS), utf8_tokens, st.lists(st.integers(0, 1000), max_size=5))
def test_plans_equal_the_naive_mask(pattern, tokens, choices):
    """With plans at every node with siblings, the masks along a path are the naive ones."""
    saved, walk_module.MANY = walk_module.MANY, 2
    try:
        check_path(regex_grammar(pattern), vocabulary(tokens), choices)
    finally:
        walk_module.MANY = saved


def test_a_plan_leaves_out_the_refused_children():
    """After `{"a": 1, ` on GPT-2 the root's children are refused but for whitespace, `"`
    and `}`: the first mask learns so (per lexer state and restart's answer), and the next
    leaves them out — the same mask, the same nodes counted, and no call into the lexer
    or the parser but the restarts it asked before."""
    g = Grammar.from_json_schema({"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "string"}}})
    v = Vocabulary.load("gpt2")
    m = Matcher(g, v, slices=[])
    assert m.consume_bytes(b'{"a": 1, ')
    first, nodes = m.mask(), m.stats["trie_nodes_walked"]
    refused = walk_module.refusals(m.recognizer.lexer)
    x = v.trie.root_child[ord("x")]
    assert any(not keep[v.trie.byte[x]] for keep in refused.values())  # "x..." was learned refused
    log = recorded(m)
    assert m.mask() == first and m.stats["trie_nodes_walked"] == nodes > 300
    assert {name for name, _, _ in log} <= {"restart", "advance"} and len(log) <= 10, log


def test_a_region_is_kept_from_the_second_walk_where_it_pays():
    """Inside a JSON string on GPT-2 the first mask walks; the second builds the state's
    region — nearly every token, a frontier of the few nodes whose visit asks the parser —
    and gives the same mask, nodes counted and calls. Between keys, where most children
    of the root are refused by a restart's answer, a region would not pay: none is kept."""
    g = Grammar.from_json_schema({"type": "object", "properties": {"a": {"type": "string"}}})
    v = Vocabulary.load("gpt2")
    for prefix, pays in ((b'{"a": "xy', True), (b'{"a": "xy", ', False)):
        m = Matcher(g, v, slices=[])
        assert m.consume_bytes(prefix)
        lexer, key = m.recognizer.lexer, (v.trie, m.recognizer.state)
        first, nodes = m.mask(), m.stats["trie_nodes_walked"]
        assert key not in lexer.derived.get(("walk", "regions"), {})
        log = recorded(m)
        assert m.mask() == first and m.stats["trie_nodes_walked"] == nodes
        calls = list(log)
        region = lexer.derived[("walk", "regions")][key]
        assert m.mask() == first and m.stats["trie_nodes_walked"] == nodes and log[len(calls):] == calls
        if pays:
            assert region is not None and len(region.tokens) > 40000 and len(region.frontier) < 100
            assert bytes(region.flags) == bytes(a & b for a, b in zip(region.flags, first.flags))
        else:
            assert region is None


def test_a_region_whose_frontier_is_left_out_together_is_kept():
    """Inside a JSON string value on GPT-2, after the slicer applied the plain-text slices,
    the trie left to walk holds the tokens with a quote or an escape: its region takes ~300
    tokens at once, and its frontier is the ~50 children of the closing quotes, all visited
    from one lexer state (one restart, then `leave_out` of the rest). Weighed per parent
    state, it pays and is kept; weighed per node (16 x 50 against ~350) it would not be.
    The masks stay those of the walk with no slice, plan or region."""
    schema = {"type": "object", "properties": {"name": {"type": "string"}}}
    g, v = Grammar.from_json_schema({"type": "array", "items": schema}), Vocabulary.load("gpt2")
    m = open_matcher(g, v, backend="python", mask_cache=False)
    plain = Matcher(g, v, walker=with_many(256), slices=[])
    assert m.consume_bytes(b'[{"name": "n') and plain.consume_bytes(b'[{"name": "n')
    masks = [m.mask() for _ in range(3)]
    rec = m.recognizer
    plan = m.slicer.plan(m._slice_oracle.certain(rec.state))
    assert plan is not None and plan.applied > 0
    rest = max(plan.tries, key=len)
    region = rec.lexer.derived[("walk", "regions")][(rest, rec.state)]
    assert region is not None and len(set(region.parents)) == 1
    assert len(region.tokens) + region.skipped < walk_module.PAYS * len(region.frontier)  # the old rule
    assert len(region.tokens) + region.skipped >= walk_module.region_cost(region)
    assert masks[0] == masks[1] == masks[2] == plain.mask()


class StandIn:
    """A lexer and parser by table, where nothing need be consistent: transitions filled on
    demand from `moves`, each state's loop as given (it need not match them), restarts and
    advances as given; every call logged. (The walk must keep its calls with any lexer: the
    C walker is held to the Python walk's calls on such stand-ins, tests/accel/test_native.py.)"""

    def __init__(self, moves, ends, loops, answers):
        from array import array

        k = len(ends)
        self.table = array("i", [-1] * (256 * k))
        self.ends = bytearray(ends)
        self.moves, self.answers, self.log = moves, answers, []
        self.escapes = [2**257 - 1] + [2**257 - 1 & ~m for m in loops]
        self.loop_of = array("i", [-1] * k)
        self.derived = {}  # where the walk keeps what it learns

    def loop(self, s):
        self.log.append(("loop", s))
        self.loop_of[s] = s + 1 if self.escapes[s + 1] != self.escapes[0] else 0
        return self.loop_of[s]

    def fill(self, s, b):
        self.log.append(("fill", s, b))
        self.table[s << 8 | b] = t = self.moves.get((s, b), 0)
        return t

    def advance(self, s, top, b):
        self.log.append(("advance", s, top, b))
        return self.answers[(s + b + top) % len(self.answers)], top + 1

    def restart(self, s, top):
        self.log.append(("restart", s, top))
        return self.answers[(s * 7 + top) % len(self.answers)], top + 1


BYTES = b"abc\xc3\xa9"


@st.composite
def stand_ins(draw):
    """Mostly what a lexer does (a byte loops, dies or moves on; a state loops on the bytes
    that lead back to it), with a few of its loops' bytes flipped."""
    k = draw(st.integers(2, 4))
    moves = {(s, b): draw(st.sampled_from([0, s, s, (s + 1) % k or 1])) for s in range(1, k) for b in BYTES}
    loops = [sum(1 << b for b in BYTES if moves.get((s, b)) == s) for s in range(k)]
    for _ in range(draw(st.integers(0, 2))):
        s, b = draw(st.integers(0, k - 1)), draw(st.sampled_from(list(BYTES) + [256]))
        loops[s] ^= 1 << b
    ends = [0] + draw(st.lists(st.integers(0, 3), min_size=k - 1, max_size=k - 1))
    answers = draw(st.lists(st.integers(0, k - 1), min_size=1, max_size=4))
    return lambda: StandIn(moves, ends, loops, answers)


@settings(max_examples=examples(300))
@given(stand_ins(), st.lists(st.binary(min_size=1, max_size=4).map(lambda b: bytes(BYTES[x % 5] for x in b)),
                             min_size=1, max_size=40), st.integers(1, 3))
def test_plans_keep_the_calls_of_any_lexer(make, tokens, state):
    from refimpl.tokens.trie import TokenTrie

    trie = TokenTrie(Vocabulary.from_bytes(tokens))
    runs = []
    for walker in (with_many(2), with_many(256)):
        both = make()
        for start in (state, state + 1, state):  # the later walks read what the first learned
            allowed = bytearray(len(tokens))
            walked = walker(trie, both, both, start % len(both.ends) or 1, 1, allowed)
            runs.append((walker, walked, bytes(allowed), list(both.log)))
    assert [run[1:] for run in runs[:3]] == [run[1:] for run in runs[3:]]


def test_a_refusal_is_learned_only_where_no_subtree_could_be_taken_whole():
    """A stand-in whose state 1 reads every byte dead, yet claims to loop on a and b (a
    real lexer never does). The first walk refuses the leaf "a" before state 1's loop is
    asked: nothing is learned, for on a trie where "a" is an inner node, its visit asks the
    loop and takes "ab" whole — and so must the walk with plans."""
    from refimpl.tokens.trie import TokenTrie

    runs = []
    for walker in (with_many(2), with_many(256)):
        both = StandIn({}, [0, 0], [0, 1 << 97 | 1 << 98], [0])
        for tokens in ([b"a", b"b", b"c"], [b"ab", b"b", b"c"]):
            allowed = bytearray(3)
            runs.append((walker(TokenTrie(Vocabulary.from_bytes(tokens)), both, both, 1, 1, allowed), bytes(allowed)))
        runs.append(both.log)
    assert runs[0:3] == runs[3:6] and runs[1][1] == b"\x01\x00\x00" and ("loop", 1) in runs[2]
