"""maskref's reference engine: grammar-constrained decoding, exactly, in pure Python.

    from refimpl import Grammar, Vocabulary, Matcher, open_matcher
    m = Matcher(Grammar.from_regex("[0-9]+"), Vocabulary.load("gpt2"))
    mask = m.mask()                 # the tokens allowed next
    m.consume(token_id)             # advance; False when not allowed
    m = open_matcher(grammar, vocab, backend="native")   # another backend, by name
    g = Grammar.from_type(Character); value = parse(Character, text)   # typed (docs/types.md)
    m.top_k(logits, 64); generate(model, m, max_tokens=200)            # generation (docs/generation.md)
"""
from .serving.backends import MatcherLike, open_matcher
from .errors import GrammarError, LimitError, MaskrefError, RegexError, SchemaError
from .decoding.generate import Generation, RandomModel, TopK, generate, greedy
from .frontends.grammar import Grammar
from .frontends.typed import (
    Format, Length, MultipleOf, ParseError, Pattern, Range, UnsupportedTypeError, json_schema_of, to_json,
)
from .limits import DEFAULT_LIMITS, Limits
from .masks.mask import Mask
from .masks.matcher import Matcher
from .decoding.values import parse
from .masks.oracle import naive_mask
from .tokens.vocab import Vocabulary, VocabularyError

__all__ = [
    "DEFAULT_LIMITS", "Format", "Grammar", "GrammarError", "Length", "LimitError", "Limits", "Mask", "Matcher",
    "MatcherLike", "MaskrefError", "MultipleOf", "ParseError", "Pattern", "Range", "RegexError", "SchemaError",
    "UnsupportedTypeError", "Vocabulary", "VocabularyError", "json_schema_of", "naive_mask", "open_matcher", "parse",
    "to_json",
    "Generation", "RandomModel", "TopK", "generate", "greedy",  # generation with fast-forward (docs/generation.md)
]
