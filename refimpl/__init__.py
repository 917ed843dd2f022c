"""maskref's reference engine: grammar-constrained decoding, exactly, in pure Python.

    from refimpl import Grammar, Vocabulary, Matcher, open_matcher
    m = Matcher(Grammar.from_regex("[0-9]+"), Vocabulary.load("gpt2"))
    mask = m.mask()                 # the tokens allowed next
    m.consume(token_id)             # advance; False when not allowed
    m = open_matcher(grammar, vocab, backend="native")   # another backend, by name
"""
from .backends import MatcherLike, open_matcher
from .errors import GrammarError, LimitError, MaskrefError, RegexError, SchemaError
from .grammar.grammar import Grammar
from .limits import DEFAULT_LIMITS, Limits
from .mask import Mask
from .matcher import Matcher
from .oracle import naive_mask
from .tokens.vocab import Vocabulary, VocabularyError

__all__ = [
    "DEFAULT_LIMITS", "Grammar", "GrammarError", "LimitError", "Limits", "Mask", "Matcher",
    "MatcherLike", "MaskrefError", "RegexError", "SchemaError", "Vocabulary", "VocabularyError", "naive_mask",
    "open_matcher",
]
