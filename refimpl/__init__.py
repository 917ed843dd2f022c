"""maskref's reference engine: grammar-constrained decoding, exactly, in pure Python.

    from refimpl import Grammar, Vocabulary, Matcher, open_matcher
    m = Matcher(Grammar.from_regex("[0-9]+"), Vocabulary.load("gpt2"))
    mask = m.mask()                 # the tokens allowed next
    m.consume(token_id)             # advance; False when not allowed
    m = open_matcher(grammar, vocab, backend="native")   # another backend, by name
    naive_mask(grammar, vocab, prefix)                   # the definition, token by token

The engine's names are these fourteen; two namespaces hold the rest of the user's API:

    refimpl.typed       grammars from Python types and the values back (docs/types.md)
    refimpl.decoding    top-k and generation with fast-forward (docs/generation.md)

Everything else is a module of the pipeline (docs/architecture.md): regex, grammar,
frontends, recognition, tokens, masks, decoding, serving, showing.
"""
from .errors import GrammarError, LimitError, MaskrefError, RegexError, SchemaError
from .frontends.grammar import Grammar
from .limits import Limits
from .masks.mask import Mask
from .masks.matcher import Matcher, MatcherLike
from .masks.oracle import naive_mask
from .serving.backends import open_matcher
from .tokens.vocab import Vocabulary, VocabularyError

__all__ = [
    "Grammar", "GrammarError", "LimitError", "Limits", "Mask", "MaskrefError", "Matcher", "MatcherLike", "RegexError",
    "SchemaError", "Vocabulary", "VocabularyError", "naive_mask", "open_matcher",
]
