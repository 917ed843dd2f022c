"""Decoding: choosing tokens under the grammar (docs/generation.md).

    top_k(matcher, logits, k)        the k best allowed tokens, by single-token checks (topk.py)
    reference_top_k(matcher, ...)    the same, by definition: the full mask's k best
    generate(model, matcher, ...)    generation with fast-forward; greedy and TopK samplers,
                                     RandomModel to try things out (generate.py)
"""
from .generate import Generation, RandomModel, TopK, generate, greedy
from .topk import reference_top_k, top_k

__all__ = ["Generation", "RandomModel", "TopK", "generate", "greedy", "reference_top_k", "top_k"]
