"""Decoding: choosing tokens under the grammar (docs/generation.md).

    top_k(matcher, logits, k)        the k best allowed tokens, by single-token checks (topk.py)
    reference_top_k(matcher, ...)    the same, by definition: the full mask's k best
    generate(model, matcher, ...)    generation with fast-forward; greedy and TopK samplers,
                                     RandomModel to try things out (generate.py)
    ONE_LINE_JSON                    the JSON layout for generation: Grammar.from_json_schema(
                                     schema, **ONE_LINE_JSON) (generate.py)
"""
from .generate import ONE_LINE_JSON, Generation, RandomModel, TopK, generate, greedy
from .topk import reference_top_k, top_k

__all__ = ["ONE_LINE_JSON", "Generation", "RandomModel", "TopK", "generate", "greedy", "reference_top_k", "top_k"]
